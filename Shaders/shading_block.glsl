// The hair's shading parameters as one std140 uniform block at binding 0, written whole once a frame from
// HairShading (Swift: HairShadingBlock in Sources/CoifRender/ShaderBlocks.swift, same order and offsets).
// No instance name: the members are the global names the stages use. Include after the precision line.
layout(std140, binding = 0) uniform HairShadingBlock {
    vec3 uSigmaRoot;            // offset  0: σ_a per unit radius at the root (melanin + dye), linear RGB
    float uColorVariation;      // offset 12: per-strand melanin spread, ±fraction
    vec3 uSigmaTip;             // offset 16: σ_a at the tips (the ombré's end; = root without one)
    float uOmbrePosition;       // offset 28: where root turns to tip, 0 .. 1 of the length
    vec3 uSigmaHighlight;       // offset 32: σ_a of highlight strands
    float uOmbreSoftness;       // offset 44: half-width of that turn
    float uHighlightFraction;   // offset 48: share of strands that are highlights
    float uLongitudinalWidth;   // offset 52: R lobe's standard deviation in sin θ (Chiang's √v)
    float uAzimuthalScale;      // offset 56: logistic scale of TT (Chiang's s)
    float uCuticleTilt;         // offset 60: radians
    float uIndexOfRefraction;   // offset 64
    float uOcclusionUnderHair;       // offset 68: light lost under hair that covers a point whole (HairCover), 0 .. 1
    float uTipFade;             // offset 72: fraction of the length over which tips thin out
    float uClumpVariation;      // offset 76: light a clump receives, ±fraction between clumps
    float uRootFadeMm;          // offset 80: length over which a strand grows in from nothing at its root
    float uStrandLightVariation;  // offset 84: light each strand catches of its own, ±fraction
    float uAlongLightVariation;   // offset 88: that light's swing along the strand, ±fraction
    float uFibreVariation;        // offset 92: light of each fibre a wide ribbon stands for, ±fraction (0: none drawn)
};
