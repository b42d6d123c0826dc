#version 320 es
// Strand coverage. The radiance arrives shaded per vertex (strand.vert); here the strand's sub-pixel
// width becomes a sample mask (deterministic: a hash of the pixel and the strand, no clock, no counter),
// and linear radiance with alpha 1 goes to the covered samples, so the multisample resolve yields
// premultiplied colour and coverage alpha.
precision highp float;
precision highp int;

in vec3 vRadiance;
in float vAlongStrand;
flat in float vStrandRandom;
in float vCoverage;
in float vFromRootMm;

#include "shading_block.glsl"   // uTipFade: fraction of the length over which tips thin out; uRootFadeMm
#include "hash.glsl"
#include "coverage_dither.glsl"

layout(location = 0) out vec4 fragColor;

void main() {
    // Tips thin out over the last uTipFade of the length; roots grow in over uRootFadeMm, 0.5-1.5x per
    // strand so a hairline's roots do not all start on one line.
    float rootFade = uRootFadeMm * (0.5 + vStrandRandom);
    float rootGrowth = rootFade > 0.0 ? smoothstep(0.0, rootFade, vFromRootMm) : 1.0;
    float coverage = vCoverage * (1.0 - smoothstep(1.0 - uTipFade, 1.0, vAlongStrand)) * rootGrowth;
    if (coverSamples(coverage, uint(vStrandRandom * 16777216.0)) <= 0) discard;
    fragColor = vec4(vRadiance, 1.0);
}
