// ScalpSlide: a groom slid forward over the scalp, its front brought down the forehead while its crown,
// sides and back stay, so a style grown on Coif's head can start at a person's lower hairline.
//
// Each strand turns about the head's left-right axis through the cranium's centre by an angle set by where
// its root is: the full `tilt` for roots at or in front of the style's front hairline, none at the crown,
// in proportion between (by the root's angle from the top in the head's middle plane). The scalp's cover
// stretches over the forehead without opening a gap on top, and the order of roots is kept (the angle grows
// with the root's own angle, so no two rows cross). A fringe keeps its tips: the points of a strand that
// hang over the forehead (between the brows' span, below Coif's hairline, in front) turn less the nearer
// they are to the brows, so a fringe that ended at the brows still does, and does not fall into the eyes.
import CoifCore
#if canImport(Glibc)
import Glibc
#endif

public struct ScalpSlide: Sendable, Equatable {
    /// The turn at the front (radians); positive brings the front down.
    public var tilt: Float
    /// The style's front hairline root (head space): the root that moves by the whole tilt.
    public var front: Vec3

    public init(tilt: Float, front: Vec3) {
        self.tilt = tilt
        self.front = front
    }

    /// Whether it moves anything.
    public var isIdentity: Bool { tilt == 0 }

    /// The root's angle from the top of the cranium toward the face, in the head's middle plane (radians).
    static func frontAngle(_ p: Vec3, shape: HeadShape) -> Float {
        let q = p - shape.craniumCentre
        return atan2f(q.z, q.y)
    }

    /// How much of the tilt a strand rooted at `root` gets (0 at the crown and behind, 1 at the front).
    func share(root: Vec3, shape: HeadShape) -> Float {
        let full = max(Self.frontAngle(front, shape: shape), 0.1)
        return min(max(Self.frontAngle(root, shape: shape) / full, 0), 1)
    }

    /// How much a point keeps of its strand's turn: 1 except over the forehead, where it falls from 1 at
    /// Coif's hairline to 0 at the brows (a fringe's tips stay where the style put them).
    func keep(_ p: Vec3, shape: HeadShape) -> Float {
        guard p.z > shape.craniumCentre.z, abs(p.x) < shape.faceHalfWidth else { return 1 }
        let top = shape.hairlineY(azimuth: 0), bottom = shape.browY
        return min(max((p.y - bottom) / max(top - bottom, 1), 0), 1)
    }

    /// `p` turned by `angle` about the x axis through the cranium's centre.
    static func turned(_ p: Vec3, by angle: Float, shape: HeadShape) -> Vec3 {
        guard angle != 0 else { return p }
        let c = shape.craniumCentre, q = p - c
        let cs = cosf(angle), sn = sinf(angle)
        // +z is the face's side: a positive angle takes a point above and in front of the centre down.
        return Vec3(p.x, c.y + q.y * cs - q.z * sn, c.z + q.y * sn + q.z * cs)
    }

    /// Where the front hairline root lands.
    public func movedFront(shape: HeadShape) -> Vec3 { Self.turned(front, by: tilt, shape: shape) }

    /// The strands slid.
    public func apply(to strands: StrandSet, shape: HeadShape) -> StrandSet {
        guard tilt != 0 else { return strands }
        var positions = strands.positions
        let n = strands.pointsPerStrand
        for s in 0..<strands.strandCount {
            let angle = tilt * share(root: positions[s * n], shape: shape)
            guard angle != 0 else { continue }
            for i in (s * n)..<((s + 1) * n) {
                positions[i] = Self.turned(positions[i], by: angle * keep(positions[i], shape: shape), shape: shape)
            }
        }
        return StrandSet(pointsPerStrand: n, positions: positions, flyaways: strands.flyaways)
    }
}
