// patch_complete.hpp: completing a hole from the photo's own patches, copied only from the pixels allowed as sources.
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>

namespace coif {

// How the completion works; the defaults are the ones measured in docs/notes.md ("Background completion").
struct CompletionSettings {
    // Side of the square patches compared and voted (Wexler et al. use 7).
    int patchPx = 7;
    // The hole's box plus its margin is resampled so its long side is at most this: the search's cost is
    // bounded whatever the photo's size, and full-resolution detail comes back through the final vote. 192,
    // not 256: the completion's CPU time on a 512² portrait with her hair removed all round fell from ~300 to
    // ~115 ms with the pyramid's floor (kCoarsestLeastSources), and halo and texture over 20 portraits moved by
    // less than their spread (docs/measurements.md).
    int workLongSidePx = 192;
    // Context around the hole's box searched for sources, as a share of the box's long side (and at least
    // minMarginPx): enough of the background around a hole to continue it, not the whole photo.
    double marginShare = 0.6;
    int minMarginPx = 24;
    // The pyramid's coarsest level's long side: small enough that patches span the hole, large enough that a
    // thin line (a door frame) still shows there for the rim-inwards start to continue.
    int coarsestLongSidePx = 48;
    // EM iterations (search, then vote) at the coarsest level and at the finest; the levels between interpolate.
    int coarsestIterations = 8;
    int finestIterations = 3;
    // PatchMatch passes (propagation and random search) in a level's first EM iteration; later ones make one.
    int searchPasses = 2;
};

// What completeHole reports besides the image.
struct CompletionReport {
    cv::Rect workBox;       // the photo's region searched (the hole's box and its margin)
    double workScale = 1;   // working pixels per photo pixel (≤ 1)
    int levels = 0;         // pyramid levels used
    int sourcePatches = 0;  // candidate patches (wholly on the sources) at the working resolution
};

enum class CompletionStatus { ok, badInput, noSources };

// Multi-scale PatchMatch (Barnes et al. 2009) with EM voting (Wexler, Shechtman & Irani 2007): `photo`
// (CV_8UC3, or CV_32FC3 in linear light) inside `hole` (CV_8U, non-zero = fill) is replaced by patches copied
// from windows lying wholly on `source` (CV_8U, non-zero = may be copied; hole pixels never are). Pixels that
// are neither (a person beside the hole) are kept and are not compared, so their colours neither come in nor
// steer the match. Same inputs and seed, same bytes: randomness is a hash of the pixel, the pass and `seed`,
// and the threaded parts write each pixel from values fixed before them. `out` gets a copy of `photo` with
// the hole filled; pixels outside the hole keep their bytes.
CompletionStatus completeHole(const cv::Mat &photo, const cv::Mat &hole, const cv::Mat &source, uint64_t seed, cv::Mat &out,
                              const CompletionSettings &settings = {}, CompletionReport *report = nullptr);

}  // namespace coif
