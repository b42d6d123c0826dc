// patch_complete.cpp: a hole completed from the photo's own patches, the method behind content-aware fill:
// PatchMatch's randomised nearest-neighbour search (Barnes, Shechtman, Finkelstein & Goldman 2009) inside
// Wexler, Shechtman & Irani's (2007) EM completion, coarse to fine. Lines and textures continue across the
// hole because every patch over it must match a real patch of the sources, and overlapping patches vote.
// The search runs on the hole's box and margin at a bounded size; the nearest-neighbour field found there is
// scaled to the photo's resolution and voted once more there, so the photo's own grain is copied, not blurred.
#include "patch_complete.hpp"

#include "CVisionComplete.h"

#include <opencv2/core/hal/intrin.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace coif {
namespace {

// Counter-based randomness (SplitMix64's finaliser over the pixel, pass and seed): no state shared between
// pixels, so the order pixels are visited in never changes what they draw.
inline uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
inline uint64_t draw(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
    return mix(seed ^ mix(a * 0x9E3779B97F4A7C15ull ^ mix(b * 0xC2B2AE3D27D4EB4Full ^ mix(c + 0x165667B19E3779F9ull))));
}
// A uniform integer in [-radius, radius].
inline int drawOffset(uint64_t bits, int radius) { return int(bits % uint64_t(2 * radius + 1)) - radius; }

// Wexler et al.'s confidence falls by this factor per pixel into the hole: patches near the rim, which see
// more of the real photo, outvote those deep inside.
constexpr float kConfidenceFalloff = 1.3f;
// The pyramid goes down while a level still holds this many source patches. The floor was a hundredth of the
// level's targets: where hair hid nearly all the background round a head, that stopped the pyramid at ~150 px,
// whose rim-inward peel (brute force over every source) and eight iterations then cost most of the plate.
constexpr int kCoarsestLeastSources = 8;
// The vote's similarity weight exp(-d / 2σ²) takes σ² at this quantile of the level's patch distances (Wexler et al.).
constexpr double kSimilarityQuantile = 0.75;

// One pyramid level. Images and weights are padded by the patch radius so a window never leaves them;
// coordinates everywhere are the unpadded ones.
struct Level {
    int r = 3;
    cv::Size size;
    cv::Mat image;   // CV_32FC4 (RGB and a constant 1, for 4-wide SIMD), padded
    cv::Mat weight;  // CV_32F, padded: 1 where compared (hole or source), 0 elsewhere (non-sources, outside)
    cv::Mat hole;    // CV_8U
    cv::Mat valid;   // CV_8U: centres whose whole window lies on the sources
    cv::Mat confidence;  // CV_32F
    std::vector<cv::Point> validList;
    std::vector<cv::Point> targets;  // centres whose window touches the hole, in raster order
    cv::Mat targetIndex;             // CV_32S: index into targets, -1 elsewhere
    std::vector<cv::Point> nnf;      // per target: the source centre it copies
    std::vector<float> distance;     // per target: weighted squared difference to it
    std::vector<float> windowWeight; // per target: the sum of its window's weights
    std::vector<float> voteWeight;   // per target: its weight in the vote

    cv::Vec4f *px(int y, int x) { return image.ptr<cv::Vec4f>(y + r) + x + r; }
    const cv::Vec4f *px(int y, int x) const { return image.ptr<cv::Vec4f>(y + r) + x + r; }
    const float *wt(int y, int x) const { return weight.ptr<float>(y + r) + x + r; }
    bool isValid(cv::Point q) const {
        return q.x >= 0 && q.y >= 0 && q.x < size.width && q.y < size.height && valid.at<uint8_t>(q) != 0;
    }
    int target(cv::Point p) const {
        if (p.x < 0 || p.y < 0 || p.x >= size.width || p.y >= size.height) return -1;
        return targetIndex.at<int>(p);
    }

    // The weighted squared difference between the windows at p (target) and q (source), abandoned once it
    // passes `cutoff` (the result is then only known to be ≥ cutoff).
    float patchDistance(cv::Point p, cv::Point q, float cutoff) const {
        float sum = 0;
        const int side = 2 * r + 1;
        for (int dy = -r; dy <= r; ++dy) {
            const float *a = px(p.y + dy, p.x - r)->val, *b = px(q.y + dy, q.x - r)->val;
            const float *w = wt(p.y + dy, p.x - r);
            cv::v_float32x4 row = cv::v_setzero_f32();
            for (int dx = 0; dx < side; ++dx) {
                const cv::v_float32x4 d = cv::v_load(a + 4 * dx) - cv::v_load(b + 4 * dx);
                row = cv::v_fma(d * d, cv::v_setall_f32(w[dx]), row);
            }
            sum += cv::v_reduce_sum(row);
            if (sum >= cutoff) return sum;
        }
        return sum;
    }
};

cv::Mat padded(const cv::Mat &m, int r, int border) {
    cv::Mat out;
    cv::copyMakeBorder(m, out, r, r, r, r, border, cv::Scalar::all(0));
    return out;
}

// `mask` (CV_8U) at `size`: where every photo pixel a new pixel covers is set (`whole`), or where any is.
cv::Mat maskAt(const cv::Mat &mask, cv::Size size, bool whole) {
    if (mask.size() == size) return mask.clone();
    cv::Mat f, small;
    mask.convertTo(f, CV_32F, 1.0 / 255);
    cv::resize(f, small, size, 0, 0, cv::INTER_AREA);
    return whole ? (small > 0.999f) : (small > 0.001f);
}

// Builds a level from its image (unpadded CV_32FC3 or CV_32FC4) and masks.
Level makeLevel(const cv::Mat &image, const cv::Mat &hole, const cv::Mat &source, int r) {
    Level level;
    level.r = r;
    level.size = image.size();
    level.hole = hole;
    const cv::Mat sourceOnly = source & ~hole;
    cv::Mat rgba = image;
    if (image.channels() == 3) cv::cvtColor(image, rgba, cv::COLOR_RGB2RGBA);
    level.image = padded(rgba, r, cv::BORDER_REPLICATE);
    cv::Mat compared;
    cv::Mat(hole | sourceOnly).convertTo(compared, CV_32F, 1.0 / 255);
    level.weight = padded(compared, r, cv::BORDER_CONSTANT);
    cv::erode(sourceOnly, level.valid, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * r + 1, 2 * r + 1)),
              cv::Point(-1, -1), 1, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::findNonZero(level.valid, level.validList);
    cv::Mat near;
    cv::dilate(hole, near, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * r + 1, 2 * r + 1)));
    level.targetIndex = cv::Mat(level.size, CV_32S, cv::Scalar(-1));
    for (int y = 0; y < level.size.height; ++y) {
        const uint8_t *n = near.ptr<uint8_t>(y);
        for (int x = 0; x < level.size.width; ++x)
            if (n[x]) {
                level.targetIndex.at<int>(y, x) = int(level.targets.size());
                level.targets.emplace_back(x, y);
            }
    }
    // Confidence: γ^-(distance from the known photo), 1 outside the hole.
    cv::Mat distance;
    cv::distanceTransform(hole, distance, cv::DIST_L2, cv::DIST_MASK_PRECISE);
    level.confidence = cv::Mat(level.size, CV_32F);
    const float logFalloff = std::log(kConfidenceFalloff);
    for (int y = 0; y < level.size.height; ++y) {
        const float *d = distance.ptr<float>(y);
        float *c = level.confidence.ptr<float>(y);
        for (int x = 0; x < level.size.width; ++x) c[x] = d[x] > 0 ? std::exp(-logFalloff * d[x]) : 1.0f;
    }
    const size_t n = level.targets.size();
    level.nnf.assign(n, cv::Point(0, 0));
    level.distance.assign(n, 0);
    level.voteWeight.assign(n, 0);
    level.windowWeight.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const cv::Point p = level.targets[i];
        float sum = 0;
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx) sum += *level.wt(p.y + dy, p.x + dx);
        level.windowWeight[i] = sum;
    }
    return level;
}

// The coarsest level's start, peeled from the rim inwards as Criminisi et al. (2004) order their fill: each
// ring of hole pixels next to what is known takes the centre of the source patch that best matches its window's
// known pixels (the sources and the rings before it). Lines reaching the rim continue inwards, where a smooth
// start would grey them out before the search ever sees them. The patch each pixel copied becomes its target's
// first match, so the first vote keeps what the peel continued. Each ring reads only the rings before it, so
// the threads that share a ring never read each other's writes. Brute force: the level is tiny.
void peelFill(Level &level) {
    const int r = level.r;
    cv::Mat known;
    level.weight(cv::Rect(r, r, level.size.width, level.size.height)).convertTo(known, CV_8U, 255);
    known.setTo(0, level.hole);
    cv::Mat knownPadded = padded(known, r, cv::BORDER_CONSTANT);
    cv::Mat remaining = level.hole.clone();
    const cv::Mat cross = cv::getStructuringElement(cv::MORPH_CROSS, cv::Size(3, 3));
    cv::Mat brightness;
    cv::transform(level.image, brightness, cv::Matx14f(1.0f / 3, 1.0f / 3, 1.0f / 3, 0));
    const int stride = int(brightness.step1());
    while (cv::countNonZero(remaining) > 0) {
        cv::Mat inner;
        cv::erode(remaining, inner, cross, cv::Point(-1, -1), 1, cv::BORDER_CONSTANT, cv::Scalar(255));
        cv::Mat ring = remaining & ~inner;
        if (cv::countNonZero(ring) == 0) ring = remaining.clone();  // a hole covering the whole level: no rim
        std::vector<cv::Point> ringPixels;
        cv::findNonZero(ring, ringPixels);
        std::vector<cv::Vec4f> values(ringPixels.size());
        std::vector<cv::Point> matches(ringPixels.size());
        cv::parallel_for_(cv::Range(0, int(ringPixels.size())), [&](const cv::Range &range) {
            for (int i = range.start; i < range.end; ++i) {
                const cv::Point p = ringPixels[i];
                // Only the window's known pixels are compared: their offsets, and p's values there.
                // Brightness only, a third of the work: the searches after this start compare colour.
                std::vector<int> offsets;
                std::vector<float> known;
                for (int dy = -r; dy <= r; ++dy)
                    for (int dx = -r; dx <= r; ++dx)
                        if (knownPadded.at<uint8_t>(p.y + dy + r, p.x + dx + r)) {
                            offsets.push_back(dy * stride + dx);
                            known.push_back(brightness.at<float>(p.y + dy + r, p.x + dx + r));
                        }
                float best = std::numeric_limits<float>::max();
                cv::Point bestQ = level.validList[0];
                for (const cv::Point q : level.validList) {
                    const float *b = brightness.ptr<float>(q.y + r) + q.x + r;
                    float sum = 0;
                    for (size_t k = 0; k < offsets.size() && sum < best; ++k) {
                        const float d = known[k] - b[offsets[k]];
                        sum += d * d;
                    }
                    if (sum < best) {
                        best = sum;
                        bestQ = q;
                    }
                }
                values[i] = *level.px(bestQ.y, bestQ.x);
                matches[i] = bestQ;
            }
        });
        for (size_t i = 0; i < ringPixels.size(); ++i) {
            *level.px(ringPixels[i].y, ringPixels[i].x) = values[i];
            const int j = level.target(ringPixels[i]);
            if (j >= 0) level.nnf[j] = matches[i];
            brightness.at<float>(ringPixels[i].y + r, ringPixels[i].x + r) = (values[i][0] + values[i][1] + values[i][2]) / 3;
            knownPadded.at<uint8_t>(ringPixels[i].y + r, ringPixels[i].x + r) = 255;
        }
        remaining.setTo(0, ring);
    }
}

void computeDistances(Level &level) {
    cv::parallel_for_(cv::Range(0, int(level.targets.size())), [&](const cv::Range &range) {
        for (int i = range.start; i < range.end; ++i)
            level.distance[i] = level.patchDistance(level.targets[i], level.nnf[i], std::numeric_limits<float>::max());
    });
}

// PatchMatch's passes run on this many bands of rows at once. Fixed, not the thread count, so the result does
// not depend on the machine.
constexpr int kSearchBands = 8;

// PatchMatch: each target's source replaced by a better one propagated from its scan-order neighbours
// (shifted by one) or drawn at halving radii around the current one. A target reads its band's results of
// this pass; across a band's first row it reads the field as the pass began, so bands run in parallel and
// give the same field whatever the scheduling.
void search(Level &level, uint64_t seed, uint64_t passId, bool forward, int maxRadius) {
    const int n = int(level.targets.size());
    if (n == 0) return;
    const int step = forward ? 1 : -1;
    const std::vector<cv::Point> before = level.nnf;
    // Band b holds the targets of rows [rowStart[b], rowStart[b + 1]).
    const int top = level.targets.front().y, bottom = level.targets.back().y + 1;
    std::vector<int> bandFirst(kSearchBands + 1, n);
    for (int b = 0, i = 0; b <= kSearchBands; ++b) {
        const int row = top + int((int64_t(bottom - top) * b) / kSearchBands);
        while (i < n && level.targets[i].y < row) ++i;
        bandFirst[b] = b == kSearchBands ? n : i;
    }
    cv::parallel_for_(cv::Range(0, kSearchBands), [&](const cv::Range &bands) {
        for (int b = bands.start; b < bands.end; ++b) {
            const int first = bandFirst[b], last = bandFirst[b + 1];
            for (int k = first; k < last; ++k) {
                const int i = forward ? k : first + last - 1 - k;
                const cv::Point p = level.targets[i];
                cv::Point best = level.nnf[i];
                float bestD = level.distance[i];
                auto consider = [&](cv::Point q) {
                    if (q == best || !level.isValid(q)) return;
                    const float d = level.patchDistance(p, q, bestD);
                    if (d < bestD) {
                        bestD = d;
                        best = q;
                    }
                };
                for (const cv::Point shift : {cv::Point(step, 0), cv::Point(0, step)}) {
                    const int j = level.target(p - shift);
                    if (j >= 0) consider((j >= first && j < last ? level.nnf[j] : before[j]) + shift);
                }
                int trial = 0;
                for (int radius = maxRadius; radius >= 1; radius /= 2, ++trial) {
                    const uint64_t bits = draw(seed, passId, uint64_t(i), uint64_t(trial));
                    consider(best + cv::Point(drawOffset(bits, radius), drawOffset(bits >> 32, radius)));
                }
                level.nnf[i] = best;
                level.distance[i] = bestD;
            }
        }
    });
}

// Each target's weight in the vote: its match's similarity (exp(-d/2σ²), σ² the level's 75th percentile of
// per-pixel distances) times its centre's confidence.
void computeVoteWeights(Level &level) {
    const size_t n = level.targets.size();
    std::vector<float> perPixel(n);
    for (size_t i = 0; i < n; ++i) perPixel[i] = level.distance[i] / std::max(1.0f, level.windowWeight[i]);
    std::vector<float> sorted = perPixel;
    const size_t at = std::min(n - 1, size_t(kSimilarityQuantile * double(n)));
    std::nth_element(sorted.begin(), sorted.begin() + at, sorted.end());
    const float sigma2 = std::max(sorted[at], 1e-6f);
    for (size_t i = 0; i < n; ++i)
        level.voteWeight[i] = std::exp(-perPixel[i] / (2 * sigma2)) * level.confidence.at<float>(level.targets[i]) + 1e-12f;
}

// The vote: each hole pixel the weighted mean of what the patches over it copy there. Gathered per pixel, so
// threads never share a write; sources are never holes, so no read sees a value written in this vote.
void vote(Level &level) {
    const int r = level.r;
    cv::parallel_for_(cv::Range(0, level.size.height), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; ++y) {
            const uint8_t *h = level.hole.ptr<uint8_t>(y);
            for (int x = 0; x < level.size.width; ++x) {
                if (!h[x]) continue;
                cv::Vec4f sum(0, 0, 0, 0);
                float total = 0;
                for (int oy = -r; oy <= r; ++oy)
                    for (int ox = -r; ox <= r; ++ox) {
                        const int j = level.target(cv::Point(x - ox, y - oy));
                        if (j < 0) continue;
                        const cv::Point q = level.nnf[j];
                        const float w = level.voteWeight[j];
                        sum += w * *level.px(q.y + oy, q.x + ox);
                        total += w;
                    }
                if (total > 0) *level.px(y, x) = sum / total;
            }
        }
    });
}

void randomInit(Level &level, uint64_t seed, uint64_t passId) {
    const uint64_t count = level.validList.size();
    for (size_t i = 0; i < level.targets.size(); ++i) level.nnf[i] = level.validList[draw(seed, passId, i, 0) % count];
}

// The coarser level's field carried to `fine`: each target keeps its coarse match's offset, scaled; where
// that lands off the sources, a random source. Vote weights come along, for the vote that starts the level.
void upsampleField(const Level &coarse, Level &fine, uint64_t seed, uint64_t passId) {
    const double fx = double(fine.size.width) / coarse.size.width, fy = double(fine.size.height) / coarse.size.height;
    const uint64_t count = fine.validList.size();
    for (size_t i = 0; i < fine.targets.size(); ++i) {
        const cv::Point p = fine.targets[i];
        const cv::Point pc(std::min(coarse.size.width - 1, int(p.x / fx)), std::min(coarse.size.height - 1, int(p.y / fy)));
        const int j = coarse.target(pc);
        cv::Point q(-1, -1);
        float w = 1e-12f;
        if (j >= 0) {
            const cv::Point offset = coarse.nnf[j] - pc;
            q = p + cv::Point(int(std::lround(offset.x * fx)), int(std::lround(offset.y * fy)));
            w = coarse.voteWeight[j];
        }
        if (!fine.isValid(q)) q = fine.validList[draw(seed, passId, i, 0) % count];
        fine.nnf[i] = q;
        fine.voteWeight[i] = w;
    }
}

void iterate(Level &level, int iterations, int passes, bool coarsest, uint64_t seed, uint64_t &passId) {
    // The random search reaches the whole level at the coarsest; below it the field carried down is already
    // near, and draws a quarter of the level away only cost time.
    const int longSide = std::max(level.size.width, level.size.height), maxRadius = coarsest ? longSide : longSide / 4;
    for (int it = 0; it < iterations; ++it) {
        computeDistances(level);
        // The level's first iteration searches from the field carried down; the later ones only touch it up.
        const int thisPasses = it == 0 ? passes : 1;
        for (int pass = 0; pass < thisPasses; ++pass) search(level, seed, ++passId, (it + pass) % 2 == 0, maxRadius);
        computeVoteWeights(level);
        vote(level);
    }
}

template <typename T> T fromWork(const cv::Vec4f &v);
template <> cv::Vec3f fromWork(const cv::Vec4f &v) { return cv::Vec3f(v[0], v[1], v[2]); }
template <> cv::Vec3b fromWork(const cv::Vec4f &v) {
    return cv::Vec3b(cv::saturate_cast<uint8_t>(v[0] * 255), cv::saturate_cast<uint8_t>(v[1] * 255), cv::saturate_cast<uint8_t>(v[2] * 255));
}

// The result at the photo's resolution. Each photo pixel's patch chooses among the offsets of the (up to four)
// working pixels round it, scaled up, the one whose full-resolution window (wholly on the sources) best matches
// the guide there: the photo where it is known, the working result upsampled in the hole. Its weight is that
// match's similarity (σ² at kSimilarityQuantile of them) times the hole's confidence at full resolution. Each
// hole pixel then takes its value from the best-weighted of the patches over it (winner takes all, not the
// mean the search's votes take): the mean of patches that agree only in colour would be a blur of their grain,
// while neighbouring pixels mostly share a winner, so whole patches of the photo are copied at its own
// resolution. Where two copies meet, the seam follows what each matches, not the working grid: the nearest
// working pixel's offset and weight alone put every seam on that grid, a staircase of 2–5 px steps along a
// jacket's edge behind a ponytail (deep3dfacerecon 000002). A pixel no valid patch reaches takes the working
// result's pixel. `image` (the photo's box, T its pixel type), `hole` and `source` are the box's; hole pixels
// of `out` (the box of the output) are written.
template <typename T>
void finalVote(const Level &work, double scale, const cv::Mat &image, const cv::Mat &hole, const cv::Mat &source, cv::Mat &out) {
    const int r = work.r;
    const int width = image.cols, height = image.rows;
    cv::Mat valid;
    const cv::Mat window = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * r + 1, 2 * r + 1));
    cv::erode(source & ~hole, valid, window, cv::Point(-1, -1), 1, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::Rect near = cv::boundingRect(hole);
    near = cv::Rect(near.x - r, near.y - r, near.width + 2 * r, near.height + 2 * r) & cv::Rect(0, 0, width, height);
    auto workPixel = [&](int x, int y) {
        return cv::Point(std::min(work.size.width - 1, int((x + 0.5) * scale)), std::min(work.size.height - 1, int((y + 0.5) * scale)));
    };
    // Along one axis (`n` working pixels), the two working pixels a photo coordinate `c` lies between and its
    // share of the way from the first to the second, for bilinear reads.
    struct Between { int first, second; float t; };
    auto between = [&](int c, int n) {
        const float w = std::min(std::max(float((c + 0.5) * scale - 0.5), 0.0f), float(n - 1));
        const int first = int(w);
        return Between{first, std::min(first + 1, n - 1), w - float(first)};
    };
    // The guide over `near`: the photo (in the working level's units) where it is known, the working result
    // upsampled bilinearly in the hole. Windows reaching past the photo's edge read its nearest pixel.
    const float unit = image.depth() == CV_8U ? 1.0f / 255 : 1.0f;
    auto photoAt = [&](int x, int y) {
        const T &v = image.at<T>(y, x);
        return cv::Vec3f(float(v[0]) * unit, float(v[1]) * unit, float(v[2]) * unit);
    };
    cv::Mat guide(near.size(), CV_32FC3);
    cv::parallel_for_(cv::Range(0, near.height), [&](const cv::Range &rows) {
        for (int ny = rows.start; ny < rows.end; ++ny) {
            const int y = ny + near.y;
            const uint8_t *h = hole.ptr<uint8_t>(y);
            cv::Vec3f *g = guide.ptr<cv::Vec3f>(ny);
            const Between by = between(y, work.size.height);
            for (int nx = 0; nx < near.width; ++nx) {
                const int x = nx + near.x;
                if (!h[x]) {
                    g[nx] = photoAt(x, y);
                    continue;
                }
                const Between bx = between(x, work.size.width);
                const cv::Vec4f v = (*work.px(by.first, bx.first) * (1 - bx.t) + *work.px(by.first, bx.second) * bx.t) * (1 - by.t) +
                                    (*work.px(by.second, bx.first) * (1 - bx.t) + *work.px(by.second, bx.second) * bx.t) * by.t;
                g[nx] = cv::Vec3f(v[0], v[1], v[2]);
            }
        }
    });
    // The squared difference between the guide's window at p and the photo's at q (a valid source centre, so its
    // window lies inside the photo), abandoned once it passes `cutoff`. Every other row and column of the window
    // (16 of 49 pixels for 7×7): the guide is the working result upsampled, no sharper than that, and the whole
    // window cost a 2000×2400 photo's plate a quarter more.
    auto windowDistance = [&](cv::Point p, cv::Point q, float cutoff) {
        float sum = 0;
        for (int dy = -r; dy <= r; dy += 2) {
            const int gy = std::min(std::max(p.y + dy - near.y, 0), near.height - 1);
            const cv::Vec3f *g = guide.ptr<cv::Vec3f>(gy);
            for (int dx = -r; dx <= r; dx += 2) {
                const int gx = std::min(std::max(p.x + dx - near.x, 0), near.width - 1);
                const cv::Vec3f d = g[gx] - photoAt(q.x + dx, q.y + dy);
                sum += d.dot(d);
            }
            if (sum >= cutoff) return sum;
        }
        return sum;
    };
    // The hole's confidence at full resolution: the working level's falloff per working pixel of depth.
    // (Exact over `near`: the nearest known pixel to any hole pixel lies within the hole's box or on the ring
    // just outside it.)
    cv::Mat depth;
    cv::distanceTransform(hole(near), depth, cv::DIST_L2, cv::DIST_MASK_PRECISE);
    const float logFalloff = std::log(kConfidenceFalloff) * float(scale);
    // The field at full resolution near the hole: each patch's source centre (x -1: none), its window's distance
    // to the guide and then its weight.
    cv::Mat from(near.size(), CV_32SC2, cv::Scalar(-1, -1));
    cv::Mat weight(near.size(), CV_32F, cv::Scalar(0));
    cv::parallel_for_(cv::Range(0, near.height), [&](const cv::Range &rows) {
        for (int ny = rows.start; ny < rows.end; ++ny) {
            const int y = ny + near.y;
            cv::Vec2i *f = from.ptr<cv::Vec2i>(ny);
            float *w = weight.ptr<float>(ny);
            const Between by = between(y, work.size.height);
            for (int nx = 0; nx < near.width; ++nx) {
                const int x = nx + near.x;
                const Between bx = between(x, work.size.width);
                // The nearest working pixel first (it is one of the four): an exact tie keeps its offset.
                const cv::Point around[5] = {workPixel(x, y), {bx.first, by.first}, {bx.second, by.first}, {bx.first, by.second},
                                             {bx.second, by.second}};
                cv::Point tried[5];
                int triedCount = 0;
                float best = std::numeric_limits<float>::max();
                for (const cv::Point &pw : around) {
                    const int j = work.target(pw);
                    if (j < 0) continue;
                    const cv::Point offset = work.nnf[j] - pw;
                    const cv::Point q(x + int(std::lround(offset.x / scale)), y + int(std::lround(offset.y / scale)));
                    if (q.x < 0 || q.y < 0 || q.x >= width || q.y >= height || !valid.at<uint8_t>(q)) continue;
                    if (std::find(tried, tried + triedCount, q) != tried + triedCount) continue;
                    tried[triedCount++] = q;
                    const float d = windowDistance(cv::Point(x, y), q, best);
                    if (d < best) {
                        best = d;
                        f[nx] = cv::Vec2i(q.x, q.y);
                    }
                }
                if (f[nx][0] >= 0) w[nx] = best;
            }
        }
    });
    std::vector<float> distances;
    distances.reserve(size_t(near.area()));
    for (int ny = 0; ny < near.height; ++ny) {
        const cv::Vec2i *f = from.ptr<cv::Vec2i>(ny);
        const float *w = weight.ptr<float>(ny);
        for (int nx = 0; nx < near.width; ++nx)
            if (f[nx][0] >= 0) distances.push_back(w[nx]);
    }
    if (!distances.empty()) {
        const size_t at = std::min(distances.size() - 1, size_t(kSimilarityQuantile * double(distances.size())));
        std::nth_element(distances.begin(), distances.begin() + at, distances.end());
        const float sigma2 = std::max(distances[at], 1e-6f);
        cv::parallel_for_(cv::Range(0, near.height), [&](const cv::Range &rows) {
            for (int ny = rows.start; ny < rows.end; ++ny) {
                const cv::Vec2i *f = from.ptr<cv::Vec2i>(ny);
                const float *d = depth.ptr<float>(ny);
                float *w = weight.ptr<float>(ny);
                for (int nx = 0; nx < near.width; ++nx)
                    if (f[nx][0] >= 0) w[nx] = std::exp(-w[nx] / (2 * sigma2) - logFalloff * d[nx]) + 1e-12f;
            }
        });
    }
    // The winner over the (2r+1)² patches covering each pixel, separably: along each row first (the first of
    // the best by ox), then down the columns (the first of the best by oy): the nested scan's choice, at 2(2r+1)
    // reads a pixel instead of (2r+1)².
    cv::Mat rowOffset(near.size(), CV_8S, cv::Scalar(0)), rowWeight(near.size(), CV_32F, cv::Scalar(-1));
    cv::parallel_for_(cv::Range(0, near.height), [&](const cv::Range &rows) {
        for (int ny = rows.start; ny < rows.end; ++ny) {
            const cv::Vec2i *f = from.ptr<cv::Vec2i>(ny);
            const float *w = weight.ptr<float>(ny);
            int8_t *bestOffset = rowOffset.ptr<int8_t>(ny);
            float *bestWeight = rowWeight.ptr<float>(ny);
            for (int nx = 0; nx < near.width; ++nx)
                for (int ox = -r; ox <= r; ++ox) {
                    const int px = nx - ox;
                    if (px < 0 || px >= near.width || f[px][0] < 0 || w[px] <= bestWeight[nx]) continue;
                    bestWeight[nx] = w[px];
                    bestOffset[nx] = int8_t(ox);
                }
        }
    });
    cv::parallel_for_(cv::Range(near.y, near.y + near.height), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; ++y) {
            const uint8_t *h = hole.ptr<uint8_t>(y);
            for (int x = near.x; x < near.x + near.width; ++x) {
                if (!h[x]) continue;
                const int nx = x - near.x;
                float best = -1;
                cv::Point winner(-1, -1);
                for (int oy = -r; oy <= r; ++oy) {
                    const int py = y - oy - near.y;
                    if (py < 0 || py >= near.height || rowWeight.at<float>(py, nx) <= best) continue;
                    best = rowWeight.at<float>(py, nx);
                    const int ox = rowOffset.at<int8_t>(py, nx);
                    const cv::Vec2i f = from.at<cv::Vec2i>(py, nx - ox);
                    winner = cv::Point(f[0] + ox, f[1] + oy);
                }
                if (winner.x >= 0) {
                    out.at<T>(y, x) = image.at<T>(winner);
                } else {
                    const cv::Point pw = workPixel(x, y);
                    out.at<T>(y, x) = fromWork<T>(*work.px(pw.y, pw.x));
                }
            }
        }
    });
}

}  // namespace

CompletionStatus completeHole(const cv::Mat &photo, const cv::Mat &holeIn, const cv::Mat &sourceIn, uint64_t seed, cv::Mat &out,
                              const CompletionSettings &settings, CompletionReport *report) {
    if (photo.empty() || (photo.type() != CV_8UC3 && photo.type() != CV_32FC3) || holeIn.type() != CV_8U ||
        sourceIn.type() != CV_8U || holeIn.size() != photo.size() || sourceIn.size() != photo.size() || settings.patchPx < 3 ||
        settings.patchPx % 2 == 0 || settings.workLongSidePx < 4 * settings.patchPx)
        return CompletionStatus::badInput;
    out = photo.clone();
    const cv::Mat hole = holeIn != 0, source = (sourceIn != 0) & (holeIn == 0);
    if (cv::countNonZero(hole) == 0) return CompletionStatus::ok;
    const int r = settings.patchPx / 2;

    // The box searched: the hole's, with a margin; the whole photo when the margin holds no source patch.
    const cv::Rect holeBox = cv::boundingRect(hole), whole(0, 0, photo.cols, photo.rows);
    const int margin = std::max(settings.minMarginPx, int(std::ceil(settings.marginShare * std::max(holeBox.width, holeBox.height))));
    cv::Rect box = cv::Rect(holeBox.x - margin, holeBox.y - margin, holeBox.width + 2 * margin, holeBox.height + 2 * margin) & whole;

    Level work;
    cv::Mat workSource;
    double scale = 1;
    for (int attempt = 0; attempt < 2; ++attempt) {
        scale = std::min(1.0, double(settings.workLongSidePx) / std::max(box.width, box.height));
        const cv::Size workSize(std::max(1, int(std::lround(box.width * scale))), std::max(1, int(std::lround(box.height * scale))));
        cv::Mat workImage;
        if (workSize == box.size()) workImage = photo(box);
        else cv::resize(photo(box), workImage, workSize, 0, 0, cv::INTER_AREA);
        workImage.convertTo(workImage, CV_32FC3, photo.type() == CV_8UC3 ? 1.0 / 255 : 1.0);
        scale = double(workSize.width) / box.width;
        workSource = maskAt(source(box), workSize, true);
        work = makeLevel(workImage, maskAt(hole(box), workSize, false), workSource, r);
        if (!work.validList.empty() || box == whole) break;
        box = whole;
    }
    if (work.validList.empty()) return CompletionStatus::noSources;

    // The pyramid: steps of equal ratio (at most 2) from the working size down to the coarsest, while a level
    // still holds source patches.
    std::vector<Level> levels;
    std::vector<cv::Mat> sources;
    levels.push_back(std::move(work));
    sources.push_back(workSource);
    const double workLong = std::max(levels[0].size.width, levels[0].size.height);
    const int steps = workLong > settings.coarsestLongSidePx ? int(std::ceil(std::log2(workLong / settings.coarsestLongSidePx))) : 0;
    const double ratio = steps > 0 ? std::pow(workLong / settings.coarsestLongSidePx, 1.0 / steps) : 1;
    for (int step = 1; step <= steps; ++step) {
        const Level &fine = levels.back();
        const double shrink = std::pow(ratio, step);
        const cv::Size size(std::max(2 * r + 1, int(std::lround(levels[0].size.width / shrink))),
                            std::max(2 * r + 1, int(std::lround(levels[0].size.height / shrink))));
        cv::Mat image;
        cv::resize(fine.image(cv::Rect(r, r, fine.size.width, fine.size.height)), image, size, 0, 0, cv::INTER_AREA);
        cv::Mat coarseSource = maskAt(sources.back(), size, true);
        Level coarse = makeLevel(image, maskAt(fine.hole, size, false), coarseSource, r);
        if (coarse.validList.size() < size_t(kCoarsestLeastSources)) break;
        levels.push_back(std::move(coarse));
        sources.push_back(coarseSource);
    }

    uint64_t passId = 0;
    const int count = int(levels.size());
    for (int l = count - 1; l >= 0; --l) {
        Level &level = levels[l];
        if (l == count - 1) {
            randomInit(level, seed, ++passId);
            peelFill(level);
        } else {
            upsampleField(levels[l + 1], level, seed, ++passId);
            vote(level);
        }
        // Iterations fall linearly from the coarsest level's to the finest's.
        const double t = count > 1 ? double(l) / (count - 1) : 0;
        const int iterations = int(std::lround(settings.finestIterations + t * (settings.coarsestIterations - settings.finestIterations)));
        iterate(level, iterations, settings.searchPasses, l == count - 1, seed, passId);
    }

    const Level &finest = levels[0];
    cv::Mat outBox = out(box);
    if (photo.type() == CV_8UC3) finalVote<cv::Vec3b>(finest, scale, photo(box), hole(box), source(box), outBox);
    else finalVote<cv::Vec3f>(finest, scale, photo(box), hole(box), source(box), outBox);
    if (report) {
        report->workBox = box;
        report->workScale = scale;
        report->levels = count;
        report->sourcePatches = int(levels[0].validList.size());
    }
    return CompletionStatus::ok;
}

}  // namespace coif

namespace {

// The C entry points' one body: `image` (wrapping the caller's pixels, 8-bit or float) completed in place.
int32_t completeInPlace(cv::Mat image, const uint8_t *hole_mask, const uint8_t *source_mask, uint64_t seed) {
    try {
        const cv::Mat hole(image.rows, image.cols, CV_8U, const_cast<uint8_t *>(hole_mask));
        const cv::Mat source(image.rows, image.cols, CV_8U, const_cast<uint8_t *>(source_mask));
        cv::Mat out;
        const coif::CompletionStatus status = coif::completeHole(image, hole, source, seed, out);
        if (status == coif::CompletionStatus::badInput) return CV_COMPLETE_BAD_INPUT;
        if (status == coif::CompletionStatus::noSources) return CV_COMPLETE_NO_SOURCES;
        out.copyTo(image);
    } catch (const cv::Exception &) {
        return CV_COMPLETE_FAILED;
    }
    return CV_COMPLETE_OK;
}

}  // namespace

int32_t cv_complete_rgb8(uint8_t *rgb, int32_t width, int32_t height, const uint8_t *hole_mask, const uint8_t *source_mask,
                         uint64_t seed) {
    if (!rgb || !hole_mask || !source_mask || width <= 0 || height <= 0) return CV_COMPLETE_BAD_INPUT;
    return completeInPlace(cv::Mat(height, width, CV_8UC3, rgb), hole_mask, source_mask, seed);
}

int32_t cv_complete_linear(float *rgb, int32_t width, int32_t height, const uint8_t *hole_mask, const uint8_t *source_mask,
                           uint64_t seed) {
    if (!rgb || !hole_mask || !source_mask || width <= 0 || height <= 0) return CV_COMPLETE_BAD_INPUT;
    return completeInPlace(cv::Mat(height, width, CV_32FC3, rgb), hole_mask, source_mask, seed);
}
