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
