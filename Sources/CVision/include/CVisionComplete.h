// CVisionComplete: a hole in a photo completed from the photo's own patches (patch_complete.cpp), copied only
// from the pixels the caller allows: multi-scale PatchMatch with EM voting, the method behind content-aware fill.
#ifndef COIF_CVISION_COMPLETE_H
#define COIF_CVISION_COMPLETE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CV_COMPLETE_OK = 0,
    CV_COMPLETE_BAD_INPUT = 1,   // a null pointer or a non-positive size
    CV_COMPLETE_NO_SOURCES = 2,  // no patch-sized window lies wholly on the sources, in the hole's margin or the photo
    CV_COMPLETE_FAILED = 3,      // OpenCV raised (out of memory)
} cv_complete_status;

// Fills, in place, the pixels of `rgb` (width × height × 3, rows top to bottom, tightly packed) where
// `hole_mask` (width × height, non-zero = fill) is set, copying 7×7 patches from windows lying wholly where
// `source_mask` (non-zero = may be copied; hole pixels never are) is set. Pixels that are neither keep their
// bytes and do not steer the match (a person beside the background hole). Every pixel outside the hole keeps
// its value. Same inputs and seed, same output bytes. The search runs on the hole's box and a margin resampled
// to at most 192 px on its long side, so its cost is bounded; the result is voted again at full resolution.
int32_t cv_complete_rgb8(uint8_t *rgb, int32_t width, int32_t height, const uint8_t *hole_mask, const uint8_t *source_mask,
                         uint64_t seed);
// The same for linear-light float RGB (any range; distances are squared differences of these values).
int32_t cv_complete_linear(float *rgb, int32_t width, int32_t height, const uint8_t *hole_mask, const uint8_t *source_mask,
                           uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif
