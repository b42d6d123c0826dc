// ImageDifference: how two renders of the same thing differ, in the figures a golden-image test needs.
// A pixel "differs" when any channel differs by more than `threshold` (8-bit steps).
import CoifCore

public struct ImageDifference: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var comparedPixels: Int
    public var differingPixels: Int
    /// Largest absolute difference of any channel, 0…255.
    public var maxChannelError: Int
    /// Mean absolute channel difference over compared pixels, 0…255.
    public var meanAbsoluteError: Double
    /// Peak signal-to-noise ratio in dB (infinity when identical).
    public var psnr: Double
    /// Smallest box holding every differing pixel: (minX, minY, maxX, maxY), nil when none differ.
    public var bounds: (Int, Int, Int, Int)?

    public var differingFraction: Double { comparedPixels == 0 ? 0 : Double(differingPixels) / Double(comparedPixels) }

    public static func == (a: ImageDifference, b: ImageDifference) -> Bool {
        a.differingPixels == b.differingPixels && a.maxChannelError == b.maxChannelError && a.comparedPixels == b.comparedPixels
    }
}

public enum ImageDiff {
    /// Compares two images of the same size and channel count.
    /// - Parameters:
    ///   - threshold: channel difference (8-bit steps) at or below which a pixel counts as equal.
    ///   - mask: optional gray image; only pixels where it is non-zero are compared.
    public static func compare(_ a: PixelImage, _ b: PixelImage, threshold: Int = 0, mask: PixelImage? = nil) throws -> ImageDifference {
        guard a.width == b.width, a.height == b.height else {
            throw CoifError.invalidOption(name: "images", reason: "sizes differ: \(a.width)x\(a.height) vs \(b.width)x\(b.height)")
        }
        guard a.channels == b.channels else {
            throw CoifError.invalidOption(name: "images", reason: "channel counts differ: \(a.channels) vs \(b.channels)")
        }
        if let mask, mask.width != a.width || mask.height != a.height || mask.channels != 1 {
            throw CoifError.invalidOption(name: "mask", reason: "must be a gray image of \(a.width)x\(a.height)")
        }
        let channels = a.channels
        var compared = 0, differing = 0, maxError = 0
        var sumAbsolute = 0, sumSquared = 0
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = y * a.width + x
                if let mask, mask.pixels[p] == 0 { continue }
                compared += 1
                var pixelMax = 0
                for c in 0..<channels {
                    let d = abs(Int(a.pixels[p * channels + c]) - Int(b.pixels[p * channels + c]))
                    pixelMax = max(pixelMax, d)
                    sumAbsolute += d
                    sumSquared += d * d
                }
                maxError = max(maxError, pixelMax)
                if pixelMax > threshold {
                    differing += 1
                    minX = min(minX, x); minY = min(minY, y); maxX = max(maxX, x); maxY = max(maxY, y)
                }
            }
        }
        let samples = Double(max(compared * channels, 1))
        let mse = Double(sumSquared) / samples
        let psnr = mse == 0 ? Double.infinity : 10 * log10(255 * 255 / mse)
        return ImageDifference(width: a.width, height: a.height, comparedPixels: compared, differingPixels: differing,
                               maxChannelError: maxError, meanAbsoluteError: Double(sumAbsolute) / samples, psnr: psnr,
                               bounds: differing > 0 ? (minX, minY, maxX, maxY) : nil)
    }
}

#if canImport(Glibc)
import Glibc
#endif
