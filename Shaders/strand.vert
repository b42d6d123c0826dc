#version 320 es
// Strands as camera-facing ribbons, expanded here from the polyline points (strand_ribbon.glsl): no
// CPU-built triangles. Each corner is shaded here, with the key light attenuated by the hair between it
// and the light (key_shadow.glsl).
precision highp float;
precision highp int;

// Recolor and shading parameters (one Swift value type: HairShading) and the lights (Lighting), GL view
// space: one uniform block each.
#include "shading_block.glsl"
#include "lighting_block.glsl"
#include "hair_shading.glsl"
#include "strand_ribbon.glsl"
#include "key_shadow.glsl"

uniform vec2 uKeyShadowSigma;  // extinction per mm: x single, y multiple scattering (KeyLightShadow)

out vec3 vRadiance;       // linear, shaded at this corner
out float vAlongStrand;   // 0 at the root, 1 at the tip
flat out float vStrandRandom;  // [0, 1), fixed per strand (16 bits); flat: interpolating a constant can come back an ulp off, and the dither hashes every bit
out float vCoverage;      // real width / drawn width (<= 1 for sub-pixel strands)
out float vFromRootMm;    // distance from the root (mm), for the root's fade-in
out float vAcross;        // -1 … +1 across the ribbon, for the fibres a wide one stands for
out float vDrawnPx;       // the ribbon's drawn width (pixels)
out float vFibreContrast; // how much one fibre's light may differ from its neighbours' (1 on black hair, little on platinum)

#include "hash.glsl"

// How far from its root (mm) a strand lies among its neighbours' roots and in their shade: the scalp's hair
// leaves it a few to a dozen fibres deep, so the first couple of centimetres are darker whatever lies over them
// (a parting's and a hairline's roots too). Past it, only the hair over a point darkens it (HairCover).
const float kRootShadeMm = 20.0;

// Radians a strand's tangent turns per unit of its light variation (HairShading's clump, strand and along
// terms, each ±fraction): at the defaults ±0.6, ±0.5 and ±0.5 the three sum to a spread of ~11° (one σ),
// a little under one R lobe's width (β_m 0.25: ~13°), so about half the strands of a patch facing the
// highlight carry it. 0.13 (~4°) left a bob's front under a frontal key one grey sheet. The highlight's
// mean over the strands is the untilted lobe's, widened: HairFiber's sphere (what colours are solved on)
// does not model the turn.
const float kFibreTiltPerVariation = 0.35;

// Value noise along a strand, 0…1: a hash of the strand and of each whole step of `t`, blended smoothly between
// steps (a strand's corners sit a segment apart, so the swing is smooth along it and the same on both edges).
float alongNoise(uint strand, float t) {
    float step0 = floor(t);
    float a = float(coifHash(strand ^ (uint(step0) * 0x9E3779B9U)) & 0xffffU) / 65536.0;
    float b = float(coifHash(strand ^ (uint(step0 + 1.0) * 0x9E3779B9U)) & 0xffffU) / 65536.0;
    return mix(a, b, smoothstep(0.0, 1.0, t - step0));
}

// Shading runs here, once per ribbon corner, not per fragment: strands are a pixel or two wide, so the
// light varies along them, not across them, and a software rasteriser spends 3x less time this way.
// positionHead: for the hair volume's normal (head space's origin is the cranium's centre).
// separate: how far this fibre's light may stray from its neighbours' (see below), for the fragment's fibres.
vec3 shade(vec3 positionView, vec3 positionHead, vec3 T, float along, float cover, float fromRootMm, float strandRandom, float clumpTone,
           out float separate) {
    vec3 V = normalize(-positionView);
    vec3 N = normalize(mat3(uHeadToView) * positionHead);
    // The strand's pigment: ombré along it, a seeded share of highlight strands, a per-strand spread.
    vec3 sigmaA = mix(uSigmaRoot, uSigmaTip, smoothstep(uOmbrePosition - uOmbreSoftness, uOmbrePosition + uOmbreSoftness, along));
    float second = float(coifHash(uint(strandRandom * 16777216.0)) & 0xffffU) / 65536.0;
    if (second < uHighlightFraction) sigmaA = uSigmaHighlight;
    sigmaA *= 1.0 + uColorVariation * (strandRandom * 2.0 - 1.0);
    vec3 ms = multipleScatteringAlbedo(sigmaA);
    // The sky's light the hair over this point lets through (HairCover), and near its root the shade of the
    // neighbours' roots it leaves the scalp among, wherever the strand runs (kRootShadeMm).
    float rootShade = 1.0 - smoothstep(0.0, kRootShadeMm, fromRootMm);
    float occlusion = 1.0 - uOcclusionUnderHair * max(cover, rootShade);
    // What this strand catches of its own (HairShading.clumpVariation, strandLightVariation,
    // alongLightVariation): the clump's tone, the strand's, and a swing along its length, each −1…1.
    uint strand = uint(strandRandom * 16777216.0);
    float own = float(coifHash(strand ^ 0x68E31DA4U) & 0xffffU) / 65536.0;
    float swing = alongNoise(strand ^ 0xB5297A4DU, along * 2.5 + float(coifHash(strand ^ 0x1B56C4E9U) & 0xffU) / 256.0);
    float clump = uClumpVariation * (clumpTone * 2.0 - 1.0);
    float strandOwn = uStrandLightVariation * (own * 2.0 - 1.0), alongOwn = uAlongLightVariation * (swing * 2.0 - 1.0);
    // A clump, a strand and a stretch of it lie at angles of their own to the hair's mean direction, and its
    // R highlight moves along the strand as it turns. Of that turn only the part in the plane of the strand
    // and the key's half-vector moves the highlight (the rest turns the fibre about the view), so the tangent
    // turns in that plane. On dark hair, lit mostly by that colourless highlight, this is what separates
    // strands: the streaks are where a fibre turns into the highlight, the rest stays dark. Scaling the
    // highlight's brightness instead (as the colour lobes are, below) drew a straight style's whole front
    // at the lobe's peak under a frontal key, up to ~5x brighter on some strands, and black hair came out
    // silver-grey (vmhuman b-7's black bob: p90 sRGB 68 against her own hair's 24).
    vec3 H = normalize(uKeyDirection + V);
    vec3 across = H - T * dot(H, T);
    float acrossLength = length(across);
    vec3 Tr = acrossLength > 1e-4 ? normalize(T + across / acrossLength * tan(kFibreTiltPerVariation * (clump + strandOwn + alongOwn))) : T;
    // The key light through the hair (and head) between it and this point: the direct lobes lose it at
    // the single-scattering extinction, the multiply scattered part at its smaller share.
    vec2 key = keyLightTransmittance(positionHead, uKeyShadowSigma);
    vec3 colour = hairRadianceShadowed(sigmaA, ms, T, N, uKeyDirection, V, uKeyRadiance, key) + uAmbientRadiance * ms;
    vec3 specular = hairSpecularShadowed(Tr, uKeyDirection, V, uKeyRadiance, key.x);
    // The photo's light has no fill (PhotoLightEstimate): skip a third of the shading then.
    if (any(greaterThan(uFillRadiance, vec3(0.0)))) {
        colour += hairRadiance(sigmaA, ms, T, N, uFillDirection, V, uFillRadiance);
        specular += hairSpecularShadowed(Tr, uFillDirection, V, uFillRadiance, 1.0);
    }
    // The colour the fibre gives back (TT, TRT, the rest, multiple scattering) varies in brightness: the
    // strands of one patch of scalp run as one streak, lighter or darker than its neighbours, and within it
    // each strand catches its own share, swinging along its length. Light hair scatters most of its light on
    // through other fibres (its multiple-scattering albedo is high), which evens out what any one strand
    // catches, so the spread shrinks as that albedo nears a clear fibre's: whole on black hair, little on
    // platinum.
    separate = clamp(1.0 - dot(ms, vec3(0.2126, 0.7152, 0.0722)) / multipleScatteringAlbedo(vec3(0.0)).x, 0.0, 1.0);
    float strandLight = (1.0 + separate * strandOwn) * (1.0 + separate * alongOwn);
    // The highlight as much of it as the photo shows on hair (Lighting.hairSheen; 1 under Coif's lights).
    return (colour * (1.0 + clump) * strandLight + specular * uHairSheen) * occlusion;
}

void main() {
    RibbonCorner corner = ribbonCorner(gl_VertexID);
    gl_Position = corner.clip;
    vCoverage = corner.coverage;
    // w = (clump tone level + strand random) / 256 (StrandGeometry.packedRecord).
    float toneAndRandom = corner.record.w * 256.0;
    float strandRandom = fract(toneAndRandom);
    float separate;
    vRadiance = shade(corner.positionView, corner.record.xyz, corner.tangentView, corner.along, corner.cover, corner.fromRootMm, strandRandom,
                      floor(toneAndRandom) / 255.0, separate);
    vFibreContrast = separate;
    vAcross = corner.side;
    vDrawnPx = corner.drawnPx;
    vAlongStrand = corner.along;
    vFromRootMm = corner.fromRootMm;
    vStrandRandom = strandRandom;
}
