// LevelOfDetail: how many strands and points a face deserves. Cost follows segment count (measured on
#if canImport(Glibc)
import Glibc
#endif
// llvmpipe: ~3.4 µs a segment at 1024²), so a 200-pixel face must not pay for a 2,000-pixel one. The
// face's width in pixels (jaw landmark 0 to 16) picks the counts; they go into the timing record.

public struct LevelOfDetail: Sendable, Equatable, Codable {
    /// Guides plus interpolated children.
    public var strandCount: Int
    public var pointsPerStrand: Int
    /// Rendered strands stand for bundles of fibres: fewer strands are drawn wider to keep the same
    /// coverage of the scalp (width grows as the square root of the thinning, a compromise between
    /// coverage and visible clumps).
    public var widthScale: Float

    public var segmentCount: Int { strandCount * (pointsPerStrand - 1) }

    /// Strands at which the catalog's widths are true.
    public static let fullDensityStrands = 24_000

    /// - Parameters:
    ///   - faceWidthPx: jaw-to-jaw width of the face in the photo.
    ///   - guideCount: the style's guides (all are always drawn).
    ///   - detail: user multiplier on the strand count (1 = default).
    public static func choose(faceWidthPx: Double, guideCount: Int, detail: Double = 1) -> LevelOfDetail {
        // ~0.3 strands per square pixel of face width: 100 px → 3,000 strands; capped at full density.
        let wanted = 0.3 * faceWidthPx * faceWidthPx * max(detail, 0.05)
        let strands = min(max(Int(wanted), guideCount, 600), fullDensityStrands)
        // A segment should stay a few pixels long: 8 points on a 100-px face is ~12 px a segment.
        let points = faceWidthPx < 160 ? 8 : (faceWidthPx < 400 ? 12 : 20)
        let thinning = Float(fullDensityStrands) / Float(strands)
        return LevelOfDetail(strandCount: strands, pointsPerStrand: points, widthScale: powf(thinning, 0.8))
    }
}
