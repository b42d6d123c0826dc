// The key light's transmittance at a head-space point, from the key light's depth map (KeyLightShadow.swift
// says why a depth map read as thickness). uKeyShadowOn 0: no map this frame, transmittance 1.
// Include after the precision lines.

uniform highp sampler2D uKeyShadowMap;  // depth in [0, 1] of the first surface the light meets
uniform highp sampler2D uKeyHairDepthMap;  // depth of the first hair surface (1: none before the head)
uniform mat4 uHeadToKeyLight;           // head space → the light's clip space
uniform float uKeyShadowDepthMm;        // mm per unit of stored depth
uniform float uKeyShadowBiasMm;         // thickness a strand gives itself
uniform int uKeyShadowOn;

// The key light's view of a head-space point: its place on the maps (xy, 0..1) and its depth (z).
vec3 keyLightCoordinates(vec3 positionHead) {
    vec4 p = uHeadToKeyLight * vec4(positionHead, 1.0);
    return vec3(p.xy * 0.5 + 0.5, p.z * 0.5 + 0.5);
}

// exp(-σ t) for each extinction in `sigma` (x: single scattering, y: multiple scattering), t the thickness
// (mm) between the first surface at texel `at` of `firstDepths` and `depth`, less the bias.
vec2 transmittanceAtTexel(highp sampler2D firstDepths, ivec2 at, float depth, vec2 sigma) {
    ivec2 size = textureSize(firstDepths, 0);
    float first = texelFetch(firstDepths, clamp(at, ivec2(0), size - 1), 0).r;
    float thickness = max((depth - first) * uKeyShadowDepthMm - uKeyShadowBiasMm, 0.0);
    return exp(-sigma * thickness);
}

// Through hair and head alike: what a strand or the under-layer receives. Averaged over the 2×2 texels
// around the point (bilinear weights).
vec2 keyLightTransmittance(vec3 positionHead, vec2 sigma) {
    if (uKeyShadowOn == 0) return vec2(1.0);
    vec3 p = keyLightCoordinates(positionHead);
    vec2 texel = p.xy * vec2(textureSize(uKeyShadowMap, 0)) - 0.5;
    ivec2 base = ivec2(floor(texel));
    vec2 f = texel - floor(texel);
    vec2 sum = vec2(0.0);
    for (int j = 0; j < 2; ++j) {
        for (int i = 0; i < 2; ++i) {
            float w = (i == 1 ? f.x : 1.0 - f.x) * (j == 1 ? f.y : 1.0 - f.y);
            sum += w * transmittanceAtTexel(uKeyShadowMap, base + ivec2(i, j), p.z, sigma);
        }
    }
    return sum;
}

// Through hair only: what the skin receives (the head's own shadow is in the photo already). Averaged over
// a 4×4 grid 2 texels apart (~8 mm across at a 256² map over a head and its hair): a skin shadow has a
// penumbra (the key is not a point, and a photo's light is softer still), and one 2×2 footprint showed the
// map's texels as blocks on a forehead.
vec2 keyLightHairTransmittance(vec3 positionHead, vec2 sigma) {
    if (uKeyShadowOn == 0) return vec2(1.0);
    vec3 p = keyLightCoordinates(positionHead);
    ivec2 centre = ivec2(floor(p.xy * vec2(textureSize(uKeyHairDepthMap, 0))));
    vec2 sum = vec2(0.0);
    for (int j = -3; j <= 3; j += 2) {
        for (int i = -3; i <= 3; i += 2) {
            sum += transmittanceAtTexel(uKeyHairDepthMap, centre + ivec2(i, j), p.z, sigma);
        }
    }
    return sum / 16.0;
}
