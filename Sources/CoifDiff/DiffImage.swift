// DiffImage: an image as a comparison sees it — 8- or 16-bit samples, 1–4 channels, straight from the
// PNG (no colour management beyond libpng's simplified API). Two files are loaded to one shared layout.
import CoifCore
import CoifMedia
import Dispatch

/// Interleaved samples, rows top to bottom, tightly packed.
/// Invariants: `channels` is 1 (gray), 2 (gray+alpha), 3 (RGB) or 4 (RGBA); `bitDepth` is 8 or 16 and
/// matches `samples`. 16-bit samples are libpng's linear form (colour premultiplied when there is alpha);
/// 8-bit samples are sRGB-encoded with straight alpha. Error figures are always reported on the 8-bit
/// scale: a 16-bit difference is divided by 257.
public struct DiffImage: Sendable {
    public let width: Int
    public let height: Int
    public let channels: Int
    public let bitDepth: Int
    public let samples: PNGSamples
    /// Where it came from (a path, or "memory"), for messages.
    public let name: String

    public var hasAlpha: Bool { channels == 2 || channels == 4 }
    public var hasColor: Bool { channels >= 3 }

    public init(_ image: PixelImage, name: String = "memory") {
        width = image.width
        height = image.height
        channels = image.channels
        bitDepth = 8
        samples = .eight(image.pixels)
        self.name = name
    }

    public init(width: Int, height: Int, channels: Int, samples16: [UInt16], name: String = "memory") {
        precondition(samples16.count == width * height * channels && (1...4).contains(channels))
        self.width = width
        self.height = height
        self.channels = channels
        bitDepth = 16
        samples = .sixteen(samples16)
        self.name = name
    }

    init(width: Int, height: Int, channels: Int, bitDepth: Int, samples: PNGSamples, name: String) {
        self.width = width
        self.height = height
        self.channels = channels
        self.bitDepth = bitDepth
        self.samples = samples
        self.name = name
    }

    /// Loads two PNGs to one layout: colour if either has colour, alpha if either has alpha, 16 bits only
    /// when both are 16-bit (else both 8: a 16-bit file is reduced as if sRGB-encoded). The two decodes run
    /// in parallel. Errors, first file first: `inputMissing` 10, `notAnImage` 11, `corruptImage` 12, and
    /// `imageSizeMismatch` 14 when the headers' sizes differ (checked before any pixel is decoded).
    public static func loadPair(_ pathA: String, _ pathB: String) throws -> (DiffImage, DiffImage) {
        let fileA = try PNGFile.OpenedFile(path: pathA)
        let fileB = try PNGFile.OpenedFile(path: pathB)
        let a = fileA.layout, b = fileB.layout
        guard a.width == b.width, a.height == b.height else {
            throw CoifError.imageSizeMismatch(a: pathA, b: pathB, detail: "\(a.width)x\(a.height) vs \(b.width)x\(b.height)")
        }
        let channels = (a.hasColor || b.hasColor ? 3 : 1) + (a.hasAlpha || b.hasAlpha ? 1 : 0)
        let depth = a.bitDepth == 16 && b.bitDepth == 16 ? 16 : 8
        let files = [fileA, fileB]
        let results = ResultSlots<PNGSamples>(count: 2)
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            results.set(i, Result { try files[i].decode(channels: channels, bitDepth: depth) })
        }
        return (DiffImage(width: a.width, height: a.height, channels: channels, bitDepth: depth,
                          samples: try results.get(0), name: pathA),
                DiffImage(width: a.width, height: a.height, channels: channels, bitDepth: depth,
                          samples: try results.get(1), name: pathB))
    }

    /// Loads one PNG as `channels` 8-bit channels (a golden reference read to match a render's layout).
    public static func load(_ path: String, channels: Int) throws -> DiffImage {
        let file = try PNGFile.OpenedFile(path: path)
        let samples = try file.decode(channels: channels, bitDepth: 8)
        return DiffImage(width: file.layout.width, height: file.layout.height, channels: channels, bitDepth: 8,
                         samples: samples, name: path)
    }

    /// A comparison mask: a PNG read as 8-bit gray; pixels where it is non-zero are compared.
    public static func loadMask(_ path: String) throws -> PixelImage {
        try PNGFile.read(path: path, channels: 1)
    }
}

/// Write-once slots filled by `concurrentPerform` workers, each worker its own index.
final class ResultSlots<Value>: @unchecked Sendable {
    private var slots: [Result<Value, Error>?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Result<Value, Error>) {
        // Distinct indices from distinct threads: the array is never resized, elements do not overlap.
        slots.withUnsafeMutableBufferPointer { $0[index] = value }
    }
    func get(_ index: Int) throws -> Value { try slots[index]!.get() }
}

/// A raw pointer handed to `concurrentPerform` workers; each worker touches a disjoint range.
struct SharedPointer<T>: @unchecked Sendable {
    let base: UnsafeMutablePointer<T>
}
