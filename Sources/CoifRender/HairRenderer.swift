// HairRenderer: draws a fitted groom over a photo's camera into a premultiplied, linear hair layer.
// Passes, in order: (1) head occluder, depth only; (2) the groom's under-layer over the scalp; (3) strands
// as ribbons, depth-tested against the head and each other, 4x MSAA; (4) resolve + readback. It never calls EGL and knows nothing of photos or faces.
import CEGL
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
    convenience init(context: GPUContext, head: HeadModel) {
        self.init(context: context, vertices: head.vertices, indices: head.indices)
    }

    init(context: GPUContext, vertices: [Vec3], indices: [UInt32]) {
        let normals = vertexNormals(vertices: vertices, indices: indices)
        var interleaved = [Float]()
        interleaved.reserveCapacity(vertices.count * 6)
        for (p, n) in zip(vertices, normals) { interleaved += [p.x, p.y, p.z, n.x, n.y, n.z] }
        self.interleaved = interleaved
        mesh = TriangleMesh(context: context, interleaved: interleaved, indices: indices)
    }
}

/// A groom's under-layer on the GPU: the scalp triangles its roots cover (see Groom.coveredScalpTriangles).
public final class ShellGeometry {
    let mesh: TriangleMesh
    /// GPU memory the under-layer takes (its own copy of the head's vertices plus its triangles).
    public var gpuBytes: Int { mesh.byteCount }
    /// The head-space box of the triangles' corners (+∞/−∞ when there are none).
    public let low: Vec3, high: Vec3
    init(context: GPUContext, occluder: OccluderGeometry, triangles: [UInt32]) {
        mesh = TriangleMesh(context: context, interleaved: occluder.interleaved, indices: triangles)
        var low = Vec3(repeating: .infinity), high = Vec3(repeating: -.infinity)
        for index in triangles {
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
    public var segmentCount: Int { strandCount * (pointsPerStrand - 1) }
    /// GPU memory these strands take: the points texture and the ribbon index buffer.
    public var gpuBytes: Int { points.byteCount + ribbons.byteCount }

    /// - Parameter seed: gives each strand its random number (brightness variation, dither).
    init(context: GPUContext, strands: StrandSet, seed: UInt64) {
        pointsPerStrand = strands.pointsPerStrand
        strandCount = strands.strandCount
        // Filled through raw pointers: this runs for every still whose strands changed (hot path).
        let points = pointsPerStrand, count = strandCount
        let records = [Float](unsafeUninitializedCapacity: strands.positions.count * 4) { out, initialized in
            strands.positions.withUnsafeBufferPointer { positions in
                for strand in 0..<count {
                    var random = SeededRandom(seed: seed, stream: UInt64(strand))
                    let value = random.unitFloat()
                    for k in 0..<points {
                        let i = strand * points + k
                        let p = positions[i]
                        out[i * 4] = p.x
                        out[i * 4 + 1] = p.y
                        out[i * 4 + 2] = p.z
                        out[i * 4 + 3] = value
                    }
                }
            }
            initialized = strands.positions.count * 4
        }
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
    public init(rootMm: Float, tipMm: Float) {
        self.rootMm = rootMm
        self.tipMm = tipMm
    }
}

public final class HairRenderer {
    public let context: GPUContext
    public let samples: Int32
    private let occluderProgram: ShaderProgram
    private let strandProgram: ShaderProgram
    private let shellProgram: ShaderProgram
    private let target: RenderTarget
    /// Opaque head shading for previews (Shaders/head.*), compiled on first use by `prepareHeadShading`.
    private var headProgram: ShaderProgram?
    /// How far the occluder is pulled under the scalp so roots stay visible (mm).
    public var occluderInsetMm: Float = 1.5
    /// How far the under-layer sits above the scalp (mm): above the roots, below the strands' volume.
    public var shellOffsetMm: Float = 2.5

    /// Compiles the shaders (once per process: keep one renderer).
    /// - Parameter shaderSource: a shader file's text by name ("strand.vert"), nil when missing.
    public init(context: GPUContext, shaderSource: (String) -> String?) throws {
        self.context = context
        try context.makeCurrent()
        samples = min(4, max(1, context.maxSamples))
        // gl_SampleMask is core in GLSL ES 3.20; on older contexts coverage falls back to whole pixels.
        let sampleMask = context.version.contains("OpenGL ES 3.2")
        occluderProgram = try ShaderProgram(context: context, vertexFile: "occluder.vert", fragmentFile: "occluder.frag", source: shaderSource)
        strandProgram = try ShaderProgram(context: context, vertexFile: "strand.vert", fragmentFile: "strand.frag",
                                          defines: sampleMask ? ["COIF_SAMPLE_MASK 1"] : [], source: shaderSource)
        shellProgram = try ShaderProgram(context: context, vertexFile: "shell.vert", fragmentFile: "shell.frag", source: shaderSource)
        let resolveProgram = try ShaderProgram(context: context, vertexFile: "resolve.vert", fragmentFile: "resolve.frag", source: shaderSource)
        target = RenderTarget(context: context, samples: samples, resolveProgram: resolveProgram)
    }

    /// Compiles the preview head program (once; later calls do nothing). Stills never need it.
    public func prepareHeadShading(shaderSource: (String) -> String?) throws {
        guard headProgram == nil else { return }
        try context.makeCurrent()
        headProgram = try ShaderProgram(context: context, vertexFile: "head.vert", fragmentFile: "head.frag", source: shaderSource)
    }

    public func upload(head: HeadModel) -> OccluderGeometry { OccluderGeometry(context: context, head: head) }

    public func upload(strands: StrandSet, seed: UInt64) -> StrandGeometry { StrandGeometry(context: context, strands: strands, seed: seed) }

    public func upload(shellOf occluder: OccluderGeometry, triangles: [UInt32]) -> ShellGeometry {
        ShellGeometry(context: context, occluder: occluder, triangles: triangles)
    }

    /// Submits one frame of hair: occluder depth, then strands. Call `readBack(into:)` for the pixels.
    /// - Parameter headToCamera: head space (mm) → OpenCV camera space (mm), from the pose.
    public func draw(camera: PinholeCamera, headToCamera: Mat4, occluder: OccluderGeometry, shell: ShellGeometry?,
                     strands: StrandGeometry, widths: StrandWidths, shading: HairShading, lighting: Lighting,
                     headAlbedoLinear: Vec3? = nil) throws {
        try context.makeCurrent()
        let width = camera.widthPx, height = camera.heightPx
        try target.bindForDrawing(width: width, height: height)
        let headToView = PinholeCamera.cameraToView * headToCamera
        let viewToClip = camera.viewToClip

        glDisable(GLenum(GL_BLEND))
        glDisable(GLenum(GL_CULL_FACE))
        glEnable(GLenum(GL_DEPTH_TEST))
        glDepthFunc(GLenum(GL_LESS))
        glDepthMask(GLboolean(GL_TRUE))
        glColorMask(GLboolean(GL_TRUE), GLboolean(GL_TRUE), GLboolean(GL_TRUE), GLboolean(GL_TRUE))
        glClearColor(0, 0, 0, 0)
        glClearDepthf(1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT) | GLbitfield(GL_DEPTH_BUFFER_BIT))

        if let headAlbedoLinear {
            // Pass 1 (preview, no photo): the head drawn opaque in colour, occluding as the depth pass does.
            guard let head = headProgram else {
                throw CoifError.internalError("HairRenderer.prepareHeadShading was not called before a preview draw")
            }
            head.use()
            setMatrix(head, "uHeadToView", headToView)
            setMatrix(head, "uViewToClip", viewToClip)
            glUniform1f(head.location("uInsetMm"), occluderInsetMm)
            setVector(head, "uAlbedoLinear", headAlbedoLinear)
            setLights(head, lighting)
            occluder.mesh.draw()
        } else {
        // Pass 1: the head occludes hair behind it; colour writes off.
        glColorMask(GLboolean(GL_FALSE), GLboolean(GL_FALSE), GLboolean(GL_FALSE), GLboolean(GL_FALSE))
        occluderProgram.use()
        setMatrix(occluderProgram, "uHeadToView", headToView)
        setMatrix(occluderProgram, "uViewToClip", viewToClip)
        glUniform1f(occluderProgram.location("uInsetMm"), occluderInsetMm)
        occluder.mesh.draw()
        glColorMask(GLboolean(GL_TRUE), GLboolean(GL_TRUE), GLboolean(GL_TRUE), GLboolean(GL_TRUE))
        }

        // Pass 2: the under-layer, so gaps between strands show hair, not the photo.
        if let shell {
            shellProgram.use()
            setMatrix(shellProgram, "uHeadToView", headToView)
            setMatrix(shellProgram, "uViewToClip", viewToClip)
            glUniform1f(shellProgram.location("uOffsetMm"), shellOffsetMm)
            setVector(shellProgram, "uAlbedoLinear", shading.albedoLinear)
            glUniform1f(shellProgram.location("uDepthOcclusion"), 1 - shading.rootOcclusion)
            setLights(shellProgram, lighting)
            shell.mesh.draw()
        }

        // Pass 3: strands.
        let program = strandProgram
        program.use()
        strands.points.bind(unit: 0)
        glUniform1i(program.location("uPoints"), 0)
        glUniform1i(program.location("uPointsPerStrand"), GLint(strands.pointsPerStrand))
        setMatrix(program, "uHeadToView", headToView)
        setMatrix(program, "uViewToClip", viewToClip)
        glUniform2f(program.location("uViewportPx"), Float(width), Float(height))
        glUniform2i(program.location("uPixelOrigin"), GLint(camera.originPx.x), GLint(camera.originPx.y))
        glUniform1f(program.location("uRootWidthMm"), widths.rootMm)
        glUniform1f(program.location("uTipWidthMm"), widths.tipMm)
        setVector(program, "uAlbedoLinear", shading.albedoLinear)
        setVector(program, "uPrimaryTint", shading.primaryTint)
        glUniform1f(program.location("uPrimaryShift"), shading.primaryShift)
        glUniform1f(program.location("uSecondaryShift"), shading.secondaryShift)
        glUniform1f(program.location("uPrimaryExponent"), shading.primaryExponent)
        glUniform1f(program.location("uSecondaryExponent"), shading.secondaryExponent)
        glUniform1f(program.location("uSpecularStrength"), shading.specularStrength)
        glUniform1f(program.location("uColorVariation"), shading.colorVariation)
        glUniform1f(program.location("uRootOcclusion"), shading.rootOcclusion)
        glUniform1f(program.location("uTipFade"), shading.tipFade)
        setLights(program, lighting)
        glUniform1i(program.location("uSamples"), GLint(samples))
        strands.ribbons.drawTriangles()

        let error = glGetError()
        if error != GLenum(GL_NO_ERROR) {
            throw CoifError.internalError("OpenGL error 0x\(String(error, radix: 16)) while rendering hair")
        }
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
        let strands = upload(strands: strand, seed: 0)
        let shell = upload(shellOf: standIn, triangles: [0, 1, 2])
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

    /// GPU memory of the render target at its current size (0 before the first draw).
    public var targetBytes: Int { target.byteCount }

    /// Pass 4: resolves the samples and reads the last drawn frame into `layer` (resized to the frame's
    /// size; its storage is reused from frame to frame).
    public func readBack(into layer: inout HairLayer) throws {
        layer.resize(width: target.width, height: target.height)
        layer.rgba.withUnsafeMutableBufferPointer { target.resolveAndRead(into: $0.baseAddress!) }
        let error = glGetError()
        if error != GLenum(GL_NO_ERROR) {
            throw CoifError.internalError("OpenGL error 0x\(String(error, radix: 16)) while reading hair back")
        }
    }

    private func setMatrix(_ program: ShaderProgram, _ name: String, _ m: Mat4) {
        // The four SIMD4<Float> columns are 64 contiguous bytes, column-major: no array per call.
        withUnsafeBytes(of: m.columns) { raw in
            glUniformMatrix4fv(program.location(name), 1, GLboolean(GL_FALSE), raw.baseAddress!.assumingMemoryBound(to: GLfloat.self))
        }
    }

    private func setLights(_ program: ShaderProgram, _ lighting: Lighting) {
        setVector(program, "uKeyDirection", normalize(lighting.keyDirection))
        setVector(program, "uKeyRadiance", lighting.keyRadiance * lighting.exposure)
        setVector(program, "uFillDirection", normalize(lighting.fillDirection))
        setVector(program, "uFillRadiance", lighting.fillRadiance * lighting.exposure)
        setVector(program, "uAmbientRadiance", lighting.ambientRadiance * lighting.exposure)
    }

    private func setVector(_ program: ShaderProgram, _ name: String, _ v: Vec3) {
        glUniform3f(program.location(name), v.x, v.y, v.z)
    }
}

/// Area-weighted vertex normals of a triangle mesh.
func vertexNormals(vertices: [Vec3], indices: [UInt32]) -> [Vec3] {
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
