// The integer hash the hair stages share: strand.vert picks highlight strands with it, the fragment
// stages dither coverage with it (coverage_dither.glsl). Include after the precision lines.
uint coifHash(uint x) {
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}
