// TryOnWrite: encode + write: a result's PNGs (encoded on all cores) and its timing JSON, staged whole and
// put in place together (AtomicFile.Batch).
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Foundation
import Logging

extension TryOnEngine {
    /// encode + write: the job's outputs from a result. The PNGs are independent: encoded on all cores.
    /// Nothing is written until every encode succeeded, and nothing is put in place until every output is
    /// staged (AtomicFile.Batch).
    public func write(_ result: inout TryOnResult, job: TryOnJob, timing: inout FrameTiming, start: Double) throws {
        try Self.write(&result, job: job, timing: &timing, start: start)
    }

    /// `write` without an engine: it touches no engine state, so a batch encodes and writes one item on its
    /// own thread while the engine renders the next.
    public static func write(_ result: inout TryOnResult, job: TryOnJob, timing: inout FrameTiming, start: Double) throws {
        let outputs = job.outputs
        var images: [(path: String, image: PixelImage)] = []
        if let composite = outputs.composite { images.append((composite, result.images.composite)) }
        if let directory = outputs.layersDirectory {
            images += [(directory + "/hair.png", result.images.hair), (directory + "/matte.png", result.images.matte)]
            if let ownHair = result.ownHair, let plate = result.plate {
                images += [(directory + "/own-hair-matte.png", ownHair.matteImage), (directory + "/filled.png", plate)]
            }
        }
        let encoded = try timing.measure(.encode) { try PNGFile.encodeConcurrently(images.map(\.image), compression: outputs.compression) }
        // Every output is staged whole before any is put in place, so they succeed or fail together: a full
        // layers folder once left the composite and three of the four layers behind an exit 30.
        var batch = AtomicFile.Batch()
        try timing.measure(.write) {
            // The layers directory is made when missing (as `groom import --out DIR` makes its catalog); the
            // composite's directory is the user's to give.
            let layerPaths = outputs.layerPaths
            for (target, bytes) in zip(images, encoded) {
                try batch.stage(bytes, to: target.path, createDirectories: layerPaths.contains(target.path))
            }
        }
        timing.totalMs = monotonicMs() - start
        if let timingPath = outputs.timingPath {
            try batch.stage(text: TimingReport.json(timing, levelOfDetail: result.levelOfDetail, job: job, style: job.style ?? ""),
                            to: timingPath)
        }
        try batch.commit()
        result.timing = timing
    }
}
