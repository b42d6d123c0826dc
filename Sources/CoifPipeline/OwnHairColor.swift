// OwnHairColor: `--color own`, try the cut and keep one's colour. The person's own hair is measured from
// the photo under its matte (HairTone: CIELAB medians, the spread of tones, the highlights, in linear
// light), and the fibre's pigment (melanin, redness, dye) is solved so that, lit by the light Coif uses for
// this photo (the face's, PhotoLightEstimate), the rendered hair shows that median: HairRecipe.solve with
// the photo's lights. The solve's model is a sphere of combed hair; the groom on this head, with its own
// shadows and facing, differs from it by a few per cent per channel (and in how much white cuticle highlight
// it shows), so the render's solid pixels are measured and the target moved by its response, up to eight times
// (`own` only pays for the extra draws).
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
        guard let own = analysis.ownHair else { return nil }
        let image = analysis.frame.image
        let box = analysis.chosen.box
        let side = max(box.right - box.left, box.bottom - box.top)
        let x0 = max(Int(box.left - side), 0), x1 = min(Int(box.right + side), image.width - 1)
        let y0 = max(Int(box.top - 1.2 * side), 0), y1 = min(Int(box.bottom + 2 * side), image.height - 1)
        guard x0 <= x1, y0 <= y1 else { return nil }
        var weights = [Float](repeating: 0, count: image.width * image.height)
        var count = 0
        for y in y0...y1 {
            for x in x0...x1 {
                let i = y * image.width + x
                guard own.classes[i] == OwnHair.hair, own.matte[i] >= minimumMatte else { continue }
                weights[i] = own.matte[i]
                count += 1
            }
        }
        let needed = max(minimumPixels, Int(minimumFaceShare * (box.right - box.left) * (box.bottom - box.top)))
        return count >= needed ? weights : nil
    }

    /// `look` with its recipe solved so that under `look.lighting` it shows `target` (linear RGB).
    public static func solved(_ look: HairLook, targetLinear target: Vec3) -> HairLook {
        var out = look
        out.shading.recipe = HairRecipe(base: HairRecipe.solve(targetLinear: target, lights: look.lighting))
        return out
    }

    /// The next target after a render of `look` that showed `rendered` where `own` was wanted: per channel in
    /// linear light, the render's response to the model (what it showed over what the model predicted for
    /// the pigment drawn) divides the wanted colour, so the next solve asks the model for what makes the
    /// render show it. From the model's prediction, not the last target: a target below what any pigment
    /// shows in the model (dark hair under a strong key) is predicted as that floor, and the render's own,
    /// lower floor then lifts the next target back into reach. The response is held to 0.25–4.
    /// A target brighter than a clear fibre shows under these lights (in any channel) is beyond every pigment:
    /// it is scaled down as a whole to the clear fibre's reach, so it keeps its hue and gives up lightness.
    /// Clamped channel by channel, every channel met the clear fibre: long light-blonde hair, whose render is
    /// darker than the model's sphere, came back a neutral grey (deep3dfacerecon 000126 in long-wavy: L* 71,
    /// chroma 0, against the photo's L* 81, chroma 10, ΔE76 14.3; scaled, L* 67, chroma 9, ΔE76 14.1).
    public static func nextTarget(_ look: HairLook, own: HairTone, rendered: HairTone) -> Vec3 {
        let predicted = HairRecipe.referenceColor(sigmaA: look.shading.recipe.base.sigmaA, lights: look.lighting)
        let clear = HairRecipe.referenceColor(sigmaA: .zero, lights: look.lighting)
        let want = own.linear, got = rendered.linear
        var out = Vec3.zero
        var scale: Float = 1
        for c in 0..<3 {
            let response = min(max(max(got[c], 1e-5) / max(predicted[c], 1e-5), 0.25), 4)
            out[c] = max(want[c], 1e-5) / response
            scale = min(scale, clear[c] / out[c])
        }
        return out * scale
    }
}
