// TimingReport: FrameTiming as JSON (--timing), and summaries over many frames (count, mean, p50, p95,
// p99, max) for the benchmark.
import CoifCore
import CoifRender
import Foundation

public enum TimingReport {
    /// One still's timing record, keys sorted so files diff cleanly.
    public static func json(_ timing: FrameTiming, levelOfDetail: LevelOfDetail, job: TryOnJob, style: String) -> String {
        var stages: [String: Double] = [:]
        for stage in Stage.allCases { if let ms = timing[stage] { stages[stage.rawValue] = rounded(ms) } }
        var record: [String: Any] = [
            "stagesMs": stages,
            "totalMs": rounded(timing.totalMs),
            "renderer": timing.renderer,
            "imageWidth": timing.imageWidth,
            "imageHeight": timing.imageHeight,
            "strandCount": timing.strandCount,
            "segmentCount": timing.segmentCount,
            "pointsPerStrand": levelOfDetail.pointsPerStrand,
            "faceWidthPx": rounded(timing.faceWidthPx),
            "photo": job.input.name,
            "style": style,
            "color": job.look.name,
            "seed": job.seed,
        ]
        if let gpu = timing.gpuRenderMs { record["gpuRenderMs"] = rounded(gpu) }
        let data = try! JSONSerialization.data(withJSONObject: record, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func rounded(_ ms: Double) -> Double { (ms * 1000).rounded() / 1000 }
}

/// Order statistics of a set of durations.
public struct DurationSummary: Sendable, Equatable, Codable {
    public var count: Int
    public var meanMs: Double
    public var p50Ms: Double
    public var p95Ms: Double
    public var p99Ms: Double
    public var maxMs: Double

    public init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        meanMs = sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count)
        func quantile(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            // Nearest rank: the smallest sample with at least q of the samples at or below it.
            let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(rank, 0), sorted.count - 1)]
        }
        p50Ms = quantile(0.50)
        p95Ms = quantile(0.95)
        p99Ms = quantile(0.99)
        maxMs = sorted.last ?? 0
    }
}
