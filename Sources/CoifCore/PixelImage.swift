// PixelImage: an 8-bit interleaved image in memory, the currency between decode, vision, compositing
// and encode. Not a colour-managed type: 8-bit values are sRGB-encoded unless a name says otherwise.

/// Interleaved 8-bit pixels, rows top to bottom, tightly packed (`width * channels` bytes a row).
public struct PixelImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// 1 (gray), 3 (RGB) or 4 (RGBA).
    public let channels: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && [1, 2, 3, 4].contains(channels))
        precondition(pixels.count == width * height * channels, "pixel buffer size does not match")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    public init(width: Int, height: Int, channels: Int, fill: UInt8 = 0) {
        self.init(width: width, height: height, channels: channels,
                  pixels: [UInt8](repeating: fill, count: width * height * channels))
    }

    @inlinable public var rowBytes: Int { width * channels }

    /// Rec. 601 luma, the weights dlib's own RGB→gray conversion uses, so detection matches dlib's tools.
    public func grayscale() -> PixelImage {
        if channels == 1 { return self }
        var gray = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeBufferPointer { src in
            gray.withUnsafeMutableBufferPointer { dst in
                let c = channels
                for i in 0..<(width * height) {
                    let r = UInt32(src[i * c]), g = UInt32(src[i * c + 1]), b = UInt32(src[i * c + 2])
                    dst[i] = UInt8((r * 299 + g * 587 + b * 114 + 500) / 1000)
                }
            }
        }
        return PixelImage(width: width, height: height, channels: 1, pixels: gray)
    }
}

extension String {
    /// The text in a NUL-terminated C buffer (an error message a C API filled in).
    public init(nulTerminated buffer: [CChar]) {
        let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
