// OwnHairColor: `--color own`, try the cut and keep one's colour. The person's own hair is measured from
// the photo under its matte (HairTone: CIELAB medians, the spread of tones, the highlights, in linear
// light), and the fibre's pigment (melanin, redness, dye) is solved so that, lit by the light Coif uses for
// this photo (the face's, PhotoLightEstimate), the rendered hair shows that median: HairRecipe.solve with
// the photo's lights. The solve's model is a sphere of combed hair, matched without the cuticle's colourless
// highlight (a render's median shows the fibre's colour, and its highlight only where it falls among the solid
// pixels); the groom on this head, with its own shadows and facing, differs from the sphere by a gain on that
// colour and a colourless sheen, so the render's solid pixels are measured, the two fitted over the draws so
// far and the target moved by them, up to eight times (`own` only pays for the extra draws).
import CoifCore
import CoifRender
import CoifVision

public enum OwnHairColor {
    /// Matte weight from which a pixel counts as the person's hair (its soft edge mixes in skin and
    /// background).
    public static let minimumMatte: Float = 0.8
    /// Fewer own-hair pixels than this share of the face box's area (or than `minimumPixels`) is no hair to
    /// read: a bald head, a hat, a shaved scalp's stubble.
    static let minimumFaceShare: Float = 0.04
    static let minimumPixels = 150
    /// A render is drawn again with a corrected target only when it misses the own hair by more than this,
    /// at most `maximumRedraws` times. 8, not 4: a dark brown near the fibre's floor (#3f302a, L* 14, on the
    /// astronaut wearing long-wavy) was still converging after 4 (ΔE76 3.15 against the known hair, 2.92
    /// after 8); a colour the solve reaches stops after one or two.
    static let redrawAboveDeltaE: Float = 1
    static let maximumRedraws = 8

    /// The person's own hair in the photo: matte ≥ 0.8 and parsed as hair (a hat is not hair), within two
    /// face widths of the face (another person's hair elsewhere in the photo is not theirs). nil when the
    /// photo was not parsed or too little hair shows.
    public static func tone(_ analysis: PhotoAnalysis) -> HairTone? {
        guard let weights = weights(analysis) else { return nil }
        return HairTone(srgbImage: analysis.frame.image, weights: weights, minimumWeight: minimumMatte)
    }

    /// The pixels `tone` reads, as weights per photo pixel (the matte there, 0 elsewhere; every non-zero
    /// weight is at least `minimumMatte`); nil as for `tone`.
    public static func weights(_ analysis: PhotoAnalysis) -> [Float]? {
        var weights = [Float](repeating: 0, count: analysis.frame.image.width * analysis.frame.image.height)
        return visitPixels(analysis) { i, matte in weights[i] = matte } ? weights : nil
    }

    /// Calls `visit` with the index and matte of each pixel `tone` reads, on a grid of about `atMost` of the
    /// window's pixels (every pixel where the window holds fewer); false (after visiting) when the photo was not
    /// parsed or too little hair shows (counted on that grid).
    static func visitPixels(_ analysis: PhotoAnalysis, atMost: Double = .infinity, _ visit: (Int, Float) -> Void) -> Bool {
        guard let own = analysis.ownHair else { return false }
        let image = analysis.frame.image
        let box = analysis.chosen.box
        let side = max(box.right - box.left, box.bottom - box.top)
        // The window below is about 3 sides wide and 4.2 high.
        let step = max(1, Int((3 * Double(side) * 4.2 * Double(side) / atMost).squareRoot()))
        let x0 = max(Int(box.left - side), 0), x1 = min(Int(box.right + side), image.width - 1)
        let y0 = max(Int(box.top - 1.2 * side), 0), y1 = min(Int(box.bottom + 2 * side), image.height - 1)
        guard x0 <= x1, y0 <= y1 else { return false }
        var count = 0
        for y in stride(from: y0, through: y1, by: step) {
            for x in stride(from: x0, through: x1, by: step) {
                let i = y * image.width + x
                guard own.classes[i] == OwnHair.hair, own.matte[i] >= minimumMatte else { continue }
                visit(i, own.matte[i])
                count += 1
            }
        }
        let needed = max(minimumPixels, Int(minimumFaceShare * (box.right - box.left) * (box.bottom - box.top)))
        return count * step * step >= needed
    }

    /// `look` with its recipe solved so that under `look.lighting` the model's sphere shows `target` (linear RGB)
    /// without the cuticle's highlight: the colour a render's median shows, up to the response (`response`).
    public static func solved(_ look: HairLook, targetLinear target: Vec3) -> HairLook {
        var out = look
        out.shading.recipe = HairRecipe(base: HairRecipe.solve(targetLinear: target, lights: look.lighting, withHighlight: false))
        return out
    }

    /// What one draw showed: the model's colour for the pigment drawn (without the cuticle's highlight, as
    /// `solved` matches it) and the render's solid pixels' median, both linear RGB.
    public struct Draw: Sendable, Equatable {
        public var predicted: Vec3
        public var shown: Vec3
        public init(predicted: Vec3, shown: Vec3) {
            self.predicted = predicted
            self.shown = shown
        }
        /// The draw of `look` that showed `rendered`.
        public init(_ look: HairLook, rendered: HairTone) {
            self.init(predicted: HairRecipe.referenceColor(sigmaA: look.shading.recipe.base.sigmaA, lights: look.lighting, withHighlight: false),
                      shown: rendered.linear)
        }
    }

    /// How the render answers the model, fitted over every draw so far, in linear light:
    /// shown ≈ gain · predicted + sheen in each channel. The gain is the groom's own shadowing and facing
    /// against the model's sphere (a factor on the fibre's colour); the sheen is the cuticle's colourless
    /// highlight where it falls among the solid pixels (the same in every channel), which the model leaves
    /// out. One factor per channel, as before, read a colourless highlight over a dark brown as a bluer
    /// response, and turned the next target's hue. The two are told apart by how the colour's channels
    /// differ; where the draws' channels barely differ (a near-neutral black) the sheen is not fitted and the
    /// gain is the whole response. The gain is held to 0.25–4, the sheen to ≥ 0.
    public static func response(_ draws: [Draw]) -> (gain: Float, sheen: Float) {
        var spp: Double = 0, sp: Double = 0, n: Double = 0, spg: Double = 0, sg: Double = 0
        for draw in draws {
            for c in 0..<3 {
                let p = Double(max(draw.predicted[c], 1e-6)), g = Double(max(draw.shown[c], 1e-6))
                spp += p * p; sp += p; n += 1; spg += p * g; sg += g
            }
        }
        guard spp > 0 else { return (1, 0) }
        let determinant = spp * n - sp * sp
        var gain = spg / spp, sheen: Double = 0
        // Fitted only where the channels spread: the determinant over spp·n is the channels' relative
        // variance (0 for a neutral colour).
        if determinant > minimumChannelSpread * spp * n {
            let fittedGain = (n * spg - sp * sg) / determinant
            let fittedSheen = (spp * sg - sp * spg) / determinant
            if fittedSheen > 0 && fittedGain > 0 {
                gain = fittedGain
                sheen = fittedSheen
            }
        }
        return (Float(min(max(gain, 0.25), 4)), Float(sheen))
    }
    /// The least relative spread of the draws' channels (see `response`) at which the sheen is fitted.
    static let minimumChannelSpread = 0.02

    /// The next target after the draws so far (the last is `draws.last`): the wanted colour less the sheen,
    /// over the gain (`response`), so the next solve asks the model for what makes the render show it. From
    /// the model, not the last target: a target below what any pigment shows (dark hair under a sheen
    /// brighter than it) goes to the darkest fibre, and the render's own floor stops the redraws.
    /// A target brighter than a clear fibre shows under these lights (in any channel) is beyond every pigment:
    /// it is scaled down as a whole to the clear fibre's reach, so it keeps its hue and gives up lightness.
    /// Clamped channel by channel, every channel met the clear fibre: long light-blonde hair, whose render is
    /// darker than the model's sphere, came back a neutral grey (deep3dfacerecon 000126 in long-wavy: L* 71,
    /// chroma 0, against the photo's L* 81, chroma 10, ΔE76 14.3; scaled, L* 67, chroma 9, ΔE76 14.1).
    public static func nextTarget(_ look: HairLook, own: HairTone, draws: [Draw]) -> Vec3 {
        withinReach(wantedTarget(own: own, draws: draws), lights: look.lighting)
    }

    /// `nextTarget` before it is brought within a clear fibre's reach: what the model must show, whatever the light.
    public static func wantedTarget(own: HairTone, draws: [Draw]) -> Vec3 {
        let (gain, sheen) = response(draws)
        let want = own.linear
        var out = Vec3.zero
        for c in 0..<3 {
            // Never below a twentieth of the wanted colour: under a sheen brighter than the hair, the darkest
            // fibre, not a target of nothing.
            out[c] = max(want[c] - sheen, 0.05 * max(want[c], 1e-5)) / gain
        }
        return out
    }

    /// `target` scaled down as a whole, where it must be, to what a clear fibre shows under `lights`.
    public static func withinReach(_ target: Vec3, lights: Lighting) -> Vec3 {
        let clear = HairRecipe.referenceColor(sigmaA: .zero, lights: lights, withHighlight: false)
        var scale: Float = 1
        for c in 0..<3 { scale = min(scale, clear[c] / target[c]) }
        return target * scale
    }

    /// The most `lit(_:toShow:)` raises the light on the hair over the exposure read from the face.
    static let mostExposureRaise: Float = 2

    /// `look` with its light raised (exposure, to at most `mostExposureRaise` times `faceExposure`, the exposure
    /// read from the face; `look`'s own where not given, so redraws never compound it) as far as a clear fibre
    /// needs to show `target` (linear RGB, the model's colour without the highlight), unchanged where it already
    /// can. The photo shows the person's own hair in its own light: hair lighter than any fibre shows under the
    /// light read from the face says the light on the hair is brighter than that. (The face's exposure is held
    /// to 0.75–1.05 of Coif's lights so that a preset stays the colour it names; `own`'s measure is the hair.)
    /// Scaled down within the clear fibre's reach instead, long light-blonde hair came back ~13 L* darker
    /// (deep3dfacerecon 000126 in long-wavy: L* 67 against the photo's 81).
    public static func lit(_ look: HairLook, toShow target: Vec3, over faceExposure: Float? = nil) -> HairLook {
        let clear = HairRecipe.referenceColor(sigmaA: .zero, lights: look.lighting, withHighlight: false)
        var needed: Float = 1
        for c in 0..<3 where clear[c] > 0 { needed = max(needed, target[c] / clear[c]) }
        guard needed > 1 else { return look }
        var out = look
        let most = (faceExposure ?? look.lighting.exposure) * mostExposureRaise
        out.lighting.exposure = max(look.lighting.exposure, min(look.lighting.exposure * needed, most))
        return out
    }
}
