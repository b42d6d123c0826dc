#version 320 es
// Head shading for previews: a neutral skin-grey, wrapped diffuse under the same key, fill and ambient
// lights as the hair (linear radiance), written opaque and premultiplied (alpha 1).
precision highp float;

in vec3 vNormalView;

uniform vec3 uAlbedoLinear;     // the head's, not the hair's
#include "lighting_block.glsl"

layout(location = 0) out vec4 fragColor;

void main() {
    vec3 N = normalize(vNormalView);
    float key = clamp(dot(N, uKeyDirection) * 0.6 + 0.4, 0.0, 1.0);
    float fill = clamp(dot(N, uFillDirection) * 0.5 + 0.5, 0.0, 1.0);
    vec3 radiance = uAlbedoLinear * (uKeyRadiance * key + uFillRadiance * fill + uAmbientRadiance);
    fragColor = vec4(radiance, 1.0);
}
