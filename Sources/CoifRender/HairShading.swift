// HairShading: every recolor and shading parameter the strand shader takes, as one value. Derived from a
// HairColor with physically motivated defaults; each field can be overridden for looks development.
import CoifCore

public struct HairShading: Sendable, Equatable {
    /// Fibre albedo, linear RGB.
    public var albedoLinear: Vec3
    /// Colour of the primary (R) highlight: surface reflection, nearly white, slightly tinted.
    public var primaryTint: Vec3
    /// Tangent shifts of the two highlights (Marschner's cuticle tilt: R toward the root, TRT toward the tip).
    public var primaryShift: Float = -0.08
    public var secondaryShift: Float = 0.12
    /// Lobe sharpness: higher is a tighter highlight (smoother fibres).
    public var primaryExponent: Float = 80
    public var secondaryExponent: Float = 24
    public var specularStrength: Float
    /// Per-strand brightness spread, 0…1: real hair is never one flat colour.
    public var colorVariation: Float = 0.3
    /// How much hair near the roots is shadowed by the hair above it, 0…1.
    public var rootOcclusion: Float = 0.55
    /// Fraction of the length over which tips thin out.
    public var tipFade: Float = 0.25

    public init(color: HairColor) {
        let albedo = color.linear
        albedoLinear = albedo
        // Dark hair shows its surface highlight more; light hair's is swamped by its own bright diffuse.
        let luminance = 0.2126 * albedo.x + 0.7152 * albedo.y + 0.0722 * albedo.z
        primaryTint = Vec3(repeating: 0.75) + albedo * 0.25
        specularStrength = 0.24 - 0.12 * min(luminance * 2, 1)
    }
}

/// The lights a still is shaded with, in GL view space (+x right, +y up, +z toward the viewer), scaled by
/// the photo's exposure so hair matches the skin's brightness.
public struct Lighting: Sendable, Equatable {
    public var keyDirection = normalize(Vec3(-0.35, 0.65, 0.68))
    public var keyRadiance = Vec3(1.5, 1.45, 1.4)
    public var fillDirection = normalize(Vec3(0.7, 0.1, 0.7))
    public var fillRadiance = Vec3(0.35, 0.37, 0.4)
    public var ambientRadiance = Vec3(0.3, 0.31, 0.33)
    /// Multiplies every radiance: 1 for a well exposed photo.
    public var exposure: Float = 1

    public init() {}
}
