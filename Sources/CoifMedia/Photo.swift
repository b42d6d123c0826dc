// Photo decoding: a JPEG, PNG or PPM/PGM file → a Frame, with EXIF orientation applied and the EXIF facts
// the camera model can use. The only place a photo file is opened for its pixels.
import CoifCore
import CVision

extension Frame {
    /// Decodes the file at `path`. Throws `inputMissing`, `notAnImage`, `corruptImage` or `imageTooLarge`.
    public static func read(path: String) throws -> Frame {
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
            return Frame(image: image, source: path, focalLength35mm: focal, exifOrientation: Int(decoded.exif_orientation))
        case CV_DECODE_NOT_FOUND:
            throw CoifError.inputMissing(path: path)
        case CV_DECODE_TOO_LARGE:
            throw CoifError.imageTooLarge(path: path, reason: reason)
        case CV_DECODE_NOT_AN_IMAGE, CV_DECODE_UNSUPPORTED:
            throw CoifError.notAnImage(path: path, reason: reason.isEmpty ? "unrecognised format" : reason)
        default:
            throw CoifError.corruptImage(path: path, reason: reason.isEmpty ? "decode failed" : reason)
        }
    }
}
