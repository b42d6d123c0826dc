#version 320 es
// Under-layer shading: what one sees between the top strands is hair deep in the volume, lit mostly by
// light that has passed through the hair above it. So: the root pigment's multiple-scattering colour (the
// strands' own recipe), a wrapped diffuse term and a strong occlusion; no highlight (the fibres there have
// no single direction).
precision highp float;

in vec3 vPositionView;
in vec3 vNormalView;

#include "shading_block.glsl"
#include "lighting_block.glsl"
#include "hair_shading.glsl"

layout(location = 0) out vec4 fragColor;

void main() {
    vec3 N = normalize(vNormalView);
    float key = wrappedCosine(dot(N, uKeyDirection));
    float fill = wrappedCosine(dot(N, uFillDirection));
    float depthOcclusion = 1.0 - uRootOcclusion;   // 0..1: light left this deep in the hair
    vec3 radiance = multipleScatteringAlbedo(uSigmaRoot) * (uKeyRadiance * key + uFillRadiance * fill + uAmbientRadiance);
    fragColor = vec4(radiance * depthOcclusion, 1.0);
}
