// EarAnchoredPose: a turned head's pose held by the ear the photo shows. Past ~45° of yaw the face mesh's
// points crowd toward the nose (its training saw few profiles), and every pose solved from them alone reads
// the head turned less than it is. The ear is the one rigid landmark well behind the face's plane that a
// turned head shows, and the face-parsing network finds it; its place across the image against the nose
// and the near eye fixes the turn. `FaceAnalyzer.chooseLandmarks` decides when this pose is used (past
// `FaceAnalyzer.earMinYawDegrees` of the mesh's own yaw, where a turned head shows its ear whole).
import CVision
import CoifCore
import Foundation

/// The ear a turned face shows, as the face parse finds it.
public struct EarSighting: Sendable, Equatable {
    /// The ear's centroid, photo pixels.
    public var centroid: Vec2
    /// Its area, photo pixels².
    public var areaPx: Float
    /// Which of the subject's ears: +1 their left (head space +x), −1 their right.
    public var side: Float

    public init(centroid: Vec2, areaPx: Float, side: Float) {
        self.centroid = centroid
        self.areaPx = areaPx
        self.side = side
    }
}

public enum EarAnchor {
    /// The centre of the ear's visible area on MediaPipe's canonical face (centimetres, the subject's left
    /// ear; the right is its mirror in x). The canonical face's lateral contour in front of the ear runs
    /// through vertices 127, 234 and 93 at x ±7.5–7.7, z −2.0…−2.4 (the tragus). The auricle lies behind
    /// it: ~6 cm tall from the brows' height to the nose's base (y ≈ 4.5 … −2), so its centre is at y ≈ 1.2,
    /// and ~3.5 cm deep from the tragus back, its visible centroid ~1.8 cm behind it (z ≈ −4.2), standing a
    /// little off the skull (x ≈ 8). Average anthropometry, not fitted to any test photo.
    static let leftEarCanonicalCm = Vec3(8.0, 1.2, -4.2)

    /// Ear pixels counted only within this many nasion-to-chin lengths (the mesh's) of the nose tip, across:
    /// a profile's ear lies about one such length behind the nose tip, but the mesh's points crowd on a
    /// profile, and on deca 00181 its length is 79 px against an ear 167 px from the nose. Further is another
    /// person's ear.
    static let reachFaceLengths: Float = 2.2
    /// The fewest ear pixels, over the nasion-to-chin length squared, for a sighting (an ear in profile
    /// covers ~0.1 of it; less is a speck or an ear mostly under hair).
    static let minAreaFaceLengths2: Float = 0.02

    /// The ear on the side of the head a turn to `yawDegrees` shows (Coif's sign: + = the nose toward image
    /// right, so the subject's right ear, image left of the nose, is the one seen), from `parse`'s ear
    /// classes beyond the nose tip on that side; nil when the parse shows too little of it.
    public static func visibleEar(in parse: CropParse, landmarks: [Vec2], yawDegrees: Double) -> EarSighting? {
        guard landmarks.count == 68 else { return nil }
        let nose = landmarks[30], nasion = landmarks[27], chin = landmarks[8]
        let faceLength = ((nasion - chin) * (nasion - chin)).sum().squareRoot()
        guard faceLength > 0 else { return nil }
        let towardEar: Float = yawDegrees > 0 ? -1 : 1
        let reach = reachFaceLengths * faceLength
        var sum = Vec2(0, 0), count = 0
        for row in 0..<parse.side {
            for column in 0..<parse.side {
                let c = parse.classes[row * parse.side + column]
                guard c == OwnHair.leftEar || c == OwnHair.rightEar else { continue }
                let p = parse.photoPoint(column: column, row: row)
                let across = (p.x - nose.x) * towardEar
                guard across > 0, across <= reach, p.y >= nasion.y - 0.5 * faceLength, p.y <= chin.y else { continue }
                sum += p
                count += 1
            }
        }
        let cell = parse.crop.side / Float(parse.side)
        let area = Float(count) * cell * cell
        guard count > 0, area >= minAreaFaceLengths2 * faceLength * faceLength else { return nil }
        return EarSighting(centroid: sum / Float(count), areaPx: area, side: yawDegrees > 0 ? -1 : 1)
    }

    /// The ear's centre on Coif's head (mm) for a sighting's side.
    public static func headPoint(of ear: EarSighting, geometry: FaceGeometryPose) -> Vec3 {
        let left = leftEarCanonicalCm
        return geometry.headPoint(canonicalCm: Vec3(left.x * ear.side, left.y, left.z))
    }

    /// How much the ear's squared reprojection counts against the visible rigid points' mean squared
    /// reprojection: as one of them would if they all counted as one. Heavier, the turn follows the ear's
    /// centroid wherever its errors put it; on the shared portraits 0.5 and 1 read the profiles within 4° of
    /// each other (insightface left_face −66.5° / −70.6°, deca 00181 −85.3° / −86.3°).
    static let earWeight = 0.5

    /// The turn searched on either side of the mesh's pose (degrees).
    static let searchDegrees = 40.0

    /// `base` (the mesh's pose) turned about the head's own vertical axis so that the ear lands where the photo
    /// shows it: the head's tilt is the mesh's, and only its turn on the neck is read from the ear. For
    /// each turn the translation is solved in closed form (the linear least squares of the perspective
    /// equations) over the face's visible rigid points (`FaceAnalyzer.visibleRigidLandmarks`); the turn kept
    /// minimises their mean squared reprojection plus the ear's squared reprojection (`earWeight`). nil when no
    /// turn puts the head in front of the camera.
    public static func pose(base: HeadPose, landmarks: [Vec2], head: [Vec3], ear: EarSighting, geometry: FaceGeometryPose,
                            intrinsics: PinholeCamera) -> HeadPose? {
        let subset = FaceAnalyzer.visibleRigidLandmarks(yawDegrees: base.yawDegrees)
        let model = subset.map { head[$0] }, seen = subset.map { landmarks[$0] }
        let earOnHead = headPoint(of: ear, geometry: geometry)
        func turned(_ degrees: Double) -> (cost: Double, pose: HeadPose)? {
            let a = degrees * .pi / 180, c = cos(a), s = sin(a)
            // R = R0 · Ry(a): the turn is about the head's own vertical axis, inside the mesh's tilt. The mesh's
            // error on a turned head is its face crowded along the face's own width, so it is a turn of the head
            // on its neck: turned about the camera's vertical instead, a head looking down (camera.png's
            // cameraman, pitch −28°) could not bring its ear into place and stayed at the mesh's 57–58°.
            let r = PoseSmoother.multiply(base.rotation, [c, 0, s, 0, 1, 0, -s, 0, c])
            guard let t = translation(rotation: r, model: model, seen: seen, intrinsics: intrinsics) else { return nil }
            // Its rotation vector is made for the turn kept only (below).
            var pose = HeadPose(rvec: [0, 0, 0], tvec: t, rotation: r, reprojectionErrorPx: 0)
            let rigid = pose.reprojectionRMS(of: model, onto: seen, intrinsics: intrinsics)
            let earError = pose.reprojectionRMS(of: [earOnHead], onto: [ear.centroid], intrinsics: intrinsics)
            // No turn past a full profile: beyond it the face would be seen from behind.
            guard rigid.isFinite, earError.isFinite, abs(pose.yawDegrees) <= 90 else { return nil }
            pose.reprojectionErrorPx = rigid
            return (rigid * rigid + earWeight * earError * earError, pose)
        }
        var best: (cost: Double, pose: HeadPose, degrees: Double)?
        var step = 1.0, centre = 0.0, span = searchDegrees
        while step >= 0.05 {
            var d = centre - span
            while d <= centre + span {
                if let t = turned(d), t.cost < (best?.cost ?? .infinity) { best = (t.cost, t.pose, d) }
                d += step
            }
            guard let b = best else { return nil }
            centre = b.degrees; span = 2 * step; step /= 4
        }
        guard var kept = best?.pose else { return nil }
        cv_rotation_to_rvec(kept.rotation, &kept.rvec)
        return kept
    }

    /// The translation that best projects `model` (head space) rotated by `rotation` onto `seen`: the linear
    /// least squares of u·(z + tz) = fx·(x + tx) + cx·(z + tz) and its v twin over every point. nil when it
    /// is singular or puts the points' centre behind the camera.
    static func translation(rotation r: [Double], model: [Vec3], seen: [Vec2], intrinsics k: PinholeCamera) -> [Double]? {
        var ata = [Double](repeating: 0, count: 9), atb = [Double](repeating: 0, count: 3)
        func add(_ row: [Double], _ b: Double) {
            for i in 0..<3 { atb[i] += row[i] * b; for j in 0..<3 { ata[3 * i + j] += row[i] * row[j] } }
        }
        for (m, p) in zip(model, seen) {
            let x = r[0] * Double(m.x) + r[1] * Double(m.y) + r[2] * Double(m.z)
            let y = r[3] * Double(m.x) + r[4] * Double(m.y) + r[5] * Double(m.z)
            let z = r[6] * Double(m.x) + r[7] * Double(m.y) + r[8] * Double(m.z)
            let du = Double(p.x) - k.cx, dv = Double(p.y) - k.cy
            // fx·tx − du·tz = du·z − fx·x;  fy·ty − dv·tz = dv·z − fy·y
            add([k.fx, 0, -du], du * z - k.fx * x)
            add([0, k.fy, -dv], dv * z - k.fy * y)
        }
        guard let t = solve3(ata, atb), t[2] > 0 else { return nil }
        return t
    }

    /// x with a·x = b for a 3×3 row-major a (Cramer's rule); nil when a is singular.
    static func solve3(_ a: [Double], _ b: [Double]) -> [Double]? {
        func det(_ m: [Double]) -> Double {
            m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
        }
        let d = det(a)
        guard abs(d) > 1e-12 else { return nil }
        return (0..<3).map { column in
            var m = a
            for row in 0..<3 { m[3 * row + column] = b[row] }
            return det(m) / d
        }
    }
}
