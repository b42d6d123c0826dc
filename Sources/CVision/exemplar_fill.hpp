// exemplar_fill.hpp: filling a hole with tiles of the photo's own texture (used by hair_plate.cpp).
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>
#include <vector>

namespace coif {

// A uniform value in [0, 1) from a pixel and a seed (SplitMix64's finaliser).
inline float hash01(uint64_t x, uint64_t y, uint64_t seed) {
    uint64_t z = seed ^ (x * 0x9E3779B97F4A7C15ull) ^ (y * 0xC2B2AE3D27D4EB4Full);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return float(z >> 40) / float(1ull << 24);
}

// `mask` (CV_8U) at `size` (area-resampled): where every pixel a new pixel covers is set (`whole`), or any is.
cv::Mat maskAt(const cv::Mat &mask, cv::Size size, bool whole);

// The centres of `tile`-px square tiles lying wholly on `source` (CV_8U), every other pixel: enough choice at
// a quarter of the list. The sources quiltPlan copies from.
std::vector<cv::Point> tileCentres(const cv::Mat &source, int tile);

// One tile laid by the exemplar fill: its top-left corner, and the top-left corner of the photo's tile copied there.
struct TilePlacement {
    cv::Point place, from;
};

// Image quilting (Efros & Freeman 2001) laid in onion-peel order (the tiles nearest the hole's rim first, as
// Criminisi et al. 2004 fill): each `tile`-px square tile of `target` (CV_8U) is the candidate, among the
// source tiles nearest it (centres `centres`, tiles wholly on the sources), whose pixels best match what is
// known under it (`known`, CV_8U: the untouched sources, and the tiles laid before), while its mean keeps to
// `canvas`'s (which holds the smooth fill inside `target` on entry), so deep in a large hole the colour still
// follows the rim. Among candidates within 15% of the best a hash of the place and the seed picks, and each
// earlier use of a source tile raises its cost by half: neighbouring tiles rarely repeat one patch, and a
// distinctive one does not march across the hole. Tiles overlap by a quarter, feathered. Only places whose
// centre `allowed` (CV_8U) marks get a tile. `photo`, `canvas`: CV_32FC3. Returns the tiles laid, in order.
std::vector<TilePlacement> quiltPlan(const cv::Mat &photo, cv::Mat &canvas, const cv::Mat &target, const cv::Mat &known,
                                     const cv::Mat &allowed, const std::vector<cv::Point> &centres, int tile, uint64_t seed);

// The tiles of `plan` (laid at `scale` (≤ 1) of `photo`'s size, `tile` px there) pasted at `photo`'s own
// resolution, feathered as they were matched: the match sees structure at the scale the eye compares (a tile
// ~1/20 of the head), the paste keeps the photo's own sharpness. Overlapping tiles blend their means linearly
// and their texture keeping its variance. Into `canvas` inside `target`; `laid` (CV_8U) marks where a tile landed.
void pasteTiles(const cv::Mat &photo, const cv::Mat &target, const std::vector<TilePlacement> &plan, int tile, double scale,
                cv::Mat &canvas, cv::Mat &laid);

}  // namespace coif
