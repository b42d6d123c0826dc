// LookColorTests: the colour asked for is the colour one sees. Each preset, rendered on Coif's head under
// the neutral portrait lights, lands within ΔE76 5 of its documented reference colour (docs/look.md).
import CoifCore
import CoifEval
import CoifPipeline
import CoifRender
import Logging
import XCTest

final class LookColorTests: XCTestCase {
    nonisolated(unsafe) static let preview: Result<PreviewEngine, Error> = Result { try PreviewEngine(logger: Logger(label: "coif.tests")) }

    func previewEngine() throws -> PreviewEngine {
        do { return try Self.preview.get() } catch CoifError.gpuUnavailable(let reason) {
            print("LookColorTests: skipping, no EGL context: \(reason)")
            throw XCTSkip(reason)
        }
    }

    func testPresetsRenderAsTheirReferenceColours() throws {
        let rows = try LookEvaluation.presetTones(engine: try previewEngine())
        XCTAssertEqual(rows.count, HairColor.presetTargets.count)
        for r in rows {
            print(String(format: "LookColorTests: %@ reference %@ rendered %@ (L* %.1f → %.1f) ΔE76 %.2f over %d px", r.preset, r.reference,
                         r.rendered, r.referenceLab[0], r.renderedLab[0], r.deltaE76, r.pixelCount))
            XCTAssertGreaterThan(r.pixelCount, 5000, r.preset)
            XCTAssertLessThanOrEqual(r.deltaE76, LookEvaluation.presetTolerance, r.preset)
        }
        // Dark colours keep their warmth: black and dark brown are not neutral grey (chroma ≥ 1.5, hue between
        // red and yellow; black was chroma 0.5 at L* 27, dark brown L* 30, before #48).
        for name in ["black", "dark-brown"] {
            let r = rows.first { $0.preset == name }!
            XCTAssertGreaterThan((r.renderedLab[1] * r.renderedLab[1] + r.renderedLab[2] * r.renderedLab[2]).squareRoot(), 1.5,
                                 "\(name) is coloured, not grey: \(r.renderedLab)")
            XCTAssertGreaterThan(r.renderedLab[1], 0, "\(name) is warm: \(r.renderedLab)")
            XCTAssertGreaterThan(r.renderedLab[2], 0, "\(name) is warm: \(r.renderedLab)")
            XCTAssertLessThan(r.renderedLab[0], 23, "\(name) is dark: \(r.renderedLab)")
        }
    }
}
