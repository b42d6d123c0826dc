// The lights as one std140 uniform block at binding 1, written once a frame from Lighting (Swift:
// LightingBlock in Sources/CoifRender/ShaderBlocks.swift): directions unit length, in GL view space;
// radiances linear and already scaled by the exposure. Include after the precision line.
layout(std140, binding = 1) uniform LightingBlock {
    vec3 uKeyDirection;        // offset  0
    vec3 uKeyRadiance;         // offset 16
    vec3 uFillDirection;       // offset 32
    vec3 uFillRadiance;        // offset 48
    vec3 uAmbientRadiance;     // offset 64
    float uHairSheen;          // offset 76: the share of the cuticle's highlight (R lobe) the lights put on hair
};
