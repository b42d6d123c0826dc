// OwnHair: the person's own hair, per pixel. A face-parsing network (FaceParser, over CVision's OpenCV dnn)
// labels a head-centred crop: hair, skin, background and the rest; its hair probability, back at the photo's
// resolution and refined by a guided filter with the photo as guide, is a soft matte. From it: the plate
// (the photo with the hair taken away, `HairPlate`) and recolouring (`HairRecolor`).
import CVision
import CoifCore
import Foundation

/// The face-parsing network, loaded once per process. Not thread-safe: one frame at a time.
public final class FaceParser {
    /// The input sides the set-up exports (each its own ONNX file: OpenCV 4.6's dnn runs fixed shapes).
    public static let inputSizes = [256, 512]
    /// The network's input side: COIF_PARSE_SIZE (256 or 512), else 512. At 256² the network loses hair
    /// (fringes, wild and fair hair) that then survives removal, for ~1/4 of the time (README, "Own hair":
    /// measured side by side).
    public static func defaultInputSize(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        environment["COIF_PARSE_SIZE"].flatMap(Int.init).flatMap { inputSizes.contains($0) ? $0 : nil } ?? 512
    }
    /// The model's file name in the model cache for an input side.
    public static func modelFile(size: Int) -> String { "face-parsing-\(size).onnx" }

    public static var defaultModelPath: String { ModelCache.path(modelFile(size: defaultInputSize())) }

    private let handle: OpaquePointer
    public let modelPath: String
    /// The side of the square the network sees (from the file's name, `modelFile(size:)`).
    public let inputSize: Int

    /// Loads the network. `assetFailed` (exit 50) naming the file and how to install it when it is missing,
    /// does not match its sidecar (size and SHA-256 recorded by the set-up), or OpenCV cannot read it.
    public init(modelPath: String = FaceParser.defaultModelPath) throws {
        self.modelPath = modelPath
        let name = (modelPath as NSString).lastPathComponent
        inputSize = Self.inputSizes.first { Self.modelFile(size: $0) == name } ?? 512
        try ModelCache.checkSealed(modelPath, what: "face-parsing model")
        var message = [CChar](repeating: 0, count: 512)
        guard let parser = cv_face_parser_open(modelPath, Int32(inputSize), &message, message.count) else {
            throw CoifError.assetFailed(path: modelPath, reason: "\(String(nulTerminated: message)); \(ModelCache.installHint)")
        }
        handle = parser
    }

    deinit { cv_face_parser_free(handle) }

    /// The square crop the network sees for a face: the detector's box grown `cropScale` times around a
    /// centre raised by a fifth of the box (hair sits above the face), so hair, forehead, ears and the
    /// background around them are in view, as in the CelebAMask-HQ portraits it was trained on.
    public static func crop(for box: FaceBox, cropScale: Float = 2.6) -> (x: Float, y: Float, side: Float) {
        let side = max(box.width, box.height) * cropScale
        let centre = Vec2(box.center.x, box.center.y - 0.2 * box.height)
        return (centre.x - side / 2, centre.y - side / 2, side)
    }

    public static let matteFloor: Float = 0.25
    public static let matteFull: Float = 0.75

    /// Parses the face's crop of `frame` and brings the result back onto the photo.
    public func parse(_ frame: Frame, box: FaceBox) throws -> OwnHair {
        let image = frame.image
        let crop = Self.crop(for: box)
        let n = inputSize * inputSize
        var classes = [UInt8](repeating: 0, count: n)
        var hair = [Float](repeating: 0, count: n)
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { rgb in
            cv_face_parser_run(handle, rgb.baseAddress, Int32(image.width), Int32(image.height), crop.x, crop.y, crop.side,
                               &classes, &hair, &message, message.count)
        }
        guard status == 0 else { throw CoifError.assetFailed(path: modelPath, reason: "parse failed: \(String(nulTerminated: message))") }
        let count = image.width * image.height
        var photoClasses = [UInt8](repeating: 0, count: count)
        var matte = [Float](repeating: 0, count: count)
        // Guided filter: a window of ~1/100 of the crop (2–3 px on a 512² portrait) and a small ε keep edges
        // sharp where the photo has them and let the matte fade where it does not.
        let radius = Int32(max(2, (crop.side / 100).rounded()))
        let refined = image.pixels.withUnsafeBufferPointer { rgb in
            cv_parse_to_photo(rgb.baseAddress, Int32(image.width), Int32(image.height), crop.x, crop.y, crop.side,
                              Int32(inputSize), classes, hair, radius, 1e-3, &photoClasses, &matte)
        }
        guard refined == 0 else { throw CoifError.internalError("own hair: resampling the parse failed") }
        // Probability at or below `matteFloor` is not hair: the guided filter leaves a haze of 0.1–0.3 over
        // dark backgrounds and skin (dark hair and a dark backdrop look alike to it). The matte ramps from
        // there to full at `matteFull`.
        for i in matte.indices { matte[i] = min(max((matte[i] - Self.matteFloor) / (Self.matteFull - Self.matteFloor), 0), 1) }
        return OwnHair(width: image.width, height: image.height, crop: crop, classes: photoClasses, matte: matte)
    }
}

extension FaceParser {
    /// Every face's own hair in one frame, merged (`OwnHair.merged`), each parse timed as `.parse`.
    public func parse(_ frame: Frame, boxes: [FaceBox], timing: inout FrameTiming) throws -> OwnHair {
        var hair: OwnHair?
        for box in boxes {
            let parsed = try timing.measure(.parse) { try parse(frame, box: box) }
            hair = hair.map { $0.merged(with: parsed) } ?? parsed
        }
        guard let hair else { throw CoifError.internalError("own hair: no face to parse") }
        return hair
    }
}

/// The own hair of one face (or several, merged), at the photo's resolution.
public struct OwnHair: Sendable {
    public var width: Int
    public var height: Int
    /// The crop the network saw (photo pixels; the union's first for merged faces).
    public var crop: (x: Float, y: Float, side: Float)
    /// The parse's class per photo pixel (CV_PARSE_*; 255 where no crop reached).
    public var classes: [UInt8]
    /// The soft matte of hair (and hat), 0…1 per photo pixel.
    public var matte: [Float]

    /// The classes, as the network numbers them.
    public static let background: UInt8 = 0, skin: UInt8 = 1, hair: UInt8 = 17, hat: UInt8 = 18, unknown: UInt8 = 255

    /// Several faces' parses in one photo: the larger matte and, where a parse says more than "background"
    /// or unknown, its class.
    public func merged(with other: OwnHair) -> OwnHair {
        var out = self
        for i in 0..<classes.count {
            out.matte[i] = max(matte[i], other.matte[i])
            if out.classes[i] == Self.unknown || (out.classes[i] == Self.background && other.classes[i] != Self.unknown) {
                out.classes[i] = other.classes[i]
            }
        }
        return out
    }

    /// The matte as an 8-bit gray image.
    public var matteImage: PixelImage {
        PixelImage(width: width, height: height, channels: 1,
                   pixels: matte.map { UInt8((min(max($0, 0), 1) * 255).rounded()) })
    }

    /// The fraction of the photo's pixels the matte covers at half or more.
    public var coverage: Double { Double(matte.filter { $0 >= 0.5 }.count) / Double(max(matte.count, 1)) }
}

/// The photo with the own hair taken away (see cv_hair_fill).
public enum HairPlate {
    /// How far (as a fraction of the parse crop's side) the matte is grown before removal: hair's fringe
    /// mixes with what is behind it for a pixel or two beyond where the network stops, and a halo of the
    /// old colour there reads as hair.
    public static let growFraction: Float = 0.025

    /// The removal weight per pixel: the matte grown by `growFraction` of the crop (a max filter).
    public static func removal(_ hair: OwnHair) -> [Float] {
        let radius = max(1, Int((hair.crop.side * growFraction).rounded()))
        return maxFilter(hair.matte, width: hair.width, height: hair.height, radius: radius)
    }

    /// The plate: `frame`'s photo with `hair` removed, skin inside `headMask` (non-zero = the head's
    /// silhouette), background elsewhere. Deterministic for a seed.
    public static func fill(_ frame: Frame, hair: OwnHair, headMask: [UInt8], seed: UInt64) throws -> PixelImage {
        let image = frame.image
        precondition(headMask.count == image.width * image.height && hair.matte.count == headMask.count)
        let remove = removal(hair)
        var out = [UInt8](repeating: 0, count: image.pixels.count)
        let status = image.pixels.withUnsafeBufferPointer { rgb in
            cv_hair_fill(rgb.baseAddress, Int32(image.width), Int32(image.height), hair.classes, remove, headMask, seed, &out)
        }
        guard status == 0 else { throw CoifError.internalError("own hair: the fill failed (\(status))") }
        return PixelImage(width: image.width, height: image.height, channels: 3, pixels: out)
    }

    /// A square max filter (the matte grown by `radius` pixels), as OpenCV's dilation.
    static func maxFilter(_ values: [Float], width: Int, height: Int, radius: Int) -> [Float] {
        var out = [Float](repeating: 0, count: values.count)
        cv_max_filter(values, Int32(width), Int32(height), Int32(radius), &out)
        return out
    }
}

/// Recolouring the own hair in linear light (see cv_hair_recolor).
public enum HairRecolor {
    /// `image` with its hair (`matte`) recoloured toward `targetLinear`; outside the matte, the same bytes.
    public static func apply(_ image: PixelImage, matte: [Float], targetLinear: Vec3, strength: Float) throws -> PixelImage {
        precondition(image.channels == 3 && matte.count == image.width * image.height)
        var out = [UInt8](repeating: 0, count: image.pixels.count)
        let status = image.pixels.withUnsafeBufferPointer { rgb in
            cv_hair_recolor(rgb.baseAddress, Int32(image.width), Int32(image.height), matte, targetLinear.x, targetLinear.y,
                            targetLinear.z, strength, &out)
        }
        guard status == 0 else { throw CoifError.internalError("recolour failed (\(status))") }
        return PixelImage(width: image.width, height: image.height, channels: 3, pixels: out)
    }
}

/// The head's silhouette in the photo: triangles already projected to pixels, filled.
public enum HeadSilhouette {
    /// A width×height mask, 255 inside any of `triangles` (6 floats each: three pixel corners).
    public static func mask(width: Int, height: Int, triangles: [Float]) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: width * height)
        cv_fill_triangles(&mask, Int32(width), Int32(height), triangles, Int32(triangles.count / 6))
        return mask
    }
}
