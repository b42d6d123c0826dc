#version 320 es
// Under-layer shading: what one sees between the top strands is hair deep in the volume, lit mostly by
// light that has passed through the hair above it (the key light attenuated by the hair between, as the
// key light's depth map measures it). So: the root pigment's multiple-scattering colour (the strands' own
// recipe), a wrapped diffuse term and a strong occlusion; no highlight (the fibres there have no single
// direction). Its edge fades out (vCover) as whole samples, so the strands rooted under a thin edge still
// show through it and the matte takes the fade.
precision highp float;
precision highp int;

in vec3 vPositionView;
in vec3 vNormalView;
in vec3 vPositionHead;
in float vCover;

#include "shading_block.glsl"
#include "lighting_block.glsl"
#include "hair_shading.glsl"
#include "key_shadow.glsl"

uniform vec2 uKeyShadowSigma;  // extinction per mm: x single, y multiple scattering (KeyLightShadow)
#include "hash.glsl"
#include "coverage_dither.glsl"

layout(location = 0) out vec4 fragColor;

void main() {
    // A fixed key of its own, so the layer's dither does not line up with any strand's.
    if (coverSamples(vCover, 0x5eedU) <= 0) discard;
    vec3 N = normalize(vNormalView);
    // Only light diffused through the hair above reaches here: the multiple-scattering extinction.
    float key = wrappedCosine(dot(N, uKeyDirection)) * keyLightTransmittance(vPositionHead, uKeyShadowSigma).y;
    float fill = wrappedCosine(dot(N, uFillDirection));
    float depthOcclusion = 1.0 - uOcclusionUnderHair;   // 0..1: light left this deep in the hair
    // The recipe's mix at the roots: its share of highlight strands seen through the gaps too.
    vec3 albedo = mix(multipleScatteringAlbedo(uSigmaRoot), multipleScatteringAlbedo(uSigmaHighlight), uHighlightFraction);
    vec3 radiance = albedo * (uKeyRadiance * key + uFillRadiance * fill + uAmbientRadiance);
    fragColor = vec4(radiance * depthOcclusion, 1.0);
}
