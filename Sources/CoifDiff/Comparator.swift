// Comparator: the passes that turn two same-sized images into an ImageDifference, each pass over row
// bands on every core (DispatchQueue.concurrentPerform). Inner loops allocate nothing: each band owns its
// accumulators and writes only its own rows of the shared planes.
//   1. per pixel: channel errors, sums, luma of both images (for SSIM and anti-aliasing), ΔE00 when the
//      colours differ (fast path for the mean, the reference formula for the maximum — see PixelReader),
//      the pixel's cell in the difference map, and which rows' luma differ;
//   2. per differing pixel (skipped when none): the anti-aliasing test, its flatness answers memoised per
//      band, counts and the bounding box;
//   3. SSIM over 8×8 windows of the two luma planes (windows over rows with equal luma score 1 unsummed).
import CoifCore
import CoifMedia
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Per-pixel outcome of a comparison, for heatmaps. `cells[y * width + x]`: 0 compared and equal,
/// 1 not compared (outside the mask), 2 anti-aliasing, 3…255 differing by that many 8-bit steps
/// (rounded up; 1 and 2 are drawn as 3). `referenceLuma` is the first image's luma, 0…255.
public struct DifferenceMap: Sendable {
    public var width: Int
    public var height: Int
    public var cells: [UInt8]
    public var referenceLuma: [Float]

    public static let equal: UInt8 = 0, notCompared: UInt8 = 1, antialiased: UInt8 = 2, firstError: UInt8 = 3
}

enum Comparator {
    /// Compares `a` (the reference) with `b`. Both must share size and layout (`DiffImage.loadPair`
    /// guarantees it); the mask, when given, must be gray and of the same size (`imageSizeMismatch` if not).
    static func compare(_ a: DiffImage, _ b: DiffImage, options: DiffOptions) throws -> (ImageDifference, DifferenceMap?) {
        guard a.width == b.width, a.height == b.height else {
            throw CoifError.imageSizeMismatch(a: a.name, b: b.name, detail: "\(a.width)x\(a.height) vs \(b.width)x\(b.height)")
        }
        precondition(a.channels == b.channels && a.bitDepth == b.bitDepth, "load both images with DiffImage.loadPair")
        if let mask = options.mask {
            guard mask.width == a.width, mask.height == a.height else {
                throw CoifError.imageSizeMismatch(a: a.name, b: "mask", detail: "\(a.width)x\(a.height) vs \(mask.width)x\(mask.height)")
            }
            precondition(mask.channels == 1, "a mask is 8-bit gray")
        }
        guard options.threshold >= 0, options.threshold.isFinite else {
            throw CoifError.invalidOption(name: "threshold", reason: "must be ≥ 0, got \(options.threshold)")
        }
        switch (a.samples, b.samples) {
        case (.eight(let sa), .eight(let sb)):
            return run(sa, sb, a, options: options, scale: 1)
        case (.sixteen(let sa), .sixteen(let sb)):
            return run(sa, sb, a, options: options, scale: 257)
        default:
            preconditionFailure("bit depths differ: load both images with DiffImage.loadPair")
        }
    }

    private static func run<S: FixedWidthInteger & UnsignedInteger>(_ sa: [S], _ sb: [S], _ layout: DiffImage,
                                                                    options: DiffOptions, scale: Double) -> (ImageDifference, DifferenceMap?) {
        let width = layout.width, height = layout.height, pixels = width * height
        // Pass 1 writes every element of these: no need to clear them first.
        var cells = [UInt8](unsafeUninitializedCapacity: pixels) { _, n in n = pixels }
        var lumaA = [Float](unsafeUninitializedCapacity: pixels) { _, n in n = pixels }
        var lumaB = [Float](unsafeUninitializedCapacity: pixels) { _, n in n = pixels }
        var rowDiffers = [UInt8](unsafeUninitializedCapacity: height) { _, n in n = height }
        let bands = bandCount(rows: height)
        var pass1 = [PixelStats](repeating: PixelStats(), count: bands)
        var pass2 = [EdgeStats](repeating: EdgeStats(), count: bands)
        var ssimBands = [WindowStats](repeating: WindowStats(), count: bands)
        let tables = Tables.shared(bitDepth: scale == 1 ? 8 : 16)
        let noMask: [UInt8] = []
        let maskPixels = options.mask?.pixels ?? noMask

        sa.withUnsafeBufferPointer { pa in
        sb.withUnsafeBufferPointer { pb in
        maskPixels.withUnsafeBufferPointer { pm in
        cells.withUnsafeMutableBufferPointer { pc in
        lumaA.withUnsafeMutableBufferPointer { pla in
        lumaB.withUnsafeMutableBufferPointer { plb in
        tables.linear8.withUnsafeBufferPointer { lin in
        tables.encoded16.withUnsafeBufferPointer { enc in
        rowDiffers.withUnsafeMutableBufferPointer { prd in
        FastDeltaE.shared.withTables { deltaETables in
            let image = PixelReader(a: pa.baseAddress!, b: pb.baseAddress!, width: width, height: height,
                                    channels: layout.channels,
                                    linear8: lin.baseAddress ?? UnsafePointer(bitPattern: 8)!,
                                    encoded16: enc.baseAddress ?? UnsafePointer(bitPattern: 8)!)
            let mask = options.mask == nil ? nil : pm.baseAddress
            let shared = Planes(cells: pc.baseAddress!, lumaA: pla.baseAddress!, lumaB: plb.baseAddress!, mask: mask,
                                rowDiffers: prd.baseAddress!)
            // Integer threshold in native units: d > t ⇔ d > ⌊t⌋ for integer d.
            let limit = UInt32(min((options.threshold * scale).rounded(.down), Double(UInt32.max)))
            pass1.withUnsafeMutableBufferPointer { out in
                let results = SharedPointer(base: out.baseAddress!)
                DispatchQueue.concurrentPerform(iterations: bands) { band in
                    let rows = bandRows(band, of: bands, rows: height)
                    results.base[band] = image.pixelPass(rows: rows, limit: limit, scale: scale, planes: shared,
                                                        tables: deltaETables)
                }
            }
            let ignore = options.ignoreAntialiasing
            if pass1.contains(where: { $0.differing > 0 }) {
                // Zeroed by calloc: large blocks come straight from mmap, so untouched pages cost nothing.
                let flags = calloc(pixels, 1)!.assumingMemoryBound(to: UInt8.self)
                defer { free(flags) }
                let memo = SharedPointer(base: flags)
                pass2.withUnsafeMutableBufferPointer { out in
                    let results = SharedPointer(base: out.baseAddress!)
                    DispatchQueue.concurrentPerform(iterations: bands) { band in
                        let rows = bandRows(band, of: bands, rows: height)
                        results.base[band] = image.edgePass(rows: rows, ignoreAntialiasing: ignore, planes: shared,
                                                            flat: memo.base)
                    }
                }
            }
            if width >= SSIM.window && height >= SSIM.window {
                ssimBands.withUnsafeMutableBufferPointer { out in
                    let results = SharedPointer(base: out.baseAddress!)
                    let windowRows = height - SSIM.window + 1
                    DispatchQueue.concurrentPerform(iterations: bands) { band in
                        let rows = bandRows(band, of: bands, rows: windowRows)
                        results.base[band] = SSIM.windows(rows: rows, width: width, lumaA: shared.lumaA,
                                                          lumaB: shared.lumaB, mask: shared.mask,
                                                          rowDiffers: shared.rowDiffers)
                    }
                }
            }
        }}}}}}}}}}

        var p = PixelStats(), e = EdgeStats(), w = WindowStats()
        for s in pass1 { p.merge(s) }
        for s in pass2 { e.merge(s) }
        for s in ssimBands { w.merge(s) }
        let samples = Double(max(p.compared * layout.channels, 1))
        let meanAbsolute = Double(p.sumAbsolute) / scale / samples
        let mse = Double(p.sumSquared) / (scale * scale) / samples
        let difference = ImageDifference(
            width: width, height: height, channels: layout.channels, bitDepth: layout.bitDepth,
            threshold: options.threshold, ignoringAntialiasing: options.ignoreAntialiasing,
            comparedPixels: p.compared, differingPixels: e.counted, antialiasedPixels: e.antialiased,
            maxChannelError: Double(p.maxError) / scale, meanAbsoluteError: meanAbsolute,
            psnr: mse == 0 ? .infinity : 10 * log10(255 * 255 / mse),
            ssim: w.windows == 0 ? nil : w.sum / Double(w.windows),
            deltaE00Mean: p.compared == 0 ? 0 : p.deltaESum / Double(p.compared), deltaE00Max: p.deltaEMax,
            bounds: e.counted > 0 ? PixelBox(minX: e.minX, minY: e.minY, maxX: e.maxX, maxY: e.maxY) : nil)
        let map = options.keepMap ? DifferenceMap(width: width, height: height, cells: cells, referenceLuma: lumaA) : nil
        return (difference, map)
    }

    /// Enough bands to keep every core busy when rows cost unevenly (differences cluster).
    static func bandCount(rows: Int) -> Int {
        let cores = max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
        return max(1, min(rows, cores * 8))
    }

    static func bandRows(_ band: Int, of bands: Int, rows: Int) -> Range<Int> {
        (band * rows / bands)..<((band + 1) * rows / bands)
    }
}

/// The shared per-pixel planes; every band writes only its own rows.
struct Planes: @unchecked Sendable {
    let cells: UnsafeMutablePointer<UInt8>
    let lumaA: UnsafeMutablePointer<Float>
    let lumaB: UnsafeMutablePointer<Float>
    let mask: UnsafePointer<UInt8>?
    /// Per row: 1 when some pixel's luma differs between the images.
    let rowDiffers: UnsafeMutablePointer<UInt8>
}

/// Pass-1 accumulators of one band; integer sums are in native sample units.
struct PixelStats {
    var compared = 0
    /// Pixels off by more than the threshold (before anti-aliasing).
    var differing = 0
    var sumAbsolute: UInt64 = 0
    var sumSquared: UInt64 = 0
    var maxError: UInt32 = 0
    var deltaESum = 0.0
    var deltaEMax = 0.0

    mutating func merge(_ o: PixelStats) {
        compared += o.compared
        differing += o.differing
        sumAbsolute += o.sumAbsolute
        sumSquared += o.sumSquared
        maxError = max(maxError, o.maxError)
        deltaESum += o.deltaESum
        deltaEMax = max(deltaEMax, o.deltaEMax)
    }
}

/// Pass-2 accumulators of one band.
struct EdgeStats {
    var counted = 0
    var antialiased = 0
    var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1

    mutating func merge(_ o: EdgeStats) {
        counted += o.counted
        antialiased += o.antialiased
        minX = min(minX, o.minX); minY = min(minY, o.minY); maxX = max(maxX, o.maxX); maxY = max(maxY, o.maxY)
    }
}

/// Lookup tables for turning samples into colour: 8-bit sRGB → linear, and linear 16-bit → sRGB-encoded.
final class Tables: Sendable {
    /// 8-bit: linear 0…1 of each encoded value. 16-bit: empty.
    let linear8: [Double]
    /// 16-bit: the sRGB encoding (8-bit scale) of each linear value v/65535. 8-bit: empty.
    let encoded16: [Float]

    private init(bitDepth: Int) {
        if bitDepth == 8 {
            linear8 = (0..<256).map { CIEDE2000.linear(fromEncoded: Double($0)) }
            encoded16 = []
        } else {
            linear8 = []
            encoded16 = (0..<65536).map { Float(CIEDE2000.encoded(fromLinear: Double($0) / 65535)) }
        }
    }

    private static let eight = Tables(bitDepth: 8)
    nonisolated(unsafe) private static var sixteen: Tables?
    private static let lock = NSLockLike()

    static func shared(bitDepth: Int) -> Tables {
        if bitDepth == 8 { return eight }
        return lock.withLock {
            if let t = sixteen { return t }
            let t = Tables(bitDepth: 16)
            sixteen = t
            return t
        }
    }
}

/// A pthread mutex (CoifDiff keeps to Glibc and Dispatch).
final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
