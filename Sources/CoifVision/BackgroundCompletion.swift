// BackgroundCompletion: a hole in a photo completed from the photo's own patches, copied only from the pixels
// allowed as sources (multi-scale PatchMatch with EM voting; see cv_complete_rgb8 and patch_complete.cpp).
import CVision
import CoifCore

/// Fills a hole (own hair removed over the background, say) with 7×7 patches copied from the sources only, so
/// a wall's edge, a door frame or foliage continues across it and a face beside it never comes in. Not a
/// smooth fill: the result carries the sources' own grain. Same inputs and seed, same bytes.
public enum BackgroundCompletion {
    /// Fills `image` (RGB, 3 channels) in place where `hole` is non-zero, from windows lying wholly where
    /// `source` is non-zero (hole pixels never count as sources). Pixels that are neither (the person) keep
    /// their bytes and do not steer the match; every pixel outside the hole keeps its bytes. Both masks are
    /// `width × height`. Returns false, leaving `image` unchanged, when no 7×7 window lies on the sources in
    /// the hole's neighbourhood or the whole photo.
    @discardableResult
    public static func complete(_ image: inout PixelImage, hole: [UInt8], source: [UInt8], seed: UInt64) throws -> Bool {
        precondition(image.channels == 3, "completion needs RGB")
        precondition(hole.count == image.width * image.height && source.count == hole.count, "mask size does not match the image")
        let (width, height) = (Int32(image.width), Int32(image.height))
        let status = image.pixels.withUnsafeMutableBufferPointer { rgb in
            cv_complete_rgb8(rgb.baseAddress, width, height, hole, source, seed)
        }
        return try result(status)
    }

    /// The same for linear-light RGB floats (`width × height × 3`, rows top to bottom), filled in place.
    @discardableResult
    public static func complete(linearRGB: inout [Float], width: Int, height: Int, hole: [UInt8], source: [UInt8],
                                seed: UInt64) throws -> Bool {
        precondition(width > 0 && height > 0 && linearRGB.count == width * height * 3, "pixel buffer size does not match")
        precondition(hole.count == width * height && source.count == hole.count, "mask size does not match the image")
        let status = linearRGB.withUnsafeMutableBufferPointer { rgb in
            cv_complete_linear(rgb.baseAddress, Int32(width), Int32(height), hole, source, seed)
        }
        return try result(status)
    }

    private static func result(_ status: Int32) throws -> Bool {
        switch status {
        case Int32(CV_COMPLETE_OK.rawValue): return true
        case Int32(CV_COMPLETE_NO_SOURCES.rawValue): return false
        default: throw CoifError.internalError("background completion failed (status \(status))")
        }
    }
}
