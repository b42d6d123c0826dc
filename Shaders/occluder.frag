#version 320 es
// Head occluder: writes depth only (colour writes are masked off by the renderer).
precision mediump float;
layout(location = 0) out vec4 fragColor;
void main() { fragColor = vec4(0.0); }
