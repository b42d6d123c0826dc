// LookEvaluation: is the colour asked for the colour one sees? Two parts.
//  - Presets: each preset rendered on Coif's own head from the front under Coif's neutral portrait lights
//    (`Lighting()`), its solid hair pixels' CIELAB medians against the preset's documented reference colour
//    (HairColor.presetTargets), CIE76.
//  - Photos (`coif eval look`): per photo and style, the own colour's ΔE76 (the try-on in `own` against the
//    person's real hair in the same photo, CIELAB medians, with the lightness and hue differences), the
//    detail ratio (fine detail of the rendered hair over the real hair's, see `detail`), and, for every
//    colour asked, the share of the new hair the face-parsing network labels hair.
import CoifCore
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation

public struct PresetToneMeasurement: Sendable, Codable {
    public var preset: String
    /// The documented reference colour, "#rrggbb".
    public var reference: String
    /// The rendered hair's median colour, "#rrggbb".
    public var rendered: String
    public var referenceLab: [Float]
    public var renderedLab: [Float]
    public var deltaE76: Float
    public var pixelCount: Int
}

public enum LookEvaluation {
    /// The style the presets are measured on: hair over most of the head's front, little face.
    public static let presetStyle = "bob"
    /// A preset must land within this ΔE76 of its reference colour (issue #48).
    public static let presetTolerance: Float = 5

    /// Each preset on Coif's head under the neutral lights, against its reference colour.
    public static func presetTones(engine: PreviewEngine, sizePx: Int = 384) throws -> [PresetToneMeasurement] {
        let style = try engine.style(presetStyle)
        return try HairColor.presetTargets.map { preset in
            let color = try HairColor.parse(preset.name)
            let layer = try engine.hairLayer(style, sizePx: sizePx, shading: HairShading(color: color))
            guard let tone = HairTone(layer: layer) else { throw CoifError.internalError("preset \(preset.name): no hair drawn") }
            let (referenceSRGB, _) = HairColor.hexDigits(preset.hex)!
            let referenceLab = HairTone.lab(fromLinear: Vec3(srgbToLinear(referenceSRGB.x), srgbToLinear(referenceSRGB.y), srgbToLinear(referenceSRGB.z)))
            return PresetToneMeasurement(preset: preset.name, reference: preset.hex,
                                         rendered: HairColor(srgb: tone.srgb, name: "").hex,
                                         referenceLab: [referenceLab.x, referenceLab.y, referenceLab.z],
                                         renderedLab: [tone.lab.x, tone.lab.y, tone.lab.z],
                                         deltaE76: length(tone.lab - referenceLab), pixelCount: tone.pixelCount)
        }
    }
}
