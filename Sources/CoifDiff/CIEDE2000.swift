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
    static func f(_ t: Double) -> Double {
        t > 216.0 / 24389.0 ? cbrt(t) : t * (841.0 / 108.0) + 4.0 / 29.0
    }
}

public enum CIEDE2000 {
    /// The sRGB transfer function: an 8-bit-scale encoded value 0…255 → linear 0…1.
    @inline(__always)
    public static func linear(fromEncoded v: Double) -> Double {
        let c = v / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// Linear 0…1 → sRGB-encoded on the 8-bit scale 0…255 (not rounded).
    @inline(__always)
    public static func encoded(fromLinear c: Double) -> Double {
        let v = c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055
        return 255 * v
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
        let lTerm = dL / sL, cTerm = dC / sC, hTerm = dH / sH
        return (lTerm * lTerm + cTerm * cTerm + hTerm * hTerm + rT * cTerm * hTerm).squareRoot()
    }

    @inline(__always) static func pow7(_ x: Double) -> Double { let x2 = x * x, x3 = x2 * x; return x3 * x3 * x }

    @inline(__always) static func hueDegrees(b: Double, a: Double) -> Double {
        if a == 0 && b == 0 { return 0 }
        let h = atan2(b, a) * (180 / Double.pi)
        return h < 0 ? h + 360 : h
    }
}
