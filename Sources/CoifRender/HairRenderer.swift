// HairRenderer: draws a fitted groom over a photo's camera into a premultiplied, linear hair layer. It owns
// the compiled programs, the multisampled render target, the two uniform blocks (shading, lighting) and
// the GPU timer, and runs a frame as a list of passes (RenderPass.swift): `render(_:frame:)` for any list,
// `draw(...)` for the standard one; `readBack(into:)` resolves and reads the frame. It issues GPU work only
// through CoifGPU (no GL, no EGL here) and knows nothing of photos or faces.
import CoifCore
import CoifGPU
import CoifGroom

/// The head occluder on the GPU, uploaded once per HeadModel.
public final class OccluderGeometry {
    let mesh: TriangleMesh
    /// GPU memory the occluder takes.
    public var gpuBytes: Int { mesh.byteCount }
    /// Positions and outward normals, kept to build groom under-layers from the same vertices.
    let interleaved: [Float]
    /// The head-space box of its vertices (for the key light's view).
    let low: Vec3, high: Vec3
    convenience init(context: GPUContext, head: HeadModel) {
        self.init(context: context, vertices: head.vertices, indices: head.indices)
    }

    init(context: GPUContext, vertices: [Vec3], indices: [UInt32]) {
        let normals = vertexNormals(vertices: vertices, indices: indices)
        var interleaved = [Float]()
        interleaved.reserveCapacity(vertices.count * 6)
        for (p, n) in zip(vertices, normals) { interleaved += [p.x, p.y, p.z, n.x, n.y, n.z] }
        self.interleaved = interleaved
        low = vertices.reduce(Vec3(repeating: .infinity), pointwiseMin)
        high = vertices.reduce(Vec3(repeating: -.infinity), pointwiseMax)
        mesh = TriangleMesh(context: context, interleaved: interleaved, indices: indices)
    }
}

/// A groom's under-layer on the GPU: the scalp triangles its roots cover with their edge's cover (see
/// CoifGroom's UnderLayer).
public final class ShellGeometry {
    let mesh: TriangleMesh
    /// GPU memory the under-layer takes (its own copy of the head's vertices plus its triangles).
    public var gpuBytes: Int { mesh.byteCount }
    /// The head-space box of the triangles' corners (+∞/−∞ when there are none).
    public let low: Vec3, high: Vec3
    init(context: GPUContext, occluder: OccluderGeometry, layer: UnderLayer) {
        let vertexCount = occluder.interleaved.count / 6
        var interleaved = [Float]()
        interleaved.reserveCapacity(vertexCount * 7)
        for v in 0..<vertexCount {
            interleaved += occluder.interleaved[(v * 6)..<(v * 6 + 6)]
            interleaved.append(v < layer.edgeCover.count ? layer.edgeCover[v] : 1)
        }
        mesh = TriangleMesh(context: context, interleaved: interleaved, indices: layer.triangles, withScalar: true)
        var low = Vec3(repeating: .infinity), high = Vec3(repeating: -.infinity)
        for index in layer.triangles {
            let at = Int(index) * 6
            let p = Vec3(occluder.interleaved[at], occluder.interleaved[at + 1], occluder.interleaved[at + 2])
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        self.low = low
        self.high = high
    }
}

/// Strands on the GPU: one data texture of points, uploaded once per StrandSet and reused across
/// re-renders (another colour, say).
public final class StrandGeometry {
    let points: DataTexture
    let ribbons: IndexedDraw
    public let pointsPerStrand: Int
    public let strandCount: Int
    /// The head-space box of the points (for the key light's view).
    let low: Vec3, high: Vec3
    public var segmentCount: Int { strandCount * (pointsPerStrand - 1) }
    /// GPU memory these strands take: the points texture and the ribbon index buffer.
    public var gpuBytes: Int { points.byteCount + ribbons.byteCount }

    /// The size (mm) of the patches of scalp whose strands share a clump tone: about a clump's width at
    /// the root, so the strands that leave a patch together run as one streak of their own tone.
    public static let clumpToneCellMm: Float = 4

    /// A strand's random number and its clump's tone as the one float its root carries in `w`
    /// (tone level 0…255 + random) / 256. The shader takes the tone from the integer part of |w|·256 and
    /// the random number from its fraction (16 bits of it survive: plenty for a dither and a share);
    /// w's sign bit marks a flyaway (even at w = 0: −0 keeps its sign).
    public static func packedRecord(random: Float, clumpTone: Float) -> Float {
        let level = min(max(Int(clumpTone * 256), 0), 255)
        return min((Float(level) + random) / 256, Float(1).nextDown)
    }

    /// - Parameter seed: gives each strand its random number (brightness variation, dither) and the
    ///   clump-tone field over the scalp.
    /// - Parameter coverWidthMm: the projected width each strand stands for, for how much hair covers each
    ///   point (HairCover); nil: none covers another (a test's few strands).
    init(context: GPUContext, strands: StrandSet, seed: UInt64, coverWidthMm: Float?) {
        pointsPerStrand = strands.pointsPerStrand
        strandCount = strands.strandCount
        // Filled through raw pointers: this runs for every still whose strands changed (hot path).
        let points = pointsPerStrand, count = strandCount
        let clumpTone = ValueNoise(seed: seed ^ 0xC1D4_7013_E5A2_9B6F)
        let toneCell = 1 / Self.clumpToneCellMm
        var low = Vec3(repeating: .infinity), high = Vec3(repeating: -.infinity)
        let cover = coverWidthMm.map { width in
            strands.positions.withUnsafeBufferPointer { HairCover.cover(positions: $0, pointsPerStrand: points, widthMm: width) }
        }
        let records = [Float](unsafeUninitializedCapacity: strands.positions.count * 4) { out, initialized in
            strands.positions.withUnsafeBufferPointer { positions in
                for strand in 0..<count {
                    var random = SeededRandom(seed: seed, stream: UInt64(strand))
                    let packed = Self.packedRecord(random: random.unitFloat(),
                                                   clumpTone: clumpTone(positions[strand * points] * toneCell))
                    // A flyaway carries its flag in the sign bit (w is never negative otherwise).
                    let value = strands.isFlyaway(strand) ? -packed : packed
                    for k in 0..<points {
                        let i = strand * points + k
                        let p = positions[i]
                        low = pointwiseMin(low, p)
                        high = pointwiseMax(high, p)
                        out[i * 4] = p.x
                        out[i * 4 + 1] = p.y
                        out[i * 4 + 2] = p.z
                        // The root's w is the strand's; each later point's, its cover.
                        out[i * 4 + 3] = k == 0 ? value : cover?[i] ?? 0
                    }
                }
            }
            initialized = strands.positions.count * 4
        }
        self.low = low
        self.high = high
        self.points = records.withUnsafeBufferPointer { DataTexture(context: context, records: $0) }
        // Two corners per point (2i left, 2i+1 right); two triangles per segment.
        let indexCount = count * (points - 1) * 6
        let indices = [UInt32](unsafeUninitializedCapacity: indexCount) { out, initialized in
            var o = 0
            for strand in 0..<count {
                for k in 0..<(points - 1) {
                    let a = UInt32((strand * points + k) * 2)
                    out[o] = a; out[o + 1] = a + 1; out[o + 2] = a + 2
                    out[o + 3] = a + 2; out[o + 4] = a + 1; out[o + 5] = a + 3
                    o += 6
                }
            }
            initialized = indexCount
        }
        ribbons = IndexedDraw(context: context, indices: indices)
    }
}

/// The hair layer: premultiplied linear RGBA floats, row 0 = the photo's top row.
public struct HairLayer: Sendable {
    public var width: Int
    public var height: Int
    public var rgba: [Float]

    public init(width: Int = 0, height: Int = 0) {
        self.width = width
        self.height = height
        rgba = [Float](repeating: 0, count: width * height * 4)
    }

    mutating func resize(width: Int, height: Int) {
        guard width != self.width || height != self.height else { return }
        self.width = width
        self.height = height
        rgba = [Float](repeating: 0, count: width * height * 4)
    }
}

/// Strand widths and what they stand for: each rendered strand is a bundle of real fibres.
public struct StrandWidths: Sendable, Equatable {
    public var rootMm: Float
    public var tipMm: Float
    /// A flyaway is drawn `tipMm × flyawayScale` wide its whole length: a loose end as the catalog draws a
    /// strand's tip, not the lock the level of detail widens the others into (a loose strand at 11× stood
    /// off the hair as a rope; at the catalog's root width, as a dark spike).
    public var flyawayScale: Float
    public init(rootMm: Float, tipMm: Float, flyawayScale: Float = 1) {
        self.rootMm = rootMm
        self.tipMm = tipMm
        self.flyawayScale = flyawayScale
    }

    /// `entry`'s widths with its locks widened `widthScale` times (LevelOfDetail.widthScale); its flyaways
    /// keep the catalog's tip width (narrowed with the rest when the scale is under 1).
    public init(style entry: StyleEntry, widthScale: Float) {
        self.init(rootMm: entry.rootWidthMm * widthScale, tipMm: entry.tipWidthMm * widthScale,
                  flyawayScale: 1 / max(widthScale, 1))
    }
}

/// Renders hair frames on one GPUContext. Keep one per process (it compiles the shaders); a frame is
/// `draw` (or `render`) then `readBack`. A frame builds no strings, arrays or dictionaries: uniform
/// locations are found at build time, the shading and lights are two std140 blocks written whole, the
/// standard pass list reuses its storage, and the layer's storage is reused. (Passes larger than an
/// existential's inline buffer, the shadow, under-layer and strand passes among them, are boxed: a few
/// small allocations a frame.)
public final class HairRenderer {
    public let context: GPUContext
    public let samples: Int32
    /// The multisampled target the standard passes draw into and `readBack` reads.
    public let target: RenderTarget
    /// The hair's shadow on the skin, drawn by a still's SkinShadowPass, read by `readSkinLight`.
    public let skinShadowTarget: RenderTarget
    /// Whether the last frame's list drew the skin's shadow.
    private var drewSkinShadow = false
    private let programs: HairPrograms
    private let shadingBlock: UniformBuffer<HairShadingBlock>
    private let lightingBlock: UniformBuffer<LightingBlock>
    /// The last frame's pass context, for the resolve `readBack` runs when the frame's list did not.
    private var lastPassContext: RenderPassContext?
    /// The standard list's storage, refilled by every `draw` (no array a frame).
    private var standardPassStorage: [any RenderPass] = []
    /// How far the occluder is pulled under the scalp so roots stay visible (mm).
    public var occluderInsetMm: Float = 1.5
    /// How far the under-layer sits above the scalp (mm): above the roots, below the strands' volume. A
    /// clipper cut's strands lie within 1–3 mm of the scalp: at 2.5 mm the layer hid most of them and a
    /// buzz-cut read as a smooth, one-tone skullcap; at 1 mm its strands show over the whole crown. Longer
    /// styles, whose strands stand farther out, look the same either way.
    public var shellOffsetMm: Float = 1
    /// Times each frame's passes where the driver's timer queries can be trusted; nil elsewhere (llvmpipe,
    /// or no GL_EXT_disjoint_timer_query). Set nil to turn timing off; a test may set
    /// `GPUTimer(context:trustSoftwareRenderer: true)` to exercise the plumbing on a software driver.
    public var gpuTimer: GPUTimer?
    /// Time every pass by the wall clock around a `glFinish` after it (and the resolve in `readBack`), into
    /// `lastPassMs`: what a benchmark uses where timer queries cannot be trusted (llvmpipe). Off for renders:
    /// the finishes stop the driver overlapping passes.
    public var finishesEachPass = false
    /// The last frame's passes and their wall milliseconds, when `finishesEachPass` is on.
    public private(set) var lastPassMs: [(label: StaticString, ms: Double)] = []

    /// Compiles the shaders (once per process: keep one renderer).
    /// - Parameter shaderSource: a shader file's text by name ("strand.vert"), nil when missing.
    public init(context: GPUContext, shaderSource: (String) -> String?) throws {
        self.context = context
        try context.makeCurrent()
        samples = min(4, max(1, context.maxSamples))
        // gl_SampleMask is core in GLSL ES 3.20; on older contexts coverage falls back to whole pixels.
        let sampleMask = context.version.contains("OpenGL ES 3.2")
        let occluderProgram = try ShaderProgram(context: context, vertexFile: "occluder.vert", fragmentFile: "occluder.frag", source: shaderSource)
        let strandProgram = try ShaderProgram(context: context, vertexFile: "strand.vert", fragmentFile: "strand.frag",
                                              defines: sampleMask ? ["COIF_SAMPLE_MASK 1"] : [], source: shaderSource)
        let shellProgram = try ShaderProgram(context: context, vertexFile: "shell.vert", fragmentFile: "shell.frag",
                                             defines: sampleMask ? ["COIF_SAMPLE_MASK 1"] : [], source: shaderSource)
        let resolveProgram = try ShaderProgram(context: context, vertexFile: "resolve.vert", fragmentFile: "resolve.frag", source: shaderSource)
        let strandDepthProgram = try ShaderProgram(context: context, vertexFile: "strand_depth.vert", fragmentFile: "shadow_caster.frag",
                                                   source: shaderSource)
        let shadowHeadProgram = try ShaderProgram(context: context, vertexFile: "occluder.vert", fragmentFile: "shadow_caster.frag",
                                                  source: shaderSource)
        let skinShadowProgram = try ShaderProgram(context: context, vertexFile: "skin_shadow.vert", fragmentFile: "skin_shadow.frag",
                                                  source: shaderSource)
        programs = HairPrograms(occluder: occluderProgram, shell: shellProgram, strand: strandProgram, strandDepth: strandDepthProgram,
                                shadowHead: shadowHeadProgram, skinShadow: skinShadowProgram)
        target = RenderTarget(context: context, samples: samples, resolveProgram: resolveProgram)
        skinShadowTarget = RenderTarget(context: context, samples: 1, resolveProgram: resolveProgram)
        shadingBlock = UniformBuffer(context: context)
        lightingBlock = UniformBuffer(context: context)
        standardPassStorage.reserveCapacity(8)
        gpuTimer = GPUTimer(context: context)
        keyLightShadow = try KeyLightShadowMap(context: context, settings: KeyLightShadow())
    }

    /// The key light's shadow map the standard passes draw and read; nil: no shadows (the hair lit as if
    /// nothing stood between it and the key light). `draw` sets it from its lighting's `keyShadow`.
    public private(set) var keyLightShadow: KeyLightShadowMap?

    /// Shadows from the key light with `settings` (a new map when the size changes), or none (nil).
    public func setKeyLightShadow(_ settings: KeyLightShadow?) throws {
        guard let settings else { keyLightShadow = nil; return }
        if settings == keyLightShadow?.settings { return }
        try context.makeCurrent()
        keyLightShadow = try KeyLightShadowMap(context: context, settings: settings)
    }

    /// Compiles the preview head program (once; later calls do nothing). Stills never need it.
    public func prepareHeadShading(shaderSource: (String) -> String?) throws {
        guard programs.head == nil else { return }
        try context.makeCurrent()
        programs.head = HairPrograms.Head(try ShaderProgram(context: context, vertexFile: "head.vert", fragmentFile: "head.frag",
                                                            source: shaderSource))
    }

    public func upload(head: HeadModel) -> OccluderGeometry { OccluderGeometry(context: context, head: head) }

    /// `coverWidthMm`: the projected width each strand stands for (HairCover), nil where no strand covers
    /// another.
    public func upload(strands: StrandSet, seed: UInt64, coverWidthMm: Float?) -> StrandGeometry {
        StrandGeometry(context: context, strands: strands, seed: seed, coverWidthMm: coverWidthMm)
    }

    public func upload(_ layer: UnderLayer, over occluder: OccluderGeometry) -> ShellGeometry {
        ShellGeometry(context: context, occluder: occluder, layer: layer)
    }

    // MARK: - Frames

    /// Runs `passes` in order as one frame: uploads the frame's look (two uniform blocks, bound for every
    /// pass), then each pass, checking for a GL error after each (the error names the pass). Times the
    /// passes when `gpuTimer` is set. Call `readBack(into:)` for the pixels.
    public func render(_ passes: [any RenderPass], frame: FrameDescription) throws {
        try context.makeCurrent()
        shadingBlock.update(HairShadingBlock(frame.look.shading))
        lightingBlock.update(LightingBlock(frame.look.lighting))
        shadingBlock.bind(index: UniformBinding.shading)
        lightingBlock.bind(index: UniformBinding.lighting)
        let passContext = RenderPassContext(gpu: context, frame: frame, programs: programs)
        lastPassContext = passContext
        keyLightShadow?.invalidate()
        drewSkinShadow = passes.contains { $0 is SkinShadowPass }
        gpuTimer?.beginFrame()
        lastPassMs.removeAll(keepingCapacity: true)
        if finishesEachPass { context.finish() }
        for pass in passes {
            try timed(pass.label) { try pass.run(in: passContext) }
            try context.checkError("rendering hair (\(pass.label) pass)")
        }
    }

    /// Runs one pass's GPU work between the GPU timer's marks and, with `finishesEachPass`, records its
    /// wall time to a `glFinish`.
    private func timed(_ label: StaticString, _ work: () throws -> Void) rethrows {
        let start = finishesEachPass ? monotonicMs() : 0
        gpuTimer?.begin()
        try work()
        gpuTimer?.end()
        if finishesEachPass {
            context.finish()
            lastPassMs.append((label, monotonicMs() - start))
        }
    }

    /// The passes of a still (`headAlbedoLinear` nil: the head as depth only, the photo shows it) or of a
    /// preview (the head shaded opaque in that colour), into `target`: the key light's shadow map (unless
    /// shadows are off), clear, head, under-layer (when `shell` is given), strands, and for a still with
    /// shadows the hair's shadow on the skin (into `skinShadowTarget`). Append or insert passes to extend a
    /// frame; run with `render`.
    public func standardPasses(occluder: OccluderGeometry, shell: ShellGeometry?, strands: StrandGeometry,
                               widths: StrandWidths, headAlbedoLinear: Vec3? = nil) -> [any RenderPass] {
        var passes: [any RenderPass] = []
        appendStandardPasses(to: &passes, occluder: occluder, shell: shell, strands: strands, widths: widths,
                             headAlbedoLinear: headAlbedoLinear)
        return passes
    }

    private func appendStandardPasses(to passes: inout [any RenderPass], occluder: OccluderGeometry, shell: ShellGeometry?,
                                      strands: StrandGeometry, widths: StrandWidths, headAlbedoLinear: Vec3?) {
        if let keyLightShadow {
            passes.append(KeyLightShadowPass(shadow: keyLightShadow, occluder: occluder, strands: strands, widths: widths))
        }
        passes.append(ClearPass(target: target))
        if let headAlbedoLinear {
            passes.append(HeadShadingPass(target: target, head: occluder, insetMm: occluderInsetMm, albedoLinear: headAlbedoLinear))
        } else {
            passes.append(OccluderDepthPass(target: target, occluder: occluder, insetMm: occluderInsetMm))
        }
        if let shell { passes.append(UnderLayerPass(target: target, shell: shell, offsetMm: shellOffsetMm, shadow: keyLightShadow)) }
        passes.append(StrandPass(target: target, strands: strands, widths: widths, shadow: keyLightShadow))
        if headAlbedoLinear == nil, let keyLightShadow {
            passes.append(SkinShadowPass(target: skinShadowTarget, occluder: occluder, shadow: keyLightShadow))
        }
    }

    /// Submits one frame of hair with the standard passes (`standardPasses`). Call `readBack(into:)` for
    /// the pixels.
    /// - Parameter headToCamera: head space (mm) → OpenCV camera space (mm), from the pose.
    /// - Parameter headAlbedoLinear: nil for a still; a preview's head colour (see `prepareHeadShading`).
    public func draw(camera: PinholeCamera, headToCamera: Mat4, occluder: OccluderGeometry, shell: ShellGeometry?,
                     strands: StrandGeometry, widths: StrandWidths, shading: HairShading, lighting: Lighting,
                     headAlbedoLinear: Vec3? = nil) throws {
        try setKeyLightShadow(lighting.keyShadow)
        standardPassStorage.removeAll(keepingCapacity: true)
        appendStandardPasses(to: &standardPassStorage, occluder: occluder, shell: shell, strands: strands, widths: widths,
                             headAlbedoLinear: headAlbedoLinear)
        // Emptied again afterwards (capacity kept) so the list holds no geometry alive between frames.
        defer { standardPassStorage.removeAll(keepingCapacity: true) }
        try render(standardPassStorage,
                   frame: FrameDescription(camera: camera, headToCamera: headToCamera,
                                           look: HairLook(shading: shading, lighting: lighting)))
    }

    /// `draw`, then `readBack` into `layer`, timed as the render (drawn and finished) and readback stages,
    /// with the passes' GPU time where the driver's timer queries can be trusted: one frame as a still, a
    /// preview and a batch item all draw it.
    public func drawAndReadBack(camera: PinholeCamera, headToCamera: Mat4, occluder: OccluderGeometry, shell: ShellGeometry?,
                                strands: StrandGeometry, widths: StrandWidths, shading: HairShading, lighting: Lighting,
                                headAlbedoLinear: Vec3? = nil, into layer: inout HairLayer, timing: inout FrameTiming) throws {
        if context.isSoftware {
            try SoftwareRasterMemory.check(segments: strands.segmentCount, pixels: camera.widthPx * camera.heightPx)
        }
        try timing.measure(.render) {
            try draw(camera: camera, headToCamera: headToCamera, occluder: occluder, shell: shell, strands: strands,
                     widths: widths, shading: shading, lighting: lighting, headAlbedoLinear: headAlbedoLinear)
            finish()
        }
        try timing.measure(.readback) { try readBack(into: &layer) }
        if let gpuMs = lastFrameGPUMs { timing.gpuRenderMs = (timing.gpuRenderMs ?? 0) + gpuMs }
    }

    /// Draws and reads back one frame with every program and state a real frame uses, so software drivers
    /// (llvmpipe compiles shader variants at first draw) do that work at start-up rather than in the first
    /// still or preview. Needs no head: it draws a stand-in triangle, so it can run while the head and the
    /// groom are still loading on another thread. `sizePx` also allocates the render target at the size
    /// the first real frame will have (16: any size, cheapest); `headShading` warms the preview's opaque
    /// head pass instead of the still's depth-only one (call `prepareHeadShading` first). Leaves no state
    /// behind that a later frame could see: every frame clears first.
    public func warmUp(sizePx: Int = 16, headShading: Bool = false) throws {
        let size = max(sizePx, 1)
        let c = Double(size - 1) / 2
        let camera = PinholeCamera(widthPx: size, heightPx: size, fx: Double(size), fy: Double(size), cx: c, cy: c)
        let standIn = OccluderGeometry(context: context, vertices: [Vec3(-80, -80, 0), Vec3(80, -80, 0), Vec3(0, 100, 0)],
                                       indices: [0, 1, 2])
        let strand = StrandSet(pointsPerStrand: 3, positions: [Vec3(0, 90, 60), Vec3(0, 60, 110), Vec3(0, 30, 120)])
        let strands = upload(strands: strand, seed: 0, coverWidthMm: nil)
        let shell = upload(UnderLayer(triangles: [0, 1, 2], edgeCover: [1, 1, 1]), over: standIn)
        let frontal = Mat4.rigid(rotationRowMajor: [1, 0, 0, 0, -1, 0, 0, 0, -1], translation: SIMD3(0, 0, 600))
        try draw(camera: camera, headToCamera: frontal, occluder: standIn, shell: shell, strands: strands,
                 widths: StrandWidths(rootMm: 1, tipMm: 1), shading: HairShading(color: HairColor(srgb: Vec3(0.5, 0.4, 0.3), name: "warm-up")),
                 lighting: Lighting(), headAlbedoLinear: headShading ? Vec3(0.5, 0.5, 0.5) : nil)
        var layer = HairLayer()
        try readBack(into: &layer)
    }

    /// Blocks until the submitted frame is drawn (how the render stage is timed on drivers whose timer
    /// queries cannot be trusted, llvmpipe among them).
    public func finish() { context.finish() }

    /// GPU milliseconds of the last read-back frame's passes (the resolve included), from timer queries;
    /// nil where they are off (llvmpipe, no GL_EXT_disjoint_timer_query) or the driver marked the frame
    /// disjoint. For `FrameTiming.gpuRenderMs`.
    public var lastFrameGPUMs: Double? { gpuTimer?.lastFrameMs }

    /// GPU memory of the render target at its current size (0 before the first draw).
    public var targetBytes: Int { target.byteCount }

    /// The frame's last step: resolves the samples (runs `ResolvePass` unless the frame's list did) and
    /// reads the frame into `layer` (resized to the frame's size; its storage is reused from frame to
    /// frame). Collects the frame's GPU timings, if any.
    public func readBack(into layer: inout HairLayer) throws {
        if target.needsResolve, let passContext = lastPassContext {
            let resolve = ResolvePass(target: target)
            try timed(resolve.label) { try resolve.run(in: passContext) }
        }
        layer.resize(width: target.width, height: target.height)
        layer.rgba.withUnsafeMutableBufferPointer { target.read(into: $0.baseAddress!) }
        gpuTimer?.collect()
        try context.checkError("reading hair back")
    }

    /// The last frame's hair shadow on the skin (R: the share of the skin's light left, 1 off the head; A: 1
    /// on the head, 0 off it),
    /// at the frame's size, into `layer`; false (and `layer` untouched) when the frame drew none.
    public func readSkinLight(into layer: inout HairLayer) throws -> Bool {
        guard drewSkinShadow else { return false }
        layer.resize(width: skinShadowTarget.width, height: skinShadowTarget.height)
        layer.rgba.withUnsafeMutableBufferPointer { skinShadowTarget.read(into: $0.baseAddress!) }
        try context.checkError("reading the skin's shadow back")
        return true
    }
}

/// Area-weighted vertex normals of a triangle mesh.
public func vertexNormals(vertices: [Vec3], indices: [UInt32]) -> [Vec3] {
    var normals = [Vec3](repeating: .zero, count: vertices.count)
    var i = 0
    while i + 2 < indices.count {
        let a = Int(indices[i]), b = Int(indices[i + 1]), c = Int(indices[i + 2])
        let n = cross(vertices[b] - vertices[a], vertices[c] - vertices[a])
        normals[a] += n
        normals[b] += n
        normals[c] += n
        i += 3
    }
    // Whatever the mesh's winding, make the normals point out of the head (away from its centroid).
    let centroid = vertices.reduce(Vec3.zero, +) / Float(max(vertices.count, 1))
    var outward: Float = 0
    for (p, n) in zip(vertices, normals) { outward += dot(n, p - centroid) }
    let sign: Float = outward < 0 ? -1 : 1
    return normals.map { normalize($0) * sign }
}
