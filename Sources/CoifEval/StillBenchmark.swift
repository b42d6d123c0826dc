// StillBenchmark: a still rendered many times in one process (coif bench): the cold (first) render, warm
// renders, colour-only re-renders on the cached face and pose, and each GPU pass alone. Wall-clock figures for
// reports; no test asserts them.
import CoifCore
import CoifMedia
import CoifPipeline
import CoifRender
import Foundation

/// What `StillBenchmark.run` measured.
public struct StillBenchmarkResult: Sendable {
    /// The first render of the job, cold (its timing holds the renderer, the photo's size and the strands).
    public var cold: FrameTiming
    /// Each warm render of the whole job.
    public var warm: [FrameTiming]
    /// Each colour-only re-render: its stages and its whole wall time, encode and write included.
    public var recolorStages: [FrameTiming]
    public var recolorMs: [Double]
    /// Each GPU pass alone (a glFinish after it and the wall clock around it), and the CPU composite, in the
    /// order they first ran.
    public var passOrder: [String]
    public var passMs: [String: [Double]]
}

public enum StillBenchmark {
    /// The colours the re-renders cycle through.
    static let recolors = ["auburn", "blonde", "black", "#6b3e26"]

    /// Renders `job` (its output in `scratchDirectory`) once cold and `iterations` times warm, then
    /// `iterations` colour-only re-renders on the cold render's analysis, then `iterations` renders with each
    /// pass timed alone (separate runs, so the warm table is not slowed by the finishes).
    public static func run(engine: TryOnEngine, job: TryOnJob, iterations: Int, scratchDirectory: String) throws -> StillBenchmarkResult {
        let cold = try engine.run(job)
        var warm: [FrameTiming] = []
        for _ in 0..<iterations { warm.append(try engine.run(job).timing) }

        // Colour-only re-renders: face and pose cached, strands cached on the GPU; the job's other settings (the
        // render flags) as the warm runs had them.
        let colors = try recolors.map(HairColor.parse)
        var recolorMs: [Double] = []
        var recolorStages: [FrameTiming] = []
        for i in 0..<iterations {
            let start = monotonicMs()
            var timing = FrameTiming()
            var recolored = job
            recolored.look.shading.recipe = colors[i % colors.count].recipe
            recolored.look.name = colors[i % colors.count].name
            let result = try engine.render([cold.analysis], job: recolored, timing: &timing)
            let bytes = try timing.measure(.encode) { try PNGFile.encode(result.images.composite) }
            try timing.measure(.write) { try AtomicFile.write(bytes, to: scratchDirectory + "/recolor.png") }
            recolorMs.append(monotonicMs() - start)
            recolorStages.append(timing)
        }

        // Each pass alone: a glFinish after every pass and the wall clock around it (timer queries are not
        // trusted on llvmpipe).
        engine.renderer.finishesEachPass = true
        defer { engine.renderer.finishesEachPass = false }
        var passMs: [String: [Double]] = [:]
        var passOrder: [String] = []
        for _ in 0..<iterations {
            var timing = FrameTiming()
            _ = try engine.render([cold.analysis], job: job, timing: &timing)
            for (label, ms) in engine.renderer.lastPassMs {
                let name = "\(label)"
                if passMs[name] == nil { passOrder.append(name) }
                passMs[name, default: []].append(ms)
            }
            passMs["composite (CPU)", default: []].append(timing[.composite] ?? 0)
        }
        passOrder.append("composite (CPU)")
        return StillBenchmarkResult(cold: cold.timing, warm: warm, recolorStages: recolorStages, recolorMs: recolorMs,
                                    passOrder: passOrder, passMs: passMs)
    }
}
