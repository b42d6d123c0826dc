#version 320 es
// The multisample resolve, done by Coif instead of glBlitFramebuffer: the box average of a pixel's
// samples, as the blit computes it. Software drivers compile the blit's internal shader afresh in every
// process (about 45 ms on llvmpipe) while this one comes from the driver's shader cache.
precision highp float;
precision highp int;

uniform highp sampler2DMS uSamples;
uniform int uSampleCount;

layout(location = 0) out vec4 fragColor;

void main() {
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    vec4 sum = vec4(0.0);
    for (int i = 0; i < uSampleCount; ++i) sum += texelFetch(uSamples, pixel, i);
    fragColor = sum / float(uSampleCount);
}
