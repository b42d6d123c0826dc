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
            throw CoifError.invalidOption(name: "PHOTO", reason: "give photos, or --presets")
        }
    }
}
