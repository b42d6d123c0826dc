#version 320 es
// Head shading for previews without a photo: Coif's head drawn opaque, so the hair reads against it.
// Inputs in head space (millimetres, +x subject's left, +y up, +z toward the camera). Pulled inward by
// uInsetMm along its normal exactly as the depth-only occluder is, so roots sit on it the same way.
precision highp float;

layout(location = 0) in vec3 aPositionHead;
layout(location = 1) in vec3 aNormalHead;

uniform mat4 uHeadToView;   // head space -> GL view space (camera looks down -z)
uniform mat4 uViewToClip;   // projection from the preview camera's pinhole intrinsics
uniform float uInsetMm;

out vec3 vNormalView;

void main() {
    vec3 p = aPositionHead - aNormalHead * uInsetMm;
    vNormalView = mat3(uHeadToView) * aNormalHead;
    gl_Position = uViewToClip * (uHeadToView * vec4(p, 1.0));
}
