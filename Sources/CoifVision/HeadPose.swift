// HeadPose: the rigid transform from Coif's head (model) space into the camera, solved with OpenCV's
// solvePnP (CVision) from 2D landmarks and their 3D points on the head mesh, for the photo's camera
// (PinholeCamera, CoifCore). Knows nothing of which points are used or where they come from.

import CVision
import CoifCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif


/// The rigid transform taking head (model) space into the camera: `x_camera = R · x_model + t`.
///
/// Spaces:
/// - model (head) space: millimetres, +x = the subject's left (image right for a frontal face), +y = up,
///   +z = out of the face toward the camera;
/// - camera space: OpenCV's, x right, y down, z forward (into the scene), same unit as the model.
///
/// A frontal head looking into the camera therefore has R = F = diag(1, −1, −1).
///
/// Angles (degrees) describe the head relative to that frontal pose, from R_rel = R · F⁻¹ (= R · F),
/// a rotation expressed in camera axes, decomposed as
///
///     R_rel = Ry(−yaw) · Rx(−pitch) · Rz(roll)      (right-handed rotations about camera x, y, z)
///
/// i.e. intrinsic yaw (about the vertical), then pitch (about the ear-to-ear axis), then roll (about the
/// line of sight). Signs:
/// - yaw   + = the subject turns to their left: the nose moves toward image right
///         (a rotation of the model about its +y axis by +θ gives yaw = +θ);
/// - pitch + = chin up: the nose moves up in the image (model rotation about +x by −θ gives +θ);
/// - roll  + = the head tilts clockwise as seen in the image (model rotation about +z by −θ gives +θ).
/// Pitch is in [−90°, 90°]; yaw and roll in (−180°, 180°].
public struct HeadPose: Sendable, Codable, Equatable {
    /// Rodrigues rotation vector of R (model → camera), radians.
    public var rvec: [Double]
    /// Translation t (model → camera): the head origin in camera space, model units (mm).
    public var tvec: [Double]
    /// R, row-major 3x3.
    public var rotation: [Double]
    /// RMS distance in pixels between the image points and the model points projected with this pose.
    public var reprojectionErrorPx: Double

    public init(rvec: [Double], tvec: [Double], rotation: [Double], reprojectionErrorPx: Double) {
        self.rvec = rvec
        self.tvec = tvec
        self.rotation = rotation
        self.reprojectionErrorPx = reprojectionErrorPx
    }

    /// R_rel = R · diag(1, −1, −1), row-major: the rotation away from frontal, in camera axes.
    private var relative: [Double] {
        let r = rotation
        return [r[0], -r[1], -r[2], r[3], -r[4], -r[5], r[6], -r[7], -r[8]]
    }

    /// The Euler angles (α, β, γ) of R_rel = Ry(α) · Rx(β) · Rz(γ), radians.
    private var eulerYXZ: (alpha: Double, beta: Double, gamma: Double) {
        let m = relative
        let sinBeta = max(-1, min(1, -m[5]))  // R_rel[1][2] = −sin β
        let beta = asin(sinBeta)
        if abs(sinBeta) < 0.999_999 {
            return (atan2(m[2], m[8]), beta, atan2(m[3], m[4]))
        }
        // Gimbal lock (looking straight up or down): roll folds into yaw; report it all as yaw.
        return (atan2(-m[6], m[0]), beta, 0)
    }

    /// Degrees; + = the subject turns to their left (nose toward image right). See the type's doc.
    public var yawDegrees: Double { -eulerYXZ.alpha * 180 / .pi }
    /// Degrees; + = chin up. See the type's doc.
    public var pitchDegrees: Double { -eulerYXZ.beta * 180 / .pi }
    /// Degrees; + = the head tilts clockwise in the image. See the type's doc.
    public var rollDegrees: Double { eulerYXZ.gamma * 180 / .pi }

    /// model → camera as a column-major matrix (OpenCV camera axes: x right, y down, z forward).
    public var modelToCamera: Mat4 {
        Mat4.rigid(rotationRowMajor: rotation, translation: SIMD3(tvec[0], tvec[1], tvec[2]))
    }

    /// Solves the pose that projects `modelPoints` (head space) onto `imagePoints` (pixel-index
    /// coordinates) through `intrinsics`: EPnP and SQPnP starts, each refined by Levenberg–Marquardt, the
    /// smaller reprojection error wins (~0.2 ms for 68 points).
    /// Needs at least 4 pairs; throws `CoifError.internalError` when the counts differ or OpenCV fails.
    public static func solve(imagePoints: [Vec2], modelPoints: [Vec3], intrinsics: PinholeCamera) throws -> HeadPose {
        guard imagePoints.count == modelPoints.count else {
            throw CoifError.internalError("pose: \(imagePoints.count) image points for \(modelPoints.count) model points")
        }
        guard imagePoints.count >= 4 else {
            throw CoifError.internalError("pose: needs at least 4 point pairs, got \(imagePoints.count)")
        }
        let image = imagePoints.flatMap { [$0.x, $0.y] }
        let model = modelPoints.flatMap { [$0.x, $0.y, $0.z] }
        var rvec = [Double](repeating: 0, count: 3)
        var tvec = [Double](repeating: 0, count: 3)
        let k = cv_intrinsics(fx: intrinsics.fx, fy: intrinsics.fy, cx: intrinsics.cx, cy: intrinsics.cy)
        let rms = cv_solve_pose(image, model, Int32(imagePoints.count), k, &rvec, &tvec)
        guard rms >= 0, rms.isFinite else {
            throw CoifError.internalError("pose: solvePnP found no pose in front of the camera")
        }
        var rotation = [Double](repeating: 0, count: 9)
        cv_rodrigues(rvec, &rotation)
        return HeadPose(rvec: rvec, tvec: tvec, rotation: rotation, reprojectionErrorPx: rms)
    }
}
