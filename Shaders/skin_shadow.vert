#version 320 es
// The hair's shadow on the skin (SkinShadowPass): the head where it is (no inset). The light through the
// hair is read from the key light's hair-only map here, per vertex (2,562 of them, ~10 mm apart, against a
// penumbra of ~8 mm): per pixel it cost 20 ms of a 512² still on llvmpipe, per vertex next to nothing.
precision highp float;

layout(location = 0) in vec3 aPositionHead;
layout(location = 1) in vec3 aNormalHead;

uniform mat4 uHeadToView;
uniform mat4 uViewToClip;

#include "key_shadow.glsl"

uniform vec2 uKeyShadowSigma;

out float vThrough;       // the key light's share that gets through the hair (multiple-scattering extinction)
out vec3 vNormalView;

void main() {
    vThrough = keyLightHairTransmittance(aPositionHead, uKeyShadowSigma).y;
    vNormalView = mat3(uHeadToView) * aNormalHead;
    gl_Position = uViewToClip * (uHeadToView * vec4(aPositionHead, 1.0));
}
