// PixelReader: two images' samples seen as colour, and the per-pixel pass (errors, luma, ΔE00, map cells).
// Colour for the perceptual figures is the pixel composited over white in linear light (an image with no
// alpha is unchanged), so transparent pixels compare by what a viewer would see on a white page.
import CoifCore
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

struct PixelReader<S: FixedWidthInteger & UnsignedInteger>: @unchecked Sendable {
    let a: UnsafePointer<S>
    let b: UnsafePointer<S>
    let width: Int
    let height: Int
    /// 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
    let channels: Int
    /// 8-bit: linear 0…1 of each encoded value (`Tables.linear8`, kept alive by the caller).
    let linear8: UnsafePointer<Double>
    /// 16-bit: sRGB encoding of each linear value (`Tables.encoded16`, kept alive by the caller).
    let encoded16: UnsafePointer<Float>

    var isEight: Bool { S.bitWidth == 8 }
    var hasAlpha: Bool { channels == 2 || channels == 4 }

    /// Linear RGB 0…1 over white of pixel `i` of `image`.
    @inline(__always)
    func linearRGB(_ image: UnsafePointer<S>, _ i: Int) -> (Double, Double, Double) {
        let p = image + i * channels
        let gray = channels < 3
        if isEight {
            let lut = linear8
            var r = lut[Int(p[0])], g = gray ? r : lut[Int(p[1])], bl = gray ? r : lut[Int(p[2])]
            if hasAlpha {
                let alpha = Double(p[channels - 1]) / 255
                if alpha < 1 { r = r * alpha + 1 - alpha; g = g * alpha + 1 - alpha; bl = bl * alpha + 1 - alpha }
            }
            return (r, g, bl)
        }
        // 16-bit samples are linear and, with alpha, premultiplied: over white adds (1 − α).
        let uncovered = hasAlpha ? 1 - Double(p[channels - 1]) / 65535 : 0
        let r = Double(p[0]) / 65535 + uncovered
        if gray { return (r, r, r) }
        return (r, Double(p[1]) / 65535 + uncovered, Double(p[2]) / 65535 + uncovered)
    }

    /// Rec. 601 luma of the sRGB-encoded colour over white, 0…255.
    @inline(__always)
    func luma(_ image: UnsafePointer<S>, _ i: Int) -> Float {
        let p = image + i * channels
        if isEight && (!hasAlpha || p[channels - 1] == 255) {
            if channels < 3 { return Float(p[0]) }
            return 0.299 * Float(p[0]) + 0.587 * Float(p[1]) + 0.114 * Float(p[2])
        }
        let (r, g, bl) = linearRGB(image, i)
        if isEight {
            return Float(0.299 * CIEDE2000.encoded(fromLinear: r) + 0.587 * CIEDE2000.encoded(fromLinear: g)
                         + 0.114 * CIEDE2000.encoded(fromLinear: bl))
        }
        let e = encoded16
        @inline(__always) func enc(_ c: Double) -> Float { e[Int(min(max(c, 0), 1) * 65535 + 0.5)] }
        return 0.299 * enc(r) + 0.587 * enc(g) + 0.114 * enc(bl)
    }

    @inline(__always)
    func lab(_ image: UnsafePointer<S>, _ i: Int) -> LabColor {
        let (r, g, bl) = linearRGB(image, i)
        return LabColor(linearR: r, g: g, b: bl)
    }

    /// Fast CIELAB of pixel `i` of `image` (see `FastDeltaE`).
    @inline(__always)
    func fastLab(_ image: UnsafePointer<S>, _ i: Int) -> (l: Double, a: Double, b: Double) {
        let (r, g, bl) = linearRGB(image, i)
        return FastDeltaE.lab(r, g, bl)
    }

    /// The samples of one pixel packed in a word (at most 4 channels of at most 16 bits), for equality.
    @inline(__always)
    func key(_ p: UnsafePointer<S>) -> UInt64 {
        var k: UInt64 = 0
        for c in 0..<channels { k = k << UInt64(S.bitWidth) | UInt64(p[c]) }
        return k
    }

    /// Pass 1 over `rows`: error sums, luma planes, ΔE00 where colours differ, cells (errors > `limit`,
    /// native units, get their 8-bit-scale error; `scale` is 1 or 257), and which rows' luma differ.
    /// ΔE00 comes from `FastDeltaE` for the mean; a pixel whose fast value comes within 1e-6 of the band's
    /// maximum so far is recomputed with the reference `CIEDE2000.difference`, so the maximum is exact.
    /// A pixel pair identical to the previous differing pair (flat regions) reuses its ΔE00.
    func pixelPass(rows: Range<Int>, limit: UInt32, scale: Double, planes: Planes, tables: FastDeltaE.Tables) -> PixelStats {
        var stats = PixelStats()
        let c = channels
        var lastA: UInt64 = ~0, lastB: UInt64 = ~0, lastDeltaE = 0.0
        for y in rows {
            var rowDiffers = false
            for x in 0..<width {
                let i = y * width + x
                let la = luma(a, i), lb = luma(b, i)
                planes.lumaA[i] = la
                planes.lumaB[i] = lb
                rowDiffers = rowDiffers || la != lb
                if let mask = planes.mask, mask[i] == 0 {
                    planes.cells[i] = DifferenceMap.notCompared
                    continue
                }
                stats.compared += 1
                let pa = a + i * c, pb = b + i * c
                var pixelMax: UInt32 = 0
                var sumAbsolute: UInt32 = 0, sumSquared: UInt64 = 0
                for k in 0..<c {
                    let va = UInt32(pa[k]), vb = UInt32(pb[k])
                    let d = va > vb ? va - vb : vb - va
                    pixelMax = max(pixelMax, d)
                    sumAbsolute &+= d
                    sumSquared &+= UInt64(d) &* UInt64(d)
                }
                guard pixelMax > 0 else { planes.cells[i] = DifferenceMap.equal; continue }
                stats.sumAbsolute &+= UInt64(sumAbsolute)
                stats.sumSquared &+= sumSquared
                stats.maxError = max(stats.maxError, pixelMax)
                let ka = key(pa), kb = key(pb)
                if ka != lastA || kb != lastB {
                    let p = fastLab(a, i), q = fastLab(b, i)
                    var deltaE = FastDeltaE.difference(p.l, p.a, p.b, q.l, q.a, q.b, tables: tables)
                    if deltaE.isNaN || deltaE > stats.deltaEMax - 1e-6 {
                        let exact = CIEDE2000.difference(lab(a, i), lab(b, i))
                        stats.deltaEMax = max(stats.deltaEMax, exact)
                        if deltaE.isNaN { deltaE = exact }
                    }
                    lastA = ka; lastB = kb; lastDeltaE = deltaE
                }
                stats.deltaESum += lastDeltaE
                if pixelMax > limit {
                    stats.differing += 1
                    let steps = (Double(pixelMax) / scale).rounded(.up)
                    planes.cells[i] = UInt8(min(max(steps, Double(DifferenceMap.firstError)), 255))
                } else {
                    planes.cells[i] = DifferenceMap.equal
                }
            }
            planes.rowDiffers[y] = rowDiffers ? 1 : 0
        }
        return stats
    }

    /// Pass 2 over `rows`: anti-aliasing for each differing pixel, counts and the bounding box.
    /// `flat` memoises `AntiAliasing.isFlat` for this band's own rows (see `AntiAliasing.FlatMemo`).
    func edgePass(rows: Range<Int>, ignoreAntialiasing: Bool, planes: Planes, flat: UnsafeMutablePointer<UInt8>) -> EdgeStats {
        var stats = EdgeStats()
        let memo = AntiAliasing.FlatMemo(flags: flat, first: rows.lowerBound * width, end: rows.upperBound * width)
        for y in rows {
            for x in 0..<width {
                let i = y * width + x
                guard planes.cells[i] >= DifferenceMap.firstError else { continue }
                let edge = AntiAliasing.isEdgePixel(x: x, y: y, imageIsA: true, lumaA: planes.lumaA, lumaB: planes.lumaB,
                                                    reader: self, memo: memo)
                    || AntiAliasing.isEdgePixel(x: x, y: y, imageIsA: false, lumaA: planes.lumaA, lumaB: planes.lumaB,
                                                reader: self, memo: memo)
                if edge {
                    stats.antialiased += 1
                    planes.cells[i] = DifferenceMap.antialiased
                    if ignoreAntialiasing { continue }
                }
                stats.counted += 1
                stats.minX = min(stats.minX, x); stats.maxX = max(stats.maxX, x)
                stats.minY = min(stats.minY, y); stats.maxY = max(stats.maxY, y)
            }
        }
        return stats
    }

    /// Whether pixels `i` and `j` of `image` have identical samples.
    @inline(__always)
    func same(_ image: UnsafePointer<S>, _ i: Int, _ j: Int) -> Bool {
        let p = image + i * channels, q = image + j * channels
        for k in 0..<channels where p[k] != q[k] { return false }
        return true
    }
}
