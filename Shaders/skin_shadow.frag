#version 320 es
// The hair's shadow on the skin: how much of the skin's light is left where the new hair stands between it
// and the key light. The photo already shows the skin lit; only the key's part of that light is taken away,
// in proportion to the hair it crosses (the multiple-scattering extinction: light reaching skin through
// hair has been scattered forward on the way). Written as a factor on the photo's linear colour, in R. (The
// skin the plate fills where hair was is lit in the plate, from the drawn head's normals: HeadRender.)
precision highp float;

in float vThrough;
in vec3 vNormalView;

#include "lighting_block.glsl"

layout(location = 0) out vec4 lightLeft;   // R: the light left

float luminance(vec3 c) { return dot(c, vec3(0.2126, 0.7152, 0.0722)); }

void main() {
    vec3 N = normalize(vNormalView);
    float key = luminance(uKeyRadiance) * max(dot(N, uKeyDirection), 0.0);
    float rest = luminance(uAmbientRadiance) + luminance(uFillRadiance) * max(dot(N, uFillDirection), 0.0);
    lightLeft = vec4((rest + key * vThrough) / max(rest + key, 1e-4), 0.0, 0.0, 1.0);
}
