// The strand's scattering model: HairFiber (Sources/CoifRender/HairFiber.swift) line for line, where its
// sources and constants are explained. Lobes R, TT, TRT and the residual p >= 3 of a rough dielectric
// cylinder (Chiang et al. 2016 as pbrt-v4's HairBxDF; the real-time Gaussian M and Karis 2016's offsets),
// plus the multiple scattering of a volume of fibres. R, the cuticle's colourless highlight, is a function of
// its own (hairSpecularShadowed): a strand shades it with its own turned tangent (strand.vert), the rest with
// the hair's. Include after shading_block.glsl.

const float PI = 3.14159265;
const float MEAN_PATH_RADII = 1.86;
const float MEAN_FRESNEL = 0.0913;

float fresnelDielectric(float eta, float cosTheta) {
    float c = clamp(cosTheta, 0.0, 1.0);
    float sinT2 = (1.0 - c * c) / (eta * eta);
    if (sinT2 >= 1.0) return 1.0;
    float cosT = sqrt(1.0 - sinT2);
    float rs = (c - eta * cosT) / (c + eta * cosT);
    float rp = (eta * c - cosT) / (eta * c + cosT);
    return 0.5 * (rs * rs + rp * rp);
}

// `shift` as (sin, cos) of the cuticle's angular shift: sin(θo − shift) by the difference formula, no
// asin and sin per lobe (per vertex on a software rasteriser, those were a tenth of the strand pass).
float longitudinalLobe(float sinThetaI, float sinThetaO, float cosThetaO, float width, vec2 shift) {
    float x = sinThetaI + (sinThetaO * shift.y - cosThetaO * shift.x);
    return exp(-x * x / (2.0 * width * width)) / (width * 2.5066283);
}

float trimmedLogistic(float x, float s) {
    float e = exp(-abs(x) / s);
    float value = e / (s * (1.0 + e) * (1.0 + e));
    float cdfHigh = 1.0 / (1.0 + exp(-PI / s)), cdfLow = 1.0 / (1.0 + exp(PI / s));
    return value / (cdfHigh - cdfLow);
}

float wrapAngle(float x) { return x > PI ? x - 2.0 * PI : (x < -PI ? x + 2.0 * PI : x); }

vec3 fiberTransmittance(vec3 sigmaA, float h, float etaPrime, float cosThetaT) {
    float cosGammaT = sqrt(max(1.0 - (h / etaPrime) * (h / etaPrime), 0.0));
    return exp(-sigmaA * (2.0 * cosGammaT / cosThetaT));
}

// The R lobe's f_R |cos θi| for unit light: the cuticle's colourless reflection, its shift −2α as (sin, cos).
float cuticleLobe(float sinThetaI, float sinThetaO, float cosThetaI, float cosThetaO, float cosPhi, float cosHalfPhi, vec2 minusTwo) {
    float fR = fresnelDielectric(uIndexOfRefraction, sqrt(0.5 + 0.5 * (cosThetaI * cosThetaO * cosPhi + sinThetaI * sinThetaO)));
    return longitudinalLobe(sinThetaI, sinThetaO, cosThetaO, uLongitudinalWidth, minusTwo) * fR * 0.25 * cosHalfPhi;
}

// Σ_p f_p |cos θi| for unit light over the lobes through the fibre's interior (TT, TRT, the residual): the
// colour it gives back. R is `cuticleLobe`.
vec3 fiberColourLobes(vec3 sigmaA, float sinThetaI, float sinThetaO, float phi) {
    float eta = uIndexOfRefraction;
    float cosThetaI = sqrt(max(1.0 - sinThetaI * sinThetaI, 0.0));
    float cosThetaO = sqrt(max(1.0 - sinThetaO * sinThetaO, 0.0));
    float cosThetaD = sqrt(0.5 * (1.0 + cosThetaI * cosThetaO + sinThetaI * sinThetaO));
    float cosPhi = cos(phi), cosHalfPhi = cos(phi * 0.5);
    float etaPrime = sqrt(max(eta * eta - (1.0 - cosThetaD * cosThetaD), 0.0)) / max(cosThetaD, 1e-4);
    float sinThetaT = sinThetaO / eta;
    float cosThetaT = sqrt(max(1.0 - sinThetaT * sinThetaT, 1e-4));
    float s = uLongitudinalWidth, alpha = uCuticleTilt, scale = uAzimuthalScale;
    // (sin, cos) of the lobes' shifts −2α (R), α (TT), 4α (TRT) and 0 (the residual).
    vec2 one = vec2(sin(alpha), cos(alpha));
    vec2 two = vec2(2.0 * one.x * one.y, one.y * one.y - one.x * one.x);
    vec2 four = vec2(2.0 * two.x * two.y, two.y * two.y - two.x * two.x);

    // TT and TRT share one Fresnel factor at h = √3/2 (see HairFiber: the lobes then sum to one).
    float fInside = fresnelDielectric(eta, cosThetaD * 0.5);
    float a = 1.0 / etaPrime;
    float hTT = min(abs(cosHalfPhi * (1.0 + a * (0.6 - 0.8 * cosPhi))), 1.0);
    vec3 tt = fiberTransmittance(sigmaA, hTT, etaPrime, cosThetaT) * ((1.0 - fInside) * (1.0 - fInside))
            * (longitudinalLobe(sinThetaI, sinThetaO, cosThetaO, s * 0.5, one) * trimmedLogistic(wrapAngle(phi - PI), scale));

    float fTRT = fInside;
    vec3 tTRT = fiberTransmittance(sigmaA, 0.866, etaPrime, cosThetaT);
    vec3 aTRT = tTRT * tTRT * ((1.0 - fTRT) * (1.0 - fTRT) * fTRT);
    vec3 trt = aTRT * (longitudinalLobe(sinThetaI, sinThetaO, cosThetaO, 2.0 * s, four) * trimmedLogistic(wrapAngle(phi), 2.0 * scale + 0.1));

    vec3 fT = tTRT * fTRT;
    vec3 rest = aTRT * fT / (vec3(1.0) - fT) * (longitudinalLobe(sinThetaI, sinThetaO, cosThetaO, 2.0 * s, vec2(0.0, 1.0)) / (2.0 * PI));
    return tt + trt + rest;
}

vec3 multipleScatteringAlbedo(vec3 sigmaA) {
    vec3 t = exp(-sigmaA * MEAN_PATH_RADII);
    // The interior's share only: the cuticle's reflection is the R lobe (HairFiber.meanAlbedo says why).
    vec3 w = t * ((1.0 - MEAN_FRESNEL) * (1.0 - MEAN_FRESNEL)) / (vec3(1.0) - t * MEAN_FRESNEL);
    vec3 g = sqrt(max(vec3(1.0) - w, vec3(0.0)));
    return (vec3(1.0) - g) / (vec3(1.0) + g);
}

float wrappedCosine(float cosine) {
    const float w = 0.3;
    return max((cosine + w) / ((1.0 + w) * (1.0 + w)), 0.0);
}

// A light's and the eye's angles to a fibre of tangent T: the sines of their angles to the normal plane
// (sin θi, sin θo) and the cosine of the azimuth between them in it (cos φ, 1 where either lies along T).
vec3 fiberAngles(vec3 T, vec3 L, vec3 V) {
    float sinI = dot(L, T), sinO = dot(V, T);
    vec3 li = L - T * sinI, lo = V - T * sinO;
    float li2 = dot(li, li), lo2 = dot(lo, lo);
    float cosPhi = (li2 > 1e-10 && lo2 > 1e-10) ? clamp(dot(li, lo) / sqrt(li2 * lo2), -1.0, 1.0) : 1.0;
    return vec3(sinI, sinO, cosPhi);
}

// Radiance of a strand point under one light (radiance = irradiance / π, as Lighting holds it), but for the
// cuticle's highlight (`hairSpecularShadowed`): T the tangent, N the hair volume's outward normal, L and V
// toward the light and the eye; the light is attenuated on its way in by `transmittance.x` for the
// single-scattering lobes and `.y` for the multiply scattered part (see key_shadow.glsl).
vec3 hairRadianceShadowed(vec3 sigmaA, vec3 msAlbedo, vec3 T, vec3 N, vec3 L, vec3 V, vec3 radiance, vec2 transmittance) {
    vec3 angles = fiberAngles(T, L, V);
    vec3 single = fiberColourLobes(sigmaA, angles.x, angles.y, acos(angles.z));
    return radiance * (single * (PI * transmittance.x) + msAlbedo * (wrappedCosine(dot(N, L)) * transmittance.y));
}

// The cuticle's highlight (the R lobe) under one light, its light attenuated by `transmittance` (the single-
// scattering share), for tangent T: a strand lying at an angle to its neighbours shades it with its own.
vec3 hairSpecularShadowed(vec3 T, vec3 L, vec3 V, vec3 radiance, float transmittance) {
    vec3 angles = fiberAngles(T, L, V);
    float sinI = angles.x, sinO = angles.y, cosPhi = angles.z;
    float cosThetaI = sqrt(max(1.0 - sinI * sinI, 0.0)), cosThetaO = sqrt(max(1.0 - sinO * sinO, 0.0));
    vec2 two = vec2(sin(2.0 * uCuticleTilt), cos(2.0 * uCuticleTilt));
    float r = cuticleLobe(sinI, sinO, cosThetaI, cosThetaO, cosPhi, sqrt(0.5 + 0.5 * cosPhi), vec2(-two.x, two.y));
    return radiance * (r * PI * transmittance);
}

// An unshadowed light.
vec3 hairRadiance(vec3 sigmaA, vec3 msAlbedo, vec3 T, vec3 N, vec3 L, vec3 V, vec3 radiance) {
    return hairRadianceShadowed(sigmaA, msAlbedo, T, N, L, V, radiance, vec2(1.0));
}
