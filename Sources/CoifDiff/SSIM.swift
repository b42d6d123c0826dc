// SSIM: the structural similarity index of Wang, Bovik, Sheikh & Simoncelli, "Image Quality Assessment:
// From Error Visibility to Structural Similarity", IEEE TIP 13(4), 2004, eq. (13), on luma.
// Window: 8×8 uniform, every position inside the image (stride 1) — the square window the paper's
// Section III-B describes before its Gaussian refinement; uniform windows allow running sums, O(1) a pixel.
// Constants C1 = (K1·L)², C2 = (K2·L)² with K1 = 0.01, K2 = 0.03, L = 255; variances use N − 1 (eq. 5).

/// Running-sum accumulators of one band of windows.
struct WindowStats {
    var sum = 0.0
    var windows = 0
    mutating func merge(_ o: WindowStats) { sum += o.sum; windows += o.windows }
}

enum SSIM {
    static let window = 8
    static let c1 = (0.01 * 255.0) * (0.01 * 255.0)
    static let c2 = (0.03 * 255.0) * (0.03 * 255.0)

    /// SSIM of one window from its sums over N samples: Σx, Σy, Σx², Σy², Σxy.
    @inline(__always)
    static func index(sx: Double, sy: Double, sxx: Double, syy: Double, sxy: Double, n: Double) -> Double {
        let mx = sx / n, my = sy / n
        let vx = (sxx - sx * mx) / (n - 1), vy = (syy - sy * my) / (n - 1), cxy = (sxy - sx * my) / (n - 1)
        return ((2 * mx * my + c1) * (2 * cxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
    }

    /// The SSIM sum over windows whose top row is in `rows` (all columns). A window counts when its pixel
    /// (x+4, y+4) is inside the mask (or there is no mask). Allocates its column sums once per call.
    /// Windows whose 8 rows have identical luma in both images (`rowDiffers` 0) score exactly 1 — eq. (13)
    /// with x = y — and are counted without their sums; the column sums restart after such a run.
    static func windows(rows: Range<Int>, width: Int, lumaA: UnsafePointer<Float>, lumaB: UnsafePointer<Float>,
                        mask: UnsafePointer<UInt8>?, rowDiffers: UnsafePointer<UInt8>) -> WindowStats {
        var stats = WindowStats()
        guard !rows.isEmpty else { return stats }
        let w = window, n = Double(w * w)
        // Column sums over the window's 8 rows, five quantities interleaved: x, y, x², y², xy.
        var columns = [Double](repeating: 0, count: width * 5)
        columns.withUnsafeMutableBufferPointer { colBuffer in
            let col = colBuffer.baseAddress!
            func restart(top: Int) {
                for x in 0..<width * 5 { col[x] = 0 }
                for row in top..<(top + w) {
                    for x in 0..<width {
                        let va = Double(lumaA[row * width + x]), vb = Double(lumaB[row * width + x])
                        let k = x * 5
                        col[k] += va; col[k + 1] += vb
                        col[k + 2] += va * va; col[k + 3] += vb * vb; col[k + 4] += va * vb
                    }
                }
            }
            @inline(__always) func slide(out old: Int, in new: Int) {
                for x in 0..<width {
                    let oa = Double(lumaA[old * width + x]), ob = Double(lumaB[old * width + x])
                    let na = Double(lumaA[new * width + x]), nb = Double(lumaB[new * width + x])
                    let k = x * 5
                    col[k] += na - oa; col[k + 1] += nb - ob
                    col[k + 2] += na * na - oa * oa; col[k + 3] += nb * nb - ob * ob; col[k + 4] += na * nb - oa * ob
                }
            }
            var differingRows = 0  // among the current window's rows
            for row in rows.lowerBound..<(rows.lowerBound + w) { differingRows += Int(rowDiffers[row]) }
            var current = false    // whether `col` holds the sums of rows top..<top+w
            for top in rows {
                if top > rows.lowerBound {
                    differingRows += Int(rowDiffers[top + w - 1]) - Int(rowDiffers[top - 1])
                }
                if differingRows == 0 {
                    current = false
                    if let mask {
                        let centre = mask + (top + w / 2) * width + w / 2
                        for left in 0...(width - w) where centre[left] != 0 { stats.sum += 1; stats.windows += 1 }
                    } else {
                        stats.sum += Double(width - w + 1); stats.windows += width - w + 1
                    }
                    continue
                }
                if current { slide(out: top - 1, in: top + w - 1) } else { restart(top: top); current = true }
                var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
                for x in 0..<w {
                    let k = x * 5
                    sx += col[k]; sy += col[k + 1]; sxx += col[k + 2]; syy += col[k + 3]; sxy += col[k + 4]
                }
                for left in 0...(width - w) {
                    if left > 0 {
                        let o = (left - 1) * 5, k = (left + w - 1) * 5
                        sx += col[k] - col[o]; sy += col[k + 1] - col[o + 1]; sxx += col[k + 2] - col[o + 2]
                        syy += col[k + 3] - col[o + 3]; sxy += col[k + 4] - col[o + 4]
                    }
                    if let mask, mask[(top + w / 2) * width + left + w / 2] == 0 { continue }
                    stats.sum += index(sx: sx, sy: sy, sxx: sxx, syy: syy, sxy: sxy, n: n)
                    stats.windows += 1
                }
            }
        }
        return stats
    }
}
