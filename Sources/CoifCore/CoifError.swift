// CoifError: every failure a user can cause or meet, as a value with a stable process exit code.
// The library never calls exit(); the `coif` executable maps these to codes (README, "Exit codes").

/// A failure that names its input and the problem in one line (`description`).
/// Tests match the case, not the text.
public enum CoifError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input file does not exist or cannot be read.
    case inputMissing(path: String)
    /// The input exists but is no image format Coif reads.
    case notAnImage(path: String, reason: String)
    /// The input is no video ffmpeg reads (or holds no video stream).
    case notAVideo(path: String, reason: String)
    /// A recognised image that is truncated or damaged.
    case corruptImage(path: String, reason: String)
    /// An image over Coif's limits (docs/hostile-input.md): more pixels than its header may claim, or a
    /// file or stream longer than an image file may be. Refused before its pixels are allocated.
    case imageTooLarge(path: String, reason: String)
    /// Two images that must have the same size (a comparison, a mask) do not; `detail` gives both sizes.
    case imageSizeMismatch(a: String, b: String, detail: String)
    /// The image decoded but holds no face the detector accepts.
    case noFace(path: String)
    /// A face was found but no head pose in front of the camera explains its landmarks with the photo's
    /// camera (an extreme field of view, from a flag or a super-zoom's EXIF focal length).
    case poseNotFound(path: String, reason: String)
    /// `--face INDEX` asked for a face that is not there.
    case faceIndexOutOfRange(path: String, index: Int, found: Int)
    /// The hairstyle name is not in the catalog (and is not a readable file).
    case unknownStyle(name: String, known: [String])
    /// `--color` could not be parsed.
    case malformedColor(spec: String, reason: String)
    /// `--color own` on a photo whose person shows no own hair to read the colour from (bald, a hat).
    case noOwnHair(path: String)
    /// A numeric or enumerated option is out of its range.
    case invalidOption(name: String, reason: String)
    /// A batch job file that cannot run whole (malformed, an unknown style, a missing photo, two items into
    /// one output…): refused before anything renders. `reason` names the item.
    case jobRefused(path: String, reason: String)
    /// The output's directory does not exist, or is not writable.
    case outputNotWritable(path: String, reason: String)
    /// No EGL display/context with OpenGL ES 3.x could be made.
    case gpuUnavailable(reason: String)
    /// A shader failed to compile or link; the message names the file and stage.
    case shaderFailed(file: String, log: String)
    /// A mesh, groom or model file could not be loaded.
    case assetFailed(path: String, reason: String)
    /// Something that should not happen; a bug.
    case internalError(String)

    /// The process exit code for this error: stable, documented in README.md.
    public var exitCode: Int32 {
        switch self {
        case .inputMissing: return 10
        case .notAnImage, .notAVideo: return 11
        case .corruptImage: return 12
        case .noFace, .faceIndexOutOfRange, .poseNotFound: return 13
        case .imageSizeMismatch: return 14
        case .imageTooLarge: return 15
        case .unknownStyle: return 20
        case .malformedColor, .noOwnHair: return 21
        case .invalidOption: return 22
        case .jobRefused: return 23
        case .outputNotWritable: return 30
        case .gpuUnavailable: return 40
        case .shaderFailed: return 41
        case .assetFailed: return 50
        case .internalError: return 70
        }
    }

    public var description: String {
        switch self {
        case .inputMissing(let path): return "\(path): no such file or not readable"
        case .notAnImage(let path, let reason): return "\(path): not an image Coif reads (\(reason))"
        case .notAVideo(let path, let reason): return "\(path): not a video Coif reads (\(reason))"
        case .corruptImage(let path, let reason): return "\(path): damaged or truncated image (\(reason))"
        case .imageSizeMismatch(let a, let b, let detail): return "\(a) vs \(b): sizes differ (\(detail))"
        case .imageTooLarge(let path, let reason): return "\(path): image too large (\(reason))"
        case .noFace(let path): return "\(path): no face found"
        case .poseNotFound(let path, let reason): return "\(path): no head pose fits the face (\(reason))"
        case .faceIndexOutOfRange(let path, let index, let found):
            return "\(path): face index \(index) asked for, but \(found) face(s) found"
        case .unknownStyle(let name, let known):
            return "style '\(name)': unknown (known: \(known.joined(separator: ", ")))"
        case .malformedColor(let spec, let reason): return "color '\(spec)': \(reason)"
        case .noOwnHair(let path): return "\(path): color 'own': no own hair to read the colour from (bald, or covered by a hat)"
        case .invalidOption(let name, let reason): return "\(name): \(reason)"
        case .jobRefused(let path, let reason): return "\(path): job refused: \(reason)"
        case .outputNotWritable(let path, let reason): return "\(path): cannot write output (\(reason))"
        case .gpuUnavailable(let reason): return "GPU: no OpenGL ES 3 context (\(reason))"
        case .shaderFailed(let file, let log): return "shader \(file): \(log)"
        case .assetFailed(let path, let reason): return "\(path): \(reason)"
        case .internalError(let what): return "internal error: \(what)"
        }
    }
}
