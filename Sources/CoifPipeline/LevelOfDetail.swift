// LevelOfDetail: how many strands and points a face deserves. Render cost follows segment count (on
// llvmpipe, 2 cores: ~2.5 µs a segment shaded per vertex), so a 200-pixel face must not pay for a
// 2,000-pixel one. The face's width in pixels (jaw landmark 0 to 16) picks the counts; they go into the
// timing record.
#if canImport(Glibc)
import Glibc
#endif

public struct LevelOfDetail: Sendable, Equatable, Codable {
    /// Guides plus interpolated children.
    public var strandCount: Int
    public var pointsPerStrand: Int
    /// Rendered strands stand for bundles of fibres: fewer strands are drawn wider to keep roughly the
    /// same coverage of the scalp. Width grows as thinning^0.8: full coverage preservation (^1) makes
    /// wide flat cards; ^0.5 left the photo showing through at try-on sizes.
    public var widthScale: Float

    public var segmentCount: Int { strandCount * (pointsPerStrand - 1) }

    /// Strands at which the catalog's widths are true.
    public static let fullDensityStrands = 24_000
    /// The most segments a still draws at detail 1: ~150 ms on llvmpipe, a few ms on a GPU.
    public static let segmentBudget = 60_000

    /// - Parameters:
    ///   - faceWidthPx: jaw-to-jaw width of the face in the photo.
    ///   - guideCount: the style's guides (all are always drawn).
    ///   - detail: user multiplier on the strand count and the segment budget (1 = default).
    public static func choose(faceWidthPx: Double, guideCount: Int, detail: Double = 1) -> LevelOfDetail {
        let detail = max(detail, 0.05)
        // A segment should stay several pixels long: 8 points on a 100-px face is ~12 px a segment.
        let points = faceWidthPx < 160 ? 8 : (faceWidthPx < 400 ? 12 : 16)
        // ~0.3 strands per square pixel of face width (100 px → 3,000 strands), within the budget.
        let wanted = 0.3 * faceWidthPx * faceWidthPx * detail
        let budget = Double(segmentBudget) * detail / Double(points - 1)
        let strands = min(max(Int(min(wanted, budget)), guideCount, 600), fullDensityStrands)
        let thinning = Float(fullDensityStrands) / Float(strands)
        return LevelOfDetail(strandCount: strands, pointsPerStrand: points, widthScale: powf(thinning, 0.8))
    }
}
