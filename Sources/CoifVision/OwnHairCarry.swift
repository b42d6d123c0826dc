// OwnHairCarry: a video's own hair between keyframes. The face-parsing network costs ~0.45 s a frame on
// this machine, so a clip parses its keyframes only and carries the last keyframe's matte and classes to
// each later frame by the head's motion since: the similarity (scale, turn in the picture plane, shift) that
// best takes the keyframe's rigid landmarks onto the frame's. Hair moves with the skull; what a similarity
// cannot follow (a head turning or nodding, hair swinging) is why keyframes come often and whenever the head
// has turned (see VideoTryOn's keyframe rule).
import CVision
import CoifCore
import Foundation

/// A 2D similarity, q = s·R·p + t, as the 2×3 matrix [a −b tx; b a ty] with a = s·cos θ, b = s·sin θ.
public struct SimilarityMap: Sendable, Equatable {
    public var a: Double, b: Double, tx: Double, ty: Double

    public static let identity = SimilarityMap(a: 1, b: 0, tx: 0, ty: 0)

    public init(a: Double, b: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.tx = tx
        self.ty = ty
    }

    /// The least-squares similarity taking `from` onto `to` (the same points in two frames); identity for
    /// fewer than two points or coincident ones.
    public static func fit(from: [Vec2], to: [Vec2]) -> SimilarityMap {
        precondition(from.count == to.count)
        guard from.count >= 2 else { return .identity }
        let n = Double(from.count)
        var fx = 0.0, fy = 0.0, gx = 0.0, gy = 0.0
        for (p, q) in zip(from, to) { fx += Double(p.x); fy += Double(p.y); gx += Double(q.x); gy += Double(q.y) }
        fx /= n; fy /= n; gx /= n; gy /= n
        var dot = 0.0, cross = 0.0, norm = 0.0
        for (p, q) in zip(from, to) {
            let px = Double(p.x) - fx, py = Double(p.y) - fy, qx = Double(q.x) - gx, qy = Double(q.y) - gy
            dot += px * qx + py * qy
            cross += px * qy - py * qx
            norm += px * px + py * py
        }
        guard norm > 1e-9 else { return .identity }
        let a = dot / norm, b = cross / norm
        return SimilarityMap(a: a, b: b, tx: gx - (a * fx - b * fy), ty: gy - (b * fx + a * fy))
    }

    public func apply(_ p: Vec2) -> Vec2 {
        let x = Double(p.x), y = Double(p.y)
        return Vec2(Float(a * x - b * y + tx), Float(b * x + a * y + ty))
    }

    /// The map back (`to` → `from`).
    public var inverse: SimilarityMap {
        let d = a * a + b * b
        let ia = a / d, ib = -b / d
        return SimilarityMap(a: ia, b: ib, tx: -(ia * tx - ib * ty), ty: -(ib * tx + ia * ty))
    }

    /// Scale and turn (degrees) of the map: how far the head moved in the picture plane.
    public var scale: Double { (a * a + b * b).squareRoot() }
    public var turnDegrees: Double { atan2(b, a) * 180 / .pi }
}

extension OwnHair {
    /// The landmarks a parse is carried by: the rigid ones (nose, eyes, chin) and the jaw's ends at the
    /// temples' height, which follow the skull and not the expression.
    public static let carryLandmarks: [Int] = Array(27...47) + [8, 0, 16]

    /// This parse (a keyframe's) carried to a frame whose landmarks are `to`, from the keyframe's `from`.
    public func carried(from: [Vec2], to: [Vec2]) -> OwnHair {
        let map = SimilarityMap.fit(from: Self.carryLandmarks.map { from[$0] }, to: Self.carryLandmarks.map { to[$0] })
        return carried(by: map)
    }

    /// This parse moved by `map` (keyframe pixels → the frame's).
    public func carried(by map: SimilarityMap) -> OwnHair {
        let back = map.inverse
        var affine = [back.a, -back.b, back.tx, back.b, back.a, back.ty]
        var matteOut = [Float](repeating: 0, count: width * height)
        var classesOut = [UInt8](repeating: OwnHair.unknown, count: width * height)
        cv_carry_parse(matte, classes, Int32(width), Int32(height), &affine, &matteOut, &classesOut)
        let centre = map.apply(Vec2(crop.x + crop.side / 2, crop.y + crop.side / 2))
        let side = crop.side * Float(map.scale)
        return OwnHair(width: width, height: height, crop: (centre.x - side / 2, centre.y - side / 2, side), classes: classesOut, matte: matteOut)
    }
}
