// The hair's shading parameters as one std140 uniform block at binding 0, written whole once a frame from
// HairShading (Swift: HairShadingBlock in Sources/CoifRender/ShaderBlocks.swift, same order and offsets).
// No instance name: the members are the global names the stages use. Include after the precision line.
layout(std140, binding = 0) uniform HairShadingBlock {
    vec3 uAlbedoLinear;        // offset  0: diffuse colour of the fibres, linear RGB
    float uColorVariation;     // offset 12: per-strand brightness spread, 0 .. 1
    vec3 uPrimaryTint;         // offset 16: R lobe colour, linear RGB
    float uPrimaryShift;       // offset 28: tangent shift of R (negative: toward the root)
    float uSecondaryShift;     // offset 32: tangent shift of TRT (positive: toward the tip)
    float uPrimaryExponent;    // offset 36
    float uSecondaryExponent;  // offset 40
    float uSpecularStrength;   // offset 44
    float uRootOcclusion;      // offset 48: how dark roots are from the hair above them, 0 .. 1
    float uTipFade;            // offset 52: fraction of the length over which tips thin out
};
