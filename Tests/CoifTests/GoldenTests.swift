// GoldenTests: the project's own golden suite (Tests/Goldens/cases.json → Tests/Goldens/suite/) verified
// through the real pipeline, a perturbed reference failing through the real binary, and `record`
// refusing to overwrite a changed reference. COIF_RECORD_GOLDENS=1 re-records the suite (say why in the commit).
import CoifCore
import CoifGPU
import CoifEval
import CoifDiff
import CoifMedia
import CoifPipeline
import Foundation
import XCTest

final class GoldenTests: XCTestCase {
    static let manifest = Fixtures.packageRoot.appendingPathComponent("Tests/Goldens/cases.json").path
    static let suite = Fixtures.packageRoot.appendingPathComponent("Tests/Goldens/suite").path

    func runner() throws -> GoldenRunner {
        _ = try Fixtures.requireAstronaut()
        return GoldenRunner(engine: try Fixtures.sharedEngine(), coifVersion: "tests")
    }

    func testTheProjectsGoldenSuitePasses() throws {
        let runner = try runner()
        let manifest = try GoldenManifest.load(path: Self.manifest)
        XCTAssertGreaterThanOrEqual(manifest.cases.count, 3)
        if ProcessInfo.processInfo.environment["COIF_RECORD_GOLDENS"] == "1" {
            let outcome = try runner.record(manifest, directory: Self.suite, force: true)
            // A golden compared with itself proves nothing: a recording run is not a pass.
            throw XCTSkip("recorded \(Self.suite): \(outcome.changes.map { "\($0.name) \($0.change.rawValue)" }); not verified in this run")
        }
        let outcome = try runner.verify(manifest, directory: Self.suite, withImages: false)
        XCTAssertEqual(outcome.results.count, manifest.cases.count)
        for r in outcome.results {
            XCTAssertEqual(r.status, .pass, "\(r.name): \(r.message) [\(r.rule)] \(r.rendererNote ?? "")")
            if let note = r.rendererNote { print("golden \(r.name): \(note)") }
        }
    }

    /// Copies the suite, paints a block into one case's reference, and runs `coif golden verify --report`:
    /// exit 1, that case reported as failing, and listed first in the HTML.
    func testAPerturbedReferenceFailsAndIsReportedFirst() throws {
        _ = try Fixtures.requireAstronaut()
        let dir = try Fixtures.temporaryDirectory()
        let goldens = dir + "/goldens"
        try FileManager.default.copyItem(atPath: Self.suite, toPath: goldens)
        let manifest = try GoldenManifest.load(path: Self.manifest)
        let victim = manifest.cases[2].name
        var image = try PNGFile.read(path: "\(goldens)/\(victim).png", channels: 3)
        for y in 300..<340 { for x in 100..<160 { image.pixels[(y * image.width + x) * 3] ^= 0x80 } }
        try AtomicFile.write(try PNGFile.encode(image), to: "\(goldens)/\(victim).png")

        let run = try Fixtures.runCoif(["golden", "verify", Self.manifest, "--dir", goldens, "--report", dir + "/report.html"])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        let lines = run.stdout.split(separator: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("FAIL \(victim)") ?? false, run.stdout)
        XCTAssertEqual(lines.filter { $0.hasPrefix("FAIL") }.count, 1, run.stdout)
        let html = try String(contentsOfFile: dir + "/report.html", encoding: .utf8)
        let firstCase = try XCTUnwrap(html.range(of: "<div class=\"case "))
        XCTAssertTrue(html[firstCase.lowerBound...].hasPrefix("<div class=\"case fail\" id=\"case-\(victim)\""))
        XCTAssertEqual(html.components(separatedBy: "data:image/png;base64,").count - 1, 3 * manifest.cases.count,
                       "reference, actual and heatmap for every case")
        XCTAssertTrue(html.contains("differing pixels"))
    }

    /// `record` over a reference whose pixels changed writes nothing without --force and says which.
    /// A golden's renderer names the host CPU's vector instructions under llvmpipe, which compiles its shaders
    /// for the CPU it runs on: one GL_RENDERER string drew the same hair 0.5–1.4% of its pixels apart on an
    /// AVX-512 host and on the recording host, so an exact match is asked only on the same kind of CPU.
    func testSoftwareRenderersAreNamedWithTheHostsVectorInstructions() {
        XCTAssertEqual(GPUContext.hostVectorInstructions(cpuinfo: "processor\t: 0\nflags\t\t: fpu sse4_2 avx avx2 fma bmi2\n"), "avx2+fma")
        XCTAssertEqual(GPUContext.hostVectorInstructions(cpuinfo: "flags\t: fpu avx2 avx512f avx512bw fma\n"), "avx512f+fma")
        XCTAssertEqual(GPUContext.hostVectorInstructions(cpuinfo: "Features\t: fp asimd evtstrm\n"), "asimd")
        XCTAssertEqual(GPUContext.hostVectorInstructions(cpuinfo: "no flags here\n"), "unknown CPU")
        XCTAssertEqual(GPUContext.hostVectorInstructions(cpuinfo: nil), "unknown CPU")
    }

    func testRecordRefusesToOverwriteAChangedGolden() throws {
        let runner = try runner()
        let dir = try Fixtures.temporaryDirectory()
        let full = try GoldenManifest.load(path: Self.manifest)
        var manifest = full
        manifest.cases = [full.cases[0]]
        let name = full.cases[0].name
        try FileManager.default.copyItem(atPath: "\(Self.suite)/\(name).json", toPath: "\(dir)/\(name).json")
        var image = try PNGFile.read(path: "\(Self.suite)/\(name).png", channels: 3)
        image.pixels[1000] ^= 1
        let stale = try PNGFile.encode(image)
        try AtomicFile.write(stale, to: "\(dir)/\(name).png")

        let refused = try runner.record(manifest, directory: dir, force: false)
        XCTAssertFalse(refused.written)
        XCTAssertEqual(refused.changedNames, [name])
        XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(name).png"))), stale, "overwritten without --force")
        XCTAssertEqual(Fixtures.listing(dir), ["\(name).json", "\(name).png"])

        let forced = try runner.record(manifest, directory: dir, force: true)
        XCTAssertTrue(forced.written)
        let now = try PNGFile.read(path: "\(dir)/\(name).png", channels: 3)
        let rendered = try runner.render(manifest)[0].image
        XCTAssertTrue(now == rendered, "--force stores the render")
        let again = try runner.record(manifest, directory: dir, force: false)
        XCTAssertEqual(again.changes.first?.change, .unchanged, "the forced record left the reference and its context as rendered now")
    }
}
