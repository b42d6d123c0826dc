// Photo: a decoded input image (JPEG, PNG, PPM/PGM) with EXIF orientation already applied, and the EXIF
// facts the camera model can use.
import CoifCore
import CVision

public struct Photo: Sendable {
    /// RGB, sRGB-encoded, upright.
    public var image: PixelImage
    public var path: String
    /// FocalLengthIn35mmFilm from EXIF, when the file has it.
    public var focalLength35mm: Double?
    public var exifOrientation: Int

    public init(image: PixelImage, path: String, focalLength35mm: Double? = nil, exifOrientation: Int = 1) {
        self.image = image
        self.path = path
        self.focalLength35mm = focalLength35mm
        self.exifOrientation = exifOrientation
    }

    /// Decodes the file at `path`. Throws `inputMissing`, `notAnImage` or `corruptImage`.
    public static func read(path: String) throws -> Photo {
        var decoded = cv_image()
        var message = [CChar](repeating: 0, count: 256)
        let status = cv_image_decode(path, &decoded, &message, message.count)
        let reason = String(nulTerminated: message)
        switch status {
        case CV_DECODE_OK:
            defer { cv_image_free(&decoded) }
            let count = Int(decoded.width) * Int(decoded.height) * 3
            let pixels = [UInt8](UnsafeBufferPointer(start: decoded.rgb, count: count))
            let image = PixelImage(width: Int(decoded.width), height: Int(decoded.height), channels: 3, pixels: pixels)
            let focal = decoded.exif_focal_length_35mm > 0 ? Double(decoded.exif_focal_length_35mm) : nil
            return Photo(image: image, path: path, focalLength35mm: focal, exifOrientation: Int(decoded.exif_orientation))
        case CV_DECODE_NOT_FOUND:
            throw CoifError.inputMissing(path: path)
        case CV_DECODE_NOT_AN_IMAGE, CV_DECODE_UNSUPPORTED:
            throw CoifError.notAnImage(path: path, reason: reason.isEmpty ? "unrecognised format" : reason)
        default:
            throw CoifError.corruptImage(path: path, reason: reason.isEmpty ? "decode failed" : reason)
        }
    }
}
