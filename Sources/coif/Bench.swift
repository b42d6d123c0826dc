// coif bench: renders a still many times in one process (StillBenchmark) and prints per-stage p50/p95, the
// cold (first) render, re-renders with another colour on a cached face and pose, and each pass alone.
// Wall-clock figures for reports; no test asserts them.
import ArgumentParser
import CoifCore
import CoifEval
import CoifMedia
import CoifPipeline
import CoifRender
import Foundation

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmark the still try-on: cold render, warm renders, and colour-only re-renders."
    )

    @Argument(help: "The photo (default: astronaut.png from Debian's python3-skimage).")
    var photo: String = "/usr/lib/python3/dist-packages/skimage/data/astronaut.png"

    @Option(help: "Warm iterations.")
    var iterations: Int = 20

    @Option(help: "A style name or groom file (default: the catalog's default).")
    var style: String?

    @OptionGroup var styleDirectories: StyleDirectoryOptions

    @Option(help: "Hair colour for the whole-still runs.")
    var color: HairColor = try! HairColor.parse("dark-brown")

    /// The render's flags, as `coif render` takes them (--keep-own-hair: what own-hair removal adds is the difference).
    @OptionGroup var flags: RenderFlags

    @OptionGroup var global: GlobalOptions

    /// The bench's scratch folder for the PNGs it writes to time the encode and the write:
    /// TMPDIR/coif-bench-PID. A folder that cannot be made (TMPDIR a file, or /proc/self) is exit 30 with one
    /// line. A bench killed outright (SIGKILL) cannot remove its own; the next one removes every
    /// coif-bench-PID whose process is gone.
    static func scratchDirectory() throws -> String {
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix("coif-bench-") {
            guard let pid = pid_t(name.dropFirst("coif-bench-".count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name)) }
        }
        let directory = temporary.appendingPathComponent("coif-bench-\(getpid())").path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CoifError.outputNotWritable(path: directory, reason: "the bench's scratch folder cannot be made there; TMPDIR must be a writable directory")
        }
        return directory
    }

    /// The options alone, before a model is loaded: each refusal keeps its CoifError (22, naming the flag).
    func validate() throws {
        guard iterations >= 1 && iterations <= 10_000 else {
            throw CoifError.invalidOption(name: "--iterations", reason: "must be 1…10000, got \(iterations)")
        }
        try flags.validateSettings(photo: photo, face: .largest, color: color)
    }

    func run() throws {
        try runReportingErrors {
            let logger = global.makeLogger()
            let directory = try Self.scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }

            let initStart = monotonicMs()
            let engine = try TryOnEngine(logger: logger, userStyleDirectories: styleDirectories.directories)
            let initMs = monotonicMs() - initStart
            var job = TryOnJob(photoPath: photo, style: style, color: color, outputPath: directory + "/still.png")
            try flags.settings(face: .largest).apply(to: &job)
            let result = try StillBenchmark.run(engine: engine, job: job, iterations: iterations, scratchDirectory: directory)
            let (warm, recolorStages, recolorMs) = (result.warm, result.recolorStages, result.recolorMs)

            let t = result.cold
            print("renderer: \(t.renderer)")
            print("photo: \(photo) (\(t.imageWidth)x\(t.imageHeight)), face \(Int(t.faceWidthPx)) px wide, \(t.strandCount) strands, \(t.segmentCount) segments")
            print(String(format: "engine start (dlib model, EGL context, shaders, head): %.1f ms", initMs))
            print("")
            print("stage        cold ms   warm p50   warm p95   recolor p50")
            for stage in Stage.allCases {
                let samples = warm.compactMap { $0[stage] }
                let recolor = recolorStages.compactMap { $0[stage] }
                let summary = DurationSummary(samples)
                let recolorText = recolor.isEmpty ? "         -" : String(format: "%10.2f", DurationSummary(recolor).p50Ms)
                print(padded(stage.rawValue, 10) + String(format: " %9.2f %10.2f %10.2f ", t[stage] ?? 0, summary.p50Ms, summary.p95Ms) + recolorText)
            }
            let whole = DurationSummary(warm.map(\.totalMs))
            let recolor = DurationSummary(recolorMs)
            print("")
            print(String(format: "whole still:  cold %.1f ms, warm p50 %.1f ms, p95 %.1f ms (n=%d)", t.totalMs, whole.p50Ms, whole.p95Ms, whole.count))
            print(String(format: "recolor (face + pose cached): p50 %.1f ms, p95 %.1f ms (n=%d)", recolor.p50Ms, recolor.p95Ms, recolor.count))
            print("")
            print("pass (glFinish after each)   p50 ms")
            for name in result.passOrder {
                print(padded(name, 28) + String(format: " %7.2f", DurationSummary(result.passMs[name] ?? []).p50Ms))
            }
        }
    }
}
