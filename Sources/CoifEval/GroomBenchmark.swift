// GroomBenchmark: how long a groom takes to become drawable and what it costs on the GPU. Per groom: the
// load (Assimp parse of a catalog style, or import + fit of a file), the once-per-style work a try-on engine
// caches (shape analysis for the level of detail, the scalp under-layer), then, over many iterations, the
// per-still work: child interpolation and the upload of every strand point (timed to glFinish). Wall-clock
// figures for reports (`coif groom bench`); no test asserts them.
import CoifCore
import CoifGroom
import CoifPipeline
import CoifRender
import Foundation

/// One groom's figures.
public struct GroomBenchmarkResult: Sendable, Codable {
    public var groom: String
    public var guides: Int
    public var pointsPerGuide: Int
    public var strands: Int
    public var pointsPerStrand: Int
    public var segments: Int
    /// First load in this process, and the median of later loads (the parse, or import and fit).
    public var loadColdMs: Double
    public var loadWarmMs: Double
    /// Once per style per engine: resampling errors for the level of detail, and the scalp under-layer.
    public var shapeAnalysisMs: Double
    public var underLayerMs: Double
    /// Per still, warm: child interpolation, upload (to glFinish), and their sum; median and p95.
    public var interpolateMs: DurationSummary
    public var uploadMs: DurationSummary
    public var readyMs: DurationSummary
    /// GPU memory of this groom: the strand points texture plus the ribbon index buffer, and its under-layer.
    public var strandBytes: Int
    public var underLayerBytes: Int
}

/// The per-process GPU memory every groom shares.
public struct GroomBenchmarkShared: Sendable, Codable {
    public var renderer: String
    public var occluderBytes: Int
    /// The 4×MSAA RGBA16F + depth target and its resolve buffer at `targetSizePx`².
    public var targetBytes: Int
    public var targetSizePx: Int
}

public enum GroomBenchmark {
    /// - Parameters:
    ///   - grooms: catalog names or groom files (see `StyleLibrary.resolve`).
    ///   - faceWidthPx: the face size whose level of detail is measured (ignored when `strands` is given).
    ///   - strands: a fixed strand count (guides plus children) at the groom's own points per guide.
    public static func run(engine: PreviewEngine, grooms: [String], iterations: Int, faceWidthPx: Double,
                           strands: Int?, seed: UInt64 = 1) throws -> (GroomBenchmarkShared, [GroomBenchmarkResult]) {
        var results: [GroomBenchmarkResult] = []
        for name in grooms {
            // Load = resolve + parse (or import and fit), each time on an empty library, as a new process would.
            var start = monotonicMs()
            var library = try engine.styles.emptied()
            let style = try library.resolve(name)
            let groom = try library.groom(style)
            let loadCold = monotonicMs() - start
            var loads: [Double] = []
            for _ in 0..<min(iterations, 5) {
                library = try engine.styles.emptied()
                start = monotonicMs()
                _ = try library.groom(try library.resolve(name))
                loads.append(monotonicMs() - start)
            }

            start = monotonicMs()
            _ = try library.resamplingErrors(style)
            let shapeMs = monotonicMs() - start
            let lod = try strands.map { LevelOfDetail(strandCount: $0, pointsPerStrand: groom.guides.pointsPerStrand, widthScale: 1) }
                ?? library.levelOfDetail(style, faceWidthPx: faceWidthPx)

            start = monotonicMs()
            let shell = engine.renderer.upload(groom.underLayer(head: engine.head, radiusMm: Groom.underLayerRadiusMm), over: engine.occluder)
            engine.renderer.finish()
            let underLayerMs = monotonicMs() - start

            let children = ChildInterpolation.standard(strands: lod.strandCount, groom: groom,
                                                       pointsPerStrand: lod.pointsPerStrand, seed: seed)
            var interpolate: [Double] = [], upload: [Double] = [], ready: [Double] = []
            var geometry: StrandGeometry?
            // One untimed round first: page faults and the driver's first texture of this size.
            for round in 0...iterations {
                geometry = nil
                let t0 = monotonicMs()
                let all = children.apply(guides: groom.guides, head: engine.head)
                let t1 = monotonicMs()
                geometry = engine.renderer.upload(strands: all, seed: seed,
                                                  coverWidthMm: LevelOfDetail.coverWidthMm(style.entry, strandCount: all.strandCount))
                engine.renderer.finish()
                let t2 = monotonicMs()
                if round > 0 { interpolate.append(t1 - t0); upload.append(t2 - t1); ready.append(t2 - t0) }
            }
            guard let strandsOnGPU = geometry else { continue }
            results.append(GroomBenchmarkResult(
                groom: style.name, guides: groom.guides.strandCount, pointsPerGuide: groom.guides.pointsPerStrand,
                strands: strandsOnGPU.strandCount, pointsPerStrand: strandsOnGPU.pointsPerStrand,
                segments: strandsOnGPU.segmentCount, loadColdMs: loadCold, loadWarmMs: DurationSummary(loads).p50Ms,
                shapeAnalysisMs: shapeMs, underLayerMs: underLayerMs,
                interpolateMs: DurationSummary(interpolate), uploadMs: DurationSummary(upload), readyMs: DurationSummary(ready),
                strandBytes: strandsOnGPU.gpuBytes, underLayerBytes: shell.gpuBytes))
        }
        // One preview draw sizes the render target the way `coif preview` does.
        let size = 512
        if let first = grooms.first {
            var timing = FrameTiming()
            _ = try engine.render(try engine.style(first), view: .front, sizePx: size, color: try HairColor.parse("dark-brown"), timing: &timing)
        }
        let shared = GroomBenchmarkShared(renderer: engine.renderer.context.renderer, occluderBytes: engine.occluder.gpuBytes,
                                          targetBytes: engine.renderer.targetBytes, targetSizePx: size)
        return (shared, results)
    }
}
