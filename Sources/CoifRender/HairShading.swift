// HairShading, Lighting and HairLook: how a job's hair looks, as values. HairShading is every recolor and
// shading parameter the strand shader takes, derived from a HairColor with physically motivated defaults;
// Lighting is the lights it is shaded with; HairLook is the two together, what a caller sets per job. Each
// field can be overridden for looks development. On the GPU they are two std140 uniform blocks
// (ShaderBlocks.swift).
import CoifCore

public struct HairShading: Sendable, Equatable {
    /// Fibre albedo, linear RGB.
    public var albedoLinear: Vec3
    /// Colour of the primary (R) highlight: surface reflection, nearly white, slightly tinted.
    public var primaryTint: Vec3
    /// Tangent shifts of the two highlights (Marschner's cuticle tilt: R toward the root, TRT toward the tip).
    public var primaryShift: Float
    public var secondaryShift: Float
    /// Lobe sharpness: higher is a tighter highlight (smoother fibres).
    public var primaryExponent: Float
    public var secondaryExponent: Float
    public var specularStrength: Float
    /// Per-strand brightness spread, 0…1: real hair is never one flat colour.
    public var colorVariation: Float
    /// How much hair near the roots is shadowed by the hair above it, 0…1.
    public var rootOcclusion: Float
    /// Fraction of the length over which tips thin out.
    public var tipFade: Float

    /// Every field given; the defaults are those `init(color:)` uses.
    public init(albedoLinear: Vec3, primaryTint: Vec3, primaryShift: Float = -0.08, secondaryShift: Float = 0.12,
                primaryExponent: Float = 80, secondaryExponent: Float = 24, specularStrength: Float,
                colorVariation: Float = 0.3, rootOcclusion: Float = 0.55, tipFade: Float = 0.25) {
        self.albedoLinear = albedoLinear
        self.primaryTint = primaryTint
        self.primaryShift = primaryShift
        self.secondaryShift = secondaryShift
        self.primaryExponent = primaryExponent
        self.secondaryExponent = secondaryExponent
        self.specularStrength = specularStrength
        self.colorVariation = colorVariation
        self.rootOcclusion = rootOcclusion
        self.tipFade = tipFade
    }

    public init(color: HairColor) {
        let albedo = color.linear
        // Dark hair shows its surface highlight more; light hair's is swamped by its own bright diffuse.
        let luminance = 0.2126 * albedo.x + 0.7152 * albedo.y + 0.0722 * albedo.z
        self.init(albedoLinear: albedo, primaryTint: Vec3(repeating: 0.75) + albedo * 0.25,
                  specularStrength: 0.24 - 0.12 * min(luminance * 2, 1))
    }
}

/// The lights a still is shaded with, in GL view space (+x right, +y up, +z toward the viewer), scaled by
/// the photo's exposure so hair matches the skin's brightness. Directions need not be unit length (the
/// renderer normalises them); radiances are linear RGB.
public struct Lighting: Sendable, Equatable {
    public var keyDirection: Vec3
    public var keyRadiance: Vec3
    public var fillDirection: Vec3
    public var fillRadiance: Vec3
    public var ambientRadiance: Vec3
    /// Multiplies every radiance: 1 for a well exposed photo.
    public var exposure: Float

    /// Every field given; the defaults are Coif's portrait lights (`Lighting()`).
    public init(keyDirection: Vec3 = normalize(Vec3(-0.35, 0.65, 0.68)), keyRadiance: Vec3 = Vec3(1.5, 1.45, 1.4),
                fillDirection: Vec3 = normalize(Vec3(0.7, 0.1, 0.7)), fillRadiance: Vec3 = Vec3(0.35, 0.37, 0.4),
                ambientRadiance: Vec3 = Vec3(0.3, 0.31, 0.33), exposure: Float = 1) {
        self.keyDirection = keyDirection
        self.keyRadiance = keyRadiance
        self.fillDirection = fillDirection
        self.fillRadiance = fillRadiance
        self.ambientRadiance = ambientRadiance
        self.exposure = exposure
    }
}

/// A job's look: the hair's shading and the lights, set together by a caller (a colour gives both their
/// defaults; change any field after). What a frame is shaded with; not the geometry, not the camera.
public struct HairLook: Sendable, Equatable {
    public var shading: HairShading
    public var lighting: Lighting
    /// What the look is called in records (timing JSON, sheet labels): the colour's name, or "custom".
    public var name: String

    /// The colour's shading under Coif's default lights.
    public init(color: HairColor, lighting: Lighting = Lighting()) {
        self.init(shading: HairShading(color: color), lighting: lighting, name: color.name)
    }

    public init(shading: HairShading, lighting: Lighting = Lighting(), name: String = "custom") {
        self.shading = shading
        self.lighting = lighting
        self.name = name
    }
}
