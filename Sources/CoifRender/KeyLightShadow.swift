// KeyLightShadow: the hair's shadowing of itself, and the head's shadowing of the hair, from the key
// light. Method (say which and why): one depth map from the light, read as thickness. KeyLightShadowPass
// draws the head and the strands depth-only into a ShadowMap with an orthographic projection along the key
// light; the strand and under-layer shaders then take, for each point, the distance behind the first
// surface the light meets as the thickness of hair it crossed, and attenuate the key light by
// exp(−σ·thickness), σ the groom's extinction per millimetre, averaged over a 2×2 footprint. This is the
// depth-difference form of deep shadows that TressFX ships (AMD, 2013–2019) rather than Yuksel & Keyser's
// three-layer deep opacity maps: one depth-only draw of the strands instead of two (the second, additive
// opacity draw is the costly one on a software rasteriser), and for a groom whose density is nearly
// uniform the thickness already says what the layers would. Where it is wrong: a sparse groom (an afro's
// outer halo) shadows as if it were dense behind its first strand.
import CoifCore
import CoifGPU

/// The key light's view of one frame's head and hair: head space → the light's GL view space (looking
/// down −z toward the head) → clip space, an orthographic square that holds `bounds`.
public struct KeyLightView: Sendable, Equatable {
    public var headToLightView: Mat4
    public var lightViewToClip: Mat4
    /// Millimetres the clip-space depth range [−1, 1] spans (a depth-buffer unit of 1 is this many mm).
    public var depthRangeMm: Float

    /// - Parameters:
    ///   - keyDirectionView: toward the key light, GL view space (Lighting's convention).
    ///   - headToView: head space → GL view space for the frame (rotation, maybe a uniform scale, translation).
    ///   - center, radius: a sphere in head space holding everything that casts or receives the shadow.
    public init(keyDirectionView: Vec3, headToView: Mat4, center: Vec3, radius: Float) {
        // The view's rotation (scale removed) takes head directions to view directions; its transpose back.
        let c0 = Vec3(headToView.columns.0.x, headToView.columns.0.y, headToView.columns.0.z)
        let c1 = Vec3(headToView.columns.1.x, headToView.columns.1.y, headToView.columns.1.z)
        let c2 = Vec3(headToView.columns.2.x, headToView.columns.2.y, headToView.columns.2.z)
        let l = normalize(keyDirectionView)
        let toLight = normalize(Vec3(dot(c0, l), dot(c1, l), dot(c2, l)))
        // The light's basis in head space: z toward the light, x and y across it (head +y as up unless the
        // light is straight above).
        let up = abs(toLight.y) > 0.95 ? Vec3(0, 0, 1) : Vec3(0, 1, 0)
        let x = normalize(cross(up, toLight))
        let y = cross(toLight, x)
        let t = -Vec3(dot(x, center), dot(y, center), dot(toLight, center))
        headToLightView = Mat4(Vec4(x.x, y.x, toLight.x, 0), Vec4(x.y, y.y, toLight.y, 0),
                               Vec4(x.z, y.z, toLight.z, 0), Vec4(t.x, t.y, t.z, 1))
        let r = max(radius, 1)
        // Orthographic: x, y ∈ [−r, r] → [−1, 1]; view z ∈ [r, −r] (nearest the light first) → [−1, 1].
        lightViewToClip = Mat4(Vec4(1 / r, 0, 0, 0), Vec4(0, 1 / r, 0, 0), Vec4(0, 0, -1 / r, 0), Vec4(0, 0, 0, 1))
        depthRangeMm = 2 * r
    }

    /// Head space → the light's clip space.
    public var headToLightClip: Mat4 { lightViewToClip * headToLightView }
}

/// How the key light's shadow is drawn and read: the map's size and the groom's extinction.
public struct KeyLightShadow: Sendable, Equatable {
    /// The map's side (px). 512 over a ~300 mm head and hair: 0.6 mm a texel, finer than a clump.
    public var mapSizePx: Int
    /// Extinction of the hair volume per millimetre for light arriving straight (single scattering).
    /// 0.25/mm: about 4 mm of hair lets through a third of the light, 1 cm under a tenth, as
    /// Moon & Marschner's path-traced blond and brown grooms (2006) do at a clump's depth.
    public var extinctionPerMm: Float
    /// The multiply scattered light's extinction as a share of `extinctionPerMm`: fibres scatter mostly
    /// forward, so diffused light reaches deeper (Zinke et al. 2008's dual scattering has the same shape).
    public var multipleScatteringShare: Float
    /// Distance (mm) behind the first surface before shadowing starts: a strand does not shadow itself.
    public var biasMm: Float

    public init(mapSizePx: Int = 256, extinctionPerMm: Float = 0.25, multipleScatteringShare: Float = 0.35, biasMm: Float = 1) {
        self.mapSizePx = mapSizePx
        self.extinctionPerMm = extinctionPerMm
        self.multipleScatteringShare = multipleScatteringShare
        self.biasMm = biasMm
    }
}

/// The key light's depth map and the light view it was last drawn from (nil until a KeyLightShadowPass
/// ran): the passes that read it take the view from here, so the one pass that draws the map decides it.
public final class KeyLightShadowMap {
    public let map: ShadowMap
    public let settings: KeyLightShadow
    /// Set by KeyLightShadowPass; cleared by `invalidate()` at the start of every frame.
    public internal(set) var light: KeyLightView?

    init(context: GPUContext, settings: KeyLightShadow) throws {
        map = try ShadowMap(context: context, sizePx: settings.mapSizePx)
        self.settings = settings
    }

    /// Forgets the last frame's light: a frame without the shadow pass reads no shadow.
    func invalidate() { light = nil }
}

/// Draws the head and the strands from the key light into `shadow`'s map: the first surface the light
/// meets at every texel (depth) and the first hair surface (colour, for the hair's shadow on the skin). Runs before the passes that read it (under-layer, strands). The light's
/// square holds the sphere around the head and the groom.
public struct KeyLightShadowPass: RenderPass {
    public var shadow: KeyLightShadowMap
    public var occluder: OccluderGeometry
    public var strands: StrandGeometry
    public var widths: StrandWidths
    public init(shadow: KeyLightShadowMap, occluder: OccluderGeometry, strands: StrandGeometry, widths: StrandWidths) {
        self.shadow = shadow
        self.occluder = occluder
        self.strands = strands
        self.widths = widths
    }
    public var label: StaticString { "key-light shadow" }

    public func run(in context: RenderPassContext) throws {
        let low = pointwiseMin(occluder.low, strands.low), high = pointwiseMax(occluder.high, strands.high)
        let light = KeyLightView(keyDirectionView: context.frame.look.lighting.keyDirection, headToView: context.headToView,
                                 center: (low + high) * 0.5, radius: length(high - low) * 0.5)
        let map = shadow.map
        map.bindForDrawing()
        context.gpu.apply(.opaque)
        // Depth: the first surface of any kind; colour: the first hair surface (1: none).
        context.gpu.clear(color: Vec4(1, 0, 0, 1), depth: 1)
        // The head exactly where it is (no inset): its shadow on the hair starts at its surface.
        let head = context.programs.shadowHead
        head.program.use()
        head.matrices.set(headToView: light.headToLightView, viewToClip: light.lightViewToClip)
        head.insetMm.set(Float(0))
        head.castsHairShadow.set(Int32(0))
        occluder.mesh.draw()
        let p = context.programs.strandDepth
        p.program.use()
        p.matrices.set(headToView: light.headToLightView, viewToClip: light.lightViewToClip)
        p.ribbons.set(strands: strands, widths: widths, viewportPx: Vec2(Float(map.sizePx), Float(map.sizePx)))
        p.castsHairShadow.set(Int32(1))
        strands.ribbons.drawTriangles()
        shadow.light = light
    }
}

/// The uniforms a program reading the key light's map takes (Shaders/key_shadow.glsl), found once.
struct KeyShadowUniforms {
    let map, hairDepthMap, headToKeyLight, depthMm, biasMm, on, sigma: UniformLocation
    /// The texture units the map's depth and its first-hair depth are read from (0: strand points, 1: the
    /// resolve's samples).
    static let unit: Int32 = 2
    static let hairUnit: Int32 = 3

    init(_ program: ShaderProgram) {
        map = program.uniform("uKeyShadowMap")
        hairDepthMap = program.uniform("uKeyHairDepthMap")
        headToKeyLight = program.uniform("uHeadToKeyLight")
        depthMm = program.uniform("uKeyShadowDepthMm")
        biasMm = program.uniform("uKeyShadowBiasMm")
        on = program.uniform("uKeyShadowOn")
        sigma = program.uniform("uKeyShadowSigma")
    }

    /// Sets them from `shadow` (off when it is nil or no shadow pass ran this frame). Program in use.
    func set(_ shadow: KeyLightShadowMap?) {
        map.set(Self.unit)
        hairDepthMap.set(Self.hairUnit)
        guard let shadow, let light = shadow.light else {
            on.set(Int32(0))
            return
        }
        shadow.map.bind(unit: Self.unit)
        shadow.map.bindColor(unit: Self.hairUnit)
        on.set(Int32(1))
        headToKeyLight.set(light.headToLightClip)
        depthMm.set(light.depthRangeMm)
        biasMm.set(shadow.settings.biasMm)
        let sigma = shadow.settings.extinctionPerMm
        self.sigma.set(Vec2(sigma, sigma * shadow.settings.multipleScatteringShare))
    }
}

/// The hair's shadow on the skin: the head drawn where it is, in the photo's camera, into `target`, each
/// pixel the share of the skin's light left where the new hair stands between it and the key light (R; 1
/// off the head). The composite
/// multiplies the photo by it under the hair layer. Stills only; after the key light's pass.
public struct SkinShadowPass: RenderPass {
    public var target: RenderTarget
    public var occluder: OccluderGeometry
    public var shadow: KeyLightShadowMap
    public init(target: RenderTarget, occluder: OccluderGeometry, shadow: KeyLightShadowMap) {
        self.target = target
        self.occluder = occluder
        self.shadow = shadow
    }
    public var label: StaticString { "skin shadow" }

    public func run(in context: RenderPassContext) throws {
        let p = context.programs.skinShadow
        try context.beginDrawing(into: target, state: .opaque, program: p.program, matrices: p.matrices)
        // Off the head: all the light left (R 1), and A 0 (the head's own pixels write A 1: where the hair's
        // occlusion may fall, HairOcclusion).
        context.gpu.clear(color: Vec4(1, 0, 0, 0), depth: 1)
        p.keyShadow.set(shadow)
        occluder.mesh.draw()
    }
}
