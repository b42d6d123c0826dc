#version 320 es
// Strands as camera-facing ribbons, expanded here from the polyline points: no CPU-built triangles.
// Every strand has uPointsPerStrand points, stored in uPoints (RGBA32F, record i at (i % 2048, i / 2048)):
// xyz = position in head space (mm), w = the strand's random number in [0, 1).
// Drawn indexed: gl_VertexID = 2 * point + side, side 0 = left (-1), 1 = right (+1), offset perpendicular
// to the strand's screen-space direction; the index buffer joins consecutive points of a strand with two
// triangles, so each corner is shaded once however many triangles share it.
precision highp float;
precision highp int;

uniform highp sampler2D uPoints;
uniform int uPointsPerStrand;
uniform mat4 uHeadToView;
uniform mat4 uViewToClip;
uniform vec2 uViewportPx;
uniform float uRootWidthMm;
uniform float uTipWidthMm;
// Recolor and shading parameters (one Swift value type: HairShading) and the lights (Lighting), GL view
// space: one uniform block each.
#include "shading_block.glsl"
#include "lighting_block.glsl"
#include "hair_shading.glsl"

out vec3 vRadiance;       // linear, shaded at this corner
out float vAlongStrand;   // 0 at the root, 1 at the tip
out float vStrandRandom;  // [0, 1), fixed per strand
out float vCoverage;      // real width / drawn width (<= 1 for sub-pixel strands)

uint hashStrand(uint x) {
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}

// Shading runs here, once per ribbon corner, not per fragment: strands are a pixel or two wide, so the
// light varies along them, not across them, and a software rasteriser spends 3x less time this way.
// positionHead: for the hair volume's normal (head space's origin is the cranium's centre).
vec3 shade(vec3 positionView, vec3 positionHead, vec3 T, float along, float strandRandom) {
    vec3 V = normalize(-positionView);
    vec3 N = normalize(mat3(uHeadToView) * positionHead);
    // The strand's pigment: ombré along it, a seeded share of highlight strands, a per-strand spread.
    vec3 sigmaA = mix(uSigmaRoot, uSigmaTip, smoothstep(uOmbrePosition - uOmbreSoftness, uOmbrePosition + uOmbreSoftness, along));
    float second = float(hashStrand(uint(strandRandom * 16777216.0)) & 0xffffU) / 65536.0;
    if (second < uHighlightFraction) sigmaA = uSigmaHighlight;
    sigmaA *= 1.0 + uColorVariation * (strandRandom * 2.0 - 1.0);
    vec3 ms = multipleScatteringAlbedo(sigmaA);
    float occlusion = mix(1.0 - uRootOcclusion, 1.0, smoothstep(0.0, 0.6, along));
    vec3 radiance = hairRadiance(sigmaA, ms, T, N, uKeyDirection, V, uKeyRadiance)
                  + hairRadiance(sigmaA, ms, T, N, uFillDirection, V, uFillRadiance)
                  + uAmbientRadiance * ms;
    return radiance * occlusion;
}

vec4 pointRecord(int i) {
    return texelFetch(uPoints, ivec2(i % 2048, i / 2048), 0);
}

void main() {
    int segmentsPerStrand = uPointsPerStrand - 1;
    int point = gl_VertexID >> 1;
    float side = (gl_VertexID & 1) == 1 ? 1.0 : -1.0;
    int strand = point / uPointsPerStrand;
    int first = strand * uPointsPerStrand;
    int index = point - first;
    vec4 record = pointRecord(first + index);
    vec3 previous = pointRecord(first + max(index - 1, 0)).xyz;
    vec3 next = pointRecord(first + min(index + 1, segmentsPerStrand)).xyz;
    vec3 tangentHead = normalize(next - previous);

    vec4 positionView = uHeadToView * vec4(record.xyz, 1.0);
    vec3 tangentView = normalize(mat3(uHeadToView) * tangentHead);
    vec4 clip = uViewToClip * positionView;
    vec4 clipAhead = uViewToClip * (positionView + vec4(tangentView, 0.0));
    vec2 screen = clip.xy / clip.w * uViewportPx;
    vec2 screenAhead = clipAhead.xy / clipAhead.w * uViewportPx;
    vec2 direction = screenAhead - screen;
    direction = dot(direction, direction) > 1e-12 ? normalize(direction) : vec2(1.0, 0.0);
    vec2 normalPx = vec2(-direction.y, direction.x);

    float along = float(index) / float(segmentsPerStrand);
    float widthMm = mix(uRootWidthMm, uTipWidthMm, along);
    // Pixels per millimetre at this depth: the projection's x focal term in NDC, times half the viewport.
    float pixelsPerMm = uViewToClip[0][0] * 0.5 * uViewportPx.x / max(-positionView.z, 1e-3);
    float widthPx = widthMm * pixelsPerMm;
    // Sub-pixel strands are drawn one pixel wide and carry their true width as coverage, so thin hair
    // thins instead of vanishing between samples or fattening into a solid sheet.
    float drawnPx = max(widthPx, 1.0);
    vCoverage = widthPx / drawnPx;

    clip.xy += normalPx * side * drawnPx / uViewportPx * clip.w;
    gl_Position = clip;
    vRadiance = shade(positionView.xyz, record.xyz, tangentView, along, record.w);
    vAlongStrand = along;
    vStrandRandom = record.w;
}
