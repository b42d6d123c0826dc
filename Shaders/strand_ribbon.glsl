// A strand ribbon's corner, expanded from the polyline points (shared by strand.vert and
// strand_depth.vert). Every strand has uPointsPerStrand points, stored in uPoints (RGBA32F, record i at
// (i % 2048, i / 2048)): xyz = position in head space (mm); the root's w = the strand's clump tone and
// random number packed as (tone level 0..255 + random) / 256 (StrandGeometry.packedRecord), negative (its
// sign bit set) for a flyaway; every later point's w = its cover (HairCover, 0 .. 1). A flyaway is drawn
// uFlyawayWidthScale as wide as the others (one strand as the catalog draws it, however wide the level of
// detail draws the locks).
// gl_VertexID = 2 * point + side, side 0 = left (-1), 1 = right (+1), offset perpendicular to the strand's
// direction on screen; the index buffer joins consecutive points of a strand with two triangles, so each
// corner is computed once however many triangles share it. Works for a perspective camera and for the
// key light's orthographic view alike (sizes on screen go through clip.w). Include after the precision
// lines.

uniform highp sampler2D uPoints;
uniform int uPointsPerStrand;
uniform mat4 uHeadToView;
uniform mat4 uViewToClip;
uniform vec2 uViewportPx;
uniform float uRootWidthMm;
uniform float uTipWidthMm;
uniform float uFlyawayWidthScale;

struct RibbonCorner {
    vec4 record;        // the point: head-space position, the strand's packed tone and random number (w >= 0)
    bool flyaway;       // the strand is a flyaway (the root's w's sign bit)
    float cover;        // how much hair lies over the point toward the sky, 0 .. 1 (HairCover)
    vec3 positionView;
    vec3 tangentView;
    vec4 clip;          // the corner, already offset sideways
    float along;        // 0 at the root, 1 at the tip
    float fromRootMm;   // straight-line distance from the strand's root (mm): its length near the root
    float coverage;     // real width / drawn width (<= 1 for sub-pixel strands)
    float side;         // -1 on the ribbon's left edge, +1 on its right
    float drawnPx;      // the ribbon's drawn width here (pixels)
};

vec4 pointRecord(int i) {
    return texelFetch(uPoints, ivec2(i % 2048, i / 2048), 0);
}

RibbonCorner ribbonCorner(int vertexID) {
    RibbonCorner corner;
    int segmentsPerStrand = uPointsPerStrand - 1;
    int point = vertexID >> 1;
    float side = (vertexID & 1) == 1 ? 1.0 : -1.0;
    int strand = point / uPointsPerStrand;
    int first = strand * uPointsPerStrand;
    int index = point - first;
    vec4 root = pointRecord(first);
    corner.record = index == 0 ? root : pointRecord(first + index);
    corner.flyaway = (floatBitsToUint(root.w) >> 31) != 0U;
    // w: the root's holds the strand's packed tone and random number, each later point's its cover (the root
    // takes its neighbour's).
    corner.cover = index == 0 ? pointRecord(first + 1).w : corner.record.w;
    corner.record.w = abs(root.w);
    corner.fromRootMm = index == 0 ? 0.0 : distance(corner.record.xyz, root.xyz);
    vec3 previous = pointRecord(first + max(index - 1, 0)).xyz;
    vec3 next = pointRecord(first + min(index + 1, segmentsPerStrand)).xyz;
    // Two points that coincide (a strand cut to zero length at its tip) have no direction: hang it down
    // rather than shade a NaN, which the multisample resolve would spread over the pixel and a blur wider.
    vec3 along = next - previous;
    vec3 tangentHead = dot(along, along) > 1e-12 ? normalize(along) : vec3(0.0, -1.0, 0.0);

    vec4 positionView = uHeadToView * vec4(corner.record.xyz, 1.0);
    corner.positionView = positionView.xyz;
    corner.tangentView = normalize(mat3(uHeadToView) * tangentHead);
    vec4 clip = uViewToClip * positionView;
    vec4 clipAhead = uViewToClip * (positionView + vec4(corner.tangentView, 0.0));
    vec2 screen = clip.xy / clip.w * uViewportPx;
    vec2 screenAhead = clipAhead.xy / clipAhead.w * uViewportPx;
    vec2 direction = screenAhead - screen;
    direction = dot(direction, direction) > 1e-12 ? normalize(direction) : vec2(1.0, 0.0);
    vec2 normalPx = vec2(-direction.y, direction.x);

    corner.along = float(index) / float(segmentsPerStrand);
    // A flyaway is no wider than the catalog draws a strand's middle, however near the root it leaves.
    float widthMm = corner.flyaway ? mix(uRootWidthMm, uTipWidthMm, max(corner.along, 0.5)) * uFlyawayWidthScale
                                   : mix(uRootWidthMm, uTipWidthMm, corner.along);
    // Pixels per millimetre at this depth: the projection's x scale in NDC, times half the viewport,
    // over w (the depth for the photo's camera, 1 for the light's orthographic view).
    float pixelsPerMm = uViewToClip[0][0] * 0.5 * uViewportPx.x / max(clip.w, 1e-3);
    float widthPx = widthMm * pixelsPerMm;
    // Sub-pixel strands are drawn one pixel wide and carry their true width as coverage, so thin hair
    // thins instead of vanishing between samples or fattening into a solid sheet.
    float drawnPx = max(widthPx, 1.0);
    corner.coverage = widthPx / drawnPx;
    corner.side = side;
    corner.drawnPx = drawnPx;
    clip.xy += normalPx * side * drawnPx / uViewportPx * clip.w;
    corner.clip = clip;
    return corner;
}
