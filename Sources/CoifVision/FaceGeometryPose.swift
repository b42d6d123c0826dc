// FaceGeometryPose: the head's pose from the face mesh's 468 points with their depth, fitted to MediaPipe's
// canonical face model by weighted Procrustes, as MediaPipe's face-geometry module fits it. The model is
// placed on Coif's head once (so the pose is of Coif's head, as solvePnP's is); this file knows nothing of
// when the pose is used (`FaceAnalyzer.chooseLandmarks` weighs it against solvePnP's).
import CVision
import CoifCore

public struct FaceGeometryPose: Sendable {
    /// MediaPipe's canonical face in Coif's head space (millimetres), 468 vertices: the model moved, turned
    /// and scaled by the similarity that takes its 68 iBUG vertices (`FaceMesh.ibug68`) onto Coif's rigid
    /// reference points (`FaceAnalyzer.rigidLandmarks`), so a pose of this model is a pose of Coif's head.
    public let headVertices: [Vec3]
    /// The vertices the fit uses and their weights (MediaPipe's procrustes_landmark_basis): eye corners,
    /// nose, cheekbones and brow, the parts of a face that move least with expression.
    public let basis: [(vertex: Int, weight: Double)]
    /// The RMS distance (mm) between Coif's rigid reference points and the placed model's: how well one
    /// rigid head stands for the other (~2–3 mm).
    public let placementResidualMm: Double
    /// The similarity that places the canonical model (cm) on Coif's head (mm).
    let placement: Similarity

    /// Places the canonical model on Coif's head (`headLandmarks`: Coif's 68 reference points, mm).
    /// nil when the points are degenerate (fewer than 68, or all in one place).
    public init?(headLandmarks: [Vec3]) {
        guard headLandmarks.count == 68 else { return nil }
        let canonical = (0..<468).map { i in
            Vec3(CanonicalFaceModel.vertexCoordinatesCm[3 * i], CanonicalFaceModel.vertexCoordinatesCm[3 * i + 1],
                 CanonicalFaceModel.vertexCoordinatesCm[3 * i + 2])
        }
        let rigid = FaceAnalyzer.rigidLandmarks
        let source = rigid.map { i -> Vec3 in
            let pair = FaceMesh.ibug68[i]
            return (canonical[pair.0] + canonical[pair.1]) / 2
        }
        guard let placement = Similarity.fit(source: source, target: rigid.map { headLandmarks[$0] }) else { return nil }
        headVertices = canonical.map { placement.apply($0) }
        basis = CanonicalFaceModel.procrustesWeights.map { ($0.vertex, Double($0.weight)) }
        placementResidualMm = placement.residual
        self.placement = placement
    }

    /// A point given in the canonical model's space (centimetres) placed on Coif's head (millimetres), as
    /// the model's vertices are: where a landmark the mesh does not hold (the ear) lies on the same head.
    public func headPoint(canonicalCm point: Vec3) -> Vec3 { placement.apply(point) }

    /// The pose of Coif's head from a mesh fit (468 points: photo pixels, z relative depth in the same pixel
    /// scale, + away from the camera) seen through `intrinsics`: each point unprojected along its pixel's ray
    /// to the depth its z gives, the weighted basis fitted by a similarity, and the scale read as distance.
    ///
    /// At an assumed distance Z of the mesh's z = 0 plane, a point's depth is Z · (1 + z / f) (one pixel of
    /// z spans Z / f mm there, as one pixel of x does) and its position (pixel − centre) / f times that depth:
    /// every point scales with Z, so the similarity's scale s from the model to the points unprojected at
    /// Z = 1 gives the distance at which the model is its own size, Z = 1 / s. (MediaPipe finds that scale by
    /// iterating over its near-plane projection; here it comes in one step.) `reprojectionErrorPx` is the RMS
    /// over Coif's rigid reference points, projected with the pose, against the mesh's 68 points
    /// (`landmarks68`): the measure solvePnP's poses carry. nil when the fit is degenerate or lies behind
    /// the camera.
    public func solve(meshPoints points: [Vec3], landmarks68: [Vec2], headLandmarks: [Vec3], intrinsics: PinholeCamera) -> HeadPose? {
        guard points.count == headVertices.count, landmarks68.count == 68, headLandmarks.count == 68 else { return nil }
        let focal = (intrinsics.fx + intrinsics.fy) / 2
        let target = basis.map { b -> Vec3 in
            let p = points[b.vertex]
            let depth = 1 + Double(p.z) / focal
            return Vec3(Float((Double(p.x) - intrinsics.cx) / intrinsics.fx * depth), Float((Double(p.y) - intrinsics.cy) / intrinsics.fy * depth),
                        Float(depth))
        }
        guard let fit = Similarity.fit(source: basis.map { headVertices[$0.vertex] }, target: target, weights: basis.map(\.weight)),
              fit.scale > 0 else { return nil }
        let translation = fit.translation.map { $0 / fit.scale }
        guard translation[2] > 0 else { return nil }
        var rvec = [Double](repeating: 0, count: 3)
        cv_rotation_to_rvec(fit.rotation, &rvec)
        var pose = HeadPose(rvec: rvec, tvec: translation, rotation: fit.rotation, reprojectionErrorPx: 0)
        pose.reprojectionErrorPx = pose.reprojectionRMS(of: FaceAnalyzer.rigidLandmarks.map { headLandmarks[$0] },
                                                        onto: FaceAnalyzer.rigidLandmarks.map { landmarks68[$0] }, intrinsics: intrinsics)
        return pose
    }
}

extension HeadPose {
    /// RMS pixel distance between `modelPoints` (head space) projected with this pose and `imagePoints`;
    /// infinity when a point lies behind the camera.
    public func reprojectionRMS(of modelPoints: [Vec3], onto imagePoints: [Vec2], intrinsics: PinholeCamera) -> Double {
        guard !modelPoints.isEmpty, modelPoints.count == imagePoints.count else { return .infinity }
        let r = rotation
        var sum = 0.0
        for (m, seen) in zip(modelPoints, imagePoints) {
            let x = Double(m.x), y = Double(m.y), z = Double(m.z)
            let cx = r[0] * x + r[1] * y + r[2] * z + tvec[0]
            let cy = r[3] * x + r[4] * y + r[5] * z + tvec[1]
            let cz = r[6] * x + r[7] * y + r[8] * z + tvec[2]
            guard cz > 0 else { return .infinity }
            let u = intrinsics.fx * cx / cz + intrinsics.cx, v = intrinsics.fy * cy / cz + intrinsics.cy
            sum += (u - Double(seen.x)) * (u - Double(seen.x)) + (v - Double(seen.y)) * (v - Double(seen.y))
        }
        return (sum / Double(modelPoints.count)).squareRoot()
    }
}

/// A similarity x → scale · R · x + translation, fitted by weighted Procrustes (CVision, SVD with the
/// reflection fixed).
struct Similarity {
    var scale: Double
    /// Row-major 3x3, det +1.
    var rotation: [Double]
    var translation: [Double]
    /// Weighted RMS residual of the fit, in the target's unit.
    var residual: Double

    static func fit(source: [Vec3], target: [Vec3], weights: [Double]? = nil) -> Similarity? {
        guard source.count == target.count, source.count >= 3 else { return nil }
        let s = source.flatMap { [Double($0.x), Double($0.y), Double($0.z)] }
        let t = target.flatMap { [Double($0.x), Double($0.y), Double($0.z)] }
        var scale = 0.0
        var rotation = [Double](repeating: 0, count: 9), translation = [Double](repeating: 0, count: 3)
        let residual = weights.map { cv_weighted_procrustes(s, t, $0, Int32(source.count), &scale, &rotation, &translation) }
            ?? cv_weighted_procrustes(s, t, nil, Int32(source.count), &scale, &rotation, &translation)
        guard residual >= 0, residual.isFinite else { return nil }
        return Similarity(scale: scale, rotation: rotation, translation: translation, residual: residual)
    }

    func apply(_ p: Vec3) -> Vec3 {
        let r = rotation, x = Double(p.x), y = Double(p.y), z = Double(p.z)
        return Vec3(Float(scale * (r[0] * x + r[1] * y + r[2] * z) + translation[0]),
                    Float(scale * (r[3] * x + r[4] * y + r[5] * z) + translation[1]),
                    Float(scale * (r[6] * x + r[7] * y + r[8] * z) + translation[2]))
    }
}
