// EarAnchorTests: a turned head's turn read from the ear the photo shows (EarAnchor, FaceAnalyzer's
// `earMinYawDegrees`). A synthetic head whose pose starts 20° short is turned back to its truth; on
// camera.png's cameraman (Debian python3-skimage) and the shared portraits in profile the turn reads past 65°
// with the ear, short of it without, and the pose solved again with other intrinsics keeps the ear's turn.
import CoifCore
import CoifGroom
import CoifPipeline
import CoifVision
import Foundation
import XCTest

final class EarAnchorTests: XCTestCase {
    /// Coif's head at a known pose projected through a 50° camera: its 68 points and its ear's centre. From a
    /// pose turned 20° short on the head's own vertical axis (as the mesh's crowded points read a turned head),
    /// the ear turns it back: the rotation within 0.5°, the rigid points onto where they were seen.
    func testTheEarTurnsAShortPoseBackToTheHead() throws {
        let head = try HeadModel.standard()
        let geometry = try XCTUnwrap(FaceGeometryPose(headLandmarks: head.landmarks68))
        let camera = PinholeCamera.fieldOfView(horizontalDegrees: 50, width: 640, height: 640)
        func project(_ m: Vec3, _ p: HeadPose) -> Vec2 {
            let r = p.rotation, x = Double(m.x), y = Double(m.y), z = Double(m.z)
            let cx = r[0] * x + r[1] * y + r[2] * z + p.tvec[0], cy = r[3] * x + r[4] * y + r[5] * z + p.tvec[1]
            let cz = r[6] * x + r[7] * y + r[8] * z + p.tvec[2]
            return Vec2(Float(camera.fx * cx / cz + camera.cx), Float(camera.fy * cy / cz + camera.cy))
        }
        for (yaw, pitch) in [(55.0, -5.0), (-55.0, 10.0), (50.0, -28.0)] {
            let short = HeadPose(rvec: [0, 0, 0], tvec: [20, -10, 600],
                                 rotation: FaceGeometryPoseTests.rotation(yaw: yaw, pitch: pitch, roll: 3), reprojectionErrorPx: 0)
            // The truth: the short pose turned a further 20° on the head's own vertical axis, the way it faces.
            let a = (yaw > 0 ? 20.0 : -20.0) * .pi / 180
            let rotation = PoseSmoother.multiply(short.rotation, [cos(a), 0, sin(a), 0, 1, 0, -sin(a), 0, cos(a)])
            let truth = HeadPose(rvec: [0, 0, 0], tvec: [20, -10, 600], rotation: rotation, reprojectionErrorPx: 0)
            XCTAssertGreaterThan(abs(truth.yawDegrees), abs(yaw) + 15, "the truth is turned further")
            let landmarks = head.landmarks68.map { project($0, truth) }
            // A turn to + shows the subject's right ear (head space −x).
            var ear = EarSighting(centroid: Vec2(0, 0), areaPx: 1000, side: yaw > 0 ? -1 : 1)
            let onHead = EarAnchor.headPoint(of: ear, geometry: geometry)
            ear.centroid = project(onHead, truth)
            let turned = try XCTUnwrap(EarAnchor.pose(base: short, landmarks: landmarks, head: head.landmarks68, ear: ear, geometry: geometry,
                                                      intrinsics: camera))
            print(String(format: "EarAnchorTests: yaw %.1f° from %.1f°: %.2f° (pitch %.2f° of %.2f°, roll %.2f° of %.2f°)", truth.yawDegrees,
                         short.yawDegrees, turned.yawDegrees, turned.pitchDegrees, truth.pitchDegrees, turned.rollDegrees, truth.rollDegrees))
            XCTAssertEqual(turned.yawDegrees, truth.yawDegrees, accuracy: 0.5)
            XCTAssertEqual(turned.pitchDegrees, truth.pitchDegrees, accuracy: 0.5)
            XCTAssertEqual(turned.rollDegrees, truth.rollDegrees, accuracy: 0.5)
            XCTAssertLessThan(turned.reprojectionErrorPx, 0.5, "the rigid points land where they were seen")
        }
    }

    /// camera.png's cameraman, turned ~75–80° by eye and looking down into his camera: the mesh alone reads
    /// 58°; with the ear, past 65°. Solved again with a longer lens (as head sizing does), the turn stays.
    func testTheCameramansTurnIsReadFromHisEar() throws {
        let path = try Fixtures.requireCamera()
        let frame = try Frame.read(path: path)
        let analyzer = try FaceAnalyzer.standard()
        var timing = FrameTiming()
        let analysis = try analyzer.analyse(frame, face: .largest, timing: &timing)
        analyzer.earAnchoring = false
        let meshOnly = try analyzer.analyse(frame, face: .largest, timing: &timing)
        print(String(format: "EarAnchorTests: camera.png yaw %.1f° with the ear, %.1f° without", analysis.pose.yawDegrees,
                     meshOnly.pose.yawDegrees))
        XCTAssertNotNil(analysis.ear, "the ear is seen")
        XCTAssertNil(meshOnly.ear)
        XCTAssertGreaterThan(analysis.pose.yawDegrees, 65)
        XCTAssertLessThan(meshOnly.pose.yawDegrees, 62)
        var longer = analysis.intrinsics
        longer.fx *= 1.5
        longer.fy *= 1.5
        let again = try analyzer.solvePose(for: analysis, intrinsics: longer)
        XCTAssertGreaterThan(again.yawDegrees, 65, "solved again, the pose keeps the ear's turn")
    }

    /// `coif landmarks --json` says where the ear that turned a pose was (camera.png's, left of his face as he
    /// faces right), and null on a frontal face.
    func testLandmarksJSONSaysWhichEarTurnedThePose() throws {
        let camera = try Fixtures.requireCamera()
        for (photo, turned) in [(camera, true), (try Fixtures.requireAstronaut(), false)] {
            let run = try Fixtures.runCoif(["landmarks", photo, "--face", "largest", "--json"])
            XCTAssertEqual(run.status, 0, run.stderr)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            let face = try XCTUnwrap((json["faces"] as? [[String: Any]])?.first)
            if turned {
                let ear = try XCTUnwrap(face["ear"] as? [String: Double], "camera.png's pose is turned by his ear")
                let box = try XCTUnwrap(face["box"] as? [String: Double])
                XCTAssertLessThan(try XCTUnwrap(ear["x"]), try XCTUnwrap(box["left"]), "the ear lies behind his face, as he faces right")
                XCTAssertGreaterThan(try XCTUnwrap(ear["areaPx"]), 0)
            } else {
                XCTAssertTrue(face["ear"] is NSNull, "a frontal face is not turned by an ear")
            }
        }
    }

    /// The shared portraits in full profile (insightface left_face, ~65–80°; deca 00181, ~90°) read |yaw| ≥ 65°
    /// (the mesh alone: −36° and −62°).
    func testTheProfilePortraitsReadPast65() throws {
        let portraits = try Fixtures.requireTestdata("portraits", for: "EarAnchorTests")
        let analyzer = try FaceAnalyzer.standard()
        for name in ["insightface_left_face.jpeg", "deca_image00181.jpg"] {
            var timing = FrameTiming()
            let analysis = try analyzer.analyse(try Frame.read(path: portraits + "/" + name), face: .largest, timing: &timing)
            print(String(format: "EarAnchorTests: %@ yaw %.1f°", name, analysis.pose.yawDegrees))
            XCTAssertNotNil(analysis.ear, name)
            XCTAssertGreaterThanOrEqual(abs(analysis.pose.yawDegrees), 65, name)
        }
    }
}
