// CIEDE2000: the CIE 2000 colour difference ΔE00 between two CIELAB colours, and sRGB → CIELAB (D65).
// Implemented from G. Sharma, W. Wu, E. N. Dalal, "The CIEDE2000 Color-Difference Formula: Implementation
// Notes, Supplementary Test Data, and Mathematical Observations", Color Res. Appl. 30(1), 2005 — equation
// numbers below are that paper's. Checked against its published test pairs (DiffTests).
#if canImport(Glibc)
import Glibc
#endif

/// A CIELAB colour: L* 0…100, a* and b* roughly −128…127. Reference white D65, 2° observer.
public struct LabColor: Sendable, Equatable {
    public var l: Double
    public var a: Double
    public var b: Double
    public init(l: Double, a: Double, b: Double) { self.l = l; self.a = a; self.b = b }

    /// From *linear* sRGB components 0…1 (IEC 61966-2-1 primaries, D65 white).
    @inline(__always)
    public init(linearR r: Double, g: Double, b: Double) {
        // sRGB → XYZ (D65), each row divided by the white point's X, Y, Z so white maps to (1, 1, 1).
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        let fx = LabColor.f(x), fy = LabColor.f(y), fz = LabColor.f(z)
        self.init(l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz))
    }

    /// CIELAB's compander: cube root above (6/29)³, a line below.
    @inline(__always)
    package static func f(_ t: Double) -> Double {
        t > 216.0 / 24389.0 ? cbrt(t) : t * (841.0 / 108.0) + 4.0 / 29.0
    }
}

public enum CIEDE2000 {
    /// The sRGB transfer function: an 8-bit-scale encoded value 0…255 → linear 0…1.
    @inline(__always)
    public static func linear(fromEncoded v: Double) -> Double { srgbToLinear(v / 255) }

    /// Linear 0…1 → sRGB-encoded on the 8-bit scale 0…255 (not rounded).
    @inline(__always)
    public static func encoded(fromLinear c: Double) -> Double { 255 * linearToSrgb(c) }

    /// ΔE00 by the fast path the image comparison uses for its mean (`FastDeltaE`): agrees with
    /// `difference` to about 1e-9 relative.
    public static func fastDifference(_ p: LabColor, _ q: LabColor) -> Double {
        let d = FastDeltaE.shared.withTables { FastDeltaE.difference(p.l, p.a, p.b, q.l, q.a, q.b, tables: $0) }
        return d.isNaN ? difference(p, q) : d
    }

    /// ΔE00 with the parametric factors kL = kC = kH = 1 (reference conditions).
    @inline(__always)
    public static func difference(_ p: LabColor, _ q: LabColor) -> Double {
        let radians = Double.pi / 180
        let pow25to7 = 6_103_515_625.0 // 25^7
        // (2)–(3): mean chroma and the a* stretch G that makes neutral colours' hue behave.
        let c1 = (p.a * p.a + p.b * p.b).squareRoot(), c2 = (q.a * q.a + q.b * q.b).squareRoot()
        let cMean = (c1 + c2) / 2
        let cMean7 = pow7(cMean)
        let g = 0.5 * (1 - (cMean7 / (cMean7 + pow25to7)).squareRoot())
        // (4)–(7): a′, C′, h′ (degrees in [0, 360); 0 for a neutral colour).
        let a1 = (1 + g) * p.a, a2 = (1 + g) * q.a
        let cp1 = (a1 * a1 + p.b * p.b).squareRoot(), cp2 = (a2 * a2 + q.b * q.b).squareRoot()
        let h1 = hueDegrees(b: p.b, a: a1), h2 = hueDegrees(b: q.b, a: a2)
        // (8)–(11): differences ΔL′, ΔC′, Δh′ (taken the short way round), ΔH′.
        let dL = q.l - p.l
        let dC = cp2 - cp1
        let chromaProduct = cp1 * cp2
        var dh = 0.0
        if chromaProduct != 0 {
            dh = h2 - h1
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dH = 2 * chromaProduct.squareRoot() * sin(dh * radians / 2)
        // (12)–(14): means L̄′, C̄′, h̄′ (the hue mean also the short way round).
        let lMean = (p.l + q.l) / 2
        let cpMean = (cp1 + cp2) / 2
        var hMean = h1 + h2
        if chromaProduct != 0 {
            if abs(h1 - h2) <= 180 { hMean /= 2 } else if h1 + h2 < 360 { hMean = (hMean + 360) / 2 } else { hMean = (hMean - 360) / 2 }
        }
        // (15)–(21): weighting functions and the rotation term for blues.
        let t = 1 - 0.17 * cos((hMean - 30) * radians) + 0.24 * cos(2 * hMean * radians)
            + 0.32 * cos((3 * hMean + 6) * radians) - 0.20 * cos((4 * hMean - 63) * radians)
        let hOffset = (hMean - 275) / 25
        let dTheta = 30 * exp(-hOffset * hOffset)
        let cpMean7 = pow7(cpMean)
        let rC = 2 * (cpMean7 / (cpMean7 + pow25to7)).squareRoot()
        let l50 = (lMean - 50) * (lMean - 50)
        let sL = 1 + 0.015 * l50 / (20 + l50).squareRoot()
        let sC = 1 + 0.045 * cpMean
        let sH = 1 + 0.015 * cpMean * t
        let rT = -sin(2 * dTheta * radians) * rC
        // (22)
        let lTerm = dL / sL, cTerm = dC / sC, hTerm = dH / sH  // independent: they overlap
        return (lTerm * lTerm + cTerm * cTerm + hTerm * hTerm + rT * cTerm * hTerm).squareRoot()
    }

    @inline(__always) static func pow7(_ x: Double) -> Double { let x2 = x * x, x3 = x2 * x; return x3 * x3 * x }

    @inline(__always) static func hueDegrees(b: Double, a: Double) -> Double {
        if a == 0 && b == 0 { return 0 }
        let h = atan2(b, a) * (180 / Double.pi)
        return h < 0 ? h + 360 : h
    }
}

// MARK: - Fast path for the bulk of pixels
//
// `CIEDE2000.difference` above is the reference: it follows the paper's equations literally (degrees,
// atan2, four cosines, exp, sin) and is what the published pairs are checked against. Comparing two
// 2048² images calls it millions of times, so the per-pixel pass uses `FastDeltaE` instead: the same
// equations rearranged so that no transcendental function is evaluated per pixel —
//   • f(t) = ∛t by a bit-level first guess and two Halley steps (relative error ≤ 2e-12 on CIELAB's range);
//   • the hue mean h̄′ and the half hue difference come from unit hue vectors: the short-way mean of two
//     angles is the direction of the sum of their unit vectors, and sin(Δh′/2) = (u₁ × u₂) / |u₁ + u₂|;
//   • T's four cosines from cos h̄′ and sin h̄′ by multiple-angle identities and the angle-sum formula;
//   • the blue-rotation term sin(2Δθ) as a cubic Hermite table over h̄′ (0.5° steps, error < 1e-8), h̄′
//     itself from a series arctangent (error < 1e-9°).
// It agrees with `difference` to about 1e-9 relative. Antipodal hues (|Δh′| within ~0.001° of 180°, where
// the mean's direction is ill-conditioned and the paper's rule picks one side) go to the reference.

/// The tables `FastDeltaE` reads: built once, shared by every thread (read-only).
package final class FastDeltaE: Sendable {
    /// g(h) = sin(2·Δθ(h)) with Δθ = 30°·exp(−((h − 275)/25)²), and dg/dh, at h = k·step degrees, k = 0…720.
    package let rotation: [Double]
    package let rotationSlope: [Double]
    package static var step: Double { 0.5 }
    package static let shared = FastDeltaE()

    private init() {
        var g = [Double](), dg = [Double]()
        for k in 0...Int(360 / FastDeltaE.step) {
            let h = Double(k) * FastDeltaE.step
            let u = (h - 275) / 25
            let e = exp(-u * u)
            let theta = 2 * 30 * e * (Double.pi / 180)           // 2Δθ in radians
            let dTheta = 2 * 30 * (Double.pi / 180) * e * (-2 * u / 25)  // d(2Δθ)/dh, per degree
            g.append(sin(theta))
            dg.append(cos(theta) * dTheta)
        }
        rotation = g
        rotationSlope = dg
    }

    /// A view of the tables for inner loops (the caller keeps `FastDeltaE.shared` alive — it is static).
    package struct Tables: @unchecked Sendable {
        let rotation: UnsafePointer<Double>
        let slope: UnsafePointer<Double>
    }

    package func withTables<R>(_ body: (Tables) -> R) -> R {
        rotation.withUnsafeBufferPointer { r in
            rotationSlope.withUnsafeBufferPointer { s in
                body(Tables(rotation: r.baseAddress!, slope: s.baseAddress!))
            }
        }
    }

    /// ∛t for t in CIELAB's range (t > (6/29)³ ≈ 0.0089, up to a little over 1): a first guess from the
    /// exponent bits (÷3), then two Halley steps y ← y(y³ + 2t)/(2y³ + t), each tripling the correct digits.
    @inline(__always)
    package static func cubeRoot(_ t: Double) -> Double {
        var y = Double(bitPattern: t.bitPattern / 3 &+ (682 << 52))
        var y3 = y * y * y
        y = y * (y3 + 2 * t) / (2 * y3 + t)
        y3 = y * y * y
        return y * (y3 + 2 * t) / (2 * y3 + t)
    }

    @inline(__always)
    package static func f(_ t: Double) -> Double {
        t > 216.0 / 24389.0 ? cubeRoot(t) : t * (841.0 / 108.0) + 4.0 / 29.0
    }

    /// CIELAB of linear sRGB, as `LabColor(linearR:g:b:)` with the fast cube root.
    @inline(__always)
    package static func lab(_ r: Double, _ g: Double, _ b: Double) -> (l: Double, a: Double, b: Double) {
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        let fx = f(x), fy = f(y), fz = f(z)
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// The angle of (x, y) in degrees, [0, 360): octant reduction to t ∈ [0, 1], then to |u| ≤ tan(π/8)
    /// by atan t = π/4 + atan((t − 1)/(t + 1)), then the arctangent series to u²³ (error < 2e-11 rad).
    @inline(__always)
    package static func angleDegrees(y: Double, x: Double) -> Double {
        let ax = abs(x), ay = abs(y)
        let swap = ay > ax
        let small = swap ? ax : ay, large = swap ? ay : ax
        // t = small/large; past tan(π/8), u = (t − 1)/(t + 1) = (small − large)/(small + large): one division.
        let reduce = small > 0.41421356237309503 * large
        let u = reduce ? (small - large) / (small + large) : small / large
        let base = reduce ? Double.pi / 4 : 0
        let u2 = u * u
        var p = -1.0 / 23
        p = p * u2 + 1.0 / 21; p = p * u2 - 1.0 / 19; p = p * u2 + 1.0 / 17; p = p * u2 - 1.0 / 15
        p = p * u2 + 1.0 / 13; p = p * u2 - 1.0 / 11; p = p * u2 + 1.0 / 9; p = p * u2 - 1.0 / 7
        p = p * u2 + 1.0 / 5; p = p * u2 - 1.0 / 3; p = p * u2 + 1
        var r = base + u * p
        if swap { r = Double.pi / 2 - r }
        if x < 0 { r = Double.pi - r }
        var degrees = r * (180 / Double.pi)
        if y < 0 { degrees = 360 - degrees }
        return degrees >= 360 ? degrees - 360 : degrees
    }

    /// ΔE00 (kL = kC = kH = 1) of two CIELAB colours; see the notes above. Equation numbers are Sharma's.
    @inline(__always)
    package static func difference(_ l1: Double, _ a1: Double, _ b1: Double, _ l2: Double, _ a2: Double, _ b2: Double,
                           tables: Tables) -> Double {
        let pow25to7 = 6_103_515_625.0
        // (2)–(6)
        let c1 = (a1 * a1 + b1 * b1).squareRoot(), c2 = (a2 * a2 + b2 * b2).squareRoot()
        let cMean = (c1 + c2) * 0.5
        let cMean7 = CIEDE2000.pow7(cMean)
        let g = 0.5 * (1 - (cMean7 / (cMean7 + pow25to7)).squareRoot())
        let ap1 = (1 + g) * a1, ap2 = (1 + g) * a2
        let cp1 = (ap1 * ap1 + b1 * b1).squareRoot(), cp2 = (ap2 * ap2 + b2 * b2).squareRoot()
        // (8)–(14) with unit hue vectors: (cosH, sinH) is the direction of h̄′.
        let dL = l2 - l1, dC = cp2 - cp1
        let chromaProduct = cp1 * cp2
        var cosH = 1.0, sinH = 0.0, dH = 0.0
        if chromaProduct != 0 {
            let inverseProduct = 1 / chromaProduct
            let i1 = cp2 * inverseProduct, i2 = cp1 * inverseProduct
            let x1 = ap1 * i1, y1 = b1 * i1, x2 = ap2 * i2, y2 = b2 * i2
            let mx = x1 + x2, my = y1 + y2
            let m2 = mx * mx + my * my          // = 2 + 2 cos Δh′ = 4 cos²(Δh′/2)
            if m2 < 1e-9 { return Double.nan }  // antipodal: the caller uses the reference
            let inverse = 1 / m2.squareRoot()
            cosH = mx * inverse; sinH = my * inverse
            dH = 2 * chromaProduct.squareRoot() * ((x1 * y2 - y1 * x2) * inverse)
        } else if cp1 != 0 && cp2 != 0 {
            return Double.nan                   // C′₁C′₂ underflowed: leave it to the reference
        } else if cp1 != 0 {
            cosH = ap1 / cp1; sinH = b1 / cp1   // h̄′ = h₁′ + h₂′ with h₂′ = 0
        } else if cp2 != 0 {
            cosH = ap2 / cp2; sinH = b2 / cp2
        } else if c1 != 0 || c2 != 0 {
            return Double.nan                   // C′ underflowed: leave it to the reference
        }
        // (15): T from cos/sin of h̄′, 2h̄′, 3h̄′, 4h̄′.
        let c = cosH, s = sinH
        let cos2 = c * c - s * s, sin2 = 2 * s * c
        let cos3 = c * cos2 - s * sin2, sin3 = s * cos2 + c * sin2
        let cos4 = cos2 * cos2 - sin2 * sin2, sin4 = 2 * sin2 * cos2
        let t = 1 - 0.17 * (c * 0.8660254037844387 + s * 0.5)          // cos(h̄′ − 30°)
            + 0.24 * cos2
            + 0.32 * (cos3 * 0.9945218953682733 - sin3 * 0.10452846326765347)  // cos(3h̄′ + 6°)
            - 0.20 * (cos4 * 0.4539904997395468 + sin4 * 0.8910065241883678)  // cos(4h̄′ − 63°)
        // (16)–(21)
        let cpMean = (cp1 + cp2) * 0.5
        let cpMean7 = CIEDE2000.pow7(cpMean)
        let rC = 2 * (cpMean7 / (cpMean7 + pow25to7)).squareRoot()
        let lMean = (l1 + l2) * 0.5
        let l50 = (lMean - 50) * (lMean - 50)
        let sL = 1 + 0.015 * l50 / (20 + l50).squareRoot()
        let sC = 1 + 0.045 * cpMean
        let sH = 1 + 0.015 * cpMean * t
        let rT = -rotation(hueDegrees: angleDegrees(y: sinH, x: cosH), tables) * rC
        let lTerm = dL / sL, cTerm = dC / sC, hTerm = dH / sH  // independent: they overlap
        return (lTerm * lTerm + cTerm * cTerm + hTerm * hTerm + rT * cTerm * hTerm).squareRoot()
    }

    /// sin(2Δθ(h)) by cubic Hermite interpolation of the table.
    @inline(__always)
    package static func rotation(hueDegrees h: Double, _ tables: Tables) -> Double {
        let position = h * (1 / step)
        let k = min(max(Int(position), 0), Int(360 / step) - 1)
        let t = position - Double(k)
        let t2 = t * t, t3 = t2 * t
        let p0 = tables.rotation[k], p1 = tables.rotation[k + 1]
        let m0 = tables.slope[k] * step, m1 = tables.slope[k + 1] * step
        return (2 * t3 - 3 * t2 + 1) * p0 + (t3 - 2 * t2 + t) * m0 + (3 * t2 - 2 * t3) * p1 + (t3 - t2) * m1
    }
}
