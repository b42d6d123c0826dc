#version 320 es
// Strand shading and coverage. Writes linear radiance with alpha 1 to the samples the strand covers;
// the multisample resolve then yields premultiplied colour and coverage alpha. Sub-pixel width is turned
// into a sample mask (deterministic: a hash of the pixel and the strand, no clock, no counter).
precision highp float;
precision highp int;

#include "hair_shading.glsl"

in vec3 vPositionView;
in vec3 vTangentView;
in float vAlongStrand;
in float vAcross;
in float vStrandRandom;
in float vCoverage;

// Recolor and shading parameters (one Swift value type: HairShading).
uniform vec3 uAlbedoLinear;        // diffuse colour of the fibres, linear RGB
uniform vec3 uPrimaryTint;         // R lobe colour, linear RGB
uniform float uPrimaryShift;       // tangent shift of R (negative: toward the root)
uniform float uSecondaryShift;     // tangent shift of TRT (positive: toward the tip)
uniform float uPrimaryExponent;
uniform float uSecondaryExponent;
uniform float uSpecularStrength;
uniform float uColorVariation;     // per-strand brightness spread, 0 .. 1
uniform float uRootOcclusion;      // how dark roots are from the hair above them, 0 .. 1
uniform float uTipFade;            // fraction of the length over which tips thin out
// Lights, GL view space. Radiance is scaled by the photo's exposure.
uniform vec3 uKeyDirection;
uniform vec3 uKeyRadiance;
uniform vec3 uFillDirection;
uniform vec3 uFillRadiance;
uniform vec3 uAmbientRadiance;
uniform int uSamples;

layout(location = 0) out vec4 fragColor;

uint hash(uint x) {
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}

vec3 lightStrand(vec3 T, vec3 N, vec3 V, vec3 L, vec3 radiance, vec3 albedo) {
    vec3 H = normalize(L + V);
    float diffuse = kajiyaKayDiffuse(T, L);
    // Wrap the diffuse toward the unlit side a little: light passes through a volume of fibres.
    float facing = clamp(dot(N, L) * 0.5 + 0.5, 0.0, 1.0);
    float primary = kajiyaKaySpecular(shiftedTangent(T, N, uPrimaryShift), H, uPrimaryExponent);
    float secondary = kajiyaKaySpecular(shiftedTangent(T, N, uSecondaryShift), H, uSecondaryExponent);
    vec3 r = uPrimaryTint * primary;
    vec3 trt = albedo * secondary * 1.6;
    return radiance * (albedo * diffuse * facing + uSpecularStrength * (r + trt) * facing);
}

void main() {
    vec3 T = normalize(vTangentView);
    vec3 V = normalize(-vPositionView);
    vec3 facingNormal = V - T * dot(T, V);
    facingNormal = dot(facingNormal, facingNormal) > 1e-8 ? normalize(facingNormal) : V;
    vec3 B = cross(T, facingNormal);
    // Bend the normal across the ribbon so it shades like a cylinder, not a flat card.
    float across = clamp(vAcross, -1.0, 1.0) * 0.8;
    vec3 N = normalize(facingNormal * sqrt(1.0 - across * across) + B * across);

    float variation = 1.0 + uColorVariation * (vStrandRandom * 2.0 - 1.0);
    vec3 albedo = uAlbedoLinear * variation;
    float occlusion = mix(1.0 - uRootOcclusion, 1.0, smoothstep(0.0, 0.6, vAlongStrand));

    vec3 radiance = lightStrand(T, N, V, uKeyDirection, uKeyRadiance, albedo)
                  + lightStrand(T, N, V, uFillDirection, uFillRadiance, albedo)
                  + uAmbientRadiance * albedo;
    radiance *= occlusion;

    float coverage = vCoverage * (1.0 - smoothstep(1.0 - uTipFade, 1.0, vAlongStrand));
    uint pixel = uint(gl_FragCoord.x) * 73856093U ^ uint(gl_FragCoord.y) * 19349663U;
    uint noise = hash(pixel ^ uint(vStrandRandom * 16777216.0));
    float dither = float(noise & 0xffffU) / 65536.0;
    int covered = int(floor(coverage * float(uSamples) + dither));
    if (covered <= 0) discard;
#ifdef COIF_SAMPLE_MASK
    int all = (1 << uSamples) - 1;
    int bits = (1 << min(covered, uSamples)) - 1;
    int rotate = int((noise >> 16) % uint(uSamples));
    gl_SampleMask[0] = ((bits << rotate) | (bits >> (uSamples - rotate))) & all;
#endif
    fragColor = vec4(radiance, 1.0);
}
