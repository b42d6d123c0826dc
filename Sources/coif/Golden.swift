// coif golden record|verify CASES.json --dir DIR: reference renders you can fail a build on.
// The work is in CoifPipeline's GoldenRunner; this prints and chooses exit codes (0 all pass / recorded,
// 1 a case fails or a changed reference was not overwritten, CoifError codes for bad input).
import ArgumentParser
import CoifCore
import CoifEval
import CoifMedia
import CoifPipeline
import Foundation

struct GoldenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "golden",
        abstract: "Record or verify golden renders listed in a manifest.",
        discussion: """
        Manifest: a JSON array of {"name", "photo", "style", "color", "seed", "flags": {"fovDegrees", "detail"},
        "tolerance": {"threshold", "maxDifferingPercent", "ignoreAntialiasing", "alsoOnSameRenderer"}}; photo
        paths are relative to the manifest's directory or absolute. On the renderer that recorded a golden,
        verify expects identical pixels; on another renderer the case's tolerance applies (defaults: threshold
        24, 0.5% of pixels, anti-aliasing ignored) and the mismatch is reported.
        """,
        subcommands: [Record.self, Verify.self]
    )

    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render every case and store DIR/NAME.png + DIR/NAME.json (renderer, Coif version, flags).",
            discussion: "A reference whose pixels changed is not overwritten without --force: then nothing is written and the command exits 1, listing the changed cases."
        )

        @Argument(help: "The manifest (CASES.json).")
        var manifest: String

        @Option(help: "Directory of the goldens (created if missing).")
        var dir: String

        @Flag(help: "Overwrite references whose pixels changed.")
        var force = false

        @OptionGroup var styleDirectories: StyleDirectoryOptions

        @OptionGroup var global: GlobalOptions

        func run() throws {
            var refused = false
            try runReportingErrors {
                let cases = try GoldenManifest.load(path: manifest)
                let runner = GoldenRunner(engine: try TryOnEngine(logger: global.makeLogger(), userStyleDirectories: styleDirectories.directories), coifVersion: coifVersion)
                let outcome = try runner.record(cases, directory: dir, force: force)
                for change in outcome.changes {
                    let verb = change.change == .changed && !outcome.written ? "changed (NOT overwritten)" : change.change.rawValue
                    print("\(change.name): \(verb) — \(change.detail)")
                }
                if outcome.written {
                    print("recorded \(outcome.changes.count) case(s) in \(dir) with \(runner.engine.rendererDescription)")
                } else {
                    refused = true
                    FileHandle.standardError.write(Data("coif: \(dir): \(outcome.changedNames.count) reference(s) changed: \(outcome.changedNames.joined(separator: ", ")); nothing written (use --force to overwrite)\n".utf8))
                }
            }
            if refused { throw ExitCode(1) }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render every case and compare it with its golden; exit 1 if any fails."
        )

        @Argument(help: "The manifest (CASES.json).")
        var manifest: String

        @Option(help: "Directory of the goldens.")
        var dir: String

        @Option(help: "Write a self-contained HTML report (images inlined), failing cases first.")
        var report: String?

        @OptionGroup var styleDirectories: StyleDirectoryOptions

        @OptionGroup var global: GlobalOptions

        func run() throws {
            var failed = false
            try runReportingErrors {
                if let report { try AtomicFile.checkWritable(report) }
                let cases = try GoldenManifest.load(path: manifest)
                if let report {
                    try OutputPaths.check([report], inputs: cases.inputPaths + cases.referencePaths(in: dir) + styleDirectories.catalogFiles)
                }
                let runner = GoldenRunner(engine: try TryOnEngine(logger: global.makeLogger(), userStyleDirectories: styleDirectories.directories), coifVersion: coifVersion)
                let start = Date()
                let outcome = try runner.verify(cases, directory: dir, withImages: report != nil)
                let seconds = Date().timeIntervalSince(start)
                for r in outcome.reportOrder {
                    print("\(r.status == .pass ? "PASS" : "FAIL") \(r.name): \(r.message) [\(r.rule)]")
                    if let note = r.rendererNote { print("  renderer mismatch: \(note)") }
                }
                let failures = outcome.results.filter { $0.status != .pass }.count
                print(String(format: "%d of %d case(s) pass (%.2f s, %.2f cases/s)", outcome.results.count - failures,
                             outcome.results.count, seconds, Double(outcome.results.count) / max(seconds, 1e-9)))
                if let report { try AtomicFile.write(text: GoldenReport.html(outcome), to: report) }
                failed = !outcome.passed
            }
            if failed { throw ExitCode(1) }
        }
    }
}
