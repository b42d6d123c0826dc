#version 320 es
// Strands, depth only, seen from the key light (KeyLightShadowPass): the same ribbons as strand.vert, at
// least a texel wide, with no shading. Pairs with occluder.frag.
precision highp float;
precision highp int;

#include "strand_ribbon.glsl"

void main() {
    gl_Position = ribbonCorner(gl_VertexID).clip;
}
