#version 320 es
// The hair's under-layer: the scalp triangles a groom covers, pushed out along their normals by
// uOffsetMm so they sit just under the strands, with each vertex's cover (0 on the layer's outline, 1
// inside: CoifGroom's UnderLayer). Inputs in head space (mm).
precision highp float;

layout(location = 0) in vec3 aPositionHead;
layout(location = 1) in vec3 aNormalHead;
layout(location = 2) in float aCover;

uniform mat4 uHeadToView;
uniform mat4 uViewToClip;
uniform float uOffsetMm;

out vec3 vPositionView;
out vec3 vNormalView;
out vec3 vPositionHead;
out float vCover;

void main() {
    vec4 positionView = uHeadToView * vec4(aPositionHead + aNormalHead * uOffsetMm, 1.0);
    vPositionView = positionView.xyz;
    vPositionHead = aPositionHead + aNormalHead * uOffsetMm;
    vNormalView = mat3(uHeadToView) * aNormalHead;
    vCover = aCover;
    gl_Position = uViewToClip * positionView;
}
