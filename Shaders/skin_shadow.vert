#version 320 es
// The hair's shadow on the skin (SkinShadowPass): the head where it is (no inset), its head-space position
// and normal passed on for the key light's hair-only map.
precision highp float;

layout(location = 0) in vec3 aPositionHead;
layout(location = 1) in vec3 aNormalHead;

uniform mat4 uHeadToView;
uniform mat4 uViewToClip;

out vec3 vPositionHead;
out vec3 vNormalView;

void main() {
    vPositionHead = aPositionHead;
    vNormalView = mat3(uHeadToView) * aNormalHead;
    gl_Position = uViewToClip * (uHeadToView * vec4(aPositionHead, 1.0));
}
