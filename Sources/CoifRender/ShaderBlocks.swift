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

/// HairShading as std140 (`HairShadingBlock`, 64 bytes). The same floats HairShading holds, untouched.
struct HairShadingBlock: BitwiseCopyable {
    var albedoLinear: Std140Vec3      //  0
    var colorVariation: Float         // 12
    var primaryTint: Std140Vec3       // 16
    var primaryShift: Float           // 28
    var secondaryShift: Float         // 32
    var primaryExponent: Float        // 36
    var secondaryExponent: Float      // 40
    var specularStrength: Float       // 44
    var rootOcclusion: Float          // 48
    var tipFade: Float                // 52
    var padding0: Float = 0           // 56
    var padding1: Float = 0           // 60

    init(_ shading: HairShading) {
        albedoLinear = Std140Vec3(shading.albedoLinear)
        colorVariation = shading.colorVariation
        primaryTint = Std140Vec3(shading.primaryTint)
        primaryShift = shading.primaryShift
        secondaryShift = shading.secondaryShift
        primaryExponent = shading.primaryExponent
        secondaryExponent = shading.secondaryExponent
        specularStrength = shading.specularStrength
        rootOcclusion = shading.rootOcclusion
        tipFade = shading.tipFade
    }

    /// The GLSL member each field feeds, with its std140 offset (for the layout test).
    static let memberOffsets: [(member: String, offset: Int?)] = [
        ("uAlbedoLinear", MemoryLayout<Self>.offset(of: \.albedoLinear)),
        ("uColorVariation", MemoryLayout<Self>.offset(of: \.colorVariation)),
        ("uPrimaryTint", MemoryLayout<Self>.offset(of: \.primaryTint)),
        ("uPrimaryShift", MemoryLayout<Self>.offset(of: \.primaryShift)),
        ("uSecondaryShift", MemoryLayout<Self>.offset(of: \.secondaryShift)),
        ("uPrimaryExponent", MemoryLayout<Self>.offset(of: \.primaryExponent)),
        ("uSecondaryExponent", MemoryLayout<Self>.offset(of: \.secondaryExponent)),
        ("uSpecularStrength", MemoryLayout<Self>.offset(of: \.specularStrength)),
        ("uRootOcclusion", MemoryLayout<Self>.offset(of: \.rootOcclusion)),
        ("uTipFade", MemoryLayout<Self>.offset(of: \.tipFade)),
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
    var padding4: Float = 0           // 76

    init(_ lighting: Lighting) {
        keyDirection = Std140Vec3(normalize(lighting.keyDirection))
        keyRadiance = Std140Vec3(lighting.keyRadiance * lighting.exposure)
        fillDirection = Std140Vec3(normalize(lighting.fillDirection))
        fillRadiance = Std140Vec3(lighting.fillRadiance * lighting.exposure)
        ambientRadiance = Std140Vec3(lighting.ambientRadiance * lighting.exposure)
    }

    static let memberOffsets: [(member: String, offset: Int?)] = [
        ("uKeyDirection", MemoryLayout<Self>.offset(of: \.keyDirection)),
        ("uKeyRadiance", MemoryLayout<Self>.offset(of: \.keyRadiance)),
        ("uFillDirection", MemoryLayout<Self>.offset(of: \.fillDirection)),
        ("uFillRadiance", MemoryLayout<Self>.offset(of: \.fillRadiance)),
        ("uAmbientRadiance", MemoryLayout<Self>.offset(of: \.ambientRadiance)),
    ]
}
