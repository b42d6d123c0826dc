// RenderPass: one step of a hair frame as a value (what it draws, from which inputs, into which target,
// under which pipeline state) and FrameDescription, what every pass of one frame shares (camera, pose,
// look). HairRenderer.render(_:frame:) runs a list of passes in order; `HairRenderer.standardPasses` builds
// the list a still or a preview draws:
//
//     KeyLightShadowPass? → ClearPass → OccluderDepthPass (still) or HeadShadingPass (preview)
//     → UnderLayerPass? → StrandPass → SkinShadowPass? (still) → ResolvePass (run by readBack(into:)
//     when the list did not)
//
// A new pass is a new type conforming to RenderPass,
// inserted into or appended to that list: no draw function changes. Passes issue GPU work only through
// CoifGPU (programs, uniform locations, PipelineState, meshes); this file never calls GL or EGL.
import CoifCore
import CoifGPU

/// One step of a frame. A pass binds its own target, applies its own `PipelineState` and uses its own
/// program: it relies on no state left by the pass before it (except the target's contents, which is
/// the point). It is a description, cheap to build every frame; it owns no GPU objects.
public protocol RenderPass {
    /// A short name for errors and timings ("strands").
    var label: StaticString { get }
    /// Issues the pass's GPU work on `context`'s GPU (current when called). Throws only for a missing
    /// prerequisite; GL errors are checked by the renderer after each pass.
    func run(in context: RenderPassContext) throws
}

/// What every pass of one frame shares: the photo's (or preview's) camera, the head's pose in it, and the
/// look the hair is shaded with (uploaded once a frame as two uniform blocks, bound before any pass runs).
public struct FrameDescription: Sendable {
    public var camera: PinholeCamera
    /// Head space (mm) → OpenCV camera space (mm), from the pose.
    public var headToCamera: Mat4
    public var look: HairLook

    public init(camera: PinholeCamera, headToCamera: Mat4, look: HairLook) {
        self.camera = camera
        self.headToCamera = headToCamera
        self.look = look
    }
}

/// What a pass may use while it runs: the GPU, the frame and its matrices (computed once a frame), and
/// (inside CoifRender) the renderer's compiled programs.
public struct RenderPassContext {
    public let gpu: GPUContext
    public let frame: FrameDescription
    /// Head space (mm) → GL view space (camera looks down −z).
    public let headToView: Mat4
    /// GL view space → clip space, from the frame's camera intrinsics.
    public let viewToClip: Mat4
    let programs: HairPrograms

    init(gpu: GPUContext, frame: FrameDescription, programs: HairPrograms) {
        self.gpu = gpu
        self.frame = frame
        headToView = PinholeCamera.cameraToView * frame.headToCamera
        viewToClip = frame.camera.viewToClip
        self.programs = programs
    }

    /// Binds `target` for drawing at the frame's size (allocating it on the first frame of a new size).
    public func bind(_ target: RenderTarget) throws {
        try target.bindForDrawing(width: frame.camera.widthPx, height: frame.camera.heightPx)
    }

    /// The start every pass that draws head-space geometry shares: binds `target`, applies `state`, uses
    /// `program` and sets its two matrices to the frame's.
    func beginDrawing(into target: RenderTarget, state: PipelineState, program: ShaderProgram,
                      matrices: HeadSpaceMatrices) throws {
        try bind(target)
        gpu.apply(state)
        program.use()
        matrices.set(headToView: headToView, viewToClip: viewToClip)
    }
}

// MARK: - The standard passes

/// Clears the target to transparent black (premultiplied: no hair) and the far depth. First in a frame:
/// no pixel of an earlier frame, nor uninitialised memory, can reach the layer.
public struct ClearPass: RenderPass {
    public var target: RenderTarget
    public init(target: RenderTarget) { self.target = target }
    public var label: StaticString { "clear" }

    public func run(in context: RenderPassContext) throws {
        try context.bind(target)
        context.gpu.apply(.opaque)
        context.gpu.clear(color: Vec4(0, 0, 0, 0), depth: 1)
    }
}

/// The head as depth only (colour writes off), pulled `insetMm` under the scalp so roots stay visible:
/// hair behind the head fails the depth test. The still's first drawing pass (the photo shows the head).
public struct OccluderDepthPass: RenderPass {
    public var target: RenderTarget
    public var occluder: OccluderGeometry
    /// How far the surface is pulled in along its normals (mm).
    public var insetMm: Float
    public init(target: RenderTarget, occluder: OccluderGeometry, insetMm: Float) {
        self.target = target
        self.occluder = occluder
        self.insetMm = insetMm
    }
    public var label: StaticString { "occluder depth" }

    public func run(in context: RenderPassContext) throws {
        let p = context.programs.occluder
        try context.beginDrawing(into: target, state: .depthOnly, program: p.program, matrices: p.matrices)
        p.insetMm.set(insetMm)
        occluder.mesh.draw()
    }
}

/// Previews (no photo): the head drawn opaque in `albedoLinear` under the frame's lights, occluding as the
/// depth pass does. Needs `HairRenderer.prepareHeadShading` first.
public struct HeadShadingPass: RenderPass {
    public var target: RenderTarget
    public var head: OccluderGeometry
    public var insetMm: Float
    /// The head's colour, linear RGB.
    public var albedoLinear: Vec3
    public init(target: RenderTarget, head: OccluderGeometry, insetMm: Float, albedoLinear: Vec3) {
        self.target = target
        self.head = head
        self.insetMm = insetMm
        self.albedoLinear = albedoLinear
    }
    public var label: StaticString { "head shading" }

    public func run(in context: RenderPassContext) throws {
        guard let p = context.programs.head else {
            throw CoifError.internalError("HairRenderer.prepareHeadShading was not called before a preview draw")
        }
        try context.beginDrawing(into: target, state: .opaque, program: p.program, matrices: p.matrices)
        p.insetMm.set(insetMm)
        p.albedoLinear.set(albedoLinear)
        head.mesh.draw()
    }
}

/// The groom's under-layer: the scalp it covers, pushed `offsetMm` out, shaded as hair deep in the volume,
/// so gaps between strands show hair, not the photo.
public struct UnderLayerPass: RenderPass {
    public var target: RenderTarget
    public var shell: ShellGeometry
    /// How far above the scalp it sits (mm): above the roots, below the strands' volume.
    public var offsetMm: Float
    /// The key light's map, when this frame drew one: the hair above darkens the key light here.
    public var shadow: KeyLightShadowMap?
    public init(target: RenderTarget, shell: ShellGeometry, offsetMm: Float, shadow: KeyLightShadowMap? = nil) {
        self.target = target
        self.shell = shell
        self.offsetMm = offsetMm
        self.shadow = shadow
    }
    public var label: StaticString { "under-layer" }

    public func run(in context: RenderPassContext) throws {
        let p = context.programs.shell
        try context.beginDrawing(into: target, state: .opaque, program: p.program, matrices: p.matrices)
        p.offsetMm.set(offsetMm)
        let camera = context.frame.camera
        p.pixelOrigin.set(SIMD2<Int32>(Int32(camera.originPx.x), Int32(camera.originPx.y)))
        p.samples.set(target.samples)
        p.keyShadow.set(shadow)
        shell.mesh.draw()
    }
}

/// The strands as camera-facing ribbons, depth-tested against the head and each other; sub-pixel width
/// becomes sample coverage.
public struct StrandPass: RenderPass {
    public var target: RenderTarget
    public var strands: StrandGeometry
    public var widths: StrandWidths
    /// The key light's map, when this frame drew one: the key light reaches each point through the hair
    /// (and head) between.
    public var shadow: KeyLightShadowMap?
    public init(target: RenderTarget, strands: StrandGeometry, widths: StrandWidths, shadow: KeyLightShadowMap? = nil) {
        self.target = target
        self.strands = strands
        self.widths = widths
        self.shadow = shadow
    }
    public var label: StaticString { "strands" }

    public func run(in context: RenderPassContext) throws {
        let p = context.programs.strand
        let camera = context.frame.camera
        try context.beginDrawing(into: target, state: .opaque, program: p.program, matrices: p.matrices)
        p.ribbons.set(strands: strands, widths: widths, viewportPx: Vec2(Float(camera.widthPx), Float(camera.heightPx)))
        p.pixelOrigin.set(SIMD2<Int32>(Int32(camera.originPx.x), Int32(camera.originPx.y)))
        p.samples.set(target.samples)
        p.keyShadow.set(shadow)
        strands.ribbons.drawTriangles()
    }
}

/// Averages the target's samples into its single-sample buffer, ready for `HairRenderer.readBack`. A
/// frame's list may end with it; otherwise readBack runs it.
public struct ResolvePass: RenderPass {
    public var target: RenderTarget
    public init(target: RenderTarget) { self.target = target }
    public var label: StaticString { "resolve" }

    public func run(in context: RenderPassContext) throws {
        target.resolve()
    }
}

// MARK: - Programs

/// The two matrices every program drawing head-space geometry takes (`uHeadToView`, `uViewToClip`), set
/// by `RenderPassContext.beginDrawing`.
struct HeadSpaceMatrices {
    let headToView, viewToClip: UniformLocation
    init(_ program: ShaderProgram) {
        headToView = program.uniform("uHeadToView")
        viewToClip = program.uniform("uViewToClip")
    }

    /// Sets both (the program in use).
    func set(headToView: Mat4, viewToClip: Mat4) {
        self.headToView.set(headToView)
        self.viewToClip.set(viewToClip)
    }
}

/// The uniforms of Shaders/strand_ribbon.glsl, which strand.vert and strand_depth.vert share: the points,
/// their count a strand, the viewport and the widths.
struct RibbonUniforms {
    let points, pointsPerStrand, viewportPx, rootWidthMm, tipWidthMm, flyawayWidthScale: UniformLocation
    init(_ program: ShaderProgram) {
        points = program.uniform("uPoints")
        pointsPerStrand = program.uniform("uPointsPerStrand")
        viewportPx = program.uniform("uViewportPx")
        rootWidthMm = program.uniform("uRootWidthMm")
        tipWidthMm = program.uniform("uTipWidthMm")
        flyawayWidthScale = program.uniform("uFlyawayWidthScale")
    }

    /// Binds `strands`' points to texture unit 0 and sets the rest (the program in use).
    func set(strands: StrandGeometry, widths: StrandWidths, viewportPx size: Vec2) {
        strands.points.bind(unit: 0)
        points.set(Int32(0))
        pointsPerStrand.set(Int32(strands.pointsPerStrand))
        viewportPx.set(size)
        rootWidthMm.set(widths.rootMm)
        tipWidthMm.set(widths.tipMm)
        flyawayWidthScale.set(widths.flyawayScale)
    }
}

/// The renderer's compiled programs with their plain uniforms' locations, found once at build time.
/// The shading and lighting values come from the two uniform blocks, bound once a frame.
final class HairPrograms {
    struct Occluder {
        let program: ShaderProgram
        let matrices: HeadSpaceMatrices
        let insetMm: UniformLocation
        init(_ program: ShaderProgram) {
            self.program = program
            matrices = HeadSpaceMatrices(program)
            insetMm = program.uniform("uInsetMm")
        }
    }

    struct Head {
        let program: ShaderProgram
        let matrices: HeadSpaceMatrices
        let insetMm, albedoLinear: UniformLocation
        init(_ program: ShaderProgram) {
            self.program = program
            matrices = HeadSpaceMatrices(program)
            insetMm = program.uniform("uInsetMm")
            albedoLinear = program.uniform("uAlbedoLinear")
        }
    }

    struct Shell {
        let program: ShaderProgram
        let matrices: HeadSpaceMatrices
        let offsetMm: UniformLocation
        let pixelOrigin, samples: UniformLocation
        let keyShadow: KeyShadowUniforms
        init(_ program: ShaderProgram) {
            self.program = program
            matrices = HeadSpaceMatrices(program)
            offsetMm = program.uniform("uOffsetMm")
            pixelOrigin = program.uniform("uPixelOrigin")
            samples = program.uniform("uSamples")
            keyShadow = KeyShadowUniforms(program)
        }
    }

    struct Strand {
        let program: ShaderProgram
        let matrices: HeadSpaceMatrices
        let ribbons: RibbonUniforms
        let pixelOrigin, samples: UniformLocation
        let keyShadow: KeyShadowUniforms
        init(_ program: ShaderProgram) {
            self.program = program
            matrices = HeadSpaceMatrices(program)
            ribbons = RibbonUniforms(program)
            pixelOrigin = program.uniform("uPixelOrigin")
            samples = program.uniform("uSamples")
            keyShadow = KeyShadowUniforms(program)
        }
    }

    /// Strands seen from the key light (strand_depth.vert + shadow_caster.frag).
    struct StrandDepth {
        let program: ShaderProgram
        let matrices: HeadSpaceMatrices
        let ribbons: RibbonUniforms
        let castsHairShadow: UniformLocation
        init(_ program: ShaderProgram) {
            self.program = program
            matrices = HeadSpaceMatrices(program)
            ribbons = RibbonUniforms(program)
            castsHairShadow = program.uniform("uCastsHairShadow")
        }
    }

    /// The head seen from the key light (occluder.vert + shadow_caster.frag).
    struct ShadowHead {
        let program: ShaderProgram
        let matrices: HeadSpaceMatrices
        let insetMm, castsHairShadow: UniformLocation
        init(_ program: ShaderProgram) {
            self.program = program
            matrices = HeadSpaceMatrices(program)
            insetMm = program.uniform("uInsetMm")
            castsHairShadow = program.uniform("uCastsHairShadow")
        }
    }

    /// The hair's shadow on the skin (skin_shadow.vert/.frag).
    struct SkinShadow {
        let program: ShaderProgram
        let matrices: HeadSpaceMatrices
        let keyShadow: KeyShadowUniforms
        init(_ program: ShaderProgram) {
            self.program = program
            matrices = HeadSpaceMatrices(program)
            keyShadow = KeyShadowUniforms(program)
        }
    }

    let occluder: Occluder
    let shell: Shell
    let strand: Strand
    let strandDepth: StrandDepth
    let shadowHead: ShadowHead
    let skinShadow: SkinShadow
    /// Compiled on first use (previews only).
    var head: Head?

    init(occluder: ShaderProgram, shell: ShaderProgram, strand: ShaderProgram, strandDepth: ShaderProgram,
         shadowHead: ShaderProgram, skinShadow: ShaderProgram) {
        self.occluder = Occluder(occluder)
        self.shell = Shell(shell)
        self.strand = Strand(strand)
        self.strandDepth = StrandDepth(strandDepth)
        self.shadowHead = ShadowHead(shadowHead)
        self.skinShadow = SkinShadow(skinShadow)
    }
}
