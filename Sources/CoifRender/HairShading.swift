// HairShading, Lighting and HairLook: how a job's hair looks, as values. HairShading is every colour and
// scattering parameter the strand shader takes (HairFiber's model), from a HairColor's recipe;
// Lighting is the lights it is shaded with; HairLook is the two together, what a caller sets per job. Each
// field can be overridden for looks development. On the GPU they are two std140 uniform blocks
// (ShaderBlocks.swift).
import CoifCore

public struct HairShading: Sendable, Equatable {
    /// What the fibres absorb with: melanin, redness, dye, highlights, ombré.
    public var recipe: HairRecipe
    /// Longitudinal roughness, 0…1 (Chiang's β_m): the R highlight's width along the strand; TT is half
    /// as wide, TRT twice. 0.25: healthy straight hair (Marschner's measured 5–10° R widths).
    public var longitudinalRoughness: Float
    /// Azimuthal roughness, 0…1 (Chiang's β_n): how far round the fibre TT and TRT spread.
    public var azimuthalRoughness: Float
    /// Cuticle scale tilt (degrees): shifts R toward the root by 2×, TT and TRT toward the tip by 1× and 4×
    /// (pbrt-v4's default 2°; Marschner measured 2–4°).
    public var cuticleTiltDegrees: Float
    /// Keratin's index of refraction (1.55: Marschner et al. 2003).
    public var indexOfRefraction: Float
    /// Per-strand spread of melanin, ±fraction: real hair is never one flat colour.
    public var colorVariation: Float
    /// How much of the sky's light a strand point loses under hair that covers it whole (HairCover) or at its
    /// root (strand.vert's kRootShadeMm), 0…1: the ambient and key light alike (the key's own shadow is
    /// KeyLightShadow's, on top).
    public var occlusionUnderHair: Float
    /// Fraction of the length over which tips thin out.
    public var tipFade: Float
    /// How much the light a clump of strands receives varies from clump to clump, ±fraction. In real hair
    /// a clump lying over its neighbours catches more light than one between them, and the eye reads
    /// hair by these streaks. A rendered pixel holds several strands, so a per-strand spread alone (which
    /// dark hair, lit mostly by its colourless R highlight, hardly shows anyway) averages to one flat tone:
    /// the strands of one patch of scalp (`StrandGeometry.clumpToneCellMm`) share a tone instead, and run
    /// as one streak. Symmetric about 1, so the hair's mean colour (what a hex target is solved for)
    /// stays put. It scales the colour the fibre gives back (TT, TRT, multiple scattering); the colourless
    /// R highlight is moved instead, by the angle a clump lies at (strand.vert: this times 0.35 rad, with the
    /// strand's and the along terms), so black hair keeps its highlight to the strands turned into it.
    public var clumpVariation: Float
    /// Length (mm) over which a strand's coverage grows from nothing at its root, ±50% from strand to
    /// strand. A rendered strand stands for a bundle of fibres that leave the scalp at slightly different
    /// places, not one blunt ribbon: without this the roots along a hairline or part drew a row of square
    /// stubs on the skin. Under the hair the fade is hidden by the under-layer and the strands above.
    public var rootFadeMm: Float
    /// How much light each strand catches of its own, ±fraction (a hash of the strand, on every lobe). The
    /// clump's tone moves a streak; this separates the strands within it, as a real head's fibres lie at
    /// slightly different angles and depths. σ_a's spread (`colorVariation`) hardly shows on dark hair, whose
    /// light is mostly its colourless R highlight. Symmetric about 1: the hair's mean colour stays put.
    public var strandLightVariation: Float
    /// How much that light varies along a strand, ±fraction: smooth value noise of the strand's length, about
    /// two and a half swings root to tip (strand.vert), as a fibre twists and passes over and under others.
    public var alongLightVariation: Float
    /// How much light each fibre of a wide ribbon catches of its own, ±fraction (strand.frag). On a large face
    /// the segment budget draws fewer, wider strands (LevelOfDetail's widthScale, 11× the catalog's width on a
    /// 220-px face in long-wavy), each standing for a lock of fibres; drawn as one shade such a ribbon read as a
    /// rope. Its width is split into fibres ~1.6 px wide, each with its own share of the light and darker at
    /// its edges. 0 draws none; a ribbon under two fibres wide is one fibre whatever this is.
    public var fibreVariation: Float

    /// Every field given; the defaults are those `init(color:)` uses.
    public init(recipe: HairRecipe, longitudinalRoughness: Float = 0.25, azimuthalRoughness: Float = 0.3,
                cuticleTiltDegrees: Float = 2, indexOfRefraction: Float = HairFiber.indexOfRefraction,
                colorVariation: Float = 0.25, occlusionUnderHair: Float = 0.55, tipFade: Float = 0.25,
                clumpVariation: Float = HairShading.defaultClumpVariation, rootFadeMm: Float = 4,
                strandLightVariation: Float = HairShading.defaultStrandLightVariation,
                alongLightVariation: Float = HairShading.defaultAlongLightVariation,
                fibreVariation: Float = HairShading.defaultFibreVariation) {
        self.recipe = recipe
        self.longitudinalRoughness = longitudinalRoughness
        self.azimuthalRoughness = azimuthalRoughness
        self.cuticleTiltDegrees = cuticleTiltDegrees
        self.indexOfRefraction = indexOfRefraction
        self.colorVariation = colorVariation
        self.occlusionUnderHair = occlusionUnderHair
        self.tipFade = tipFade
        self.clumpVariation = clumpVariation
        self.rootFadeMm = rootFadeMm
        self.strandLightVariation = strandLightVariation
        self.alongLightVariation = alongLightVariation
        self.fibreVariation = fibreVariation
    }

    /// ±0.6: chosen on the face-parsing network's "reads as hair" figure over the 15 styles on three
    /// photos (docs/measurements.md, "Clump tones"): ±0.6 and ±0.8 both lift the flat styles
    /// (long-straight 40 → 61 / 68%, lob 91 → 97%), ±0.8 starts to cost the bun and the afro in their
    /// worst photo.
    public static let defaultClumpVariation: Float = 0.6
    /// Chosen on `coif eval look`'s detail ratio (docs/look.md, "Strands that separate").
    public static let defaultStrandLightVariation: Float = 0.5
    public static let defaultAlongLightVariation: Float = 0.5
    /// By eye on a large face's long-wavy (docs/look.md, "Fibres in a wide strand").
    public static let defaultFibreVariation: Float = 0.35

    public init(color: HairColor) {
        self.init(recipe: color.recipe)
    }

    /// The fibre parameters for one pigment (the shader varies σ_a per strand and along it).
    public func fiber(_ pigment: HairRecipe.Pigment) -> HairFiber.Parameters {
        HairFiber.Parameters(sigmaA: pigment.sigmaA, longitudinalRoughness: longitudinalRoughness,
                             azimuthalRoughness: azimuthalRoughness, cuticleTilt: cuticleTiltDegrees * .pi / 180,
                             eta: indexOfRefraction)
    }
}

/// The lights a still is shaded with, in GL view space (+x right, +y up, +z toward the viewer), scaled by
/// the photo's exposure so hair matches the skin's brightness. A light's radiance is its irradiance ÷ π:
/// what a white diffuse surface facing it shows. Directions need not be unit length (the
/// renderer normalises them); radiances are linear RGB.
public struct Lighting: Sendable, Equatable {
    public var keyDirection: Vec3
    public var keyRadiance: Vec3
    public var fillDirection: Vec3
    public var fillRadiance: Vec3
    public var ambientRadiance: Vec3
    /// Multiplies every radiance: 1 for a well exposed photo.
    public var exposure: Float
    /// How the key light's shadow (the hair's on itself, the head's on the hair) is drawn; nil: none.
    public var keyShadow: KeyLightShadow?
    /// The share of the cuticle's colourless highlight (the R lobe) the lights put on hair: 1 for Coif's
    /// lights and most photos; less on a photo whose own hair shows less highlight than Coif's black would
    /// there (PhotoLightEstimate.hairSheen: a soft or distant key, crushed shadows).
    public var hairSheen: Float = 1

    /// Every field given; the defaults are Coif's portrait lights (`Lighting()`).
    public init(keyDirection: Vec3 = normalize(Vec3(-0.35, 0.65, 0.68)), keyRadiance: Vec3 = Vec3(1.5, 1.45, 1.4),
                fillDirection: Vec3 = normalize(Vec3(0.7, 0.1, 0.7)), fillRadiance: Vec3 = Vec3(0.35, 0.37, 0.4),
                ambientRadiance: Vec3 = Vec3(0.3, 0.31, 0.33), exposure: Float = 1, keyShadow: KeyLightShadow? = KeyLightShadow()) {
        self.keyDirection = keyDirection
        self.keyRadiance = keyRadiance
        self.fillDirection = fillDirection
        self.fillRadiance = fillRadiance
        self.ambientRadiance = ambientRadiance
        self.exposure = exposure
        self.keyShadow = keyShadow
    }
}

/// A job's look: the hair's shading and the lights, set together by a caller (a colour gives both their
/// defaults; change any field after). What a frame is shaded with; not the geometry, not the camera.
public struct HairLook: Sendable, Equatable {
    public var shading: HairShading
    public var lighting: Lighting
    /// What the look is called in records (timing JSON, sheet labels): the colour's name, or "custom".
    public var name: String
    /// The recipe is to be solved from the person's own hair in each photo (`--color own`) before drawing.
    public var matchesOwnHair = false

    /// The colour's shading under Coif's default lights.
    public init(color: HairColor, lighting: Lighting = Lighting()) {
        self.init(shading: HairShading(color: color), lighting: lighting, name: color.name)
        matchesOwnHair = color.isOwn
    }

    public init(shading: HairShading, lighting: Lighting = Lighting(), name: String = "custom") {
        self.shading = shading
        self.lighting = lighting
        self.name = name
    }
}
