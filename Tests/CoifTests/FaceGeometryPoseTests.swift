// FaceGeometryPoseTests: the pose from the face mesh's 468 points by weighted Procrustes against MediaPipe's
// canonical face (FaceGeometryPose): a synthetic mesh made by projecting the placed model through Coif's
// camera at known poses is read back; the model sits on Coif's head; on the shared AFLW2000-3D sample the
// chosen pose beats solvePnP's on the mesh's 68 points, and `coif eval pose` reports its figures per yaw bin.
import CoifCore
import CoifEval
import CoifGroom
import CoifPipeline
import CoifVision
import Foundation
import XCTest

final class FaceGeometryPoseTests: XCTestCase {
    func geometry() throws -> (FaceGeometryPose, [Vec3]) {
        let head = try HeadModel.standard()
        return (try XCTUnwrap(FaceGeometryPose(headLandmarks: head.landmarks68)), head.landmarks68)
    }

    /// Coif's rotation (model → OpenCV camera) for yaw, pitch, roll in degrees (HeadPose's convention):
    /// R = Ry(−yaw) · Rx(−pitch) · Rz(roll) · diag(1, −1, −1).
    static func rotation(yaw: Double, pitch: Double, roll: Double) -> [Double] {
        func mul(_ a: [Double], _ b: [Double]) -> [Double] {
            var m = [Double](repeating: 0, count: 9)
            for row in 0..<3 {
                for column in 0..<3 {
                    for k in 0..<3 { m[3 * row + column] += a[3 * row + k] * b[3 * k + column] }
                }
            }
            return m
        }
        let y = -yaw * .pi / 180, p = -pitch * .pi / 180, r = roll * .pi / 180
        let ry: [Double] = [cos(y), 0, sin(y), 0, 1, 0, -sin(y), 0, cos(y)]
        let rx: [Double] = [1, 0, 0, 0, cos(p), -sin(p), 0, sin(p), cos(p)]
        let rz: [Double] = [cos(r), -sin(r), 0, sin(r), cos(r), 0, 0, 0, 1]
        return mul(mul(mul(ry, rx), rz), [1, 0, 0, 0, -1, 0, 0, 0, -1])
    }

    /// The placed canonical model at a known pose, projected through a 50° camera as the mesh network
    /// reports a face: pixels, and depth in the same pixel scale relative to the head's origin, + away. Read
    /// back within 1° on every axis and 1% of the distance, from frontal to 80° either way.
    func testTheCanonicalFaceIsReadBackAtEveryYaw() throws {
        let (geometry, head) = try geometry()
        let camera = PinholeCamera.fieldOfView(horizontalDegrees: 50, width: 1280, height: 960)
        let t = [40.0, -30.0, 600.0]
        for yaw in [0.0, 30, 60, 80, -80] {
            let truth = HeadPose(rvec: [0, 0, 0], tvec: t, rotation: Self.rotation(yaw: yaw, pitch: 12, roll: -8), reprojectionErrorPx: 0)
            XCTAssertEqual(truth.yawDegrees, yaw, accuracy: 1e-6, "the synthetic rotation's own convention")
            let r = truth.rotation
            let mesh = geometry.headVertices.map { v -> Vec3 in
                let x = Double(v.x), y = Double(v.y), z = Double(v.z)
                let c = [r[0] * x + r[1] * y + r[2] * z + t[0], r[3] * x + r[4] * y + r[5] * z + t[1], r[6] * x + r[7] * y + r[8] * z + t[2]]
                return Vec3(Float(camera.fx * c[0] / c[2] + camera.cx), Float(camera.fy * c[1] / c[2] + camera.cy),
                            Float(camera.fx * (c[2] / t[2] - 1)))
            }
            let landmarks68 = FaceMesh.ibug68.map { pair in Vec2((mesh[pair.0].x + mesh[pair.1].x) / 2, (mesh[pair.0].y + mesh[pair.1].y) / 2) }
            let solved = try XCTUnwrap(geometry.solve(meshPoints: mesh, landmarks68: landmarks68, headLandmarks: head, intrinsics: camera))
            let label = "yaw \(yaw)°"
            XCTAssertEqual(solved.yawDegrees, yaw, accuracy: 1, label)
            XCTAssertEqual(solved.pitchDegrees, 12, accuracy: 1, label)
            XCTAssertEqual(solved.rollDegrees, -8, accuracy: 1, label)
            for i in 0..<3 { XCTAssertEqual(solved.tvec[i], t[i], accuracy: 0.01 * t[2], label) }
            print(String(format: "FaceGeometryPoseTests: yaw %+.0f° read %+.3f°, pitch %+.3f°, roll %+.3f°, z %.1f mm", yaw,
                         solved.yawDegrees, solved.pitchDegrees, solved.rollDegrees, solved.tvec[2]))
        }
    }

    /// The canonical face is placed on Coif's head by its rigid points within a few millimetres, so its pose
    /// is a pose of Coif's head (the occluder the hair rests on).
    func testTheCanonicalFaceSitsOnCoifsHead() throws {
        let (geometry, head) = try geometry()
        print(String(format: "FaceGeometryPoseTests: canonical face on Coif's head, RMS %.2f mm over the rigid points", geometry.placementResidualMm))
        XCTAssertLessThan(geometry.placementResidualMm, 4)
        // The placed nose tip (vertex 4) is within a centimetre of Coif's (30): a mirrored or flipped model is not.
        XCTAssertLessThan(distance(geometry.headVertices[4], head[30]), 10)
    }

    /// On the shared AFLW2000-3D sample the default pose (the mesh's geometry, `bestMeshPose`) is closer to
    /// the truth than solvePnP's on the mesh's 68 points; and the report gives each |yaw| bin its faces,
    /// misses, MAE and bias. Measured: MAE mean 2.80° (mesh-pnp) → 2.13° (mesh-geometry).
    func testThePoseFromTheWholeMeshBeatsPnPOnItsPoints() throws {
        let dir = try Fixtures.requireTestdata("headpose_aflw2000_3d", for: "FaceGeometryPoseTests")
        let analyzer: FaceAnalyzer
        do { analyzer = try FaceAnalyzer.standard() } catch { throw XCTSkip("face models unavailable (make models): \(error)") }
        defer { analyzer.meshPoseMethod = nil }
        analyzer.meshPoseMethod = .meshPnP
        let pnp = try Evaluator(analyzer: analyzer).pose(directory: dir)
        analyzer.meshPoseMethod = nil
        let chosen = try Evaluator(analyzer: analyzer).pose(directory: dir)
        XCTAssertEqual(chosen.rows.compactMap(\.poseMethod), Array(repeating: PoseMethod.meshGeometry.rawValue, count: 6))
        let pnpMean = try XCTUnwrap(pnp.meanMAE), chosenMean = try XCTUnwrap(chosen.meanMAE)
        print(String(format: "FaceGeometryPoseTests: AFLW2000-3D sample MAE mean mesh-pnp %.2f°, chosen %.2f°", pnpMean, chosenMean))
        XCTAssertLessThan(chosenMean, pnpMean - 0.3)
        let bins = chosen.byYaw
        XCTAssertEqual(bins.map(\.faces), [4, 1, 1], "00050/00081/00430/00514, 00251, 00475")
        XCTAssertEqual(bins.map(\.missed), [0, 0, 0])
        // Each bin's figures are its own rows' (here the 0–30° bin against a report of those rows alone).
        let low = PoseReport(rows: chosen.rows.filter { abs($0.truth[1]) < 30 })
        XCTAssertEqual(try XCTUnwrap(bins[0].mae), try XCTUnwrap(low.mae))
        XCTAssertEqual(try XCTUnwrap(bins[0].meanSignedError), try XCTUnwrap(low.meanSignedError))
        XCTAssertLessThan(try XCTUnwrap(bins[0].mae)[1], 1.5, "yaw MAE within 30° (measured 0.61°)")
    }
}

private func distance(_ a: Vec3, _ b: Vec3) -> Float { ((a - b) * (a - b)).sum().squareRoot() }
