// Strand lighting terms, named after their sources. All vectors unit length, in GL view space.
//  T: strand tangent (root -> tip), N: the strand's normal facing the viewer, L: toward the light,
//  V: toward the eye, H: half vector.
// Kajiya & Kay, "Rendering fur with three dimensional textures", SIGGRAPH 1989:
//   diffuse   = sin(T, L)                      (a cylinder's diffuse reflectance integrated round it)
//   specular  = sin(T, H)^p                    (the cone of reflected light around the fibre)
// Two highlights after Marschner et al., "Light scattering from human hair fibers", SIGGRAPH 2003:
//   R   (primary, light-coloured) is shifted toward the root by the cuticle tilt (about -5 to -10 degrees);
//   TRT (secondary, tinted by the fibre's colour) is shifted toward the tip and is broader.
// Shifting the tangent along N moves a highlight along the strand (Scheuermann, "Hair rendering and
// shading", GDC 2004). This is the first-order model; the full physically based one is a later step.

float kajiyaKayDiffuse(vec3 T, vec3 L) {
    float cosTL = dot(T, L);
    return sqrt(max(1.0 - cosTL * cosTL, 0.0));
}

float kajiyaKaySpecular(vec3 T, vec3 H, float exponent) {
    float cosTH = dot(T, H);
    float sinTH = sqrt(max(1.0 - cosTH * cosTH, 0.0));
    // Fade the lobe where the half vector points back along the strand (no reflection there).
    return smoothstep(-1.0, 0.0, cosTH) * pow(sinTH, exponent);
}

vec3 shiftedTangent(vec3 T, vec3 N, float shift) {
    return normalize(T + shift * N);
}
