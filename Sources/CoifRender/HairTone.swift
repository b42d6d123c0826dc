// HairTone: the colour of a patch of hair as one summary, the same for a photo's own hair (under its
// matte) and for rendered hair (a hair layer's solid pixels): the CIELAB medians (the colour one names
// the hair by), the spread of its lightness and its highlights, and the median back in linear light
// (what a recipe is solved for). Medians, not means: a few specular or shadowed pixels, or a matte's
// edge on skin or background, do not move them.
import CoifCore

#if canImport(Glibc)
import Glibc
#endif

public struct HairTone: Sendable, Equatable, Codable {
    /// Medians of L*, a*, b* (CIELAB, D65) taken separately.
    public var lab: Vec3
    /// 10th and 90th percentiles of L*: the spread of tones.
    public var lightnessP10: Float
    public var lightnessP90: Float
    /// The 95th percentile of L*: the highlights.
    public var lightnessP95: Float
    /// How many pixels were summarised.
    public var pixelCount: Int

    /// The median colour in linear sRGB (`lab` converted back).
    public var linear: Vec3 { HairTone.linear(fromLab: lab) }
    /// The median colour sRGB-encoded, 0…1.
    public var srgb: Vec3 { let c = linear; return Vec3(linearToSrgb(min(max(c.x, 0), 1)), linearToSrgb(min(max(c.y, 0), 1)), linearToSrgb(min(max(c.z, 0), 1))) }
    /// Chroma of the median, √(a*² + b*²).
    public var chroma: Float { (lab.y * lab.y + lab.z * lab.z).squareRoot() }

    /// Summarises linear-RGB colours; nil when there are none.
    public init?(linearColors: [Vec3]) {
        guard !linearColors.isEmpty else { return nil }
        var l: [Float] = [], a: [Float] = [], b: [Float] = []
        l.reserveCapacity(linearColors.count); a.reserveCapacity(linearColors.count); b.reserveCapacity(linearColors.count)
        for c in linearColors {
            let v = HairTone.lab(fromLinear: c)
            l.append(v.x); a.append(v.y); b.append(v.z)
        }
        l.sort(); a.sort(); b.sort()
        func at(_ sorted: [Float], _ q: Float) -> Float { sorted[min(sorted.count - 1, Int(q * Float(sorted.count - 1) + 0.5))] }
        lab = Vec3(at(l, 0.5), at(a, 0.5), at(b, 0.5))
        lightnessP10 = at(l, 0.1)
        lightnessP90 = at(l, 0.9)
        lightnessP95 = at(l, 0.95)
        pixelCount = linearColors.count
    }

    /// The straight (un-premultiplied) colour of a hair layer's pixels covered at least `minimumAlpha`.
    public init?(layer: HairLayer, minimumAlpha: Float = 0.9) {
        var colors: [Vec3] = []
        for p in 0..<(layer.width * layer.height) {
            let alpha = layer.rgba[p * 4 + 3]
            guard alpha >= minimumAlpha else { continue }
            colors.append(Vec3(layer.rgba[p * 4], layer.rgba[p * 4 + 1], layer.rgba[p * 4 + 2]) / alpha)
        }
        self.init(linearColors: colors)
    }

    /// An sRGB image's pixels where `weights` (one per pixel, 0…1) is at least `minimumWeight`.
    public init?(srgbImage image: PixelImage, weights: [Float], minimumWeight: Float = 0.8) {
        precondition(weights.count == image.width * image.height && image.channels >= 3)
        let table = srgbDecodeTable
        var colors: [Vec3] = []
        for p in weights.indices where weights[p] >= minimumWeight {
            let i = p * image.channels
            colors.append(Vec3(table[Int(image.pixels[i])], table[Int(image.pixels[i + 1])], table[Int(image.pixels[i + 2])]))
        }
        self.init(linearColors: colors)
    }

    /// CIE76 ΔE between the two medians.
    public func deltaE76(_ other: HairTone) -> Float { length(lab - other.lab) }

    /// CIELAB (D65) of linear sRGB.
    public static func lab(fromLinear c: Vec3) -> Vec3 {
        let x = (0.4124 * c.x + 0.3576 * c.y + 0.1805 * c.z) / 0.95047
        let y = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z
        let z = (0.0193 * c.x + 0.1192 * c.y + 0.9505 * c.z) / 1.08883
        func f(_ t: Float) -> Float { t > 0.008856 ? cbrtf(t) : 7.787 * t + 16 / 116 }
        return Vec3(116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    /// Linear sRGB of CIELAB (D65): `lab(fromLinear:)` inverted.
    public static func linear(fromLab v: Vec3) -> Vec3 {
        let fy = (v.x + 16) / 116, fx = fy + v.y / 500, fz = fy - v.z / 200
        func finv(_ t: Float) -> Float { t > 0.206893 ? t * t * t : (t - 16 / 116) / 7.787 }
        let x = finv(fx) * 0.95047, y = finv(fy), z = finv(fz) * 1.08883
        return Vec3(3.2406 * x - 1.5372 * y - 0.4986 * z, -0.9689 * x + 1.8758 * y + 0.0415 * z, 0.0557 * x - 0.2040 * y + 1.0570 * z)
    }

    /// The hue angle difference's share of ΔE (CIE ΔH*: √(ΔE² − ΔL² − ΔC²)), signed by the turn from
    /// `other` to this one (positive: toward yellow from red).
    public func hueDifference(_ other: HairTone) -> Float {
        let d = lab - other.lab
        let dc = chroma - other.chroma
        let dh2 = max(d.x * d.x + d.y * d.y + d.z * d.z - d.x * d.x - dc * dc, 0)
        let turn = other.lab.y * lab.z - other.lab.z * lab.y
        return (turn < 0 ? -1 : 1) * dh2.squareRoot()
    }
}
