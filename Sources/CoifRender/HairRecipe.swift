// HairRecipe: a hair colour as a colourist mixes it: melanin (how dark), redness (the pheomelanin share),
// an optional dye (a tint and its strength), highlights (a seeded fraction of strands with a recipe of
// their own) and an ombré (root-to-tip gradient toward another recipe). What the strand shader absorbs
// with (HairFiber's σ_a); `HairColor` solves a hex target into one (`solve(targetLinear:)`).
import CoifCore

#if canImport(Glibc)
import Glibc
#endif

public struct HairRecipe: Sendable, Equatable {
    /// The pigment of one strand: total melanin concentration (0 white … ~8 black, d'Eon et al. 2011's
    /// units as pbrt-v4 uses them), the pheomelanin share of it (0 brown-black … 1 red), and a dye.
    public struct Pigment: Sendable, Equatable {
        public var melanin: Float
        public var redness: Float
        /// A dye's σ_a per unit radius, linear RGB (zero: none). `dye(tint:strength:)` makes one.
        public var dyeSigmaA: Vec3

        public init(melanin: Float, redness: Float, dyeSigmaA: Vec3 = .zero) {
            self.melanin = melanin
            self.redness = redness
            self.dyeSigmaA = dyeSigmaA
        }

        /// A dye that, at strength 1, lets `tint` (linear RGB) through on one mean passage of a fibre.
        public static func dyeSigmaA(tint: Vec3, strength: Float) -> Vec3 {
            let t = pointwiseMax(tint, Vec3(repeating: 1e-3))
            return Vec3(-logf(min(t.x, 1)), -logf(min(t.y, 1)), -logf(min(t.z, 1))) * (max(strength, 0) / HairFiber.meanPathRadii)
        }

        /// Total absorption per unit radius.
        public var sigmaA: Vec3 {
            HairFiber.sigmaA(eumelanin: melanin * (1 - redness), pheomelanin: melanin * redness) + dyeSigmaA
        }
    }

    public var base: Pigment
    /// Highlights: this fraction of strands (chosen by each strand's seeded random number) take `highlight`.
    public var highlightFraction: Float
    public var highlight: Pigment
    /// Ombré / balayage: toward the tips the pigment turns to `tip`, centred at `ombrePosition` of the
    /// length (0 root … 1 tip) over `ombreSoftness` either side. No ombré: `tip == base`.
    public var tip: Pigment
    public var ombrePosition: Float
    public var ombreSoftness: Float

    public init(base: Pigment, highlightFraction: Float = 0, highlight: Pigment? = nil, tip: Pigment? = nil,
                ombrePosition: Float = 0.5, ombreSoftness: Float = 0.2) {
        self.base = base
        self.highlightFraction = min(max(highlightFraction, 0), 1)
        self.highlight = highlight ?? base
        self.tip = tip ?? base
        self.ombrePosition = ombrePosition
        self.ombreSoftness = max(ombreSoftness, 1e-3)
    }

    public init(melanin: Float, redness: Float) {
        self.init(base: Pigment(melanin: melanin, redness: redness))
    }

    // MARK: - Colour under neutral light

    /// The mean colour (linear RGB) of a sphere of hair, combed down, seen from the front under Coif's
    /// default lights (`Lighting()`), for σ_a: what "the colour of a recipe" means for presets, hex targets
    /// and ΔE00 reports. Each channel depends on its own σ_a only (the model is per channel).
    /// Under other `lights` (the photo's, for `own`): the same sphere lit by them, exposure included.
    /// `withHighlight: false` leaves out the cuticle's colourless highlight (the R lobe): the colour the fibre
    /// gives back alone, which is what the median of a render's solid pixels shows (its highlights are a few
    /// strands' worth); `own` solves against it. With it, the highlight is scaled by `lights.hairSheen`.
    public static func referenceColor(sigmaA: Vec3, fiber: HairFiber.Parameters = HairFiber.Parameters(sigmaA: .zero),
                                      lights: Lighting = Lighting(), withHighlight: Bool = true) -> Vec3 {
        var params = fiber
        params.sigmaA = sigmaA
        let ms = HairFiber.multipleScatteringAlbedo(sigmaA: sigmaA)
        let key = normalize(lights.keyDirection), fill = normalize(lights.fillDirection)
        let highlight = withHighlight ? lights.hairSheen : 0
        let eye = Vec3(0, 0, 1)
        var sum = Vec3.zero
        var count: Float = 0
        let n = 9
        for j in 0..<n {
            for i in 0..<n {
                let x = (Float(i) + 0.5) / Float(n) * 2 - 1, y = (Float(j) + 0.5) / Float(n) * 2 - 1
                let r2 = x * x + y * y
                guard r2 < 1 else { continue }
                let normal = Vec3(x, y, (1 - r2).squareRoot())
                // Combed down: the downward direction in the sphere's tangent plane.
                let down = Vec3(0, -1, 0) - normal * (-normal.y)
                let tangent = dot(down, down) > 1e-6 ? normalize(down) : Vec3(1, 0, 0)
                sum += HairFiber.radiance(params, msAlbedo: ms, t: tangent, n: normal, toLight: key, toEye: eye,
                                          lightRadiance: lights.keyRadiance, highlight: highlight)
                    + HairFiber.radiance(params, msAlbedo: ms, t: tangent, n: normal, toLight: fill, toEye: eye,
                                         lightRadiance: lights.fillRadiance, highlight: highlight)
                    + lights.ambientRadiance * ms
                count += 1
            }
        }
        return sum / count * (onHeadShare * lights.exposure)
    }

    /// The share of the sphere's light that the strands on Coif's head return, as their solid pixels' median
    /// shows it: a point loses light under the hair over it (HairCover: the bob's outer surface hardly any)
    /// and near its root (strand.vert's kRootShadeMm), and the key light to the hair between (KeyLightShadow).
    /// Set where the presets' worst ΔE76 (`coif eval look --presets`) is least: 0.96, copper 3.9. Measured
    /// with the cover alone, the bob's median over the sphere's was 1.01–1.06 for brown, copper, blonde and
    /// platinum, but at 1 copper was 4.7 and at 1.04 5.6 (at 0.92, platinum 4.5): the median pixel carries
    /// more of the colourless highlight than the sphere, which takes the reds' chroma and black's warmth, and
    /// asking a little lighter gives them back. It was 0.80–0.82 while the roots were darkened by their place
    /// along the strand, whatever lay over them.
    public static let onHeadShare: Float = 0.96

    /// The recipe's base colour under neutral light (linear RGB).
    public var referenceColor: Vec3 { Self.referenceColor(sigmaA: base.sigmaA) }

    /// The base pigment whose colour under neutral light is `targetLinear`: the natural melanin and
    /// redness nearest to it in CIELAB, then, for what melanin cannot reach (blue, green, a brighter red),
    /// a dye making up the difference channel by channel. Colours outside what any fibre can show (brighter
    /// than a clear fibre) are clamped to it.
    /// Under other `lights`: the pigment that shows `targetLinear` lit by them (`own`: the person's hair as
    /// the photo's light shows it).
    /// `withHighlight`: as in `referenceColor`, which colour of the sphere is matched.
    public static func solve(targetLinear: Vec3, lights: Lighting = Lighting(), withHighlight: Bool = true) -> Pigment {
        let target = pointwiseMax(targetLinear, Vec3(repeating: 1e-4))
        let targetLab = HairTone.lab(fromLinear: target)
        // 1. Natural: a coarse search over melanin (log-spaced) and redness, then a finer one round the best.
        func error(_ m: Float, _ r: Float) -> Float {
            let d = HairTone.lab(fromLinear: referenceColor(sigmaA: Pigment(melanin: m, redness: r).sigmaA, lights: lights,
                                                            withHighlight: withHighlight)) - targetLab
            return dot(d, d)
        }
        var best = (m: Float(1), r: Float(0.2), e: Float.infinity)
        for i in 0..<24 {
            let m = 0.02 * powf(600, Float(i) / 23)
            for j in 0...10 {
                let r = Float(j) / 10
                let e = error(m, r)
                if e < best.e { best = (m, r, e) }
            }
        }
        var stepM: Float = 0.15, stepR: Float = 0.05
        for _ in 0..<24 {
            var improved = false
            for (dm, dr) in [(stepM, Float(0)), (-stepM, 0), (0, stepR), (0, -stepR)] {
                let m = max(best.m * (1 + dm), 0), r = min(max(best.r + dr, 0), 1)
                let e = error(m, r)
                if e < best.e { best = (m, r, e); improved = true }
            }
            if !improved { stepM /= 2; stepR /= 2 }
        }
        var pigment = Pigment(melanin: best.m, redness: best.r)
        // 2. Exact per channel: σ_a that gives each channel its target (bisection; colour falls as σ_a grows).
        var exact = Vec3.zero
        for c in 0..<3 {
            var low: Float = 0, high: Float = 60
            for _ in 0..<40 {
                let mid = (low + high) / 2
                var s = Vec3.zero
                s[c] = mid
                if referenceColor(sigmaA: s, lights: lights, withHighlight: withHighlight)[c] > target[c] { low = mid } else { high = mid }
            }
            exact[c] = (low + high) / 2
        }
        // 3. Dye makes up what melanin cannot: melanin scaled down until it absorbs no more than the exact
        // σ_a in any channel, the rest dye. Dropped when it is negligible.
        let natural = pigment.sigmaA
        var k: Float = 1
        for c in 0..<3 where natural[c] > exact[c] { k = min(k, exact[c] / natural[c]) }
        let dye = pointwiseMax(exact - natural * k, .zero)
        if dye.max() > 0.02 || k < 0.98 {
            pigment.melanin *= k
            pigment.dyeSigmaA = dye
        }
        return pigment
    }

    // MARK: - Text

    /// Parses an explicit recipe: `melanin=1.3,redness=0.2[,dye=#rrggbb@0.5][,highlights=0.2@melanin=0.3/redness=0.1]
    /// [,ombre=0.6@0.2@melanin=0.4/redness=0.3]`. Returns nil with a reason for anything else.
    public static func parse(_ text: String) -> (HairRecipe?, String?) {
        var base = Pigment(melanin: 1.3, redness: 0.2)
        var highlightFraction: Float = 0
        var highlight: Pigment?
        var tip: Pigment?
        var ombrePosition: Float = 0.5, ombreSoftness: Float = 0.2
        func pigment(_ text: Substring, from start: Pigment) -> Pigment? {
            var p = start
            for field in text.split(separator: "/") {
                let kv = field.split(separator: "=", maxSplits: 1)
                guard kv.count == 2, let value = Float(kv[1]), value.isFinite, value >= 0 else { return nil }
                switch kv[0] {
                case "melanin": p.melanin = min(value, 20)
                case "redness": p.redness = min(value, 1)
                default: return nil
                }
            }
            return p
        }
        for field in text.split(separator: ",") {
            let kv = field.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { return (nil, "expected key=value, got \"\(field)\"") }
            let key = kv[0], value = kv[1]
            switch key {
            case "melanin", "redness":
                guard let p = pigment(field[...], from: base) else { return (nil, "\(key) must be a number ≥ 0") }
                base = p
            case "dye":
                let parts = value.split(separator: "@")
                guard parts.count == 2, let strength = Float(parts[1]), strength.isFinite, strength >= 0,
                      let tint = HairColor.linearHex(String(parts[0])) else {
                    return (nil, "dye must be #rrggbb@strength")
                }
                base.dyeSigmaA = Pigment.dyeSigmaA(tint: tint, strength: min(strength, 4))
            case "highlights":
                let parts = value.split(separator: "@", maxSplits: 1)
                guard parts.count == 2, let fraction = Float(parts[0]), (0...1).contains(fraction),
                      let p = pigment(parts[1], from: base) else {
                    return (nil, "highlights must be FRACTION@melanin=M/redness=R")
                }
                highlightFraction = fraction
                highlight = p
            case "ombre":
                let parts = value.split(separator: "@", maxSplits: 2)
                guard parts.count == 3, let position = Float(parts[0]), (0...1).contains(position),
                      let softness = Float(parts[1]), (0...1).contains(softness), let p = pigment(parts[2], from: base) else {
                    return (nil, "ombre must be POSITION@SOFTNESS@melanin=M/redness=R")
                }
                (ombrePosition, ombreSoftness, tip) = (position, softness, p)
            default:
                return (nil, "unknown recipe key \"\(key)\" (melanin, redness, dye, highlights, ombre)")
            }
        }
        return (HairRecipe(base: base, highlightFraction: highlightFraction, highlight: highlight, tip: tip,
                           ombrePosition: ombrePosition, ombreSoftness: ombreSoftness), nil)
    }
}
