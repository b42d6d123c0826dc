// FaceMesh: MediaPipe's face networks, converted to ONNX by the set-up and run by OpenCV's dnn (CVision
// face_mesh.cpp): BlazeFace (full range) finds faces dlib's HOG detector misses, FaceMesh fits 468 points
// with depth inside a face's square region, at any yaw. `FaceAnalyzer` uses the mesh where dlib's 68-point
// fit is not trustworthy; this file knows nothing of pose or of when that is.
import CVision
import CoifCore
import Foundation

/// The square region of the photo a face-mesh fit looks at: centre, side and the angle of the eye line
/// (radians, image axes: y down, so + turns clockwise on screen), from the subject's right eye (image left)
/// to their left eye. The region is sampled along that line, so the face reaches the network upright.
public struct FaceRegion: Sendable, Equatable {
    public var center: Vec2
    public var side: Float
    public var angle: Float

    public init(center: Vec2, side: Float, angle: Float) {
        self.center = center
        self.side = side
        self.angle = angle
    }

    /// MediaPipe frames the face 1.5 times its box (the same factor from a detection and from the
    /// previous fit's points): forehead, ears and chin stay inside when the head turns.
    public static let scale: Float = 1.5

    /// From a face box (dlib's or BlazeFace's: brows to chin, cheek to cheek) and the eye line, if known.
    public static func around(_ box: FaceBox, eyeAngle: Float = 0) -> FaceRegion {
        FaceRegion(center: box.center, side: max(box.width, box.height) * scale, angle: eyeAngle)
    }

    /// From a previous fit's points: their extent measured along the eye line (outer eye corners 33 → 263),
    /// grown `scale` times about its centre. MediaPipe tracks a face from frame to frame this way; for a still,
    /// one more fit from the first fit's points puts the face where the network was trained to see it.
    public static func around(points: [Vec3]) -> FaceRegion {
        let angle = FaceMeshFit.eyeLineRadians(points)
        let c = cos(angle), s = sin(angle)
        var lo = Vec2(.infinity, .infinity), hi = -lo
        for p in points {
            let q = Vec2(c * p.x + s * p.y, -s * p.x + c * p.y)  // into the eye line's frame
            lo = pointwiseMin(lo, q)
            hi = pointwiseMax(hi, q)
        }
        let mid = (lo + hi) / 2
        let center = Vec2(c * mid.x - s * mid.y, s * mid.x + c * mid.y)
        return FaceRegion(center: center, side: max(hi.x - lo.x, hi.y - lo.y) * scale, angle: angle)
    }
}

/// One face-mesh fit: 468 points in photo pixels (pixel-index coordinates, as landmarks), z in the same
/// pixel scale (relative depth; + away from the camera), and the network's face-presence score.
public struct FaceMeshFit: Sendable {
    public var points: [Vec3]
    /// The network's face flag after a sigmoid, 0…1: low when the region holds no face.
    public var presence: Float
    public var region: FaceRegion

    /// How far the head is turned, read off the mesh's own depth without a pose solve: the angle of the
    /// outer eye corners' line (33 → 263) out of the image plane, degrees, unsigned. The corners sit
    /// symmetrically on the skull, so a frontal face reads ~0 and a profile ~90. A cheap screen for whether
    /// the pose can be anywhere near `FaceAnalyzer`'s switch; the switch itself is taken on the solved pose.
    public var eyeLineTurnDegrees: Float {
        let eyes = points[263] - points[33]
        let inPlane = (eyes.x * eyes.x + eyes.y * eyes.y).squareRoot()
        return abs(atan2(eyes.z, inPlane)) * 180 / .pi
    }

    /// The eye line's angle in the image (radians, image axes): outer eye corners 33 → 263.
    public var eyeLineRadians: Float { Self.eyeLineRadians(points) }

    static func eyeLineRadians(_ points: [Vec3]) -> Float {
        let eyes = points[263] - points[33]
        return atan2(eyes.y, eyes.x)
    }

    /// How far the eye line is rolled from the region's own (degrees, unsigned): near 0 when the region was
    /// framed along the face's roll.
    public var eyeLineRollDegrees: Float { angleBetween(eyeLineRadians, region.angle) * 180 / .pi }

    /// The 68 iBUG points read off the mesh (`FaceMesh.ibug68`; a pair's mean where one vertex is not enough).
    public var landmarks68: [Vec2] {
        FaceMesh.ibug68.map { pair in
            let a = points[pair.0], b = points[pair.1]
            return Vec2((a.x + b.x) / 2, (a.y + b.y) / 2)
        }
    }
}

/// BlazeFace's and FaceMesh's ONNX networks, loaded once per process. Not thread-safe: one frame at a time.
public final class FaceMesh {
    /// The files the set-up writes into the model cache (scripts/fetch-models.sh).
    public static let landmarkModelFile = "face-mesh-468.onnx"
    public static let detectorModelFile = "face-detect-full-range.onnx"

    /// The 68 iBUG 300-W points as FaceMesh vertices: (a, b) is the mean of vertices a and b (a == b for one).
    /// Chosen by anatomy and checked against Coif's head: with MediaPipe's canonical face model aligned to
    /// Coif's 68 reference points on the rigid subset (scale + rotation), each rigid point's vertex lies
    /// within 1–4 mm of it (tested when the shared test data is present). The jaw follows the mesh's face
    /// oval one step below the usual listing (7 is 176, not 150), where Coif's jaw points lie; the nose's
    /// lower points are the vertices nearest Coif's (240/99/2/328/460), which the pose is solved from.
    public static let ibug68: [(Int, Int)] = {
        let jaw: [(Int, Int)] = [(127, 127), (234, 234), (93, 93), (132, 58), (58, 172), (136, 136), (150, 150), (176, 176),
                                 (152, 152),
                                 (400, 400), (379, 379), (365, 365), (397, 288), (288, 361), (323, 323), (454, 454), (356, 356)]
        let single = [70, 63, 105, 66, 107, 336, 296, 334, 293, 300,  // brows 17–26
                      6, 197, 5, 4, 240, 99, 2, 328, 460,  // nose 27–35
                      33, 160, 158, 133, 153, 144, 362, 385, 387, 263, 373, 380,  // eyes 36–47
                      61, 39, 37, 0, 267, 269, 291, 405, 314, 17, 84, 181,  // outer lips 48–59
                      78, 82, 13, 312, 308, 317, 14, 87]  // inner lips 60–67
        return jaw + single.map { ($0, $0) }
    }()

    private let handle: OpaquePointer
    public let landmarkModelPath: String
    public let detectorModelPath: String

    /// Loads both networks from the model cache (nil directory: `ModelCache.directory()`). `assetFailed`
    /// (exit 50) naming the file and how to install it when one is missing, damaged or unreadable.
    public init(modelDirectory: String? = nil) throws {
        let directory = modelDirectory ?? ModelCache.directory()
        landmarkModelPath = directory + "/" + Self.landmarkModelFile
        detectorModelPath = directory + "/" + Self.detectorModelFile
        try Self.checkModels(modelDirectory: directory)
        var message = [CChar](repeating: 0, count: 512)
        var failed: Int32 = 0
        guard let opened = cv_face_mesh_open(landmarkModelPath, detectorModelPath, &failed, &message, message.count) else {
            let path = failed == 2 ? detectorModelPath : landmarkModelPath
            throw CoifError.assetFailed(path: path, reason: "\(String(nulTerminated: message)); \(ModelCache.installHint)")
        }
        handle = opened
    }

    deinit { cv_face_mesh_free(handle) }

    /// Both networks' files are in the cache and sealed, as `init` checks them: what a command checks before
    /// it writes anything (dlib's compact cache among it), so a missing model is exit 50 with nothing written.
    public static func checkModels(modelDirectory: String? = nil, digest: Bool = true) throws {
        let directory = modelDirectory ?? ModelCache.directory()
        try ModelCache.checkSealed(directory + "/" + landmarkModelFile, what: "face-mesh model", digest: digest)
        try ModelCache.checkSealed(directory + "/" + detectorModelFile, what: "face-detection model", digest: digest)
    }

    /// BlazeFace (full range) on the whole photo, letterboxed into its square input: boxes in dlib's
    /// convention (photo pixels, right/bottom exclusive), score = the detector's probability, best first,
    /// overlapping boxes merged by weighted non-maximum suppression as MediaPipe does.
    public func detect(_ image: PixelImage, minScore: Float) -> [FaceBox] {
        precondition(image.channels == 3, "detect takes an RGB image")
        var found = [cv_face_detection](repeating: cv_face_detection(), count: 32)
        let n = image.pixels.withUnsafeBufferPointer { rgb in
            cv_face_mesh_detect(handle, rgb.baseAddress, Int32(image.width), Int32(image.height), minScore, &found, Int32(found.count))
        }
        guard n > 0 else { return [] }
        return found.prefix(Int(min(n, Int32(found.count)))).map {
            FaceBox(left: $0.left, top: $0.top, right: $0.right, bottom: $0.bottom, score: Double($0.score))
        }
    }

    /// One FaceMesh pass over `region` of an RGB photo; nil when OpenCV fails.
    public func fit(_ image: PixelImage, region: FaceRegion) -> FaceMeshFit? {
        precondition(image.channels == 3, "fit takes an RGB image")
        var xyz = [Float](repeating: 0, count: 468 * 3)
        var presence: Float = 0
        let status = image.pixels.withUnsafeBufferPointer { rgb in
            cv_face_mesh_fit(handle, rgb.baseAddress, Int32(image.width), Int32(image.height), region.center.x, region.center.y,
                             region.side, region.angle, &xyz, &presence)
        }
        guard status == 0 else { return nil }
        let points = (0..<468).map { Vec3(xyz[3 * $0], xyz[3 * $0 + 1], xyz[3 * $0 + 2]) }
        return FaceMeshFit(points: points, presence: presence, region: region)
    }

    /// The fit for a face box: one pass framed by the box (and the eye line, if known), then one framed by
    /// that pass's own points (`FaceRegion.around(points:)`).
    public func fit(_ image: PixelImage, box: FaceBox, eyeAngle: Float = 0) -> FaceMeshFit? {
        guard let first = fit(image, region: .around(box, eyeAngle: eyeAngle)) else { return nil }
        return fit(image, region: .around(points: first.points)) ?? first
    }
}
