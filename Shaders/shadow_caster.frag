#version 320 es
// The key light's map (KeyLightShadowPass): besides the depth buffer (the first surface of any kind), the
// colour keeps the depth of the first *hair* surface: strands write their depth, the head writes 1, and
// the depth test keeps the nearest. So a point on the skin can tell the hair in front of it from the head
// itself (the photo already shows the head's own shading).
precision highp float;
uniform int uCastsHairShadow;   // 1: strands, 0: the head
layout(location = 0) out vec4 firstHairDepth;
void main() {
    firstHairDepth = vec4(uCastsHairShadow == 1 ? gl_FragCoord.z : 1.0, 0.0, 0.0, 1.0);
}
