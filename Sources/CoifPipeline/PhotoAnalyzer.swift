// PhotoAnalyzer: the vision half of a still: decode → detect → landmarks → pose. Needs no GPU, so
// `coif landmarks` and the evaluation commands use it alone.
import CoifCore
import CoifMedia
import CoifRender
import CoifVision

/// One face: where it is, its 68 points and its head pose.
public struct FaceFit: Sendable {
    public var box: FaceBox
    public var landmarks: [Vec2]
    public var pose: HeadPose
}

public final class PhotoAnalyzer {
    /// Used when neither --fov-degrees nor EXIF gives the camera: a 50° horizontal view is a ~39 mm
    /// lens on a 35 mm frame, between a phone's main camera (~26 mm) and a portrait lens (50–85 mm).
    public static let defaultFieldOfViewDegrees = 50.0

    public let faceFinder: FaceFinder
    /// The 68 reference points on Coif's head mesh (head space, mm): the pose maps these onto the photo.
    public let headLandmarks: [Vec3]

    /// Extra landmark fits from re-centred boxes, averaged (see `FaceFinder.landmarks(gray:box:refits:)`).
    /// 0 for renders, so the committed goldens stay byte-identical; `coif eval` uses 2 (see Evaluator).
    public var landmarkRefits = 0

    public init(faceFinder: FaceFinder, headLandmarks: [Vec3]) {
        self.faceFinder = faceFinder
        self.headLandmarks = headLandmarks
    }

    /// decode → detect → landmarks → pose.
    public func analyse(photoPath: String, face choice: FaceChoice = .largest, fieldOfViewDegrees: Double? = nil,
                        timing: inout FrameTiming) throws -> PhotoAnalysis {
        let photo = try timing.measure(.decode) { try Photo.read(path: photoPath) }
        let gray = photo.image.grayscale()
        let boxes = timing.measure(.detect) { detectFaces(gray: gray) }
        guard !boxes.isEmpty else { throw CoifError.noFace(path: photoPath) }
        let ordered = boxes.sorted { $0.width * $0.height > $1.width * $1.height }
        let box: FaceBox
        switch choice {
        case .largest: box = ordered[0]
        case .index(let i):
            guard i >= 0 && i < ordered.count else {
                throw CoifError.faceIndexOutOfRange(path: photoPath, index: i, found: ordered.count)
            }
            box = ordered[i]
        }
        let landmarks = timing.measure(.landmarks) { faceFinder.landmarks(gray: gray, box: box, refits: landmarkRefits) }
        let face = Face(box: box, landmarks: landmarks)
        let image = photo.image
        let intrinsics = intrinsicsFor(photo: photo, fieldOfViewDegrees: fieldOfViewDegrees)
        let pose = try timing.measure(.pose) {
            try solvePose(landmarks: landmarks, intrinsics: intrinsics)
        }
        let faceWidth = Double(length(Vec3(landmarks[16].x - landmarks[0].x, landmarks[16].y - landmarks[0].y, 0)))
        return PhotoAnalysis(photo: photo, faceBoxes: ordered, chosen: face,
                             intrinsics: intrinsics, pose: pose, faceWidthPx: faceWidth)
    }

    /// Every face in a photo, largest first, each with its 68 landmarks and head pose.
    public func fitAll(photoPath: String, fieldOfViewDegrees: Double? = nil) throws -> (photo: Photo, intrinsics: CameraIntrinsics, faces: [FaceFit]) {
        let photo = try Photo.read(path: photoPath)
        let gray = photo.image.grayscale()
        let boxes = detectFaces(gray: gray).sorted { $0.width * $0.height > $1.width * $1.height }
        guard !boxes.isEmpty else { throw CoifError.noFace(path: photoPath) }
        let intrinsics = intrinsicsFor(photo: photo, fieldOfViewDegrees: fieldOfViewDegrees)
        let fits = try boxes.map { box -> FaceFit in
            let landmarks = faceFinder.landmarks(gray: gray, box: box, refits: landmarkRefits)
            let pose = try solvePose(landmarks: landmarks, intrinsics: intrinsics)
            return FaceFit(box: box, landmarks: landmarks, pose: pose)
        }
        return (photo, intrinsics, fits)
    }

    /// The landmarks that move rigidly with the skull: nose (27–35), eyes (36–47) and the chin (8).
    /// Brows and mouth move with expression and the jaw contour slides round the face as it turns; on
    /// the shared AFLW2000-3D sample this subset roughly halves the pitch error of using all 68.
    public static let rigidLandmarks: [Int] = Array(27...47) + [8]

    public func solvePose(landmarks: [Vec2], intrinsics: CameraIntrinsics) throws -> HeadPose {
        try HeadPose.solve(imagePoints: Self.rigidLandmarks.map { landmarks[$0] },
                           modelPoints: Self.rigidLandmarks.map { headLandmarks[$0] }, intrinsics: intrinsics)
    }

    /// --fov-degrees if given, else EXIF's 35 mm focal length, else the documented default.
    public func intrinsicsFor(photo: Photo, fieldOfViewDegrees: Double?) -> CameraIntrinsics {
        let image = photo.image
        if let fov = fieldOfViewDegrees {
            return .fieldOfView(horizontalDegrees: fov, width: image.width, height: image.height)
        } else if let focal = photo.focalLength35mm {
            return .focalLength35mm(focal, width: image.width, height: image.height)
        }
        return .fieldOfView(horizontalDegrees: Self.defaultFieldOfViewDegrees, width: image.width, height: image.height)
    }

    /// dlib's HOG at the photo's own scale first (~20 ms at 512²); only when that finds nothing, once more
    /// on a 2x upsampled copy (~4x the cost), which finds faces down to ~40 px; only when that finds
    /// nothing either, OpenCV's profile cascade on the image and its mirror (faces turned past ~50°).
    public func detectFaces(gray: PixelImage) -> [FaceBox] {
        let found = faceFinder.detect(gray: gray, upsample: 0)
        if !found.isEmpty { return found }
        if min(gray.width, gray.height) < 1200 {
            let upsampled = faceFinder.detect(gray: gray, upsample: 1)
            if !upsampled.isEmpty { return upsampled }
        }
        return faceFinder.detectProfiles(gray: gray, minSizePx: max(40, min(gray.width, gray.height) / 12))
    }
}

import CoifAssets
import CoifGroom

extension PhotoAnalyzer {
    /// The analyzer with dlib's model from Debian's libdlib-data and the landmarks of Coif's own head.
    public static func standard(predictorPath: String = FaceFinder.defaultPredictorPath) throws -> PhotoAnalyzer {
        let head = try HeadModel.standard()
        return PhotoAnalyzer(faceFinder: try FaceFinder(predictorPath: predictorPath), headLandmarks: head.landmarks68)
    }
}

extension HeadModel {
    /// Coif's own head (Meshes/head.obj with its 68 reference points), from the embedded assets.
    public static func standard() throws -> HeadModel {
        guard let headText = Assets.text("Meshes/head.obj"), let landmarkText = Assets.text("Meshes/head-landmarks68.json") else {
            throw CoifError.assetFailed(path: "Meshes/head.obj", reason: "not embedded in this build")
        }
        return try HeadModel.load(objText: headText, landmarksJSON: landmarkText, name: "Meshes/head.obj")
    }
}

extension StyleCatalog {
    /// The catalog of Coif's generated styles (Meshes/catalog.json), from the embedded assets.
    public static func standard() throws -> StyleCatalog {
        guard let text = Assets.text("Meshes/catalog.json") else {
            throw CoifError.assetFailed(path: "Meshes/catalog.json", reason: "not embedded in this build")
        }
        return try StyleCatalog.parse(json: text)
    }
}
