// PNGFile: PNG encode and decode through libpng's simplified API (no setjmp, which Swift cannot use),
// and atomic output: bytes go to a temporary file beside the target, then rename(2) — a reader never sees
// half a file, and a failure leaves nothing behind.
import CoifCore
import CPNG
import CVision

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
    /// samples are reduced to 8 bits. Limits and errors as `OpenedFile`.
    public static func read(path: String, channels: Int = 4) throws -> PixelImage {
        let file = try OpenedFile(path: path)
        guard case .eight(let pixels) = try file.finish(format: format(channels: channels), flags: 0, sixteen: false) else {
            throw CoifError.internalError("PNG read: 8-bit samples expected")
        }
        return PixelImage(width: file.layout.width, height: file.layout.height, channels: channels, pixels: pixels)
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

// MARK: - Reading at the file's own depth (for image comparison)

/// The sample layout of a PNG as its header declares it.
public struct PNGLayout: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Gray or RGB.
    public var hasColor: Bool
    public var hasAlpha: Bool
    /// 8 or 16: libpng's simplified API widens 1/2/4-bit and palette images to 8 bits.
    public var bitDepth: Int

    /// 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
    public var channels: Int { (hasColor ? 3 : 1) + (hasAlpha ? 1 : 0) }
}

/// Decoded samples at 8 or 16 bits, interleaved, rows top to bottom, tightly packed.
public enum PNGSamples: Sendable {
    case eight([UInt8])
    case sixteen([UInt16])
}

extension PNGFile {
    /// A PNG whose header has been read and whose pixels have not: open two, pick one layout both can be
    /// decoded to, then decode. Holds the file open until `decode` or deinit. Not thread-safe; distinct
    /// instances may decode on distinct threads.
    public final class OpenedFile: @unchecked Sendable {
        public let path: String
        public let layout: PNGLayout
        private var png = png_image()
        private var stream: UnsafeMutablePointer<FILE>?
        private var open = true

        /// Reads the header through the photo decoder's bounded open and size check (CVision
        /// `cv_image_open`, `cv_image_check_size`): `inputMissing` (10; a directory too), `notAnImage` (11),
        /// `corruptImage` (12; also a header claiming more pixels than the file can hold),
        /// `imageTooLarge` (15: over 200 megapixels, or a file over 1 GiB). No pixel is allocated here.
        public init(path: String) throws {
            self.path = path
            var status = CV_DECODE_OK
            var fileBytes: Int64 = -1
            var text = [CChar](repeating: 0, count: 256)
            guard let stream = cv_image_open(path, &status, &fileBytes, &text, text.count) else {
                if status == CV_DECODE_TOO_LARGE { throw CoifError.imageTooLarge(path: path, reason: String(nulTerminated: text)) }
                throw CoifError.inputMissing(path: path)
            }
            self.stream = stream
            png.version = UInt32(PNG_IMAGE_VERSION)
            guard png_image_begin_read_from_stdio(&png, stream) != 0 else {
                let reason = PNGFile.message(png)
                png_image_free(&png)
                fclose(stream)
                self.stream = nil
                open = false
                if reason.contains("Not a PNG") || reason.contains("signature") {
                    throw CoifError.notAnImage(path: path, reason: "not a PNG file")
                }
                throw CoifError.corruptImage(path: path, reason: reason)
            }
            let format = png.format
            layout = PNGLayout(width: Int(png.width), height: Int(png.height),
                               hasColor: format & UInt32(PNG_FORMAT_FLAG_COLOR) != 0,
                               hasAlpha: format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0,
                               bitDepth: format & UInt32(PNG_FORMAT_FLAG_LINEAR) != 0 ? 16 : 8)
            // The fewest bits a pixel of this layout can be stored in (palette and gray go down to 1 bit).
            let bits: UInt32 = format & UInt32(PNG_FORMAT_FLAG_COLORMAP) != 0 || format == 0 ? 1
                : UInt32(layout.channels * (layout.bitDepth == 16 ? 16 : 8))
            let deflated = fileBytes < 0 ? -1 : fileBytes * Int64(CV_MAX_DEFLATE_RATIO)
            let sized = cv_image_check_size(UInt64(png.width), UInt64(png.height), bits, deflated, &text, text.count)
            if sized != CV_DECODE_OK {
                close()
                let reason = String(nulTerminated: text)
                if sized == CV_DECODE_TOO_LARGE { throw CoifError.imageTooLarge(path: path, reason: reason) }
                throw CoifError.corruptImage(path: path, reason: reason)
            }
        }

        deinit { close() }

        private func close() {
            if open { png_image_free(&png) }
            open = false
            if let stream { fclose(stream) }
            stream = nil
        }

        /// Decodes to `channels` (1–4) at `bitDepth`. Conversions are libpng's simplified API's:
        /// - 16 → 16 (`PNG_FORMAT_FLAG_LINEAR`): a file without gAMA/sRGB/iCCP is taken as linear, so
        ///   samples come back as stored; with alpha, colour comes back premultiplied by alpha.
        /// - 16 → 8: the 16-bit samples are taken as sRGB-encoded (`PNG_IMAGE_FLAG_16BIT_sRGB`), so this
        ///   is a plain depth reduction, not a gamma change.
        /// - 8 → 8: as stored (gray→RGB copies the gray; an added alpha is opaque).
        /// One call per instance. `corruptImage` (12) when the data is truncated or damaged.
        public func decode(channels: Int, bitDepth: Int) throws -> PNGSamples {
            precondition((1...4).contains(channels) && (bitDepth == 8 || bitDepth == 16))
            return try finish(format: PNGFile.format(channels: channels) | (bitDepth == 16 ? UInt32(PNG_FORMAT_FLAG_LINEAR) : 0),
                              flags: bitDepth == 8 ? UInt32(PNG_IMAGE_FLAG_16BIT_sRGB) : 0, sixteen: bitDepth == 16)
        }

        /// Reads the pixels as `format` with `flags` added to the image's, then closes the file.
        func finish(format: UInt32, flags: UInt32, sixteen: Bool) throws -> PNGSamples {
            precondition(open, "decode called twice")
            defer { close() }
            png.format = format
            png.flags |= flags
            let channels = (format & UInt32(PNG_FORMAT_FLAG_COLOR) != 0 ? 3 : 1) + (format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0 ? 1 : 0)
            let count = layout.width * layout.height * channels
            var ok: Int32
            let result: PNGSamples
            if sixteen {
                var samples = [UInt16](repeating: 0, count: count)
                ok = samples.withUnsafeMutableBytes { png_image_finish_read(&png, nil, $0.baseAddress, 0, nil) }
                result = .sixteen(samples)
            } else {
                var samples = [UInt8](repeating: 0, count: count)
                ok = samples.withUnsafeMutableBytes { png_image_finish_read(&png, nil, $0.baseAddress, 0, nil) }
                result = .eight(samples)
            }
            guard ok != 0 else {
                let reason = PNGFile.message(png)
                png_image_free(&png)
                open = false
                throw CoifError.corruptImage(path: path, reason: reason)
            }
            return result
        }
    }

    /// Encodes 16-bit samples (1–4 channels) as a 16-bit PNG through libpng's simplified writer, which
    /// treats them as linear and writes a gAMA of 1.0; with alpha, colour must be premultiplied. Reading
    /// the file back with `OpenedFile.decode(bitDepth: 16)` returns the same samples.
    public static func encode16(samples: [UInt16], width: Int, height: Int, channels: Int) throws -> [UInt8] {
        precondition(samples.count == width * height * channels && (1...4).contains(channels))
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(width)
        png.height = UInt32(height)
        png.format = format(channels: channels) | UInt32(PNG_FORMAT_FLAG_LINEAR)
        var size: png_alloc_size_t = 0
        let sized = samples.withUnsafeBytes { png_image_write_to_memory(&png, nil, &size, 0, $0.baseAddress, 0, nil) }
        guard sized != 0, size > 0 else {
            let reason = message(png)
            png_image_free(&png)
            throw CoifError.internalError("16-bit PNG encode failed: \(reason)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let ok = bytes.withUnsafeMutableBytes { out in
            samples.withUnsafeBytes { png_image_write_to_memory(&png, out.baseAddress, &size, 0, $0.baseAddress, 0, nil) }
        }
        guard ok != 0 else {
            let reason = message(png)
            png_image_free(&png)
            throw CoifError.internalError("16-bit PNG encode failed: \(reason)")
        }
        return Array(bytes.prefix(Int(size)))
    }
}
