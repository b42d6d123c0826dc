#version 320 es
// Head occluder, depth only. Inputs in head space (millimetres, +x subject's left, +y up, +z toward
// the camera). The surface is pulled inward by uInsetMm along its normal so strand roots, which sit on
// the scalp, never fight the occluder's depth.
precision highp float;

layout(location = 0) in vec3 aPositionHead;
layout(location = 1) in vec3 aNormalHead;

uniform mat4 uHeadToView;   // head space -> GL view space (camera looks down -z)
uniform mat4 uViewToClip;   // projection from the photo's pinhole intrinsics
uniform float uInsetMm;

void main() {
    vec3 p = aPositionHead - aNormalHead * uInsetMm;
    gl_Position = uViewToClip * (uHeadToView * vec4(p, 1.0));
}
