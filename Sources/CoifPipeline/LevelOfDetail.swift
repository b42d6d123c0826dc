// LevelOfDetail: how many strands and points a face deserves. Render cost follows segment count (on
// llvmpipe, 2 cores: ~2.5 µs a segment shaded per vertex), so a 200-pixel face must not pay for a
// 2,000-pixel one. The face's width in pixels (jaw landmark 0 to 16) picks the counts; they go into the
// timing record.
#if canImport(Glibc)
import CoifCore
import CoifGroom
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

    public init(strandCount: Int, pointsPerStrand: Int, widthScale: Float) {
        self.strandCount = strandCount
        self.pointsPerStrand = pointsPerStrand
        self.widthScale = widthScale
    }

    public var segmentCount: Int { strandCount * (pointsPerStrand - 1) }

    /// Strands at which the catalog's widths are true.
    public static let fullDensityStrands = 24_000
    /// The most segments a still draws at detail 1: ~150 ms on llvmpipe, a few ms on a GPU.
    public static let segmentBudget = 60_000
    /// The most strands `--strands` may ask for.
    public static let maxStrands = 500_000

    /// The one check of a `--strands` value for every command that takes it.
    public static func checkStrands(_ strands: Int?) throws {
        guard let strands else { return }
        guard (1...maxStrands).contains(strands) else {
            throw CoifError.invalidOption(name: "--strands", reason: "must be 1–\(maxStrands), got \(strands)")
        }
    }
    /// How far (pixels) a drawn strand may stray from its guide's shape by having fewer points: about the
    /// width of the ribbon itself. (At 1 px even a bob's gentle curve around the head asked for all its
    /// points at every size, halving the strands the segment budget buys.)
    public static let shapeTolerancePx = 2.0
    /// The strand length the density below (~0.3 strands per square pixel of face width) was set for: a
    /// bob's, the catalog's tuned medium style (mean guide 131 mm). A shorter strand covers less of the head
    /// and costs fewer segments, so a cropped style gets more strands in proportion, within the segment
    /// budget: at the bob's density a buzz cut (8 mm strands) on a 48-px face drew 691 strands, each a
    /// ribbon 2.4 px wide standing for ~100 fibres, and each glinted as one: a buzz cut dotted with grey
    /// specks (camera.png). Longer styles keep the rule as it was.
    public static let coverageLengthMm: Float = 130
    /// Jaw-to-jaw width (landmarks 0–16) of Coif's head, mm: turns a face's width in pixels into a scale.
    public static let faceWidthMm = 150.0

    /// The fewest points (at most the style's own) whose resampling error is within `toleranceMm`.
    static func pointsToFollow(_ errors: [Float], toleranceMm: Float) -> Int {
        for n in 2..<errors.count where errors[n] <= toleranceMm { return n }
        return errors.count - 1
    }

    /// - Parameters:
    ///   - faceWidthPx: jaw-to-jaw width of the face in the photo.
    ///   - guideCount: the style's guides (all are always drawn).
    ///   - detail: user multiplier on the strand count and the segment budget (1 = default).
    ///   - resamplingErrorsMm: the style's `StrandSet.resamplingErrorsMm()`; when given, strands get at
    ///     least the points that keep resampling within `shapeTolerancePx` of their shape at this size.
    ///   - meanStrandLengthMm: the style's mean strand length (StyleLibrary.meanStrandLength); shorter than
    ///     `coverageLengthMm`, more strands are wanted in proportion (never more than the budget).
    ///   - strands: a strand count asked for (`--strands`): exactly that many (guides plus children, or
    ///     fewer guides than the style has), at most `maxStrands`; it replaces the automatic count and its segment budget (points still follow
    ///     the face and the shape), and strands are never drawn thinner than the catalog says.
    public static func choose(faceWidthPx: Double, guideCount: Int, detail: Double = 1,
                              resamplingErrorsMm: [Float]? = nil, meanStrandLengthMm: Float? = nil, strands asked: Int? = nil) -> LevelOfDetail {
        let detail = max(detail, 0.05)
        // A segment should stay several pixels long: 8 points on a 100-px face is ~12 px a segment.
        var points = faceWidthPx < 160 ? 8 : (faceWidthPx < 400 ? 12 : 16)
        if let errors = resamplingErrorsMm, errors.count > 2 {
            points = max(points, pointsToFollow(errors, toleranceMm: Float(shapeTolerancePx * faceWidthMm / max(faceWidthPx, 1))))
        }
        if let asked {
            // Exactly what was asked: fewer than the guides draws that many guides (ChildInterpolation's
            // guideLimit), at the guides-only width rather than ever wider.
            let strands = min(max(asked, 1), maxStrands)
            let thinning = max(Float(fullDensityStrands) / Float(max(strands, guideCount)), 1)
            return LevelOfDetail(strandCount: strands, pointsPerStrand: points, widthScale: powf(thinning, 0.8))
        }
        // ~0.3 strands per square pixel of face width (100 px → 3,000 strands) at a bob's length, more for
        // shorter strands, within the budget.
        let shortness = meanStrandLengthMm.map { max(1, Double(coverageLengthMm) / Double(max($0, 1))) } ?? 1
        let wanted = 0.3 * faceWidthPx * faceWidthPx * detail * shortness
        let budget = Double(segmentBudget) * detail / Double(points - 1)
        let strands = min(max(Int(min(wanted, budget)), guideCount, 600), fullDensityStrands)
        let thinning = Float(fullDensityStrands) / Float(strands)
        return LevelOfDetail(strandCount: strands, pointsPerStrand: points, widthScale: powf(thinning, 0.8))
    }
}

extension LevelOfDetail {
    /// The projected width (mm) each of `strandCount` drawn strands stands for in how much hair covers a
    /// point (HairCover): a head of the style's hair at full density (the catalog's mean width ×
    /// `fullDensityStrands`) shared among them, so a level of detail that draws fewer strands covers as much.
    public static func coverWidthMm(_ entry: StyleEntry, strandCount: Int) -> Float {
        (entry.rootWidthMm + entry.tipWidthMm) / 2 * Float(fullDensityStrands) / Float(max(strandCount, 1))
    }
}

extension StyleLibrary {
    /// The level of detail `style` gets on a face `faceWidthPx` wide: its guides, the points its shape needs and
    /// its strands' length, as `LevelOfDetail.choose` weighs them. The one place a render, a preview and the
    /// groom benchmark choose it, so the three draw the same strands for the same face.
    public func levelOfDetail(_ style: Style, faceWidthPx: Double, detail: Double = 1, strands: Int? = nil) throws -> LevelOfDetail {
        LevelOfDetail.choose(faceWidthPx: faceWidthPx, guideCount: try groom(style).guides.strandCount, detail: detail,
                             resamplingErrorsMm: try resamplingErrors(style), meanStrandLengthMm: try meanStrandLength(style),
                             strands: strands)
    }
}
