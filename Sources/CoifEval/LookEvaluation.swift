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

public struct LookMeasurement: Sendable, Codable {
    public var photo: String
    public var style: String
    /// The person's own hair (photo, under its matte) and the new hair in `own` (the composite, under the
    /// new hair's matte ≥ 0.9): CIELAB medians.
    public var ownLab: [Float]
    public var renderedLab: [Float]
    /// CIE76 between the two medians, and its lightness and hue parts (ΔL*: rendered − own; ΔH*, signed).
    public var ownDeltaE76: Float
    public var deltaL: Float
    public var deltaHue: Float
    /// Chroma of each median.
    public var ownChroma: Float
    public var renderedChroma: Float
    /// Fine detail of the rendered hair (in `own`) over the own hair's: see LookEvaluation.detail.
    public var detailRatio: Float?
    /// Per colour name: the share of the new hair's pixels (matte ≥ 0.5) the judge labels hair.
    public var readsAsHair: [String: Float]
    public var ownPixels: Int
    public var hairPixels: Int
}

extension LookEvaluation {
    /// The colours each case is judged in for reads-as-hair (issue #48).
    public static let judgedColors = ["own", "dark-brown", "platinum", "red"]
    /// The aims (issue #48): own colour ΔE76 median ≤ 6 and worst ≤ 12; detail ratio in 0.6–1.6 for ≥ 80%
    /// of cases; reads as hair ≥ 80%.
    public static let aims = (ownMedian: Float(6), ownWorst: Float(12), detail: Float(0.6)...Float(1.6), detailShare: 0.8, readsAsHair: Float(0.8))

    /// Fine detail of a region of an sRGB image: L* high-passed by a Gaussian of `sigmaPx` (L* minus its
    /// blur), and the robust spread (1.4826 × the median absolute deviation) of that over the pixels whose
    /// weight is at least `minimumWeight`. The spread of tones from strand to strand at the photo's scale,
    /// blind to the region's overall shading. nil under 50 pixels.
    public static func detail(_ image: PixelImage, weights: [Float], minimumWeight: Float, sigmaPx: Float) -> Float? {
        let w = image.width, h = image.height
        var lightness = [Float](repeating: 0, count: w * h)
        let table = srgbDecodeTable
        for p in 0..<(w * h) {
            let i = p * image.channels
            let y = 0.2126 * table[Int(image.pixels[i])] + 0.7152 * table[Int(image.pixels[i + 1])] + 0.0722 * table[Int(image.pixels[i + 2])]
            lightness[p] = HairTone.lab(fromLinear: Vec3(repeating: y)).x
        }
        let blurred = GaussianKernel(sigma: sigmaPx).blurred(lightness, width: w, height: h)
        var values: [Float] = []
        for p in 0..<(w * h) where weights[p] >= minimumWeight { values.append(lightness[p] - blurred[p]) }
        guard values.count >= 50 else { return nil }
        values.sort()
        let median = values[values.count / 2]
        var deviations = values.map { abs($0 - median) }
        deviations.sort()
        return 1.4826 * deviations[deviations.count / 2]
    }

    /// The detail scale: a head is ~1.33 face widths, and σ = its width / 400 (issue #48).
    static func detailSigmaPx(faceWidthPx: Double) -> Float { max(0.5, Float(faceWidthPx) * 1.33 / 400) }

    /// Measures every style on every photo (the largest face, own hair removed, seed 1). Photos with no
    /// face or no own hair to read are left out (`skipped` names them).
    public static func run(engine: TryOnEngine, photos: [String], styles: [String], colors: [String] = judgedColors,
                           skipped: (String, String) -> Void = { _, _ in },
                           progress: (LookMeasurement) -> Void = { _ in }) throws -> [LookMeasurement] {
        let judge = try OwnHairEvaluation.judge(engine)
        let parsedColors = try colors.map { try HairColor.parse($0) }
        var rows: [LookMeasurement] = []
        for photo in photos {
            guard let (frame, _, analyses, _) = try OwnHairEvaluation.analysedWithoutOwnHair(photo, engine: engine) else {
                skipped(photo, "no face"); continue
            }
            guard let own = OwnHairColor.tone(analyses[0]), let ownWeights = OwnHairColor.weights(analyses[0]) else {
                skipped(photo, "no own hair"); continue
            }
            let sigma = detailSigmaPx(faceWidthPx: analyses[0].faceWidthPx)
            let ownDetail = detail(frame.image, weights: ownWeights, minimumWeight: OwnHairColor.minimumMatte, sigmaPx: sigma)
            let box = analyses[0].chosen.box
            for style in styles {
                var row = LookMeasurement(photo: photo, style: style, ownLab: [own.lab.x, own.lab.y, own.lab.z], renderedLab: [],
                                          ownDeltaE76: 0, deltaL: 0, deltaHue: 0, ownChroma: own.chroma, renderedChroma: 0,
                                          detailRatio: nil, readsAsHair: [:], ownPixels: own.pixelCount, hairPixels: 0)
                for (name, color) in zip(colors, parsedColors) {
                    let job = TryOnJob(input: .frame(frame), style: style, look: HairLook(color: color))
                    var timing = FrameTiming()
                    let result = try engine.render(analyses, job: job, timing: &timing)
                    let output = result.images.composite
                    let matte = result.images.matte.pixels.map { Float($0) / 255 }
                    let labels = try judge.parse(Frame(image: output, source: photo), box: box).classes
                    var hair = 0, labelled = 0
                    for i in matte.indices where matte[i] >= 0.5 {
                        hair += 1
                        if labels[i] == OwnHair.hair { labelled += 1 }
                    }
                    row.readsAsHair[name] = hair > 0 ? Float(labelled) / Float(hair) : 0
                    row.hairPixels = hair
                    guard color.isOwn, let rendered = HairTone(srgbImage: output, weights: matte, minimumWeight: 0.9) else { continue }
                    row.renderedLab = [rendered.lab.x, rendered.lab.y, rendered.lab.z]
                    row.ownDeltaE76 = rendered.deltaE76(own)
                    row.deltaL = rendered.lab.x - own.lab.x
                    row.deltaHue = rendered.hueDifference(own)
                    row.renderedChroma = rendered.chroma
                    if let ownDetail, ownDetail > 0, let newDetail = detail(output, weights: matte, minimumWeight: 0.9, sigmaPx: sigma) {
                        row.detailRatio = newDetail / ownDetail
                    }
                }
                progress(row)
                rows.append(row)
            }
        }
        return rows
    }

    /// Median of `values` (nil when empty).
    public static func median(_ values: [Float]) -> Float? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

/// The figures over all cases, against the aims.
public struct LookSummary: Sendable, Codable {
    public var cases: Int
    public var ownDeltaE76Median: Float?
    public var ownDeltaE76Worst: Float?
    public var deltaLMedian: Float?
    public var detailRatioMedian: Float?
    /// Share of cases whose detail ratio lies in the aim's range.
    public var detailInRange: Float?
    /// Per style and colour: the median share of the new hair labelled hair, and the worst.
    public var readsAsHair: [String: [String: [Float]]]

    public init(rows: [LookMeasurement], colors: [String], styles: [String]) {
        cases = rows.count
        let own = rows.filter { !$0.renderedLab.isEmpty }
        ownDeltaE76Median = LookEvaluation.median(own.map(\.ownDeltaE76))
        ownDeltaE76Worst = own.map(\.ownDeltaE76).max()
        deltaLMedian = LookEvaluation.median(own.map(\.deltaL))
        let details = rows.compactMap(\.detailRatio)
        detailRatioMedian = LookEvaluation.median(details)
        detailInRange = details.isEmpty ? nil : Float(details.filter { LookEvaluation.aims.detail.contains($0) }.count) / Float(details.count)
        var reads: [String: [String: [Float]]] = [:]
        for style in styles {
            for color in colors {
                let values = rows.filter { $0.style == style }.compactMap { $0.readsAsHair[color] }
                guard let m = LookEvaluation.median(values), let worst = values.min() else { continue }
                reads[style, default: [:]][color] = [m, worst]
            }
        }
        readsAsHair = reads
    }

    public var text: String {
        func f(_ v: Float?, _ format: String = "%.2f") -> String { v.map { String(format: format, $0) } ?? "—" }
        var lines = ["cases \(cases): own colour ΔE76 median \(f(ownDeltaE76Median, "%.1f")) (aim ≤ 6), worst \(f(ownDeltaE76Worst, "%.1f")) (aim ≤ 12), ΔL* median \(f(deltaLMedian, "%+.1f")); detail ratio median \(f(detailRatioMedian)), \(f(detailInRange.map { $0 * 100 }, "%.0f"))% in 0.6–1.6 (aim ≥ 80%)"]
        for (style, byColor) in readsAsHair.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(style): reads as hair (median, worst) " + byColor.sorted { $0.key < $1.key }
                .map { "\($0.key) \(String(format: "%.0f%%, %.0f%%", 100 * $0.value[0], 100 * $0.value[1]))" }.joined(separator: "; "))
        }
        return lines.joined(separator: "\n")
    }
}
