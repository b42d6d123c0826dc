// FillJudge: how a plate's background fill sits in the background around it (see cv_fill_judge).
import CVision
import CoifCore

public enum FillJudge {
    public struct Figures: Sendable, Equatable {
        /// Mean CIE76 ΔE between the fill and the ring of untouched background, each averaged locally.
        public var halo: Double
        /// The fill's Laplacian energy over the ring's (1: the same grain and structure).
        public var texture: Double
        public var fillPixels: Int
        public var ringPixels: Int
        /// The fill pixels the ring reaches, where `halo` was measured: 0 where the ring lies too far from
        /// every fill pixel, and then `halo` means nothing.
        public var haloPixels: Int

        public init(halo: Double, texture: Double, fillPixels: Int, ringPixels: Int, haloPixels: Int? = nil) {
            self.halo = halo
            self.texture = texture
            self.fillPixels = fillPixels
            self.ringPixels = ringPixels
            self.haloPixels = haloPixels ?? (ringPixels > 0 ? fillPixels : 0)
        }
    }

    /// - Parameters: `fill` the filled region judged, `removed` all that was removed, `source` the untouched
    ///   background (photo-sized masks, non-zero = in); the ring is `source` between `innerPx` from `removed`
    ///   and `outerPx` from `fill`; `sigmaPx` the local averaging's scale.
    public static func measure(_ image: PixelImage, fill: [UInt8], removed: [UInt8], source: [UInt8], innerPx: Int, outerPx: Int,
                               sigmaPx: Float) throws -> Figures {
        precondition(image.channels == 3 && fill.count == image.width * image.height && removed.count == fill.count && source.count == fill.count)
        var out = [Double](repeating: 0, count: 5)
        let status = image.pixels.withUnsafeBufferPointer { rgb in
            cv_fill_judge(rgb.baseAddress, Int32(image.width), Int32(image.height), fill, removed, source, Int32(innerPx),
                          Int32(outerPx), sigmaPx, &out)
        }
        guard status == 0 else { throw CoifError.internalError("fill judge failed (\(status))") }
        return Figures(halo: out[0], texture: out[1], fillPixels: Int(out[2]), ringPixels: Int(out[3]), haloPixels: Int(out[4]))
    }
}
