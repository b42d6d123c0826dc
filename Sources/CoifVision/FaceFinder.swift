// FaceFinder: faces and their 68 landmarks in a still, over CVision's dlib calls (HOG frontal face
// detector, ERT shape predictor). Owns the loaded models; knows nothing of pose, hair or files.

import CVision
import CoifCore

/// A detected face's box in pixels (right/bottom are the exclusive edge) and the detector's confidence.
public struct FaceBox: Sendable, Equatable {
    public var left: Float
    public var top: Float
    public var right: Float
    public var bottom: Float
    /// dlib's detection confidence: larger is surer; 0 is the detector's own acceptance threshold.
    public var score: Double

    public init(left: Float, top: Float, right: Float, bottom: Float, score: Double) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
        self.score = score
    }

    public var width: Float { right - left }
    public var height: Float { bottom - top }
    public var center: Vec2 { Vec2((left + right) / 2, (top + bottom) / 2) }
}

/// One face: its detector box and 68 landmarks in iBUG 300-W order, in pixel-index coordinates of the
/// image they were found in (the centre of the top-left pixel is (0, 0)).
public struct Face: Sendable {
    public var box: FaceBox
    public var landmarks: [Vec2]

    public init(box: FaceBox, landmarks: [Vec2]) {
        self.box = box
        self.landmarks = landmarks
    }
}

/// Loads dlib's detector and predictor once; not thread-safe (use from one thread), reusable for many images.
/// Loading dlib's ~100 MB predictor file takes about a second; a compact cached copy (see `init`) about a
/// tenth of that. A process keeps one.
public final class FaceFinder {
    public static let defaultPredictorPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"

    /// Upsampling on the retry is only worth it below this short side: the HOG detector's smallest face
    /// is ~80 px, and one upsample of a large image costs four times the time for faces that small.
    static let upsampleRetryShortSideBelow = 1200

    private let model: OpaquePointer

    /// Where the shape predictor came from (see `init(predictorPath:cacheDirectory:)`).
    public enum ModelSource: Sendable, Equatable {
        /// dlib's own file (no cache folder, the cache not writable, or the model not cacheable).
        case original
        /// The compact cached copy: the same model, ~10x faster to load.
        case cache
        /// dlib's own file, and the cached copy was written for the next process.
        case originalCacheWritten
    }

    public let modelSource: ModelSource

    /// Throws `CoifError.assetFailed(path:reason:)` when the predictor is missing or not a 68-point model.
    /// `cacheDirectory`: where a compact copy of the predictor is kept (written on first use, keyed by the
    /// original's size and modification time, checksummed); nil is `$XDG_CACHE_HOME/coif`, else
    /// `$HOME/.cache/coif`; "" turns the cache off. A cache that cannot be written is skipped silently.
    public init(predictorPath: String = FaceFinder.defaultPredictorPath, cacheDirectory: String? = nil) throws {
        var message = [CChar](repeating: 0, count: 512)
        var source: Int32 = 0
        guard let loaded = cv_face_model_load_cached(predictorPath, cacheDirectory, &source, &message, message.count) else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CoifError.assetFailed(path: predictorPath, reason: reason.isEmpty ? "cannot load shape predictor" : reason)
        }
        model = loaded
        switch source {
        case Int32(CV_MODEL_FROM_CACHE): modelSource = .cache
        case Int32(CV_MODEL_CACHE_WRITTEN): modelSource = .originalCacheWritten
        default: modelSource = .original
        }
    }

    deinit { cv_face_model_free(model) }

    /// The cache file `init` uses for `predictorPath` in `cacheDirectory` (nil: the default); nil when
    /// there is no cache folder.
    public static func cachePath(predictorPath: String = FaceFinder.defaultPredictorPath, cacheDirectory: String? = nil) -> String? {
        var path = [CChar](repeating: 0, count: 4096)
        guard cv_face_model_cache_path(predictorPath, cacheDirectory, &path, path.count) > 0 else { return nil }
        return String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Faces in an 8-bit gray image, best score first. `upsample` doubles the image that many times
    /// first (0...4): finds faces down to ~40 px at 1, at about four times the cost per step.
    /// `threshold` is added to the detector's acceptance level (negative finds more, less sure faces).
    /// Runs dlib's HOG pyramid on two threads (`parallel`); the boxes are the same either way.
    public func detect(gray: PixelImage, upsample: Int, threshold: Double = 0, parallel: Bool = true) -> [FaceBox] {
        let up = Int32(max(0, min(4, upsample)))
        return detect(gray: gray) { model, pixels, boxes, capacity in
            parallel
                ? cv_detect_faces_fast(model, pixels, Int32(gray.width), Int32(gray.height), Int32(gray.width), up, 1,
                                       threshold, boxes, capacity)
                : cv_detect_faces(model, pixels, Int32(gray.width), Int32(gray.height), Int32(gray.width), up, threshold,
                                  boxes, capacity)
        }
    }

    /// Faces at least ~80/`scale` px: dlib's HOG (two threads) on an area-resampled copy `scale` (0 < scale ≤ 1)
    /// the size, boxes mapped back to `gray`'s pixels and rounded. Coarse-to-fine's coarse step.
    public func detect(gray: PixelImage, scale: Double, threshold: Double = 0) -> [FaceBox] {
        let s = max(1e-3, min(1, scale))
        return detect(gray: gray) { model, pixels, boxes, capacity in
            cv_detect_faces_fast(model, pixels, Int32(gray.width), Int32(gray.height), Int32(gray.width), 0, s, threshold,
                                 boxes, capacity)
        }
    }

    /// Faces inside a window of `gray` (`left`, `top`, `width`, `height` in its pixels; the caller keeps it
    /// inside the image), searched as `detect(gray:scale:)` searches a whole image: the window is read in
    /// place (no copy) and the boxes come back in `gray`'s pixels.
    public func detect(gray: PixelImage, left: Int, top: Int, width: Int, height: Int, scale: Double,
                       threshold: Double = 0) -> [FaceBox] {
        precondition(left >= 0 && top >= 0 && width > 0 && height > 0 && left + width <= gray.width && top + height <= gray.height,
                     "detect(gray:left:top:width:height:) takes a window inside the image")
        let s = max(1e-3, min(1, scale))
        return detect(gray: gray, offset: top * gray.width + left) { model, pixels, boxes, capacity in
            cv_detect_faces_fast(model, pixels, Int32(width), Int32(height), Int32(gray.width), 0, s, threshold, boxes, capacity)
        }.map { FaceBox(left: $0.left + Float(left), top: $0.top + Float(top), right: $0.right + Float(left),
                        bottom: $0.bottom + Float(top), score: $0.score) }
    }

    private func detect(gray: PixelImage, offset: Int = 0,
                        _ call: (OpaquePointer, UnsafePointer<UInt8>?, UnsafeMutablePointer<cv_face_box>, Int32) -> Int32) -> [FaceBox] {
        precondition(gray.channels == 1, "detect(gray:) takes a 1-channel image")
        var boxes = [cv_face_box](repeating: cv_face_box(), count: 32)
        var found: Int32 = 0
        gray.pixels.withUnsafeBufferPointer { buffer in
            let pixels = buffer.baseAddress.map { $0 + offset }
            found = boxes.withUnsafeMutableBufferPointer { call(model, pixels, $0.baseAddress!, Int32($0.count)) }
            if found > Int32(boxes.count) {  // rare: more faces than the first buffer held
                boxes = [cv_face_box](repeating: cv_face_box(), count: Int(found))
                found = boxes.withUnsafeMutableBufferPointer { call(model, pixels, $0.baseAddress!, Int32($0.count)) }
            }
        }
        guard found > 0 else { return [] }
        return boxes.prefix(Int(min(found, Int32(boxes.count)))).map {
            FaceBox(left: $0.left, top: $0.top, right: $0.right, bottom: $0.bottom, score: $0.score)
        }
    }

    /// The 68 iBUG landmarks fitted inside `box` (whole pixels: dlib rounds its shape). Empty on failure.
    public func landmarks(gray: PixelImage, box: FaceBox) -> [Vec2] {
        precondition(gray.channels == 1, "landmarks(gray:box:) takes a 1-channel image")
        var xy = [Float](repeating: 0, count: 136)
        let cBox = cv_face_box(left: box.left, top: box.top, right: box.right, bottom: box.bottom, score: box.score)
        let n = gray.pixels.withUnsafeBufferPointer { pixels in
            cv_landmarks68(model, pixels.baseAddress, Int32(gray.width), Int32(gray.height), Int32(gray.width),
                           cBox, &xy)
        }
        guard n == 68 else { return [] }
        return (0..<68).map { Vec2(xy[2 * $0], xy[2 * $0 + 1]) }
    }

    /// The 68 landmarks fitted `refits` more times, each from the box dlib's mean shape fits best to the
    /// previous fit, averaged (sub-pixel). A detector box that sits off the face (profile cascade, a
    /// small or tilted face) costs dlib accuracy; the refit boxes sit where dlib was trained to expect.
    public func landmarks(gray: PixelImage, box: FaceBox, refits: Int) -> [Vec2] {
        precondition(gray.channels == 1, "landmarks(gray:box:refits:) takes a 1-channel image")
        var xy = [Float](repeating: 0, count: 136)
        let cBox = cv_face_box(left: box.left, top: box.top, right: box.right, bottom: box.bottom, score: box.score)
        let n = gray.pixels.withUnsafeBufferPointer { pixels in
            cv_landmarks68_refined(model, pixels.baseAddress, Int32(gray.width), Int32(gray.height), Int32(gray.width),
                                   cBox, Int32(max(0, refits)), &xy)
        }
        guard n == 68 else { return [] }
        return (0..<68).map { Vec2(xy[2 * $0], xy[2 * $0 + 1]) }
    }

    /// Debian opencv-data's Haar profile cascade.
    public static let profileCascadePath = "/usr/share/opencv4/haarcascades/haarcascade_profileface.xml"
    /// Debian opencv-data's Haar eye cascade: the check each profile box must pass.
    public static let eyeCascadePath = "/usr/share/opencv4/haarcascades/haarcascade_eye.xml"

    /// The fallback for faces turned past dlib's frontal detector (~50° of yaw): OpenCV's profile cascade
    /// on the image and its mirror, each box kept only if the eye cascade (nil: no check) finds an eye in
    /// its upper part; boxes in dlib's convention, score 0. Empty when a cascade file is missing (Debian
    /// opencv-data not installed) or nothing is found.
    public func detectProfiles(gray: PixelImage, minSizePx: Int = 40, cascadePath: String = FaceFinder.profileCascadePath,
                               eyeCascadePath: String? = FaceFinder.eyeCascadePath) -> [FaceBox] {
        precondition(gray.channels == 1, "detectProfiles(gray:) takes a 1-channel image")
        var boxes = [cv_face_box](repeating: cv_face_box(), count: 16)
        let found = gray.pixels.withUnsafeBufferPointer { pixels in
            cv_detect_profile_faces(model, pixels.baseAddress, Int32(gray.width), Int32(gray.height), Int32(gray.width),
                                    cascadePath, eyeCascadePath, Int32(minSizePx), &boxes, Int32(boxes.count))
        }
        guard found > 0 else { return [] }
        return boxes.prefix(Int(min(found, Int32(boxes.count)))).map {
            FaceBox(left: $0.left, top: $0.top, right: $0.right, bottom: $0.bottom, score: $0.score)
        }
    }

    /// Detect (no upsampling first; if nothing is found and the image's short side < 1200 px, again with
    /// one upsample), then landmarks for each; sorted by box area, largest first.
    /// Accepts a gray, gray+alpha, RGB or RGBA `PixelImage` (alpha is ignored).
    public func findFaces(in image: PixelImage) -> [Face] {
        let gray = Self.gray(image)
        var boxes = detect(gray: gray, upsample: 0)
        if boxes.isEmpty && min(gray.width, gray.height) < Self.upsampleRetryShortSideBelow {
            boxes = detect(gray: gray, upsample: 1)
        }
        return boxes
            .sorted { $0.width * $0.height > $1.width * $1.height }
            .compactMap { box in
                let points = landmarks(gray: gray, box: box)
                return points.count == 68 ? Face(box: box, landmarks: points) : nil
            }
    }

    /// Luma for detection, with the same Rec. 601 weights as `PixelImage.grayscale()`.
    static func gray(_ image: PixelImage) -> PixelImage {
        switch image.channels {
        case 1: return image
        case 2:
            var luma = [UInt8](repeating: 0, count: image.width * image.height)
            for i in 0..<luma.count { luma[i] = image.pixels[2 * i] }
            return PixelImage(width: image.width, height: image.height, channels: 1, pixels: luma)
        default: return image.grayscale()
        }
    }
}
