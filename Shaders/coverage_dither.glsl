// Fractional coverage as a multisample mask (shared by strand.frag and shell.frag): how many of the
// pixel's uSamples samples a fragment covers, dithered by a hash of the photo's pixel and a per-primitive
// key (deterministic: no clock, no counter), and the rotated mask that covers them. Writing whole samples
// keeps the depth test per sample, so what is behind a half-covering fragment still shows through it.
// Include after the precision lines and hash.glsl (includes do not nest).
uniform int uSamples;
uniform ivec2 uPixelOrigin;        // where this target's pixel (0, 0) lies in the whole photo (a crop's corner)

// Samples covered (0 .. uSamples) for `coverage` in [0, 1]; sets gl_SampleMask where the context has it
// (on older contexts coverage falls back to whole pixels). The photo's pixel, not the target's: a crop
// must dither exactly as the whole image would.
int coverSamples(float coverage, uint key) {
    ivec2 photoPixel = ivec2(gl_FragCoord.xy) + uPixelOrigin;
    uint pixel = uint(photoPixel.x) * 73856093U ^ uint(photoPixel.y) * 19349663U;
    uint noise = coifHash(pixel ^ key);
    float dither = float(noise & 0xffffU) / 65536.0;
    int covered = min(int(floor(coverage * float(uSamples) + dither)), uSamples);
#ifdef COIF_SAMPLE_MASK
    if (covered > 0) {
        int all = (1 << uSamples) - 1;
        int bits = (1 << covered) - 1;
        int rotate = int((noise >> 16) % uint(uSamples));
        gl_SampleMask[0] = ((bits << rotate) | (bits >> (uSamples - rotate))) & all;
    }
#endif
    return covered;
}
