// coif landmarks PHOTO [--json]
import ArgumentParser
import CoifCore
import CoifMedia
import CoifPipeline
import CoifVision
import Foundation

struct Landmarks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find the faces in a photo: box, 68 landmarks, head pose (yaw/pitch/roll, rvec, tvec, intrinsics), and which model fitted them.",
        discussion: "Pose angles are degrees relative to a frontal head looking into the camera: yaw + = nose toward image right, pitch + = chin up, roll + = head tilted clockwise in the image. rvec/tvec map Coif's head space (mm) to OpenCV camera space. landmarkModel is 'dlib' (68-point predictor) or 'mesh' (MediaPipe FaceMesh, used past dlib's range); poseModel names the points the pose was solved from ('mesh' wherever the mesh fitted, also where dlib's points are kept; 'dlib' where the mesh did not fit); poseMethod says how: 'mesh-geometry' (the mesh's 468 points with depth fitted to MediaPipe's canonical face by weighted Procrustes), 'mesh-pnp' or 'dlib-pnp' (solvePnP on that model's 68 points), whichever reprojects Coif's rigid head best; with 'mesh', 'mesh' holds its 468 points (x, y pixels; z relative depth in pixels, + away from the camera). Past 35° of the mesh's yaw the ear the face-parsing network finds turns the pose ('ear': its centre and area in pixels; null where no ear turned it)."
    )

    @Argument(help: "The photo (JPEG, PNG or PPM).")
    var photo: String

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Option(help: "Horizontal field of view in degrees (default: EXIF focal length, else 50).")
    var fovDegrees: Double?

    @Option(help: ArgumentHelp("Which faces: 'all' (default, nearest first), 'largest' or a 0-based index. " + FaceHelp.order + ".",
                               valueName: "all|largest|index"))
    var face: FaceChoice = .all

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            _ = global.makeLogger()
            try FaceAnalyzer.checkFieldOfView(fovDegrees)
            let analyzer = try FaceAnalyzer.standard()
            let frame = try Frame.read(path: photo).withFieldOfView(fovDegrees)
            // --face largest searches only as far as the largest face needs (FaceAnalyzer.analyse), not the
            // all-faces search, and finds the face --face all lists first.
            var timing = FrameTiming()
            let analyses = face == .largest ? [try analyzer.analyse(frame, face: .largest, timing: &timing)]
                                            : try analyzer.analyseAll(frame, timing: &timing)
            let intrinsics = analyses[0].intrinsics
            var faces = analyses.map(FaceFit.init)
            if case .index(let i) = face {
                guard i < faces.count else {
                    throw CoifError.faceIndexOutOfRange(path: photo, index: i, found: faces.count)
                }
                faces = [faces[i]]
            }
            if json {
                let record: [String: Any] = [
                    "photo": photo,
                    "width": frame.image.width,
                    "height": frame.image.height,
                    "intrinsics": ["fx": intrinsics.fx, "fy": intrinsics.fy, "cx": intrinsics.cx, "cy": intrinsics.cy],
                    "faces": faces.map { face -> [String: Any] in
                        [
                            "box": ["left": face.box.left, "top": face.box.top, "right": face.box.right, "bottom": face.box.bottom, "score": face.box.score],
                            "landmarks": face.landmarks.map { [$0.x, $0.y] },
                            "landmarkModel": face.landmarkModel.rawValue,
                            "poseModel": face.poseModel.rawValue,
                            "poseMethod": face.poseMethod.rawValue,
                            "mesh": face.meshPoints.map { $0.map { [$0.x, $0.y, $0.z] } } ?? NSNull(),
                            "ear": face.ear.map { ["x": $0.centroid.x, "y": $0.centroid.y, "areaPx": $0.areaPx] as [String: Any] } ?? NSNull(),
                            "pose": [
                                "yawDegrees": face.pose.yawDegrees, "pitchDegrees": face.pose.pitchDegrees, "rollDegrees": face.pose.rollDegrees,
                                "rvec": face.pose.rvec, "tvec": face.pose.tvec, "reprojectionErrorPx": face.pose.reprojectionErrorPx,
                            ],
                        ]
                    },
                ]
                let data = try JSONSerialization.data(withJSONObject: record, options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print("\(photo): \(frame.image.width)x\(frame.image.height), \(faces.count) face(s), fx \(String(format: "%.1f", intrinsics.fx)) px")
                for (i, fit) in faces.enumerated() {
                    let b = fit.box
                    print(String(format: "face %d: box (%.0f,%.0f)-(%.0f,%.0f) score %.2f  points %@, pose %@ (%@)  yaw %+.1f° pitch %+.1f° roll %+.1f°  tvec (%.0f, %.0f, %.0f) mm  reprojection %.2f px",
                                 i, b.left, b.top, b.right, b.bottom, b.score, fit.landmarkModel.rawValue, fit.poseModel.rawValue, fit.poseMethod.rawValue, fit.pose.yawDegrees, fit.pose.pitchDegrees,
                                 fit.pose.rollDegrees, fit.pose.tvec[0], fit.pose.tvec[1], fit.pose.tvec[2], fit.pose.reprojectionErrorPx)
                          + (fit.ear.map { String(format: "  turned by the ear at (%.0f, %.0f)", $0.centroid.x, $0.centroid.y) } ?? ""))
                }
            }
        }
    }
}
