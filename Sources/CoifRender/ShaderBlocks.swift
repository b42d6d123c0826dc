// ShaderBlocks: the std140 images of the two uniform blocks every hair program shares,
// Shaders/shading_block.glsl (HairShading, binding 0) and Shaders/lighting_block.glsl (Lighting, binding 1).
// Fields follow the GLSL members in order with std140's offsets written out (a vec3 is 12 bytes at a
// multiple of 16; a float may fill the 4 after it; the block rounds up to 16), padding explicit.
// RendererTests checks the offsets against what the linker reports. Written once a frame, whole.
import CoifCore
import CoifGPU

/// The blocks' binding points: the GLSL's `layout(binding = N)`.
enum UniformBinding {
    static let shading = 0
    static let lighting = 1
}

/// HairShading as std140 (`HairShadingBlock`, 96 bytes): the recipe's three pigments as σ_a, the
/// roughnesses mapped to the lobe widths (Chiang et al. 2016's mappings, HairFiber), the tilt in radians.
struct HairShadingBlock: BitwiseCopyable {
    var sigmaRoot: Std140Vec3         //  0
    var colorVariation: Float         // 12
    var sigmaTip: Std140Vec3          // 16
    var ombrePosition: Float          // 28
    var sigmaHighlight: Std140Vec3    // 32
    var ombreSoftness: Float          // 44
    var highlightFraction: Float      // 48
    var longitudinalWidth: Float      // 52
    var azimuthalScale: Float         // 56
    var cuticleTilt: Float            // 60
    var indexOfRefraction: Float      // 64
    var occlusionUnderHair: Float          // 68
    var tipFade: Float                // 72
    var clumpVariation: Float         // 76
    var rootFadeMm: Float             // 80
    var strandLightVariation: Float   // 84
    var alongLightVariation: Float    // 88
    var fibreVariation: Float         // 92

    init(_ shading: HairShading) {
        let recipe = shading.recipe
        sigmaRoot = Std140Vec3(recipe.base.sigmaA)
        colorVariation = shading.colorVariation
        sigmaTip = Std140Vec3(recipe.tip.sigmaA)
        ombrePosition = recipe.ombrePosition
        sigmaHighlight = Std140Vec3(recipe.highlight.sigmaA)
        ombreSoftness = recipe.ombreSoftness
        highlightFraction = recipe.highlightFraction
        longitudinalWidth = HairFiber.longitudinalWidth(roughness: shading.longitudinalRoughness)
        azimuthalScale = HairFiber.azimuthalScale(roughness: shading.azimuthalRoughness)
        cuticleTilt = shading.cuticleTiltDegrees * .pi / 180
        indexOfRefraction = shading.indexOfRefraction
        occlusionUnderHair = shading.occlusionUnderHair
        tipFade = shading.tipFade
        clumpVariation = shading.clumpVariation
        rootFadeMm = shading.rootFadeMm
        strandLightVariation = shading.strandLightVariation
        alongLightVariation = shading.alongLightVariation
        fibreVariation = shading.fibreVariation
    }

    /// The GLSL member each field feeds, with its std140 offset (for the layout test).
    static let memberOffsets: [(member: String, offset: Int?)] = [
        ("uSigmaRoot", MemoryLayout<Self>.offset(of: \.sigmaRoot)),
        ("uColorVariation", MemoryLayout<Self>.offset(of: \.colorVariation)),
        ("uSigmaTip", MemoryLayout<Self>.offset(of: \.sigmaTip)),
        ("uOmbrePosition", MemoryLayout<Self>.offset(of: \.ombrePosition)),
        ("uSigmaHighlight", MemoryLayout<Self>.offset(of: \.sigmaHighlight)),
        ("uOmbreSoftness", MemoryLayout<Self>.offset(of: \.ombreSoftness)),
        ("uHighlightFraction", MemoryLayout<Self>.offset(of: \.highlightFraction)),
        ("uLongitudinalWidth", MemoryLayout<Self>.offset(of: \.longitudinalWidth)),
        ("uAzimuthalScale", MemoryLayout<Self>.offset(of: \.azimuthalScale)),
        ("uCuticleTilt", MemoryLayout<Self>.offset(of: \.cuticleTilt)),
        ("uIndexOfRefraction", MemoryLayout<Self>.offset(of: \.indexOfRefraction)),
        ("uOcclusionUnderHair", MemoryLayout<Self>.offset(of: \.occlusionUnderHair)),
        ("uTipFade", MemoryLayout<Self>.offset(of: \.tipFade)),
        ("uClumpVariation", MemoryLayout<Self>.offset(of: \.clumpVariation)),
        ("uRootFadeMm", MemoryLayout<Self>.offset(of: \.rootFadeMm)),
        ("uStrandLightVariation", MemoryLayout<Self>.offset(of: \.strandLightVariation)),
        ("uAlongLightVariation", MemoryLayout<Self>.offset(of: \.alongLightVariation)),
        ("uFibreVariation", MemoryLayout<Self>.offset(of: \.fibreVariation)),
    ]
}

/// Lighting as std140 (`LightingBlock`, 80 bytes): directions normalised and radiances multiplied by the
/// exposure here, once a frame, exactly as the shaders have always received them.
struct LightingBlock: BitwiseCopyable {
    var keyDirection: Std140Vec3      //  0
    var padding0: Float = 0           // 12
    var keyRadiance: Std140Vec3       // 16
    var padding1: Float = 0           // 28
    var fillDirection: Std140Vec3     // 32
    var padding2: Float = 0           // 44
    var fillRadiance: Std140Vec3      // 48
    var padding3: Float = 0           // 60
    var ambientRadiance: Std140Vec3   // 64
    var hairSheen: Float              // 76: packs after the vec3, as std140 allows

    init(_ lighting: Lighting) {
        keyDirection = Std140Vec3(normalize(lighting.keyDirection))
        keyRadiance = Std140Vec3(lighting.keyRadiance * lighting.exposure)
        fillDirection = Std140Vec3(normalize(lighting.fillDirection))
        fillRadiance = Std140Vec3(lighting.fillRadiance * lighting.exposure)
        ambientRadiance = Std140Vec3(lighting.ambientRadiance * lighting.exposure)
        hairSheen = lighting.hairSheen
    }

    static let memberOffsets: [(member: String, offset: Int?)] = [
        ("uKeyDirection", MemoryLayout<Self>.offset(of: \.keyDirection)),
        ("uKeyRadiance", MemoryLayout<Self>.offset(of: \.keyRadiance)),
        ("uFillDirection", MemoryLayout<Self>.offset(of: \.fillDirection)),
        ("uFillRadiance", MemoryLayout<Self>.offset(of: \.fillRadiance)),
        ("uAmbientRadiance", MemoryLayout<Self>.offset(of: \.ambientRadiance)),
        ("uHairSheen", MemoryLayout<Self>.offset(of: \.hairSheen)),
    ]
}
