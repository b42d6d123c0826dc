// HairFiber: the strand's scattering model, on the CPU. The same formulas run per ribbon corner in
// Shaders/hair_shading.glsl (keep the two in step; HairLookTests compares them through renders); here they
// serve the colour solve (a hex target → the melanin that gives it), the white-furnace and melanin tests,
// and the under-layer's colour.
//
// A fibre is a rough dielectric cylinder with an absorbing interior (Marschner et al. 2003; d'Eon et al.
// 2011; Chiang et al. 2016, "A practical and controllable hair and fur model for production path
// tracing", as pbrt-v4's HairBxDF implements it). Light leaves it by lobes named by their path:
//   R   reflected at the cuticle (white, shifted toward the root by the cuticle tilt),
//   TT  transmitted through the fibre (coloured by one passage; forward, toward the light's far side),
//   TRT reflected once inside (coloured by two passages; the tinted second highlight, shifted to the tip),
//   and the rest (p ≥ 3) as one residual lobe, so no energy is lost for a clear fibre.
// Each lobe is f_p = M_p(θi, θo) · A_p · N_p(φ) / |cos θi| (pbrt-v4's form), with
//   M_p  a normalised Gaussian in sin θi + sin(θo − shift_p) (the real-time form of d'Eon's longitudinal
//        lobe: Karis 2016, "Physically based hair shading in Unreal"), variance v, v/4, 4v for R, TT, TRT;
//   A_p  attenuation: Fresnel at the lobe's representative offset h (Karis's fits) and Beer–Lambert
//        through the interior, σ_a per unit radius from eumelanin and pheomelanin (d'Eon 2011);
//   N_p  normalised azimuthal lobes: cos(φ/2)/4 for R (a smooth cylinder's reflection), trimmed logistics
//        around φ = π for TT and φ = 0 for TRT (pbrt-v4's TrimmedLogistic; TRT widened for its spread in h).
// Hair is seen as a volume of many fibres, not one, so a multiple-scattering term joins the lobes: the
// diffuse reflectance of a semi-infinite medium of fibres whose single-scattering albedo is the fibre's
// mean albedo, R = (1 − √(1 − ω))/(1 + √(1 − ω)) (the two-stream / Hapke form), lit by a wrapped
// cosine about the hair volume's normal. It is what makes blond hair blond and dark hair brown-black.
import CoifCore

#if canImport(Glibc)
import Glibc
#endif

public enum HairFiber {
    /// Index of refraction of keratin (Marschner et al. 2003; pbrt-v4's default).
    public static let indexOfRefraction: Float = 1.55
    /// Absorption per unit fibre radius of unit concentrations, linear RGB (d'Eon et al. 2011, as in
    /// pbrt-v4's SigmaAFromConcentration).
    public static let eumelaninSigmaA = Vec3(0.419, 0.697, 1.37)
    public static let pheomelaninSigmaA = Vec3(0.187, 0.4, 1.05)
    /// Mean path through the fibre (in radii) over offsets h for light crossing it once: 2·√(1 − h²/η²)
    /// averaged over h ∈ [0, 1] for η = 1.55. For the multiple-scattering albedo.
    public static let meanPathRadii: Float = 1.86
    /// Fresnel reflectance averaged over a cylinder's cross-section (h ∈ [0, 1]) at normal incidence,
    /// η = 1.55 (computed once: `averageFresnel()`).
    public static let meanFresnel: Float = 0.0913

    /// σ_a (per unit radius) of eumelanin and pheomelanin concentrations (0 = none; ~8 = black).
    public static func sigmaA(eumelanin: Float, pheomelanin: Float) -> Vec3 {
        eumelaninSigmaA * eumelanin + pheomelaninSigmaA * pheomelanin
    }

    /// Unpolarised Fresnel reflectance of a dielectric (η outside 1) at incidence cosine `cosTheta`.
    public static func fresnel(eta: Float, cosTheta: Float) -> Float {
        let c = min(max(cosTheta, 0), 1)
        let sinT2 = (1 - c * c) / (eta * eta)
        if sinT2 >= 1 { return 1 }
        let cosT = (1 - sinT2).squareRoot()
        let rs = (c - eta * cosT) / (c + eta * cosT)
        let rp = (eta * c - cosT) / (eta * c + cosT)
        return 0.5 * (rs * rs + rp * rp)
    }

    /// The mean Fresnel over h at normal incidence (what `meanFresnel` holds).
    public static func averageFresnel(eta: Float = indexOfRefraction) -> Float {
        let n = 1000
        var sum: Float = 0
        for i in 0..<n {
            let h = (Float(i) + 0.5) / Float(n)
            sum += fresnel(eta: eta, cosTheta: (1 - h * h).squareRoot())
        }
        return sum / Float(n)
    }

    /// Longitudinal standard deviation (in sin θ) of the R lobe from a roughness in [0, 1] (Chiang et al.
    /// 2016's mapping to the variance v; √v here).
    public static func longitudinalWidth(roughness b: Float) -> Float {
        0.726 * b + 0.812 * b * b + 3.7 * powf(b, 20)
    }

    /// Logistic scale of the azimuthal lobes from a roughness in [0, 1] (Chiang et al. 2016).
    public static func azimuthalScale(roughness b: Float) -> Float {
        0.626657 * (0.265 * b + 1.194 * b * b + 5.372 * powf(b, 22))
    }

    /// The parameters of a fibre, as the shader receives them.
    public struct Parameters: Sendable, Equatable {
        public var sigmaA: Vec3
        /// Longitudinal roughness, 0…1 (Chiang's β_m): 0.25 is healthy straight hair.
        public var longitudinalRoughness: Float
        /// Azimuthal roughness, 0…1 (Chiang's β_n).
        public var azimuthalRoughness: Float
        /// Cuticle scale tilt, radians (pbrt-v4's default 2°).
        public var cuticleTilt: Float
        public var eta: Float

        public init(sigmaA: Vec3, longitudinalRoughness: Float = 0.25, azimuthalRoughness: Float = 0.3,
                    cuticleTilt: Float = 2 * .pi / 180, eta: Float = HairFiber.indexOfRefraction) {
            self.sigmaA = sigmaA
            self.longitudinalRoughness = longitudinalRoughness
            self.azimuthalRoughness = azimuthalRoughness
            self.cuticleTilt = cuticleTilt
            self.eta = eta
        }
    }

    /// The four lobes' values f_p·|cos θi| for unit light from `wi` seen from `wo`, in the fibre's frame:
    /// `sinThetaI`/`sinThetaO` are the sines of the angles to the normal plane (components along the
    /// tangent), `phi` the azimuth between them in that plane. Linear RGB, per unit radiance.
    public struct Lobes: Sendable {
        public var r: Vec3, tt: Vec3, trt: Vec3, residual: Vec3
        public var sum: Vec3 { r + tt + trt + residual }
        /// The lobes through the fibre's interior (TT, TRT, the residual): the colour it gives back, without
        /// the cuticle's colourless highlight R (hair_shading.glsl's `fiberColourLobes`).
        public var colour: Vec3 { tt + trt + residual }
    }

    public static func lobes(_ p: Parameters, sinThetaI: Float, sinThetaO: Float, phi: Float) -> Lobes {
        let cosThetaI = max(1 - sinThetaI * sinThetaI, 0).squareRoot()
        let cosThetaO = max(1 - sinThetaO * sinThetaO, 0).squareRoot()
        // θd: half the difference of the longitudinal angles; the cosine of the half angle between the
        // directions in the normal plane.
        let cosThetaD = (0.5 * (1 + cosThetaI * cosThetaO + sinThetaI * sinThetaO)).squareRoot()
        let cosPhi = cosf(phi), cosHalfPhi = cosf(phi / 2)
        // Bravais' index for the azimuthal plane.
        let etaPrime = max(p.eta * p.eta - (1 - cosThetaD * cosThetaD), 0).squareRoot() / max(cosThetaD, 1e-4)
        let sinThetaT = sinThetaO / p.eta
        let cosThetaT = max(1 - sinThetaT * sinThetaT, 1e-4).squareRoot()
        let s = longitudinalWidth(roughness: p.longitudinalRoughness)
        func m(_ width: Float, _ shift: Float) -> Float {
            let x = sinThetaI + sinf(asinf(min(max(sinThetaO, -1), 1)) - shift)
            return expf(-x * x / (2 * width * width)) / (width * 2.5066283)
        }
        let scale = azimuthalScale(roughness: p.azimuthalRoughness)
        func trimmedLogistic(_ x: Float, _ s: Float) -> Float {
            func logistic(_ x: Float) -> Float { let e = expf(-abs(x) / s); return e / (s * (1 + e) * (1 + e)) }
            func cdf(_ x: Float) -> Float { 1 / (1 + expf(-x / s)) }
            return logistic(x) / (cdf(.pi) - cdf(-.pi))
        }
        func wrap(_ x: Float) -> Float { var y = x; while y > .pi { y -= 2 * .pi }; while y < -.pi { y += 2 * .pi }; return y }
        func transmittance(h: Float) -> Vec3 {
            let cosGammaT = max(1 - (h / etaPrime) * (h / etaPrime), 0).squareRoot()
            let path = 2 * cosGammaT / cosThetaT
            return Vec3(expf(-p.sigmaA.x * path), expf(-p.sigmaA.y * path), expf(-p.sigmaA.z * path))
        }
        // R: reflection at the half angle between the directions.
        let fR = fresnel(eta: p.eta, cosTheta: (0.5 + 0.5 * (cosThetaI * cosThetaO * cosPhi + sinThetaI * sinThetaO)).squareRoot())
        let r = Vec3(repeating: m(s, -2 * p.cuticleTilt) * fR * 0.25 * cosHalfPhi)
        // TT and TRT share one Fresnel factor, at h = √3/2 (60°), where a keratin cylinder's Fresnel equals
        // its mean over the cross-section: with R's (a mean over φ) the lobes then sum to one for a clear
        // fibre, as f + (1 − f)²(1 + f + f²/(1 − f)) = 1 (evaluated at each lobe's own h they summed to 1.07).
        let fInside = fresnel(eta: p.eta, cosTheta: cosThetaD * 0.5)
        // TT: Karis's fit for the offset that refracts toward the viewer sets the path length.
        let a = 1 / etaPrime
        let hTT = min(abs(cosHalfPhi * (1 + a * (0.6 - 0.8 * cosPhi))), 1)
        let tTT = transmittance(h: hTT)
        let tt = tTT * ((1 - fInside) * (1 - fInside)) * (m(s / 2, p.cuticleTilt) * trimmedLogistic(wrap(phi - .pi), scale))
        // TRT: the internal reflection's typical offset h = √3/2.
        let hTRT: Float = 0.866
        let fTRT = fInside
        let tTRT = transmittance(h: hTRT)
        let aTRT = tTRT * tTRT * ((1 - fTRT) * (1 - fTRT) * fTRT)
        let trt = aTRT * (m(2 * s, 4 * p.cuticleTilt) * trimmedLogistic(wrap(phi), 2 * scale + 0.1))
        // p ≥ 3: the geometric series of further internal reflections, spread round the fibre.
        let fT = tTRT * fTRT
        let aRest = aTRT * fT / (Vec3(repeating: 1) - fT)
        let residual = aRest * (m(2 * s, 0) / (2 * .pi))
        return Lobes(r: r, tt: tt, trt: trt, residual: residual)
    }

    /// The share of light a fibre returns through its interior, averaged over h at normal incidence (what
    /// the multiple-scattering term uses): ω = (1 − F̄)² T̄ / (1 − F̄ T̄), T̄ = exp(−σ_a · meanPathRadii).
    /// The cuticle's own reflection F̄ is left out: its first bounce is the R lobe, drawn already, and a
    /// volume of fibres returns a low albedo almost wholly at its first bounce (the two-stream R(ω) ≈ ω/4
    /// for small ω). Counted in both, it laid a white veil of ~0.024 over every colour, which made black
    /// and dark brown a neutral mid grey (L* 28 under the portrait lights, where real black hair is ~15).
    public static func meanAlbedo(sigmaA: Vec3) -> Vec3 {
        let f = meanFresnel
        let t = Vec3(expf(-sigmaA.x * meanPathRadii), expf(-sigmaA.y * meanPathRadii), expf(-sigmaA.z * meanPathRadii))
        return t * ((1 - f) * (1 - f)) / (Vec3(repeating: 1) - t * f)
    }

    /// Diffuse reflectance of a deep volume of fibres with that albedo (two-stream / Hapke).
    public static func multipleScatteringAlbedo(sigmaA: Vec3) -> Vec3 {
        let w = meanAlbedo(sigmaA: sigmaA)
        func r(_ w: Float) -> Float { let g = max(1 - w, 0).squareRoot(); return (1 - g) / (1 + g) }
        return Vec3(r(w.x), r(w.y), r(w.z))
    }

    /// Wrapped cosine for light scattered through a volume of fibres: light reaches a little past the
    /// terminator (energy-normalised: the same total over the sphere as max(cos, 0)).
    @inline(__always) public static func wrappedCosine(_ cosine: Float, wrap w: Float = 0.3) -> Float {
        max((cosine + w) / ((1 + w) * (1 + w)), 0)
    }

    /// Radiance from one strand point lit by one light (unit tangent `t` toward the tip, unit `toLight`,
    /// `toEye`, the hair volume's outward normal `n`; all in one frame). `lightRadiance` is the light's
    /// irradiance ÷ π (Lighting's convention), so the lobes, per unit irradiance, are multiplied by π.
    /// `highlight` scales the cuticle's colourless highlight (the R lobe): 0 leaves it out.
    public static func radiance(_ p: Parameters, msAlbedo: Vec3, t: Vec3, n: Vec3, toLight: Vec3, toEye: Vec3,
                                lightRadiance: Vec3, highlight: Float = 1) -> Vec3 {
        let sinI = dot(toLight, t), sinO = dot(toEye, t)
        let li = toLight - t * sinI, lo = toEye - t * sinO
        let li2 = dot(li, li), lo2 = dot(lo, lo)
        var cosPhi: Float = 1
        if li2 > 1e-10 && lo2 > 1e-10 { cosPhi = dot(li, lo) / (li2 * lo2).squareRoot() }
        let phi = acosf(min(max(cosPhi, -1), 1))
        let all = lobes(p, sinThetaI: sinI, sinThetaO: sinO, phi: phi)
        let single = all.colour + all.r * highlight
        let multiple = msAlbedo * wrappedCosine(dot(n, toLight))
        return lightRadiance * (single * .pi + multiple)
    }
}
