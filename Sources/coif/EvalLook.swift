// coif eval look: is the colour asked for the colour one sees (presets on Coif's head; `own` on photos),
// and does the new hair carry real hair's fine detail (LookEvaluation).
import ArgumentParser
import CoifCore
import CoifEval
import CoifPipeline
import CoifRender
import Foundation

struct EvalLook: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "look",
        abstract: "Colour and detail of the new hair: presets against their reference colours, own colour and detail on photos.",
        discussion: "With --presets: each preset on Coif's head under the neutral portrait lights, its CIELAB medians against the reference colour (ΔE76). With photos: per photo and style, the own colour's ΔE76 (the try-on in `own` against the person's real hair, CIELAB medians; ΔL and hue difference), the detail ratio (robust spread of high-passed L*, σ = head width / 400, new hair over own hair) and reads-as-hair per colour. docs/look.md: 'Colour'."
    )
    @Argument(help: "Photos (the largest face of each).")
    var photos: [String] = []

    @Option(name: .customLong("style"), help: "Comma-separated styles, as `coif sheet --style` takes them.")
    var styles: String = "long-wavy,pixie"

    @Option(help: "Comma-separated colours to render and judge (reads-as-hair per colour); `own` gives the own colour's ΔE76 and the detail ratio.")
    var colors: String = LookEvaluation.judgedColors.joined(separator: ",")

    @Flag(help: "Measure the presets on Coif's head instead of photos.")
    var presets = false

    @Flag(help: "Print the rows as JSON.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            if presets {
                let engine = try PreviewEngine(logger: global.makeLogger())
                let rows = try LookEvaluation.presetTones(engine: engine)
                if json { try printJSON(rows); return }
                print("preset          reference  rendered   L*ref  L*     ΔE76")
                for r in rows {
                    print(padded(r.preset, 15) + " " + padded(r.reference, 10) + " " + padded(r.rendered, 10)
                          + String(format: " %5.1f %5.1f %6.2f", r.referenceLab[0], r.renderedLab[0], r.deltaE76))
                }
                return
            }
            guard !photos.isEmpty else { throw CoifError.invalidOption(name: "PHOTO", reason: "give photos, or --presets") }
            let engine = try TryOnEngine(logger: global.makeLogger())
            let names = styles.split(separator: ",").map(String.init)
            for name in names { _ = try engine.styles.resolve(name) }
            let colorNames = colors.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !colorNames.isEmpty else { throw CoifError.invalidOption(name: "--colors", reason: "give at least one colour") }
            for name in colorNames { _ = try HairColor.parse(name) }
            if !json {
                print("photo                      style          own L*a*b*          rendered L*a*b*     ΔE76    ΔL    ΔH  chroma own/new  detail  " + colorNames.map { padded($0, 10) }.joined(separator: " "))
            }
            var skipped: [String] = []
            let rows = try LookEvaluation.run(engine: engine, photos: photos, styles: names, colors: colorNames,
                                              skipped: { photo, why in skipped.append("\(photo): \(why)") }) { r in
                guard !json else { return }
                func lab(_ v: [Float]) -> String { v.count == 3 ? String(format: "%5.1f %5.1f %5.1f", v[0], v[1], v[2]) : "—" }
                print(padded(r.photo.split(separator: "/").last.map(String.init) ?? r.photo, 26) + " " + padded(r.style, 14) + " " + padded(lab(r.ownLab), 19) + " " + padded(lab(r.renderedLab), 19)
                      + String(format: " %5.1f %5.1f %5.1f  %5.1f/%5.1f  %@  ", r.ownDeltaE76, r.deltaL, r.deltaHue, r.ownChroma, r.renderedChroma,
                               (r.detailRatio.map { String(format: "%5.2f", $0) } ?? "  —  ") as NSString)
                      + colorNames.map { padded(String(format: "%5.1f%%", 100 * (r.readsAsHair[$0] ?? 0)), 10) }.joined(separator: " "))
            }
            let summary = LookSummary(rows: rows, colors: colorNames, styles: names)
            if json {
                struct Out: Encodable { var rows: [LookMeasurement]; var summary: LookSummary; var skipped: [String] }
                try printJSON(Out(rows: rows, summary: summary, skipped: skipped))
                return
            }
            for line in skipped { print("skipped " + line) }
            print(summary.text)
        }
    }
}
