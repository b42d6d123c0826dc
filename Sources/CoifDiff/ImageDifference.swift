// ImageDifference: how two renders of the same thing differ, in the figures a golden-image test needs,
// and the options that say what counts as a difference. The passes that compute it are in Comparator.
import CoifCore
import Foundation

/// What counts as a difference.
public struct DiffOptions: Sendable {
    /// A pixel differs when any channel differs by more than this, on the 8-bit scale 0…255 (a 16-bit
    /// difference is divided by 257 first). 0 = any change.
    public var threshold: Double = 0
    /// Differing pixels recognised as anti-aliasing (see `AntiAliasing`) are not counted.
    public var ignoreAntialiasing = false
    /// 8-bit gray, same size as the images: only pixels where it is non-zero are compared.
    public var mask: PixelImage?
    /// Also return the per-pixel `DifferenceMap` (for a heatmap).
    public var keepMap = false

    public init(threshold: Double = 0, ignoreAntialiasing: Bool = false, mask: PixelImage? = nil, keepMap: Bool = false) {
        self.threshold = threshold
        self.ignoreAntialiasing = ignoreAntialiasing
        self.mask = mask
        self.keepMap = keepMap
    }
}

/// A box of pixels, inclusive on both ends, in image coordinates (x right, y down).
public struct PixelBox: Sendable, Equatable {
    public var minX: Int, minY: Int, maxX: Int, maxY: Int
    public init(minX: Int, minY: Int, maxX: Int, maxY: Int) { self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY }
    public var width: Int { maxX - minX + 1 }
    public var height: Int { maxY - minY + 1 }
}

/// The figures of one comparison. Error figures are on the 8-bit scale 0…255; channel figures cover every
/// channel of the shared layout (alpha included); perceptual figures (SSIM, ΔE00) look at the colour
/// composited over white.
public struct ImageDifference: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Of the shared layout both images were loaded to.
    public var channels: Int
    public var bitDepth: Int
    public var threshold: Double
    public var ignoringAntialiasing: Bool
    /// Pixels inside the mask (all pixels without one).
    public var comparedPixels: Int
    /// Pixels with a channel off by more than `threshold`, less the anti-aliased ones when they are ignored.
    public var differingPixels: Int
    /// Pixels off by more than `threshold` that `AntiAliasing` recognises as edge pixels (counted in
    /// `differingPixels` unless `ignoringAntialiasing`).
    public var antialiasedPixels: Int
    /// Largest absolute difference of any channel.
    public var maxChannelError: Double
    /// Mean absolute channel difference over compared pixels' channels.
    public var meanAbsoluteError: Double
    /// Peak signal-to-noise ratio in dB, 10·log10(255² / MSE) over compared channels; infinity when equal.
    public var psnr: Double
    /// Mean SSIM (Wang et al. 2004) over every 8×8 window of luma (stride 1, windows inside the image,
    /// K1 = 0.01, K2 = 0.03, L = 255, sample (N−1) variances); with a mask, over windows whose pixel
    /// (x+4, y+4) is compared. nil when the image is smaller than 8×8 or no window is compared.
    public var ssim: Double?
    /// CIEDE2000 between the two colours of each compared pixel: mean (0 for equal pixels) and maximum.
    public var deltaE00Mean: Double
    public var deltaE00Max: Double
    /// Smallest box holding every counted differing pixel; nil when none.
    public var bounds: PixelBox?

    public var differingFraction: Double { comparedPixels == 0 ? 0 : Double(differingPixels) / Double(comparedPixels) }
    public var differingPercent: Double { 100 * differingFraction }

    /// Every figure, for `--json` and golden reports (infinite PSNR as the string "inf").
    public var jsonObject: [String: Any] {
        var o: [String: Any] = [
            "width": width, "height": height, "channels": channels, "bitDepth": bitDepth,
            "threshold": threshold, "ignoringAntialiasing": ignoringAntialiasing,
            "comparedPixels": comparedPixels, "differingPixels": differingPixels,
            "differingPercent": differingPercent, "antialiasedPixels": antialiasedPixels,
            "maxChannelError": maxChannelError, "meanAbsoluteError": meanAbsoluteError,
            "psnrDb": psnr.isFinite ? psnr as Any : "inf",
            "ssim": ssim.map { $0 as Any } ?? NSNull(), "ssimWindow": "8x8 uniform, stride 1, luma (Rec. 601 of sRGB over white)",
            "deltaE00Mean": deltaE00Mean, "deltaE00Max": deltaE00Max,
        ]
        if let b = bounds {
            o["bounds"] = ["minX": b.minX, "minY": b.minY, "maxX": b.maxX, "maxY": b.maxY]
        } else {
            o["bounds"] = NSNull()
        }
        return o
    }

    /// One line for people: verdict first, then the figures.
    public func summary(within: Bool) -> String {
        var text = within ? "same within tolerance" : "DIFFERENT"
        text += ": \(differingPixels) of \(comparedPixels) pixels differ (\(percentText(differingPercent)))"
        text += threshold > 0 ? " by more than \(formatNumber(threshold))" : ""
        text += ", \(antialiasedPixels) anti-aliased" + (ignoringAntialiasing ? " (ignored)" : "")
        text += "; max error \(formatNumber(maxChannelError)), mean \(formatNumber(meanAbsoluteError, digits: 3))"
        text += ", PSNR " + (psnr.isFinite ? "\(formatNumber(psnr, digits: 2)) dB" : "inf")
        text += ", SSIM " + (ssim.map { formatNumber($0, digits: 5) } ?? "n/a")
        text += ", ΔE00 mean \(formatNumber(deltaE00Mean, digits: 3)) max \(formatNumber(deltaE00Max, digits: 2))"
        if let b = bounds { text += ", box (\(b.minX),\(b.minY))-(\(b.maxX),\(b.maxY))" }
        return text
    }
}

/// How many differing pixels a comparison may have and still pass: a count, or a percentage of the
/// compared pixels. Parsed from "N" or "P%".
public enum PixelBudget: Sendable, Equatable, CustomStringConvertible {
    case count(Int)
    case percent(Double)

    public static func parse(_ text: String, option: String = "--max-differing-pixels") throws -> PixelBudget {
        if text.hasSuffix("%") {
            guard let p = Double(text.dropLast()), p.isFinite, p >= 0, p <= 100 else {
                throw CoifError.invalidOption(name: option, reason: "must be a count or a percentage 0–100%, got '\(text)'")
            }
            return .percent(p)
        }
        guard let n = Int(text), n >= 0 else {
            throw CoifError.invalidOption(name: option, reason: "must be a count or a percentage 0–100%, got '\(text)'")
        }
        return .count(n)
    }

    public func allows(_ difference: ImageDifference) -> Bool {
        switch self {
        case .count(let n): return difference.differingPixels <= n
        case .percent(let p): return difference.differingPercent <= p
        }
    }

    public var description: String {
        switch self {
        case .count(let n): return "\(n)"
        case .percent(let p): return "\(formatNumber(p))%"
        }
    }
}

public enum ImageDiff {
    /// Compares two 8-bit images of the same size and channel count (the render-in-memory form).
    /// - Parameters:
    ///   - threshold: channel difference (8-bit steps) at or below which a pixel counts as equal.
    ///   - mask: optional gray image; only pixels where it is non-zero are compared.
    /// Throws `imageSizeMismatch` when sizes differ, `invalidOption` when channel counts differ.
    public static func compare(_ a: PixelImage, _ b: PixelImage, threshold: Int = 0, mask: PixelImage? = nil) throws -> ImageDifference {
        guard a.channels == b.channels else {
            throw CoifError.invalidOption(name: "images", reason: "channel counts differ: \(a.channels) vs \(b.channels)")
        }
        let (difference, _) = try Comparator.compare(DiffImage(a, name: "first image"), DiffImage(b, name: "second image"),
                                                     options: DiffOptions(threshold: Double(threshold), mask: mask))
        return difference
    }

    /// Compares `b` with the reference `a` (loaded by `DiffImage.loadPair`, or both 8-bit of one layout).
    /// Throws `imageSizeMismatch` (14) for differing sizes or a mask of another size.
    public static func compare(_ a: DiffImage, _ b: DiffImage, options: DiffOptions) throws -> (difference: ImageDifference, map: DifferenceMap?) {
        guard a.channels == b.channels, a.bitDepth == b.bitDepth else {
            throw CoifError.invalidOption(name: "images", reason: "layouts differ: \(a.channels) channels at \(a.bitDepth) bits vs \(b.channels) at \(b.bitDepth)")
        }
        let (difference, map) = try Comparator.compare(a, b, options: options)
        return (difference, map)
    }
}

func formatNumber(_ x: Double, digits: Int = 2) -> String {
    if x == x.rounded() && abs(x) < 1e15 { return String(Int(x)) }
    var s = String(format: "%.\(digits)f", x)
    while s.hasSuffix("0") { s.removeLast() }
    if s.hasSuffix(".") { s.removeLast() }
    return s
}

func percentText(_ p: Double) -> String {
    if p == 0 { return "0%" }
    if p < 0.01 { return "<0.01%" }
    return formatNumber(p) + "%"
}
