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
in float vAcross;
in float vDrawnPx;
in float vFibreContrast;

#include "shading_block.glsl"   // uTipFade: fraction of the length over which tips thin out; uRootFadeMm
#include "hash.glsl"
#include "coverage_dither.glsl"

layout(location = 0) out vec4 fragColor;

// A ribbon drawn wider than a fibre stands for a lock of fibres side by side (LevelOfDetail draws fewer,
// wider strands on a large face: 11x the catalog's width at a segment budget's 1,200 strands). Drawn as one
// shade it read as a rope, and long styles as noodles. Its width is split into lanes kFibrePx wide, each
// lane a fibre with its own share of the light (±uFibreVariation, scaled as the strands' own spread is:
// whole on dark hair, little on light) and darker toward its edges (a fibre is a cylinder: kFibreEdgeShade
// at the lane's edge), the lanes' boundaries wandering a little along the strand so they are not ruled
// lines. Both factors average 1 over the lanes, so the lock's mean colour, which a hex or `own` is solved
// for, stays put. A ribbon under two fibres wide is left as it was.
const float kFibrePx = 1.6;
const float kFibreEdgeShade = 0.45;

float fibreShade(float across, float drawnPx, float along, uint strand, float contrast) {
    float lanes = floor(drawnPx / kFibrePx);
    if (lanes < 2.0 || uFibreVariation <= 0.0) return 1.0;
    float wander = 0.35 * sin(6.2831853 * (along * 3.0 + float(coifHash(strand ^ 0x2545F491U) & 0xffU) / 256.0));
    float u = clamp((across * 0.5 + 0.5) * lanes + wander, 0.0, lanes - 0.001);
    float lane = floor(u);
    float tone = float(coifHash(strand ^ (uint(lane) * 0x9E3779B9U) ^ 0x7F4A7C15U) & 0xffffU) / 65536.0;
    // sin(π t) over a lane averages 2/π: the edge term is divided by its mean.
    float edge = 1.0 - kFibreEdgeShade * (1.0 - sin(3.14159265 * fract(u)));
    float edgeMean = 1.0 - kFibreEdgeShade * (1.0 - 0.63661977);
    return mix(1.0, (1.0 + uFibreVariation * (tone * 2.0 - 1.0)) * edge / edgeMean, contrast);
}

void main() {
    // Tips thin out over the last uTipFade of the length; roots grow in over uRootFadeMm, 0.5-1.5x per
    // strand so a hairline's roots do not all start on one line.
    float rootFade = uRootFadeMm * (0.5 + vStrandRandom);
    float rootGrowth = rootFade > 0.0 ? smoothstep(0.0, rootFade, vFromRootMm) : 1.0;
    float coverage = vCoverage * (1.0 - smoothstep(1.0 - uTipFade, 1.0, vAlongStrand)) * rootGrowth;
    if (coverSamples(coverage, uint(vStrandRandom * 16777216.0)) <= 0) discard;
    fragColor = vec4(vRadiance * fibreShade(vAcross, vDrawnPx, vAlongStrand, uint(vStrandRandom * 16777216.0), vFibreContrast), 1.0);
}
