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

#include "shading_block.glsl"   // uTipFade: fraction of the length over which tips thin out
uniform int uSamples;
uniform ivec2 uPixelOrigin;        // where this target's pixel (0, 0) lies in the whole photo (a crop's corner)

layout(location = 0) out vec4 fragColor;

uint hash(uint x) {
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}

void main() {
    float coverage = vCoverage * (1.0 - smoothstep(1.0 - uTipFade, 1.0, vAlongStrand));
    // The photo's pixel, not the target's: a crop must dither exactly as the whole image would.
    ivec2 photoPixel = ivec2(gl_FragCoord.xy) + uPixelOrigin;
    uint pixel = uint(photoPixel.x) * 73856093U ^ uint(photoPixel.y) * 19349663U;
    uint noise = hash(pixel ^ uint(vStrandRandom * 16777216.0));
    float dither = float(noise & 0xffffU) / 65536.0;
    int covered = int(floor(coverage * float(uSamples) + dither));
    if (covered <= 0) discard;
#ifdef COIF_SAMPLE_MASK
    int all = (1 << uSamples) - 1;
    int bits = (1 << min(covered, uSamples)) - 1;
    int rotate = int((noise >> 16) % uint(uSamples));
    gl_SampleMask[0] = ((bits << rotate) | (bits >> (uSamples - rotate))) & all;
#endif
    fragColor = vec4(vRadiance, 1.0);
}
