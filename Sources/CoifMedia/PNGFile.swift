// PNGFile: PNG encode and decode through libpng's simplified API (no setjmp, which Swift cannot use),
// and atomic output: bytes go to a temporary file beside the target, then rename(2) — a reader never sees
// half a file, and a failure leaves nothing behind.
import CoifCore
import CPNG

#if canImport(Glibc)
import Glibc
#endif

/// How hard the encoder works. `fast` (zlib level 1, SUB filter) is several times quicker and ~20–40%
/// bigger; `small` (level 9, adaptive filters) makes the smallest files. Both are lossless.
public enum PNGCompression: String, Sendable, CaseIterable {
    case fast, small
}

public enum PNGFile {
    /// Encodes an 8-bit image (1, 2, 3 or 4 channels) to PNG bytes.
    public static func encode(_ image: PixelImage, compression: PNGCompression = .fast) throws -> [UInt8] {
        // fast: zlib level 1 with the SUB filter (photos predict well from the left neighbour, and SUB is
        // the cheapest filter); small: level 9 with libpng's adaptive per-row filter choice.
        let (level, filter): (Int32, Int32) = compression == .fast ? (1, Int32(COIF_PNG_FILTER_SUB)) : (9, Int32(COIF_PNG_FILTER_ADAPTIVE))
        var buffer = coif_png_buffer()
        var message = [CChar](repeating: 0, count: 200)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            coif_png_encode(pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(image.channels),
                            level, filter, &buffer, &message, message.count)
        }
        guard status == 0 else { throw CoifError.internalError("PNG encode failed: \(String(cString: message))") }
        defer { coif_png_buffer_free(&buffer) }
        return [UInt8](UnsafeBufferPointer(start: buffer.bytes, count: buffer.size))
    }

    /// Decodes a PNG file to 8-bit pixels with `channels` channels (1 gray, 3 RGB, 4 RGBA); 16-bit
    /// samples are reduced to 8 bits.
    public static func read(path: String, channels: Int = 4) throws -> PixelImage {
        guard access(path, R_OK) == 0 else { throw CoifError.inputMissing(path: path) }
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_file(&png, path) != 0 else {
            let reason = message(png)
            png_image_free(&png)
            if reason.contains("Not a PNG") || reason.contains("signature") {
                throw CoifError.notAnImage(path: path, reason: "not a PNG file")
            }
            throw CoifError.corruptImage(path: path, reason: reason)
        }
        png.format = format(channels: channels)
        let width = Int(png.width), height = Int(png.height)
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let ok = pixels.withUnsafeMutableBytes { png_image_finish_read(&png, nil, $0.baseAddress, 0, nil) }
        guard ok != 0 else {
            let reason = message(png)
            png_image_free(&png)
            throw CoifError.corruptImage(path: path, reason: reason)
        }
        return PixelImage(width: width, height: height, channels: channels, pixels: pixels)
    }

    private static func format(channels: Int) -> UInt32 {
        // png.h's PNG_FORMAT_* are composite macros that do not import: build them from the flags.
        let alpha = UInt32(PNG_FORMAT_FLAG_ALPHA), color = UInt32(PNG_FORMAT_FLAG_COLOR)
        switch channels {
        case 1: return 0
        case 2: return alpha
        case 3: return color
        default: return color | alpha
        }
    }

    private static func message(_ png: png_image) -> String {
        var copy = png.message
        return withUnsafeBytes(of: &copy) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
