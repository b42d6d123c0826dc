// hair_plate.cpp: the person's own hair at the photo's resolution, and what is done with it.
//  - cv_parse_to_photo: the parse (classes, hair probability) resampled from its square crop onto the photo;
//    the probability refined into a soft matte by a guided filter (He et al. 2013, OpenCV ximgproc) with the
//    photo as guide, so the matte's edge follows the photo's own edges: wisps fade rather than step.
//  - cv_hair_fill: the plate: the photo with the own hair taken away. Inside the person's head (face and
//    skull) the hair is replaced by skin continued from the visible skin and neck, plus grain matched to the
//    sources' noise; outside it by each region beside it (background, the body's skin, clothes) continued as
//    itself, the body only below the chin and within the shoulders, the background with tiles of its own
//    sources nearby (exemplar_fill.cpp), its colour kept to the hole's rim. Every fill uses its own sources
//    only (so no hair colour smears in): pull-push interpolation (Gortler et al. 1996) refined by membrane
//    sweeps, under the tiles; blended by the removal weight. It also reports where it
//    filled the hair-bearing scalp (the head off the bare face and forehead), which the composite draws as
//    close-cropped hair, not skin.
//  - cv_hair_recolor: the own hair recoloured in linear light, texture kept as relative luminance.
// Deterministic: no threads race on a value, the grain is a hash of the pixel and a seed.
#include "CVision.h"
#include "exemplar_fill.hpp"
#include "patch_complete.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/ximgproc/edge_filter.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

using coif::hash01;

// sRGB ↔ linear (IEC 61966-2-1), as tables: 256 decodes, and a 4096-step encode.
struct SRGB {
    float decode[256];
    uint8_t encode[4097];
    SRGB() {
        for (int i = 0; i < 256; ++i) {
            const double c = i / 255.0;
            decode[i] = float(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
        }
        for (int i = 0; i <= 4096; ++i) {
            const double l = i / 4096.0;
            const double c = l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
            encode[i] = uint8_t(std::lround(std::min(std::max(c, 0.0), 1.0) * 255));
        }
    }
    uint8_t toByte(float linear) const {
        const float x = std::min(std::max(linear, 0.0f), 1.0f);
        return encode[int(x * 4096 + 0.5f)];
    }
};
const SRGB &srgb() {
    static const SRGB table;
    return table;
}

// Gamma 2.2 and back, as interpolated 4096-step tables over [0, 1] (cv::pow on a 512² box cost ~10 ms
// each way); values outside are clamped.
struct Gamma {
    float encode[4097], decode[4097];
    Gamma() {
        for (int i = 0; i <= 4096; ++i) {
            encode[i] = float(std::pow(i / 4096.0, 1 / 2.2));
            decode[i] = float(std::pow(i / 4096.0, 2.2));
        }
    }
    static float lookUp(const float *table, float x) {
        const float t = std::min(std::max(x, 0.0f), 1.0f) * 4096;
        const int i = std::min(int(t), 4095);
        return table[i] + (table[i + 1] - table[i]) * (t - float(i));
    }
    // Each channel of a CV_32FC3 through `table`, in place.
    static void apply(cv::Mat &m, const float *table) {
        for (int y = 0; y < m.rows; ++y) {
            float *v = m.ptr<float>(y);
            for (int x = 0; x < 3 * m.cols; ++x) v[x] = lookUp(table, v[x]);
        }
    }
};
const Gamma &gamma22() {
    static const Gamma table;
    return table;
}

// `box` grown by `grow` px on every side, within `bounds`: where the growth passes the top or left edge, the box
// keeps its grown size by reaching further down or right (then clipped at the bottom and right edges). The plate's
// boxes have always been grown so; a plain intersection moves every fill that touches the frame's top.
inline cv::Rect grownWithin(const cv::Rect &box, int grow, cv::Size bounds) {
    const int x = std::max(0, box.x - grow), y = std::max(0, box.y - grow);
    return cv::Rect(x, y, std::min(bounds.width - x, box.width + 2 * grow), std::min(bounds.height - y, box.height + 2 * grow));
}

// Approximately standard normal from two hashes (Box–Muller).
inline float gauss(uint64_t x, uint64_t y, uint64_t seed) {
    const float u1 = std::max(hash01(x, y, seed), 1e-7f), u2 = hash01(x, y, seed ^ 0x5851F42D4C957F2Dull);
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853f * u2);
}

// Gauss–Seidel sweeps of the membrane (Laplace) equation over one pyramid level's unknown part: each pixel
// whose weight is below 1 moves toward the mean of its four neighbours, in proportion to how unknown it is.
// Pull-push alone averages a hole toward its rim's mean and bends a ramp flat; the membrane's solution is
// harmonic, so it continues a linear gradient across the hole and meets the rim's colour at the rim. Run at
// every level of the push, a few sweeps each suffice (the coarser level already holds the low frequencies).
// In place, in a fixed order: deterministic.
void relaxMembrane(cv::Mat &out, const cv::Mat &sums, const cv::Mat &weights, int level) {
    // Coarse levels carry the low frequencies, which relax slowly: most sweeps there; the finest two levels
    // only smooth what the upsampling left (and cost four and sixteen times a coarse level's pixels).
    const int kSweeps = level == 0 ? 2 : level == 1 ? 4 : 10;
    const int rows = out.rows, cols = out.cols;
    if (rows < 3 || cols < 3) return;
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
        for (int y = 0; y < rows; ++y) {
            const float *wr = weights.ptr<float>(y);
            const cv::Vec3f *sr = sums.ptr<cv::Vec3f>(y);
            cv::Vec3f *o = out.ptr<cv::Vec3f>(y);
            const cv::Vec3f *up = out.ptr<cv::Vec3f>(std::max(y - 1, 0)), *down = out.ptr<cv::Vec3f>(std::min(y + 1, rows - 1));
            for (int x = 0; x < cols; ++x) {
                const float k = std::min(wr[x], 1.0f);
                if (k >= 1) continue;
                const cv::Vec3f mean = 0.25f * (o[std::max(x - 1, 0)] + o[std::min(x + 1, cols - 1)] + up[x] + down[x]);
                const cv::Vec3f known = wr[x] > 0 ? sr[x] / std::max(wr[x], 1e-6f) : cv::Vec3f(0, 0, 0);
                o[x] = known * k + mean * (1 - k);
            }
        }
    }
}

// The per-channel median of the pixels of `linear` (CV_32FC3) that `take(x, y)` selects; false when none is.
template <typename Take> bool medianColour(const cv::Mat &linear, Take take, cv::Vec3f &median) {
    std::vector<float> channel[3];
    for (int y = 0; y < linear.rows; ++y) {
        const cv::Vec3f *l = linear.ptr<cv::Vec3f>(y);
        for (int x = 0; x < linear.cols; ++x)
            if (take(x, y)) for (int c = 0; c < 3; ++c) channel[c].push_back(l[x][c]);
    }
    if (channel[0].empty()) return false;
    for (int c = 0; c < 3; ++c) {
        std::nth_element(channel[c].begin(), channel[c].begin() + channel[c].size() / 2, channel[c].end());
        median[c] = channel[c][channel[c].size() / 2];
    }
    return true;
}

// Rec. 709 luma of an RGB colour (relative luminance for linear values).
inline float lumaOf(const cv::Vec3f &c) { return 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2]; }

// Hermite step from 0 at `from` to 1 at `to`.
inline float smoothstep(float from, float to, float x) {
    const float t = std::min(std::max((x - from) / (to - from), 0.0f), 1.0f);
    return t * t * (3 - 2 * t);
}

// Whether every channel of `colour` lies within [low·of − slackLow, high·of + slackHigh].
inline bool withinBand(const cv::Vec3f &colour, const cv::Vec3f &of, float low, float slackLow, float high, float slackHigh) {
    for (int c = 0; c < 3; ++c)
        if (colour[c] < low * of[c] - slackLow || colour[c] > high * of[c] + slackHigh) return false;
    return true;
}

// Pull-push: fills every pixel of `value` (CV_32FC3) whose `weight` (CV_32F, 0..1) is below 1 from the
// weighted average of known pixels at successively coarser scales. Smooth, and uses only the known pixels.
cv::Mat pullPush(const cv::Mat &value, const cv::Mat &weight) {
    cv::Mat w3;
    cv::merge(std::vector<cv::Mat>{weight, weight, weight}, w3);
    const cv::Mat vw = value.mul(w3);
    std::vector<cv::Mat> sums{vw}, weights{weight.clone()};
    while (sums.back().rows > 1 || sums.back().cols > 1) {
        const cv::Mat &s = sums.back(), &w = weights.back();
        const int rows = (s.rows + 1) / 2, cols = (s.cols + 1) / 2;
        cv::Mat s2(rows, cols, CV_32FC3, cv::Scalar::all(0)), w2(rows, cols, CV_32F, cv::Scalar(0));
        for (int y = 0; y < s.rows; ++y) {
            const cv::Vec3f *sr = s.ptr<cv::Vec3f>(y);
            const float *wr = w.ptr<float>(y);
            cv::Vec3f *dr = s2.ptr<cv::Vec3f>(y / 2);
            float *dw = w2.ptr<float>(y / 2);
            for (int x = 0; x < s.cols; ++x) { dr[x / 2] += sr[x]; dw[x / 2] += wr[x]; }
        }
        // Weights saturate at 1: a coarse pixel with any full-weight child counts as known.
        cv::Mat avg(rows, cols, CV_32FC3);
        for (int y = 0; y < rows; ++y) {
            cv::Vec3f *ar = avg.ptr<cv::Vec3f>(y), *sr = s2.ptr<cv::Vec3f>(y);
            float *wr = w2.ptr<float>(y);
            for (int x = 0; x < cols; ++x) {
                ar[x] = wr[x] > 0 ? sr[x] / wr[x] : cv::Vec3f(0, 0, 0);
                wr[x] = std::min(wr[x], 1.0f);
                sr[x] = ar[x] * wr[x];
            }
        }
        sums.push_back(s2);
        weights.push_back(w2);
    }
    // Push: each level's unknown part from the (bilinearly upsampled) coarser level.
    cv::Mat filled;
    {
        const cv::Mat &w = weights.back();
        filled = sums.back().clone();
        if (w.at<float>(0, 0) > 0) filled /= w.at<float>(0, 0);
    }
    for (int level = int(sums.size()) - 2; level >= 0; --level) {
        cv::Mat up;
        cv::resize(filled, up, sums[level].size(), 0, 0, cv::INTER_LINEAR);
        cv::Mat out(sums[level].size(), CV_32FC3);
        const cv::Mat &s = sums[level], &w = weights[level];
        for (int y = 0; y < out.rows; ++y) {
            const cv::Vec3f *sr = s.ptr<cv::Vec3f>(y), *ur = up.ptr<cv::Vec3f>(y);
            const float *wr = w.ptr<float>(y);
            cv::Vec3f *orow = out.ptr<cv::Vec3f>(y);
            for (int x = 0; x < out.cols; ++x) {
                const float k = std::min(wr[x], 1.0f);
                const cv::Vec3f known = wr[x] > 0 ? sr[x] / std::max(wr[x], 1e-6f) : cv::Vec3f(0, 0, 0);
                orow[x] = known * k + ur[x] * (1 - k);
            }
        }
        relaxMembrane(out, s, w, level);
        filled = out;
    }
    return filled;
}

// The removal a pixel may carry and still be a fill's source (and lie outside the band kept from the hair):
// the guided filter's matte trails off over a soft background of the hair's own colour (fair hair against
// dry grass) at 2–8%, and with every pixel above 2% kept from the sources, that background had none left
// and the fill came from a strip of skin the parse called background: a flat pink-beige hood.
constexpr float kSourceRemoveBelow = 0.1f;

// Pull-push at no more than `kFillSidePx` on the box's long side: the fill is smooth by construction, so a
// large photo's box (a 1080p head: ~700 px) is filled at a fraction of its size and resized back, which keeps
// the plate's cost flat in the photo's resolution. Boxes that fit are filled at full size.
constexpr int kFillSidePx = 512;

// The exemplar fill matches its tiles on the box at no more than this on its long side (see the plate).
constexpr int kQuiltSidePx = 320;

// The largest photo side the plate works at (cv_hair_fill): a larger photo's plate is made at this size and
// resized back. Every golden and test photo but the 10-megapixel ones is within it.
constexpr int kPlateSidePx = 1280;

// Where the neck's sides meet the shoulders, as a share of the neck the head region draws below the chin: about
// halfway down it, where the trapezius leaves the neck (the neck band ends near the breastbone's notch). Skin
// and clothes widen from the same line, so the neck flares into the shoulders. Skin that widened only from
// below the neck band (a third of the head's height lower) left the neck a column standing on square blocks.
constexpr float kShoulderFromChin = 0.5f;

// The neck band's foot the body's skin takes its colour from, as a share of the band below the chin: a strip,
// so the skin just under the band continues the band and the chest farther down keeps its own colour.
constexpr float kNeckFootSeed = 0.1f;

// The shoulders' line from the neck: the half-width gained per pixel of drop along the trapezius (~22° below
// level), straight out to a rounded corner at kShoulderToHead of the head's width each side (shoulders are ~2.6
// head breadths wide). 3.5 (16°) on an exponential approach drew a flat dome; the straight line with a corner
// reads as shoulders (liveportrait d9).
constexpr float kShoulderSlope = 2.5f;
// The drop over which the neck's side curves out into the shoulders' line, as a share of the neck's half-width
// (where the trapezius joins the neck: a few centimetres).
constexpr float kNeckFlareToNeck = 0.6f;
// How round the deltoid's corner is, as a share of the shoulders' reach from the neck.
constexpr float kShoulderCornerToReach = 0.15f;
constexpr float kShoulderToHead = 1.3f;

// How the background seen beside the body bounds its outline where the hair hid it (besideBody). Above a row whose
// background shows past the body's outermost visible pixel, the body may be this much wider per row of rise, over
// at most a head's height (arms hang from the shoulders: the shoulders are about as wide as the arms below them,
// the deltoids a little wider); below such a row, this much per row of drop (the body flares to hips and elbows).
// A dome as wide as 2.6 head breadths filled a slim, turned woman's foliage with her dress (000126) where her arms
// and the leaves beside them showed below the hair.
constexpr float kBodyWidenRising = 0.15f, kBodyWidenDropping = 1.0f;

// A torso's light: what it loses at its silhouette, where its surface has turned 90° from the camera (about
// what a cylinder under soft frontal light loses), and at most how far it leans toward the side the face is
// lit from (the head's shading on its lit side over its other, as a share of their sum).
constexpr float kTorsoTurn = 0.35f;
constexpr float kTorsoLightLean = 0.25f;

// The neck's width over the jaw's, a quarter of the face's height above the chin: a neck is about as wide as
// the jaw's angles, and they lie a little below that row.
constexpr float kNeckToJaw = 0.85f;

// Skin or neck, as the parse calls it, darker than this share of the face's median skin luminance is clothes:
// a neck in its jaw's shadow is about 0.6 of the face (the median over the shared portraits whose neck shows),
// a black or navy top under 0.05.
constexpr float kClothesUnderSkin = 0.2f;

// The least texture (textureLevel, perceptual units) a background needs for its completion to be laid whole;
// below it, only the completion's fine texture is (a smooth backdrop has no structure to carry, and patches of a
// ramp from elsewhere step its shading: a gradient behind the hair, worst error 24 of 255). Measured over the portraits: studio backdrops and smooth walls 0.0000–0.0037;
// grass, trees, a crowd 0.0065–0.035.
constexpr float kTextureToCopy = 0.005f;

// How far (a share of the face's width) the visible skin a hole borders carries on into it before the face's own
// tone (the median of its visible skin near the hole, over the head's shading) takes over: about the forehead's
// height above the brows over two. 0.15 left a dark child's crown grey; 0.3 a fringe's red-brown shadow halfway up.
constexpr float kSkinReachToFace = 0.2f;

// The neck's middle and half-width (px) from the bare face's mask (inside its jaw line, and the forehead):
// as wide as kNeckToJaw of the jaw, a quarter of the face's height above the chin (about the jaw's angles), and
// under its middle. Unchanged where the face is not in the box. A fixed share of Coif's head, whose outline
// takes in the skull beside the temples, made the neck as wide as the cheeks: where long hair had hidden
// them, a pillar of skin stood beside the jaw.
void neckUnderJaw(const cv::Mat &bare, float &middle, float &halfWidth) {
    const cv::Rect face = cv::boundingRect(bare);
    if (face.height < 8) return;
    const int row = face.y + face.height - 1 - face.height / 4;
    const uint8_t *b = bare.ptr<uint8_t>(row);
    int left = -1, right = -1;
    for (int x = 0; x < bare.cols; ++x)
        if (b[x]) {
            if (left < 0) left = x;
            right = x;
        }
    if (left < 0 || right - left < 4) return;
    middle = 0.5f * float(left + right);
    halfWidth = 0.5f * kNeckToJaw * float(right - left + 1);
}

// `value` (CV_32FC3) and `weight` (CV_32F, 0…1) at `scale` (≤ 1), area-averaged: a small pixel's weight is the
// share of its area that is source, its value their mean.
void averagedDown(const cv::Mat &value, const cv::Mat &weight, double scale, cv::Mat &valueSmall, cv::Mat &weightSmall) {
    const cv::Size small(std::max(1, int(std::lround(value.cols * scale))), std::max(1, int(std::lround(value.rows * scale))));
    cv::Mat weightedSmall, w3;
    cv::merge(std::vector<cv::Mat>{weight, weight, weight}, w3);
    cv::resize(value.mul(w3), weightedSmall, small, 0, 0, cv::INTER_AREA);
    cv::resize(weight, weightSmall, small, 0, 0, cv::INTER_AREA);
    valueSmall.create(small, CV_32FC3);
    for (int y = 0; y < small.height; ++y) {
        const cv::Vec3f *s = weightedSmall.ptr<cv::Vec3f>(y);
        const float *w = weightSmall.ptr<float>(y);
        cv::Vec3f *v = valueSmall.ptr<cv::Vec3f>(y);
        for (int x = 0; x < small.width; ++x) v[x] = w[x] > 0 ? s[x] / w[x] : cv::Vec3f(0, 0, 0);
    }
}

// Known pixels of a fill made small and resized back keep their own value, in proportion to their weight (the
// resize would soften them).
void keepKnown(const cv::Mat &value, const cv::Mat &weight, cv::Mat &filled) {
    for (int y = 0; y < value.rows; ++y) {
        const cv::Vec3f *src = value.ptr<cv::Vec3f>(y);
        const float *w = weight.ptr<float>(y);
        cv::Vec3f *dst = filled.ptr<cv::Vec3f>(y);
        for (int x = 0; x < value.cols; ++x) {
            const float k = std::min(w[x], 1.0f);
            if (k > 0) dst[x] = src[x] * k + dst[x] * (1 - k);
        }
    }
}

cv::Mat smoothFill(const cv::Mat &value, const cv::Mat &weight, int maxSide = kFillSidePx) {
    const int side = std::max(value.cols, value.rows);
    if (side <= maxSide) return pullPush(value, weight);
    cv::Mat valueSmall, weightSmall;
    averagedDown(value, weight, double(maxSide) / side, valueSmall, weightSmall);
    cv::Mat filledSmall = pullPush(valueSmall, weightSmall), filled;
    cv::resize(filledSmall, filled, value.size(), 0, 0, cv::INTER_LINEAR);
    keepKnown(value, weight, filled);
    return filled;
}

// The background's lines the smooth fill carries on across the hole: where the background beside the hole runs
// in one direction (rails, a fence, a bleacher's rows, blinds' slats, pillars), each hole pixel takes the colours
// where that direction meets the background on either side, blended by distance (both sides, within kLinesSpan);
// the membrane (pull-push) elsewhere. The membrane alone averaged bands of different colours into one grey oval
// where an afro stood before a stadium's rails, and the completion's copies, kept to its level, lost their
// colours to it. How much a pixel takes of the direction's colours is the background's coherence there (the
// structure tensor's, (λ1 − λ2)² / (λ1 + λ2)², continued into the hole), from none below kLinesFrom to all at
// kLinesFull, times the lines' strength (kLinesFaintest), and only where the background at both ends runs the
// same way (kLinesAgree). Worked at most maxSide px on the long side.
constexpr float kLinesFrom = 0.2f, kLinesFull = 0.5f;
// The longest line across the hole followed whole, as a share of the working box's long side (fading to none at
// twice it).
constexpr float kLinesSpan = 0.5f;
// The gradient (3×3 Sobel of perceptual luma, root mean square over the tensor's smoothing) under which lines are
// too faint to follow, fully followed at three times it: a wall's shading runs one way as rails do, and followed
// it carried a dark wisp the parse left at the hair's edge across the wall as a streak (astronaut.png).
constexpr float kLinesFaintest = 0.05f;
// Where a line meets the background, its colour is the mean of this many known pixels along it (working px): the
// first alone is often a wisp of the removed hair the parse left at its edge, which a line carries as a streak.
constexpr int kLinesEndPx = 4;
// How nearly the background where a line meets it must run the same way (the cosine between the two): from none
// at this to all where they agree.
constexpr float kLinesAgree = 0.9f;
// How far inside the known background its lines are read (working px).
constexpr int kLinesFromHolePx = 6;
// The structure tensor's smoothing, in working pixels (a few rails' spacing).
constexpr float kLinesScalePx = 4.0f;

// The angle of a structure tensor's (Jxx, Jxy, Jyy) first eigenvector: the gradient's direction there.
inline float tensorAngle(const cv::Vec3f &tensor) { return 0.5f * std::atan2(2 * tensor[1], tensor[0] - tensor[2]); }

cv::Mat orientedFill(const cv::Mat &value, const cv::Mat &weight, int maxSide) {
    // At the box's own size where it fits, as smoothFill works (where no line is followed the two agree).
    const int side = std::max(value.cols, value.rows);
    const bool whole = side <= maxSide;
    cv::Mat valueSmall = value, weightSmall = weight;
    if (!whole) averagedDown(value, weight, double(maxSide) / side, valueSmall, weightSmall);
    const cv::Size small = valueSmall.size();
    cv::Mat membrane = pullPush(valueSmall, weightSmall);
    // A fill worked small goes back to the box's size, its known pixels their own (smoothFill's last steps).
    const auto atBoxSize = [&](const cv::Mat &small) {
        if (whole) return small;
        cv::Mat filled;
        cv::resize(small, filled, value.size(), 0, 0, cv::INTER_LINEAR);
        keepKnown(value, weight, filled);
        return filled;
    };
    const cv::Mat known = weightSmall >= 0.5f;
    // The structure tensor of the known background's luma, its gradients taken only kLinesFromHolePx or more
    // inside the known background (the hole's edge is not a line, nor are the removed hair's wisps and shadow
    // along it: followed, they drew grey streaks off the hair's outline over a white wall), smoothed by
    // normalised convolution and continued into the hole.
    cv::Mat luma(small, CV_32F), gx, gy;
    for (int y = 0; y < small.height; ++y) {
        const cv::Vec3f *m = membrane.ptr<cv::Vec3f>(y);
        float *l = luma.ptr<float>(y);
        for (int x = 0; x < small.width; ++x) l[x] = lumaOf(m[x]);
    }
    cv::Sobel(luma, gx, CV_32F, 1, 0, 3);
    cv::Sobel(luma, gy, CV_32F, 0, 1, 3);
    cv::Mat inner;
    cv::erode(known, inner, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * kLinesFromHolePx + 1, 2 * kLinesFromHolePx + 1)));
    // Too little background to read lines from: the membrane alone.
    if (cv::countNonZero(inner) < 16) return atBoxSize(membrane);
    cv::Mat tensor(small, CV_32FC3, cv::Scalar::all(0)), tensorWeight(small, CV_32F, cv::Scalar(0));
    for (int y = 0; y < small.height; ++y) {
        const float *a = gx.ptr<float>(y), *b = gy.ptr<float>(y);
        const uint8_t *k = inner.ptr<uint8_t>(y);
        cv::Vec3f *t = tensor.ptr<cv::Vec3f>(y);
        float *tw = tensorWeight.ptr<float>(y);
        for (int x = 0; x < small.width; ++x)
            if (k[x]) {
                t[x] = cv::Vec3f(a[x] * a[x], a[x] * b[x], b[x] * b[x]);
                tw[x] = 1;
            }
    }
    cv::Mat tensorSum, weightSum;
    cv::GaussianBlur(tensor, tensorSum, cv::Size(0, 0), kLinesScalePx);
    cv::GaussianBlur(tensorWeight, weightSum, cv::Size(0, 0), kLinesScalePx);
    cv::Mat tensorKnown(small, CV_32FC3, cv::Scalar::all(0)), tensorKnownWeight(small, CV_32F, cv::Scalar(0));
    for (int y = 0; y < small.height; ++y) {
        const cv::Vec3f *t = tensorSum.ptr<cv::Vec3f>(y);
        const float *w = weightSum.ptr<float>(y);
        cv::Vec3f *o = tensorKnown.ptr<cv::Vec3f>(y);
        float *ow = tensorKnownWeight.ptr<float>(y);
        for (int x = 0; x < small.width; ++x)
            if (w[x] > 0.05f) {
                o[x] = t[x] / w[x];
                ow[x] = 1;
            }
    }
    const cv::Mat field = pullPush(tensorKnown, tensorKnownWeight);
    // The value where the line through each hole pixel meets the background, each way: the known pixels' own,
    // blurred over known pixels only (blurred whole, the hair under the hole bled into the background's rim).
    cv::Mat knownWeight, knownValue, blurred, blurredWeight;
    known.convertTo(knownWeight, CV_32F, 1.0 / 255);
    cv::merge(std::vector<cv::Mat>{knownWeight, knownWeight, knownWeight}, knownValue);
    cv::GaussianBlur(valueSmall.mul(knownValue), blurred, cv::Size(0, 0), 1.0);
    cv::GaussianBlur(knownWeight, blurredWeight, cv::Size(0, 0), 1.0);
    for (int y = 0; y < small.height; ++y) {
        cv::Vec3f *b = blurred.ptr<cv::Vec3f>(y);
        const float *w = blurredWeight.ptr<float>(y);
        for (int x = 0; x < small.width; ++x) b[x] = w[x] > 1e-6f ? b[x] / w[x] : cv::Vec3f(0, 0, 0);
    }
    cv::Mat out = membrane.clone();
    const int reach = small.width + small.height;
    for (int y = 0; y < small.height; ++y) {
        const uint8_t *k = known.ptr<uint8_t>(y);
        const cv::Vec3f *f = field.ptr<cv::Vec3f>(y);
        cv::Vec3f *o = out.ptr<cv::Vec3f>(y);
        for (int x = 0; x < small.width; ++x) {
            if (k[x]) continue;
            const float jxx = f[x][0], jxy = f[x][1], jyy = f[x][2];
            const float trace = jxx + jyy, root = std::sqrt((jxx - jyy) * (jxx - jyy) + 4 * jxy * jxy);
            if (trace <= 1e-9f) continue;
            const float coherence = (root / trace) * (root / trace);
            // Lines, not a smooth wall's shading: its gradients agree in direction too, but are faint.
            const float take = smoothstep(kLinesFrom, kLinesFull, coherence) * smoothstep(kLinesFaintest, 3 * kLinesFaintest, std::sqrt(trace));
            if (take <= 0) continue;
            // The gradient's direction is the tensor's first eigenvector; the lines run across it.
            const float theta = tensorAngle(f[x]);
            const float dx = -std::sin(theta), dy = std::cos(theta);
            cv::Vec3f ends[2];
            float distance[2] = {-1, -1};
            int endX[2] = {0, 0}, endY[2] = {0, 0};
            for (int e = 0; e < 2; ++e) {
                const float sx = e == 0 ? dx : -dx, sy = e == 0 ? dy : -dy;
                cv::Vec3f sum(0, 0, 0);
                int taken = 0;
                for (int step = 1; step < reach; ++step) {
                    const int u = int(std::lround(float(x) + sx * float(step))), v = int(std::lround(float(y) + sy * float(step)));
                    if (u < 0 || v < 0 || u >= small.width || v >= small.height) break;
                    if (known.at<uint8_t>(v, u)) {
                        if (taken == 0) {
                            distance[e] = float(step);
                            endX[e] = u;
                            endY[e] = v;
                        }
                        sum += blurred.at<cv::Vec3f>(v, u);
                        if (++taken == kLinesEndPx) break;
                    } else if (taken > 0) {
                        break;
                    }
                }
                if (taken > 0) ends[e] = sum / float(taken);
            }
            // Both ends, and not far apart: a line followed a long way, or out of the box, carried a colour from
            // across the photo (a tree's green down over a shoulder).
            if (distance[0] < 0 || distance[1] < 0) continue;
            const float span = (distance[0] + distance[1]) / float(std::max(small.width, small.height));
            float trust = take * (1 - smoothstep(kLinesSpan, 2 * kLinesSpan, span));
            // The line is the background's on both sides: where it meets it, the background there runs the same
            // way, as strongly. A single edge far off, continued over the hole, is no line across it (it drew
            // streaks over a white wall).
            for (int e = 0; e < 2 && trust > 0; ++e) {
                const cv::Vec3f t = field.at<cv::Vec3f>(endY[e], endX[e]);
                const float endTrace = t[0] + t[2];
                if (endTrace <= 1e-9f) {
                    trust = 0;
                    break;
                }
                const float agreement = std::fabs(std::cos(tensorAngle(t) - theta));
                trust *= smoothstep(kLinesFaintest, 3 * kLinesFaintest, std::sqrt(endTrace)) * smoothstep(kLinesAgree, 1.0f, agreement);
            }
            if (trust <= 0) continue;
            const cv::Vec3f along = (ends[0] * distance[1] + ends[1] * distance[0]) / (distance[0] + distance[1]);
            o[x] = o[x] * (1 - trust) + along * trust;
        }
    }
    return atBoxSize(out);
}

// `value` continued from `weight` under `shading` (one channel, a factor on each pixel): divided by it, filled
// smoothly and shaded again where it lands, so a surface's colour goes on under its own light and at its sources
// the fill is the photo's (the hidden skin over the head's shading, the body over a torso's).
// `fill` (a function of the albedo) made under `shading` when it is given; `fill(value)` itself when it is empty.
template <typename Fill> cv::Mat underShading(const cv::Mat &value, const cv::Mat &shading, Fill fill) {
    if (shading.empty()) return fill(value);
    cv::Mat shading3, albedo;
    cv::merge(std::vector<cv::Mat>{shading, shading, shading}, shading3);
    cv::divide(value, shading3, albedo);
    return fill(albedo).mul(shading3);
}

cv::Mat smoothFillUnderShading(const cv::Mat &value, const cv::Mat &weight, const cv::Mat &shading, int maxSide) {
    return underShading(value, shading, [&](const cv::Mat &albedo) { return smoothFill(albedo, weight, maxSide); });
}

// `field` (CV_32FC3) scaled by how much of what its sources show a fill keeps `distance` px from them: a Gaussian
// fall-off over `reach` px (1 at the sources, 0.61 at `reach`, 0.14 at twice it), above row `keepFrom` only; from
// `reach` above that row down to it the distance counts less and less, and below it the field is kept whole.
void fadeWithDistance(cv::Mat &field, const cv::Mat &distance, float reach, float keepFrom) {
    const float k = -0.5f / (reach * reach);
    for (int y = 0; y < field.rows; ++y) {
        const float counts = 1 - smoothstep(keepFrom - reach, keepFrom, float(y));
        if (counts <= 0) continue;
        cv::Vec3f *f = field.ptr<cv::Vec3f>(y);
        const float *d = distance.ptr<float>(y);
        for (int x = 0; x < field.cols; ++x) f[x] *= std::exp(k * counts * counts * d[x] * d[x]);
    }
}

// `value` (CV_32FC3) continued from `weight` (0 or 1) into `hole`, what it departs from the sources' median
// fading with distance from them (fadeWithDistance, over `reach` px): near the sources the fill continues them (a
// cheek's shading, a blush, a shadow), far from them it tends to the median of the sources within twice `reach`
// of the hole (the skin beside it, not the lips and chin; all of them when fewer than 64 lie that near).
// Continued whole, the membrane carried the nearest sources as far as the hole went: a forehead a fringe hid,
// whose nearest skin is the face's rim beside the hair (in its shadow, tinted by its colour), came back a flat
// red-brown dome over a pale face. Below row `keepFrom` (the chin) the sources are continued whole: a neck is
// not the face's tone (in the jaw's shadow, about 0.6 of its luminance), and relaxed toward it, the neck band
// stood pale on the chest the sliver between long hair showed.
cv::Mat relaxedFill(const cv::Mat &value, const cv::Mat &weight, const cv::Mat &hole, float reach, float keepFrom, int maxSide) {
    cv::Mat fromHole, fromSources;
    cv::distanceTransform(hole == 0, fromHole, cv::DIST_L2, 3);
    const cv::Mat near = (weight >= 0.5f) & (fromHole <= 2 * reach);
    const bool nearEnough = cv::countNonZero(near) >= 64;
    cv::Vec3f median;
    if (!medianColour(value, [&](int x, int y) { return nearEnough ? near.at<uint8_t>(y, x) != 0 : weight.at<float>(y, x) >= 0.5f; }, median))
        return smoothFill(value, weight, maxSide);
    const cv::Scalar level(median[0], median[1], median[2]);
    cv::Mat filled = smoothFill(value - level, weight, maxSide);
    cv::distanceTransform(weight < 0.5f, fromSources, cv::DIST_L2, 3);
    fadeWithDistance(filled, fromSources, reach, keepFrom);
    return filled + level;
}


// A robust standard deviation of values centred on 0, from their magnitudes: 1.4826 × the median (0 for
// none). Reorders `magnitudes`.
float robustSigma(std::vector<float> &magnitudes) {
    if (magnitudes.empty()) return 0;
    std::nth_element(magnitudes.begin(), magnitudes.begin() + magnitudes.size() / 2, magnitudes.end());
    return 1.4826f * magnitudes[magnitudes.size() / 2];
}

// The noise of the pixels `mask` marks, in linear light: a robust standard deviation (1.4826 × the median
// absolute value) of the fine detail (image minus a 3×3 box blur), so edges and features among the sources
// do not count as grain. The grain a fill must carry to look like the photo around it.
float grainSigma(const cv::Mat &linear, const cv::Mat &mask) {
    cv::Mat blurred;
    cv::blur(linear, blurred, cv::Size(3, 3));
    std::vector<float> magnitudes;
    for (int y = 0; y < linear.rows; ++y) {
        const cv::Vec3f *l = linear.ptr<cv::Vec3f>(y), *b = blurred.ptr<cv::Vec3f>(y);
        const uint8_t *m = mask.ptr<uint8_t>(y);
        for (int x = 0; x < linear.cols; ++x) {
            if (!m[x]) continue;
            magnitudes.push_back(std::fabs(lumaOf(l[x] - b[x])));
        }
    }
    // A 3×3 box leaves 8/9 of white noise's variance in the detail.
    return robustSigma(magnitudes) / std::sqrt(8.0f / 9.0f);
}

bool isSkinClass(uint8_t c) { return c == CV_PARSE_SKIN; }

// Brows, eyes, glasses, ears, earrings, nose, mouth, lips: the pixels the plate keeps the photo's bytes of.
bool isFeatureClass(uint8_t c) { return c >= CV_PARSE_FIRST_FEATURE && c <= CV_PARSE_LAST_FEATURE; }

// The fine texture of the sources (the skin's, for its tiles; a smooth backdrop's, whose spread bounds the
// completion's detail laid over it): each source pixel less the normalised-Gaussian mean of the sources around
// it (σ 1.5 px), 0 off the sources. Added, not multiplied. Clipped at `clipSigmas`
// robust σ (of luma): the texture is kept, its edges (a mole, a nostril's rim) are not, since copied in pieces
// they would be broken lines.
cv::Mat fineDetail(const cv::Mat &perceptual, const cv::Mat &source, float clipSigmas = 2.5f) {
    cv::Mat weight;
    source.convertTo(weight, CV_32F, 1.0 / 255);
    cv::Mat weight3, sum, norm;
    cv::merge(std::vector<cv::Mat>{weight, weight, weight}, weight3);
    cv::GaussianBlur(perceptual.mul(weight3), sum, cv::Size(0, 0), 1.5);
    cv::GaussianBlur(weight, norm, cv::Size(0, 0), 1.5);
    cv::Mat detail(perceptual.size(), CV_32FC3, cv::Scalar::all(0));
    std::vector<float> magnitudes;
    for (int y = 0; y < perceptual.rows; ++y) {
        const cv::Vec3f *l = perceptual.ptr<cv::Vec3f>(y), *s = sum.ptr<cv::Vec3f>(y);
        const float *n = norm.ptr<float>(y);
        const uint8_t *m = source.ptr<uint8_t>(y);
        cv::Vec3f *d = detail.ptr<cv::Vec3f>(y);
        for (int x = 0; x < perceptual.cols; ++x) {
            if (!m[x] || n[x] < 0.5f) continue;
            const cv::Vec3f r = l[x] - s[x] / n[x];
            d[x] = r;
            magnitudes.push_back(std::fabs(lumaOf(r)));
        }
    }
    if (magnitudes.empty()) return detail;
    const float limit = std::max(clipSigmas * robustSigma(magnitudes), 0.002f);
    for (int y = 0; y < detail.rows; ++y) {
        cv::Vec3f *d = detail.ptr<cv::Vec3f>(y);
        for (int x = 0; x < detail.cols; ++x) {
            const float luma = std::fabs(lumaOf(d[x]));
            if (luma > limit) d[x] *= limit / luma;
        }
    }
    return detail;
}

// How much texture `source` (CV_8U) holds in `photo` (CV_32FC3, perceptual values, at the working scale):
// the robust standard deviation (1.4826 × the median absolute value) of luma less its Gaussian mean (σ 2 px).
// A studio backdrop or a smooth gradient holds next to none, and copying it in patches only steps its shading.
float textureLevel(const cv::Mat &photo, const cv::Mat &source) {
    cv::Mat luma, mean;
    cv::cvtColor(photo, luma, cv::COLOR_RGB2GRAY);
    cv::GaussianBlur(luma, mean, cv::Size(0, 0), 2.0);
    std::vector<float> magnitudes;
    for (int y = 0; y < luma.rows; ++y) {
        const float *l = luma.ptr<float>(y), *m = mean.ptr<float>(y);
        const uint8_t *s = source.ptr<uint8_t>(y);
        for (int x = 0; x < luma.cols; ++x)
            if (s[x]) magnitudes.push_back(std::fabs(l[x] - m[x]));
    }
    return robustSigma(magnitudes);
}

// Colour from the rim, structure from the copies: the completion's difference from the smooth fill (`guide`,
// the membrane's continuation of the rim), over `laid` (CV_8U) and averaged over ~1/30 of the box (a
// normalised Gaussian at the working scale, `small`), is taken off it. Patches of dark leaves beside pale
// ones, of a red curtain beside a window or of a gradient's far end keep their texture and their edges (a
// line's difference from the smooth ramp across it changes sign there and averages out) but not their level:
// the fill's local colour is the rim's continued (a gradient behind the hair: mean error 16 of 255 without).
// Where that shift is large (kRimShiftTrusted to kRimShiftRejected, perceptual RGB), the copies are the wrong
// content, not the right content at the wrong level: foliage copied down over a crowd, shifted to the crowd's
// colour, made lavender and olive blocks no scene holds (deepface img54). There the smooth fill is laid, with
// the copies' fine texture (less its σ-1.5 mean) clipped to what the sources beside it carry (the sources'
// own mean absolute fine texture in `perceptual`, continued over the hole; ×3, about 2.5 σ; measured only
// where some shift is that large: on a 2000×2400 photo it cost a quarter of the plate). In place on `canvas`.
constexpr float kRimShiftTrusted = 0.08f, kRimShiftRejected = 0.16f;
void keepRimColour(const cv::Mat &guide, const cv::Mat &laid, cv::Size small, const cv::Mat &perceptual, const cv::Mat &sources,
                   cv::Mat &canvas) {
    if (laid.empty() || cv::countNonZero(laid) == 0) return;
    cv::Mat weight, residual(canvas.size(), CV_32FC3, cv::Scalar::all(0));
    laid.convertTo(weight, CV_32F, 1.0 / 255);
    cv::subtract(guide, canvas, residual, laid);
    cv::Mat residualSmall = residual, weightSmall = weight;
    if (small != canvas.size()) {
        cv::resize(residual, residualSmall, small, 0, 0, cv::INTER_AREA);
        cv::resize(weight, weightSmall, small, 0, 0, cv::INTER_AREA);
    }
    const double sigma = std::max(2.0, std::max(small.width, small.height) / 30.0);
    cv::GaussianBlur(residualSmall, residualSmall, cv::Size(0, 0), sigma);
    cv::GaussianBlur(weightSmall, weightSmall, cv::Size(0, 0), sigma);
    cv::Mat shift(small, CV_32FC3);
    for (int y = 0; y < small.height; ++y) {
        const cv::Vec3f *r = residualSmall.ptr<cv::Vec3f>(y);
        const float *w = weightSmall.ptr<float>(y);
        cv::Vec3f *o = shift.ptr<cv::Vec3f>(y);
        for (int x = 0; x < small.width; ++x) o[x] = w[x] > 1e-3f ? r[x] / w[x] : cv::Vec3f(0, 0, 0);
    }
    if (small != canvas.size()) cv::resize(shift, shift, canvas.size(), 0, 0, cv::INTER_LINEAR);
    bool anyRejected = false;
    for (int y = 0; y < canvas.rows && !anyRejected; ++y) {
        const cv::Vec3f *sh = shift.ptr<cv::Vec3f>(y);
        const uint8_t *l = laid.ptr<uint8_t>(y);
        for (int x = 0; x < canvas.cols; ++x)
            if (l[x] && sh[x].dot(sh[x]) > kRimShiftTrusted * kRimShiftTrusted) {
                anyRejected = true;
                break;
            }
    }
    if (!anyRejected) {
        cv::add(canvas, shift, canvas, laid);
        return;
    }
    cv::Mat sourceWeight;
    sources.convertTo(sourceWeight, CV_32F, 1.0 / 255);
    const cv::Mat localDetail = smoothFill(cv::abs(fineDetail(perceptual, sources, 2.5f)), sourceWeight, 128);
    cv::Mat mean;
    cv::GaussianBlur(canvas, mean, cv::Size(0, 0), 1.5);
    for (int y = 0; y < canvas.rows; ++y) {
        const cv::Vec3f *sh = shift.ptr<cv::Vec3f>(y), *m = mean.ptr<cv::Vec3f>(y), *g = guide.ptr<cv::Vec3f>(y);
        const cv::Vec3f *local = localDetail.ptr<cv::Vec3f>(y);
        const uint8_t *l = laid.ptr<uint8_t>(y);
        cv::Vec3f *c = canvas.ptr<cv::Vec3f>(y);
        for (int x = 0; x < canvas.cols; ++x) {
            if (!l[x]) continue;
            const float size = std::sqrt(sh[x].dot(sh[x]));
            const float rejected = std::min(std::max((size - kRimShiftTrusted) / (kRimShiftRejected - kRimShiftTrusted), 0.0f), 1.0f);
            if (rejected <= 0) {
                c[x] += sh[x];
                continue;
            }
            cv::Vec3f detail = c[x] - m[x];
            for (int k = 0; k < 3; ++k) detail[k] = std::min(std::max(detail[k], -3 * local[x][k]), 3 * local[x][k]);
            c[x] = (c[x] + sh[x]) * (1 - rejected) + (g[x] + detail) * rejected;
        }
    }
}

// One region's completion over `hole` (CV_8U) from `sources` in `perceptual` (the box, perceptual values),
// into `canvas`, laid as the region beside the hole calls for (`smooth`, its membrane fill; `small`, the
// working size its texture is measured at):
// - a textured region (textureLevel ≥ kTextureToCopy): the completion, its local level taken back to the rim's
//   continued colour (keepRimColour);
// - a smooth backdrop: the completion's fine texture alone (less its σ-1.5 mean), clipped at 2.5 robust σ of
//   the backdrop's own (fineDetail's measure), over the smooth fill: the seams between patches of a ramp are
//   steps, not texture (a gradient: worst error 24 of 255).
// - the body (`body`: a neck, shoulders or a top continued under long hair) seen only in slivers, whose
//   patches the search had to look for at twice its size: as a smooth backdrop, its fine texture scaled to no
//   more than its sources' own. Whole copies of the few patches a sliver holds, laid over and over, made a
//   maze of a pleated top and embossed a beaded one; a top seen whole (a polka-dot blouse) keeps its copies.
// False where nothing could be completed (no source patch). Laying the completion whole where the region is
// not one ramp was tried and not kept (docs/notes.md: it doubled the halo).
bool completeRegion(const cv::Mat &perceptual, const cv::Mat &hole, const cv::Mat &sources, const cv::Mat &smooth, cv::Size small,
                    uint64_t seed, bool body, cv::Mat &canvas) {
    cv::Mat completed;
    coif::CompletionSettings settings;
    coif::CompletionStatus status = coif::completeHole(perceptual, hole, sources, seed, completed, settings);
    // Thin sources (a top seen only between strands of long hair) hold no whole patch at the search's bounded
    // size: searched again at twice that size before the region keeps its smooth fill alone. (Four times as
    // well cost img11's and img2's plates 300–600 ms more, for a sliver of neck the skin's fill serves.)
    bool searchedWider = false;
    if (status == coif::CompletionStatus::noSources) {
        settings.workLongSidePx *= 2;
        searchedWider = true;
        status = coif::completeHole(perceptual, hole, sources, seed, completed, settings);
    }
    if (status != coif::CompletionStatus::ok) return false;
    const bool sliver = body && searchedWider;
    cv::Mat perceptualSmall;
    cv::resize(perceptual, perceptualSmall, small, 0, 0, cv::INTER_AREA);
    if (!sliver && textureLevel(perceptualSmall, coif::maskAt(sources, small, true)) >= kTextureToCopy) {
        canvas = completed;
        keepRimColour(smooth, hole, small, perceptual, sources, canvas);
    } else {
        cv::Mat mean;
        cv::GaussianBlur(completed, mean, cv::Size(0, 0), 1.5);
        cv::Mat detail = completed - mean;
        const cv::Mat own = fineDetail(perceptual, sources, 2.5f);
        std::vector<float> magnitudes;
        for (int y = 0; y < own.rows; ++y) {
            const cv::Vec3f *o = own.ptr<cv::Vec3f>(y);
            const uint8_t *m = sources.ptr<uint8_t>(y);
            for (int x = 0; x < own.cols; ++x)
                if (m[x]) magnitudes.push_back(std::fabs(lumaOf(o[x])));
        }
        const float ownSpread = robustSigma(magnitudes), clip = 2.5f * ownSpread;
        cv::min(cv::max(detail, -clip), clip, detail);
        if (sliver) {
            // The body's fill carries no more grain than its sources do: copies of a top's busiest patches
            // (beads, a knit's ridges) laid over and over embossed the whole fill with them.
            // Both measured alike: the detail's robust spread over the hole and over the sources beside it.
            std::vector<float> laid, beside;
            for (int y = 0; y < detail.rows; ++y) {
                const cv::Vec3f *d = detail.ptr<cv::Vec3f>(y);
                const uint8_t *h = hole.ptr<uint8_t>(y), *m = sources.ptr<uint8_t>(y);
                for (int x = 0; x < detail.cols; ++x) {
                    if (h[x]) laid.push_back(std::fabs(lumaOf(d[x])));
                    else if (m[x]) beside.push_back(std::fabs(lumaOf(d[x])));
                }
            }
            const float spread = robustSigma(laid), sourceSpread = robustSigma(beside);
            if (spread > sourceSpread && sourceSpread > 0) detail *= sourceSpread / spread;
        }
        canvas = smooth + detail;
    }
    return true;
}


// The share of the background's sources outside the body's zone a colour (with its neighbours on the grid) must
// reach for what the parse calls background inside the zone, in that colour, to be taken as background.
constexpr float kForeignColourShare = 0.002f;

// What the parse calls background inside the body's zone (`zone`, box-sized) in colours the background beside it
// (`outside`, its sources off the zone) does not hold: clothes the parse does not know (a white dress before
// foliage). Compared on a 16-level sRGB grid, each cell with its 26 neighbours. Left as evidence for no region,
// the dress was lost, and what continued over the shoulders the hair hid was a grey dome (the membrane between a
// black belt and what the parse did call clothes; deep3dfacerecon 000126). Empty where the background beside the
// zone has too few sources to say (under 64).
cv::Mat clothesCalledBackground(const uint8_t *rgb, int width, const cv::Rect &box, const cv::Mat &classes, const cv::Mat &zone,
                                const cv::Mat &outside) {
    cv::Mat found(box.size(), CV_8U, cv::Scalar(0));
    auto cell = [&](int x, int y) {
        const uint8_t *p = rgb + (size_t(box.y + y) * width + box.x + x) * 3;
        return (p[0] >> 4) << 8 | (p[1] >> 4) << 4 | (p[2] >> 4);
    };
    std::vector<int> count(4096, 0);
    int total = 0;
    for (int y = 0; y < box.height; ++y) {
        const uint8_t *o = outside.ptr<uint8_t>(y);
        for (int x = 0; x < box.width; ++x)
            if (o[x]) {
                ++count[cell(x, y)];
                ++total;
            }
    }
    if (total < 64) return found;
    std::vector<int> near(4096, 0);
    for (int r = 0; r < 16; ++r)
        for (int g = 0; g < 16; ++g)
            for (int b = 0; b < 16; ++b) {
                int sum = 0;
                for (int dr = std::max(0, r - 1); dr <= std::min(15, r + 1); ++dr)
                    for (int dg = std::max(0, g - 1); dg <= std::min(15, g + 1); ++dg)
                        for (int db = std::max(0, b - 1); db <= std::min(15, b + 1); ++db) sum += count[dr << 8 | dg << 4 | db];
                near[r << 8 | g << 4 | b] = sum;
            }
    const float least = std::max(1.0f, kForeignColourShare * float(total));
    for (int y = 0; y < box.height; ++y) {
        const uint8_t *c = classes.ptr<uint8_t>(y), *z = zone.ptr<uint8_t>(y);
        uint8_t *f = found.ptr<uint8_t>(y);
        for (int x = 0; x < box.width; ++x)
            if (z[x] && c[x] == CV_PARSE_BACKGROUND && float(near[cell(x, y)]) < least) f[x] = 255;
    }
    return found;
}

// One region that continues off the head into the removed hair (the background, the body's skin, the
// clothes): its own sources, its smooth fill and its grain.
struct Region {
    cv::Mat source;                  // CV_8U: this region's source pixels
    cv::Mat fill;                    // CV_32FC3: its smooth fill (perceptual values); empty where it continues nowhere
    cv::Mat seed;                    // CV_8U, or empty: plate pixels (not the photo's) its fill's colour continues from too
    float grain = 0;                 // the grain it carries where nothing is copied
    bool body = false;               // the body's skin or clothes (not above the chin), not the background
    bool skin = false;               // the body's skin (neck, chest, shoulders), not its clothes
};


}  // namespace

int32_t cv_parse_to_photo(const uint8_t *rgb, int32_t width, int32_t height, float crop_x, float crop_y, float crop_side,
                          int32_t size, const uint8_t *classes, const float *hair, int32_t guided_radius,
                          float guided_eps, uint8_t *classes_out, float *matte_out) {
    if (!rgb || width <= 0 || height <= 0 || size <= 0 || !(crop_side > 1) || !classes || !hair || !classes_out || !matte_out) return 1;
    try {
        cv::Mat photo(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        cv::Mat classMap(size, size, CV_8U, const_cast<uint8_t *>(classes));
        cv::Mat hairMap(size, size, CV_32F, const_cast<float *>(hair));
        // Photo pixel p ↔ crop pixel u: p = crop + (u + 0.5)·scale − 0.5 (as the parse sampled it).
        const double scale = crop_side / size;
        cv::Mat toCrop = (cv::Mat_<double>(2, 3) << 1 / scale, 0, -(crop_x + 0.5 * scale - 0.5) / scale, 0, 1 / scale,
                          -(crop_y + 0.5 * scale - 0.5) / scale);
        cv::Mat photoClasses(height, width, CV_8U, classes_out), photoHair;
        // WARP_INVERSE_MAP: `toCrop` takes each photo pixel to where it samples the crop.
        cv::warpAffine(classMap, photoClasses, toCrop, photoClasses.size(), cv::INTER_NEAREST | cv::WARP_INVERSE_MAP,
                       cv::BORDER_CONSTANT, cv::Scalar(CV_PARSE_UNKNOWN));
        cv::warpAffine(hairMap, photoHair, toCrop, photoClasses.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                       cv::BORDER_CONSTANT, cv::Scalar(0));
        // Refine only where the crop lies on the photo (the rest is 0).
        const int x0 = std::max(0, int(std::floor(crop_x))), y0 = std::max(0, int(std::floor(crop_y)));
        const int x1 = std::min(width, int(std::ceil(crop_x + crop_side))), y1 = std::min(height, int(std::ceil(crop_y + crop_side)));
        cv::Mat matte(height, width, CV_32F, matte_out);
        matte.setTo(0);
        if (x1 > x0 && y1 > y0) {
            const cv::Rect roi(x0, y0, x1 - x0, y1 - y0);
            cv::Mat guide;
            photo(roi).convertTo(guide, CV_32FC3, 1.0 / 255);
            cv::Mat refined;
            cv::ximgproc::guidedFilter(guide, photoHair(roi), refined, std::max(1, int(guided_radius)), guided_eps, CV_32F);
            cv::min(cv::max(refined, 0.0), 1.0, refined);
            refined.copyTo(matte(roi));
        }
    } catch (const cv::Exception &) {
        return 2;
    }
    return 0;
}

namespace {

// 0. The removal's edge against skin (cv_removal_at_skin). Only the matte's outer half and the ring grown round
// it are judged: inside, the network's hair stays hair. A pixel is hair core at matte 0.9, and skin the matte
// leaves alone under 0.05; the hair's and the skin's colours beside a pixel are their means over windows round it,
// each from at least 3% of its window. The line between them is a hair-over-skin mix only where they differ
// (luminance 1.8× apart, linear): dark hair on fair skin, fair hair on dark skin; alike, the colour cannot tell
// and the grown removal stays. A pixel is on the line within 0.35 of the two colours' distance, and no more than
// 0.15 of it beyond the skin (a wall paler than the skin is not skin). Under 6% hair it is skin (the skin's own
// shading); over 75%, what shows through is the skin's mean (the unmixing divides by the skin's share, which is
// noise there); what shows through lies within 0.25 of the two colours' distance of the skin's mean, or the pixel
// is not a mix of these two.
constexpr float kHairCoreMatte = 0.9f, kEdgeMatte = 0.5f, kSkinMatte = 0.05f, kEdgeLeastShare = 0.03f, kEdgeContrast = 1.8f;
constexpr float kOffTheLine = 0.35f, kBeyondTheSkin = 0.15f, kSkinUnderHairShare = 0.06f, kUnmixUpTo = 0.75f, kUnmixedOff = 0.25f;
// The trust in each pixel's reading is softened over 1.5 px.
constexpr double kTrustSoftenPx = 1.5;

inline bool edgeClass(uint8_t c) { return c == CV_PARSE_SKIN || c == CV_PARSE_NECK || c == CV_PARSE_HAIR; }

}  // namespace

int32_t cv_removal_at_skin(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *classes, const float *matte,
                           const float *below, int32_t below_count, int32_t radius, float *remove, uint8_t *unmixed_rgb) {
    if (!rgb || width <= 0 || height <= 0 || !classes || !matte || !remove || radius < 0 || below_count < 0 || (below_count > 0 && !below))
        return 1;
    try {
        cv::Mat removeMap(height, width, CV_32F, remove);
        const cv::Mat matteMap(height, width, CV_32F, const_cast<float *>(matte));
        const cv::Mat classMap(height, width, CV_8U, const_cast<uint8_t *>(classes));
        cv::Mat band = (removeMap > 0) & (matteMap < kEdgeMatte);
        // How far each pixel is read by colour: 1 a ramp below some line (its value origin + x·per column +
        // y·per row under its limit by the ramp), 0 above them all, so the grown ring gives way to the colour's
        // edge gradually, not along a line.
        auto judgedShare = [&](int x, int y) {
            float most = below_count > 0 ? 0.0f : 1.0f;
            for (int k = 0; k < below_count; ++k) {
                const float *l = below + 5 * k;
                most = std::max(most, std::min(std::max((l[3] - (l[0] + float(x) * l[1] + float(y) * l[2])) / std::max(l[4], 1e-3f), 0.0f), 1.0f));
            }
            return most;
        };
        if (below_count > 0)
            for (int y = 0; y < height; ++y) {
                uint8_t *inBand = band.ptr<uint8_t>(y);
                for (int x = 0; x < width; ++x)
                    if (inBand[x] && judgedShare(x, y) <= 0) inBand[x] = 0;
            }
        if (cv::countNonZero(band) == 0) return 0;
        // The skin's window is one radius (its shading turns toward the edge: a wider mean is paler than the skin
        // there); the hair's two, so that every pixel of the ring the removal grew sees the hair's core.
        const int window = 2 * radius + 2, skinWindow = radius + 2;
        // Only pixels with skin in their window can be judged: long hair down the body is left out before the
        // windows' means are taken (on a 10-megapixel photo, over a box of 4 megapixels, they cost 200 ms).
        {
            const cv::Rect reach = grownWithin(cv::boundingRect(band), skinWindow, cv::Size(width, height));
            const cv::Mat skinSeen = ((classMap(reach) == CV_PARSE_SKIN) | (classMap(reach) == CV_PARSE_NECK)) & (matteMap(reach) <= kSkinMatte);
            cv::Mat nearSkin;
            cv::dilate(skinSeen, nearSkin, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * skinWindow + 1, 2 * skinWindow + 1)));
            cv::Mat banded = band(reach);
            banded &= nearSkin;
        }
        if (cv::countNonZero(band) == 0) return 0;
        const cv::Rect box = grownWithin(cv::boundingRect(band), window, cv::Size(width, height));
        const SRGB &t = srgb();
        // The photo in linear light, and each of it where it is the hair's core or the skin (zero elsewhere).
        cv::Mat linear(box.size(), CV_32FC3), hairWeight(box.size(), CV_32F), skinWeight(box.size(), CV_32F);
        cv::Mat hairLinear(box.size(), CV_32FC3), skinLinear(box.size(), CV_32FC3);
        for (int y = 0; y < box.height; ++y) {
            const uint8_t *src = rgb + (size_t(box.y + y) * width + box.x) * 3;
            const float *m = matteMap.ptr<float>(box.y + y) + box.x;
            const uint8_t *c = classMap.ptr<uint8_t>(box.y + y) + box.x;
            cv::Vec3f *l = linear.ptr<cv::Vec3f>(y), *hl = hairLinear.ptr<cv::Vec3f>(y), *sl = skinLinear.ptr<cv::Vec3f>(y);
            float *hw = hairWeight.ptr<float>(y), *sw = skinWeight.ptr<float>(y);
            for (int x = 0; x < box.width; ++x) {
                l[x] = cv::Vec3f(t.decode[src[3 * x]], t.decode[src[3 * x + 1]], t.decode[src[3 * x + 2]]);
                hw[x] = m[x] >= kHairCoreMatte ? 1.0f : 0.0f;
                // Skin the matte does not reach, grown ring or not: the skin right beside the edge, in its shading.
                sw[x] = (c[x] == CV_PARSE_SKIN || c[x] == CV_PARSE_NECK) && m[x] <= kSkinMatte ? 1.0f : 0.0f;
                hl[x] = l[x] * hw[x];
                sl[x] = l[x] * sw[x];
            }
        }
        const cv::Size kernel(2 * window + 1, 2 * window + 1), skinKernel(2 * skinWindow + 1, 2 * skinWindow + 1);
        cv::Mat hairSum, skinSum, hairCount, skinCount;
        cv::boxFilter(hairLinear, hairSum, -1, kernel, cv::Point(-1, -1), false, cv::BORDER_CONSTANT);
        cv::boxFilter(skinLinear, skinSum, -1, skinKernel, cv::Point(-1, -1), false, cv::BORDER_CONSTANT);
        cv::boxFilter(hairWeight, hairCount, -1, kernel, cv::Point(-1, -1), false, cv::BORDER_CONSTANT);
        cv::boxFilter(skinWeight, skinCount, -1, skinKernel, cv::Point(-1, -1), false, cv::BORDER_CONSTANT);
        const float hairLeast = kEdgeLeastShare * float(kernel.area()), skinLeast = kEdgeLeastShare * float(skinKernel.area());
        // Each pixel's trust in the two-colour mix (0..1), its hair share (−1: not read) and the skin that shows
        // through it.
        cv::Mat trust(box.size(), CV_32F, cv::Scalar(0)), shares(box.size(), CV_32F, cv::Scalar(-1)), shown(box.size(), CV_32FC3, cv::Scalar(0, 0, 0));
        for (int y = 0; y < box.height; ++y) {
            const uint8_t *inBand = band.ptr<uint8_t>(box.y + y) + box.x, *c = classMap.ptr<uint8_t>(box.y + y) + box.x;
            const cv::Vec3f *l = linear.ptr<cv::Vec3f>(y), *hs = hairSum.ptr<cv::Vec3f>(y), *ss = skinSum.ptr<cv::Vec3f>(y);
            const float *hn = hairCount.ptr<float>(y), *sn = skinCount.ptr<float>(y);
            float *tr = trust.ptr<float>(y), *sh = shares.ptr<float>(y);
            cv::Vec3f *sw = shown.ptr<cv::Vec3f>(y);
            for (int x = 0; x < box.width; ++x) {
                if (!inBand[x] || !edgeClass(c[x]) || hn[x] < hairLeast || sn[x] < skinLeast) continue;
                const cv::Vec3f hair = hs[x] / hn[x], skin = ss[x] / sn[x], d = hair - skin;
                const float hairLuma = lumaOf(hair), skinLuma = lumaOf(skin);
                if (std::max(hairLuma, skinLuma) < kEdgeContrast * std::max(std::min(hairLuma, skinLuma), 1e-4f)) continue;
                const float dd = d.dot(d);
                const cv::Vec3f fromSkin = l[x] - skin;
                const float share = fromSkin.dot(d) / dd;
                const cv::Vec3f off = fromSkin - share * d;
                const float hairShare = share < kSkinUnderHairShare ? 0.0f : std::min(share, 1.0f);
                sw[x] = hairShare <= kUnmixUpTo ? (l[x] - hairShare * hair) / (1 - hairShare) : skin;
                // What shows through must be the skin beside it: strands of another tone than the hair's core over
                // skin in shadow unmix to neither (a brown block on a shadowed cheek under fair wisps, liveportrait
                // d9). Each test fades over its last half, so trust does not flip pixel by pixel into a jagged patch.
                const cv::Vec3f fromTheSkin = sw[x] - skin;
                auto within = [](float value, float most) { return 1 - smoothstep(0.25f * most * most, most * most, value); };
                tr[x] = within(off.dot(off) / dd, kOffTheLine) * within(fromTheSkin.dot(fromTheSkin) / dd, kUnmixedOff) *
                        smoothstep(-kBeyondTheSkin, -0.5f * kBeyondTheSkin, share);
                sh[x] = hairShare;
            }
        }
        cv::GaussianBlur(trust, trust, cv::Size(0, 0), kTrustSoftenPx);
        for (int y = 0; y < box.height; ++y) {
            const uint8_t *inBand = band.ptr<uint8_t>(box.y + y) + box.x;
            float *r = removeMap.ptr<float>(box.y + y) + box.x;
            const cv::Vec3f *l = linear.ptr<cv::Vec3f>(y), *sw = shown.ptr<cv::Vec3f>(y);
            const float *tr = trust.ptr<float>(y), *sh = shares.ptr<float>(y);
            for (int x = 0; x < box.width; ++x) {
                // Only where the pixel itself was read (the blur spreads trust, not shares, onto its neighbours).
                if (!inBand[x] || tr[x] <= 0 || sh[x] < 0) continue;
                const float w = tr[x] * judgedShare(box.x + x, box.y + y);
                r[x] = w * sh[x] + (1 - w) * r[x];
                if (!unmixed_rgb) continue;
                uint8_t *dst = unmixed_rgb + (size_t(box.y + y) * width + box.x + x) * 3;
                for (int k = 0; k < 3; ++k) dst[k] = t.toByte(w * sw[x][k] + (1 - w) * l[x][k]);
            }
        }
    } catch (const cv::Exception &) {
        return 2;
    }
    return 0;
}

namespace {

// Where fillAt completed the background: what a larger photo's plate (made at kPlateSidePx) needs to complete
// it again at its own size.
struct CompletionRecord {
    cv::Rect box;        // the removal's box, in the photo fillAt was given
    cv::Mat hole;        // box-sized CV_8U: where the background was completed
    cv::Mat source;      // box-sized CV_8U: what it was completed from
    cv::Mat weight;      // box-sized CV_32F: how much of each pixel the completion makes
};

// ---- The plate, in named steps ------------------------------------------------------------------------------
// fillAt runs them in this order (docs/own-hair.md says what each is for):
//   1. openBox          the removed hair's box, grown so the sources around it are in reach, in linear light;
//   2. findSources      what each fill may copy from: the background off the head, the face's skin, the seam;
//   3. headShading      the drawn head's shading under the photo's light, continued smoothly off the mesh;
//   4. lightHiddenSkin  skin where the hair hid it: an albedo over that shading, joined at the seam, with texture;
//   5. outlineBody      where the body (neck, shoulders, clothes) may continue below the chin, and its light;
//   6. findRegions      the regions that continue off the head: the background, the body's skin, the clothes;
//   7. shareRegions     which region continues where;
//   8. completeRegions  each region's smooth fill and its completion from its own sources;
//   9. markScalp, join  the hair-bearing scalp for the composite; skin inside the head's silhouette, the regions
//                       outside, blended over the photo by the removal, with grain.

// A pixel is removed above this removal: the guided filter's matte trails off below it.
constexpr float kRemovedAbove = 0.02f;
// The box grows by a quarter of its long side (at least 16 px) so the sources around the hair are in reach.
constexpr int kBoxGrowPart = 4, kBoxGrowLeastPx = 16;
// The band the sources keep from the removed hair, 1/60 of the box's long side (at least 2 px, odd): the hair's
// fringe and the shadow it casts darken the pixels just outside what the network calls hair.
constexpr int kSourceBandPart = 60, kSourceBandLeastPx = 2;
// Tiles come from three bands out: stray hairs past the matte's edge, copied in pieces, read as dark scribbles.
constexpr int kTileBands = 3;
// Background within four bands of the hair, in the hair's colour, is its wisps the parse missed.
constexpr int kWispBands = 4;
// A skin source's channels lie within 0.6–1.6× the face's median skin (0.01 of slack above): a fringe or a
// shadowed temple the parse calls skin painted a brown forehead.
constexpr float kSkinSourceLow = 0.6f, kSkinSourceHigh = 1.6f, kSkinSourceSlack = 0.01f;
// The seam keeps the skin's highlights (up to 4× the median: a lit forehead beside a fringe) and, below the chin,
// a neck in the jaw's shadow (down to 0.35).
constexpr float kSeamHigh = 4.0f, kSeamLowUnderChin = 0.35f;
// A wisp's channels lie within 0.75–1.33× the removed hair's median (0.004 of slack), measured on the hair's core
// (removal over 0.9). Wisps are dropped unless that leaves under a third of the background's sources: a backdrop
// the colour of the hair is background after all.
constexpr float kWispLow = 0.75f, kWispHigh = 1.33f, kWispSlack = 0.004f, kHairCoreAbove = 0.9f;
constexpr int kWispKeepPart = 3;
// The tiles of texture: a twentieth of the quilting box's long side, 8–24 px, even; the skin's half that (at
// least 6 px), and no skin tiles from fewer than 16 places (too little skin to copy from without repeats).
constexpr int kTilePart = 20, kTileLeastPx = 8, kTileMostPx = 24, kSkinTileLeastPx = 6, kSkinTilesLeast = 16;
// The head's shading off the mesh is filled at 128 px (smooth by nature), softened over 1/100 of the box so the
// mesh's facets do not show as bands, and kept over 0.1 (it divides the skin).
constexpr int kShadeFillSidePx = 128, kShadeSoftenPart = 100;
constexpr float kShadeLeast = 0.1f;
// Smooth fields are made small: the skin's and the regions' fills at 256 px, the regions' shares at 128 px.
constexpr int kRegionFillSidePx = 256, kShareFillSidePx = 128;
// Grain matched to the sources' noise is at most 3% of white (a busy source's noise is structure the fill cannot
// reproduce); over the skin's tiles half of it (they carry their own noise: the whole grain read as sandpaper).
constexpr float kGrainMost = 0.03f, kGrainOverSkinTiles = 0.5f;
// The body fades in over the fifth of the head's height above the head region's foot (where the neck's sides show
// behind the jaw) and over a tenth of the head's width at its sides; with no face to measure, the neck is 0.7 of
// the head region's width. Over half of that weight is the body's zone.
constexpr float kBodyRampToHead = 0.2f, kBodySideRampToHead = 0.1f, kNeckHalfToHead = 0.35f, kBodyZoneAbove = 0.5f;
// A region continues on its own from 64 source pixels; the body's sources come to a third of the band from the
// hair (a top seen only between strands of long hair lies wholly within the band).
constexpr int kRegionLeastSources = 64, kBodySourceBandPart = 3;
// How far up or down (a share of the head's height) the visible body skin's span across a row carries to rows the
// hair hid (bodySkinSpan): about a neckline's curve over that drop.
constexpr float kSkinSpanRowsToHead = 0.15f;
// Bare skin seen lower down carries farther up: a bare arm or the side of a bare chest below the hair says the
// shoulder above it is bare too (deepface img54's shoulders, under hair down to her upper arms).
constexpr float kSkinSpanRowsBelowToHead = 0.5f;
// A region's fill is made where it claims over 1% of a removed pixel off the head, and its completion laid where
// it claims over 2%.
constexpr float kShareToFill = 0.01f, kShareToComplete = 0.02f;
// The head's silhouette is softened over 1/200 of the box. Without the head's shading, skin darkens by up to 15%
// toward the silhouette over 1/25 of the box (at least 2 px), as a rounded surface does; the scalp's hairline is
// softened over an eighth of that.
constexpr int kSilhouetteSoftenPart = 200, kRimFalloffPart = 25;
constexpr float kRimDarkening = 0.15f, kRimFalloffLeastPx = 2, kScalpSoftenToFalloff = 8;

// Step 1's product: the removed hair's box and the inputs cropped to it (views into the caller's buffers, but
// `linear`), and the distances every later step measures from.
struct PlateBox {
    cv::Rect rect;         // in the photo
    cv::Mat linear;        // CV_32FC3: the photo in linear light
    cv::Mat classes;       // CV_8U: the parse
    cv::Mat head;          // CV_8U: Coif's drawn head region (face, skull, neck band)
    cv::Mat bare;          // CV_8U: the bare face (inside the jaw line, and the forehead)
    cv::Mat shade;         // CV_32F, or empty: the drawn head's shading, 0 off the mesh
    cv::Mat remove;        // CV_32F: how much of each pixel is removed
    cv::Mat removing;      // CV_8U: remove > kRemovedAbove
    cv::Mat fromHair;      // CV_32F: distance to the hair (a removal of kSourceRemoveBelow or more), px
    int band = 0;          // the band the sources keep from the hair, px
    // The quilting and completion's working size: the box at most kQuiltSidePx on its long side.
    double quiltScale = 1;
    cv::Size quiltSize;
    int tile = 0;          // the tiles' side at that size, px
    int longSide() const { return std::max(rect.width, rect.height); }
};

// 1. The box round what is removed, grown by kBoxGrowPart so the sources around it are in reach. False when
// nothing is removed.
bool openBox(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *classes, const float *remove, const uint8_t *head,
             const uint8_t *bare, const float *shade, PlateBox &b) {
    cv::Mat removeMap(height, width, CV_32F, const_cast<float *>(remove));
    const cv::Mat removing = removeMap > kRemovedAbove;
    if (cv::countNonZero(removing) == 0) return false;
    const cv::Rect removed = cv::boundingRect(removing);
    const int grow = std::max(kBoxGrowLeastPx, std::max(removed.width, removed.height) / kBoxGrowPart);
    const cv::Rect box = grownWithin(removed, grow, cv::Size(width, height));
    b.rect = box;

    const SRGB &t = srgb();
    b.linear.create(box.size(), CV_32FC3);
    for (int y = 0; y < box.height; ++y) {
        const uint8_t *src = rgb + (size_t(box.y + y) * width + box.x) * 3;
        cv::Vec3f *dst = b.linear.ptr<cv::Vec3f>(y);
        for (int x = 0; x < box.width; ++x) dst[x] = cv::Vec3f(t.decode[src[3 * x]], t.decode[src[3 * x + 1]], t.decode[src[3 * x + 2]]);
    }
    b.classes = cv::Mat(height, width, CV_8U, const_cast<uint8_t *>(classes))(box);
    b.head = cv::Mat(height, width, CV_8U, const_cast<uint8_t *>(head))(box);
    b.bare = cv::Mat(height, width, CV_8U, const_cast<uint8_t *>(bare))(box);
    if (shade) b.shade = cv::Mat(height, width, CV_32F, const_cast<float *>(shade))(box);
    b.remove = removeMap(box);
    b.removing = removing(box);
    b.band = std::max(kSourceBandLeastPx, b.longSide() / kSourceBandPart) | 1;
    // L2 from a 3×3 mask: the band, the wisps' reach and where tiles may come from are all thresholds of it (a
    // dilation by a 70-px ellipse cost tens of ms).
    cv::distanceTransform(b.remove <= kSourceRemoveBelow, b.fromHair, cv::DIST_L2, 3);
    b.quiltScale = std::min(1.0, double(kQuiltSidePx) / b.longSide());
    b.quiltSize = cv::Size(std::max(1, int(std::lround(box.width * b.quiltScale))), std::max(1, int(std::lround(box.height * b.quiltScale))));
    b.tile = std::min(kTileMostPx, std::max(kTileLeastPx, std::max(b.quiltSize.width, b.quiltSize.height) / kTilePart)) & ~1;
    return true;
}

// Step 2's product: what each fill may copy from. Never anything being removed, and a band away from the hair.
struct PlateSources {
    cv::Mat background;    // CV_8U: background, the body's skin and clothes off the head, less the hair's wisps
    cv::Mat skin;          // CV_8U: skin and neck near the face's own tone
    cv::Mat skinRim;       // CV_8U: the visible skin the hole borders (the seam the skin's fill joins)
    cv::Mat farFromHair;   // CV_8U: three bands from the hair: where tiles may come from
    cv::Vec3f skinMedian;  // the skin sources' median (linear), when haveSkinMedian
    bool haveSkinMedian = false;
    float skinChin = 0;    // the bare face's foot (row; the box's height without one): the head above, the neck below
    cv::Rect bareFace;     // the bare face's box (empty when it is not in the box)
};

// 2. The sources: off the head, what shows beside the hair continues into it (background, the body's skin, the
// clothes it hung over; not what the parse did not reach); inside it, the skin.
PlateSources findSources(const PlateBox &b) {
    PlateSources s;
    const cv::Mat notRemoving = b.fromHair > float(b.band);
    s.farFromHair = b.fromHair > float(kTileBands * b.band);
    s.background = (b.classes == CV_PARSE_BACKGROUND | b.classes == CV_PARSE_NECK | b.classes == CV_PARSE_SKIN | b.classes == CV_PARSE_CLOTH) &
                   (b.head == 0) & notRemoving;
    s.skin = cv::Mat(b.rect.size(), CV_8U, cv::Scalar(0));
    for (int y = 0; y < b.rect.height; ++y) {
        const uint8_t *c = b.classes.ptr<uint8_t>(y);
        uint8_t *k = s.skin.ptr<uint8_t>(y);
        for (int x = 0; x < b.rect.width; ++x) k[x] = isSkinClass(c[x]) || c[x] == CV_PARSE_NECK ? 255 : 0;
    }
    // The seam: the visible skin inside the band, where the hair's shadow and the fill meet.
    s.skinRim = s.skin & (b.fromHair > 1.0f) & (b.fromHair <= float(b.band + 2));
    s.skin &= notRemoving;
    s.bareFace = cv::boundingRect(b.bare);
    s.skinChin = s.bareFace.empty() ? float(b.rect.height) : float(s.bareFace.y + s.bareFace.height - 1);
    s.haveSkinMedian = medianColour(b.linear, [&](int x, int y) { return s.skin.at<uint8_t>(y, x) != 0; }, s.skinMedian);
    if (s.haveSkinMedian) {
        for (int y = 0; y < b.rect.height; ++y) {
            const cv::Vec3f *l = b.linear.ptr<cv::Vec3f>(y);
            uint8_t *k = s.skin.ptr<uint8_t>(y);
            uint8_t *r = s.skinRim.ptr<uint8_t>(y);
            // Above the chin the seam drops what is darker than the sources may be (the hair's shadow and the colour
            // it casts go with the hair: down to 0.35 there, the seam took the shadowed, hair-tinted rim under a
            // fringe as the skin to match); below it, a neck in the jaw's shadow stays.
            const float seamLow = float(y) > s.skinChin ? kSeamLowUnderChin : kSkinSourceLow;
            for (int x = 0; x < b.rect.width; ++x) {
                if (k[x] && !withinBand(l[x], s.skinMedian, kSkinSourceLow, 0, kSkinSourceHigh, kSkinSourceSlack)) k[x] = 0;
                if (r[x] && !withinBand(l[x], s.skinMedian, seamLow, 0, kSeamHigh, kSkinSourceSlack)) r[x] = 0;
            }
        }
    }
    // The hair's wisps: background sources near the hair in its colour, which the parse missed past its edge (fair
    // hair before a busy background). Pulled into the fill they make it glow in the hair's colour. Farther off, dark
    // foliage behind dark hair is background (dropping it left the fill to a white dress: a white glow over a hedge).
    cv::Vec3f hairMedian;
    if (medianColour(b.linear, [&](int x, int y) { return b.remove.at<float>(y, x) > kHairCoreAbove; }, hairMedian)) {
        const cv::Mat nearHair = b.fromHair <= float(kWispBands * b.band);
        cv::Mat unlike = s.background.clone();
        for (int y = 0; y < b.rect.height; ++y) {
            const cv::Vec3f *l = b.linear.ptr<cv::Vec3f>(y);
            const uint8_t *near = nearHair.ptr<uint8_t>(y);
            uint8_t *u = unlike.ptr<uint8_t>(y);
            for (int x = 0; x < b.rect.width; ++x)
                if (u[x] && near[x] && withinBand(l[x], hairMedian, kWispLow, kWispSlack, kWispHigh, kWispSlack)) u[x] = 0;
        }
        if (kWispKeepPart * cv::countNonZero(unlike) >= cv::countNonZero(s.background)) s.background = unlike;
    }
    return s;
}

// 3. The head's shading under the photo's light (`shade`: the skin's predicted luminance at the drawn head's normal
// over its mean on the face), continued smoothly off the mesh (a divisor that jumped to 1 at the mesh's outline
// drew its edge into the skin as a line). Empty without a drawn head.
cv::Mat headShading(const PlateBox &b) {
    if (b.shade.empty() || cv::countNonZero(b.shade > 0) == 0) return cv::Mat();
    cv::Mat known;
    cv::Mat(b.shade > 0).convertTo(known, CV_32F, 1.0 / 255);
    cv::Mat value;
    cv::merge(std::vector<cv::Mat>{b.shade, b.shade, b.shade}, value);
    cv::Mat filled = smoothFill(value, known, kShadeFillSidePx), channels[3];
    cv::split(filled, channels);
    cv::Mat shading = b.shade.clone();
    channels[0].copyTo(shading, b.shade <= 0);
    cv::GaussianBlur(shading, shading, cv::Size(0, 0), std::max(1.0, b.longSide() / double(kShadeSoftenPart)));
    cv::max(shading, kShadeLeast, shading);
    return shading;
}

// Step 4's product: the skin the head's fill lays where the hair hid it.
struct SkinFill {
    cv::Mat fill;          // CV_32FC3 (linear), or empty: no skin to continue
    cv::Mat laid;          // CV_8U, or empty: where the skin's tiles of texture were laid
    float grain = 0;       // the sources' measured noise (robust), at most kGrainMost
};

// 4. Lit skin: the skin's colour continued over the head's shading (an albedo, up to one factor) and shaded again
// where it lands, so the forehead and temples a fringe hid turn from the light as the head does. It is joined to
// the visible skin in the gradient domain and carries the face's own texture.
SkinFill lightHiddenSkin(const PlateBox &b, const PlateSources &s, const cv::Mat &shading, uint64_t seed) {
    SkinFill skin;
    if (cv::countNonZero(s.skin) > 0) {
        cv::Mat skinWeight;
        s.skin.convertTo(skinWeight, CV_32F, 1.0 / 255);
        // How far the skin the hole borders carries on into it before the face's own tone takes over (px). Below
        // the chin the sources are continued whole (relaxedFill): the neck continues the neck and chest it shows.
        const float skinReach = kSkinReachToFace * float(s.bareFace.empty() ? b.longSide() / 3 : s.bareFace.width);
        const cv::Mat headHole = b.removing & (b.head != 0);
        skin.fill = underShading(b.linear, shading, [&](const cv::Mat &albedo) {
            return relaxedFill(albedo, skinWeight, headHole, skinReach, s.skinChin, kRegionFillSidePx);
        });
        // Joined in the gradient domain (seamless cloning, Pérez et al. 2003, with the fill's own shading as the
        // guidance field): the difference between the visible skin and the fill along the seam is continued
        // smoothly over the hole and added, so at the seam the fill is the photo's skin and inward it keeps its own
        // shading. Without it, the fill met skin darkened by the hair's shadow with a step (astronaut's forehead:
        // 11 levels). Only near the join: continued over the whole hole, the rim beside a fringe (in its shadow,
        // tinted by its colour) darkened and reddened every pixel of the forehead it hid.
        if (cv::countNonZero(s.skinRim) > 0) {
            cv::Mat rimWeight, difference = b.linear - skin.fill, fromRim;
            s.skinRim.convertTo(rimWeight, CV_32F, 1.0 / 255);
            cv::Mat seam = smoothFill(difference, rimWeight, kPlateSidePx);
            cv::distanceTransform(s.skinRim == 0, fromRim, cv::DIST_L2, 3);
            fadeWithDistance(seam, fromRim, skinReach, s.skinChin);
            skin.fill += seam;
        }
    }
    skin.grain = std::min(grainSigma(b.linear, s.skin), kGrainMost);
    if (skin.fill.empty()) return skin;
    // The skin's own fine texture (mottling, pores): tiles of the face's visible skin far from the hair, laid as the
    // background's were, carrying only its detail (each pixel less its local mean, clipped at 2 robust σ, so a mole,
    // a wrinkle's edge or a nostril's rim does not come along), added to the smooth fill. White grain alone left a
    // flat, poreless forehead that read as retouched.
    const int skinTile = std::max(kSkinTileLeastPx, b.tile / 2) & ~1;
    const cv::Mat headHole = b.removing & (b.head != 0);
    const cv::Mat skinFar = s.skin & s.farFromHair;
    const std::vector<cv::Point> skinCentres = coif::tileCentres(coif::maskAt(skinFar, b.quiltSize, true), skinTile);
    if (skinCentres.size() < size_t(kSkinTilesLeast) || cv::countNonZero(headHole) == 0) return skin;
    // In linear light, unlike the background's: skin's detail is small against its level, so adding it there or in
    // perceptual values differs by little, and the box's gamma passes cost more.
    const cv::Mat holeSmall = coif::maskAt(headHole, b.quiltSize, false);
    cv::Mat photoSmall = b.linear, canvasSmall;
    if (b.quiltScale < 1) cv::resize(b.linear, photoSmall, b.quiltSize, 0, 0, cv::INTER_AREA);
    canvasSmall = photoSmall.clone();
    cv::Mat fillSmall = skin.fill;
    if (b.quiltScale < 1) cv::resize(skin.fill, fillSmall, b.quiltSize, 0, 0, cv::INTER_AREA);
    fillSmall.copyTo(canvasSmall, holeSmall);
    const cv::Mat everywhere(b.quiltSize, CV_8U, cv::Scalar(255));
    const std::vector<coif::TilePlacement> plan = coif::quiltPlan(photoSmall, canvasSmall, holeSmall, coif::maskAt(s.skin, b.quiltSize, true),
                                                                  everywhere, skinCentres, skinTile, seed ^ 0x5EED5C1Aull);
    cv::Mat detail(b.rect.size(), CV_32FC3, cv::Scalar::all(0));
    // The detail only where tiles come from: the sources far from the hair, grown by a tile.
    const int reach = int(std::ceil(skinTile / b.quiltScale)) + 4;
    cv::Rect from = cv::boundingRect(skinFar);
    from = cv::Rect(from.x - reach, from.y - reach, from.width + 2 * reach, from.height + 2 * reach) & cv::Rect(0, 0, b.rect.width, b.rect.height);
    cv::Mat fine(b.rect.size(), CV_32FC3, cv::Scalar::all(0));
    fineDetail(b.linear(from), s.skin(from), 2.0f).copyTo(fine(from));
    coif::pasteTiles(fine, headHole, plan, skinTile, b.quiltScale, detail, skin.laid);
    cv::add(skin.fill, detail, skin.fill, skin.laid);
    return skin;
}

// Step 5's product: where the body may continue and how it is lit.
struct BodyOutline {
    cv::Rect head;         // the head region's box (empty: no head, no body)
    float headBottom = 0;  // the head region's foot (its neck band's end), row
    float chin = 0;        // the bare face's foot (the head's foot without one), row
    cv::Mat weight;        // CV_32F 0…1: where the body may be
    cv::Mat zone;          // CV_8U: weight over kBodyZoneAbove
    cv::Mat torso;         // CV_32F: the torso's light, a factor on perceptual values (1 off the body)
    float middle = 0;      // the neck's middle, column
    float neckHalfWidth = 0;  // the neck's half-width, px
};

// The body's half-width bound on one side (`side` -1 left, +1 right) of `middle`, per row of the box: where a row
// shows the background (`background`, what the parse calls background and is not clothes) past the outermost
// visible body pixel (`body`), the body ends before it; the bound carries to rows above and below by
// kBodyWidenRising and kBodyWidenDropping. Rows with no such evidence within reach stay unbounded (a large value).
std::vector<float> besideBody(const cv::Mat &body, const cv::Mat &background, float middle, float least, int side, float reach) {
    const int rows = body.rows, cols = body.cols;
    constexpr float kUnbounded = 1e9f;
    std::vector<float> seen(size_t(rows), kUnbounded), bound(size_t(rows), kUnbounded);
    const int from = std::min(std::max(int(std::lround(middle)), 0), cols - 1);
    for (int y = 0; y < rows; ++y) {
        const uint8_t *bd = body.ptr<uint8_t>(y), *bg = background.ptr<uint8_t>(y);
        int farthest = -1;
        for (int x = from; x >= 0 && x < cols; x += side)
            if (bd[x]) farthest = x;
        const float start = farthest >= 0 ? std::fabs(float(farthest) - middle) : least;
        for (int x = from; x >= 0 && x < cols; x += side) {
            const float d = std::fabs(float(x) - middle);
            if (d > start && bg[x]) {
                seen[size_t(y)] = d;
                break;
            }
        }
    }
    const int span = std::max(1, int(reach));
    for (int y = 0; y < rows; ++y) {
        float b = kUnbounded;
        for (int k = std::max(0, y - span); k <= std::min(rows - 1, y + span); ++k) {
            if (seen[size_t(k)] >= kUnbounded) continue;
            b = std::min(b, seen[size_t(k)] + (k >= y ? kBodyWidenRising : kBodyWidenDropping) * float(std::abs(k - y)));
        }
        bound[size_t(y)] = b;
    }
    return bound;
}

// 5. The body (neck, shoulders, clothes) hangs below the head: it does not continue above the chin, fading in over
// the fifth of the head's height above the head region's foot, where the neck's sides show behind the jaw. Above,
// what the hair hid beside the head is background. Below, it widens as shoulders do: the neck's width
// (neckUnderJaw) down to where the trapezius leaves it (kShoulderFromChin), then out along the shoulders' line.
// Skin and clothes share that outline, so the neck flares into the shoulders. The body is a volume lit as the head
// is: across each row a torso's section (an ellipse as wide as the body there) turns from the camera toward its
// sides (kTorsoTurn at its silhouette) and leans toward the side the face is lit from; a body continued flat under
// long hair read as a cut-out dome. Each side then ends before the background the photo shows beside the body
// (besideBody), so a slim or turned person's body is not the template's width where her arms and the wall beside
// them show below the hair.
BodyOutline outlineBody(const uint8_t *rgb, int32_t width, const PlateBox &b) {
    BodyOutline o;
    o.head = cv::boundingRect(b.head);
    o.weight = cv::Mat(b.rect.size(), CV_32F, cv::Scalar(0));
    o.torso = cv::Mat(b.rect.size(), CV_32F, cv::Scalar(1));
    const float headHeight = float(o.head.height - 1);
    o.headBottom = float(o.head.y + o.head.height - 1);
    const float bodyFrom = o.head.empty() ? -1e9f : o.headBottom - kBodyRampToHead * headHeight;
    const float bodyRamp = o.head.empty() ? 1 : std::max(1.0f, kBodyRampToHead * headHeight);
    float headMiddle = float(o.head.x) + 0.5f * float(o.head.width - 1), neckHalfWidth = kNeckHalfToHead * float(o.head.width);
    neckUnderJaw(b.bare, headMiddle, neckHalfWidth);
    o.middle = headMiddle;
    o.neckHalfWidth = neckHalfWidth;
    const float sideRamp = std::max(1.0f, kBodySideRampToHead * float(o.head.width));
    const cv::Rect face = cv::boundingRect(b.bare);
    o.chin = face.empty() ? o.headBottom : std::min(float(face.y + face.height - 1), o.headBottom);
    const float shoulderTop = o.chin + kShoulderFromChin * (o.headBottom - o.chin);
    const float shoulderHalfWidth = std::max(neckHalfWidth, kShoulderToHead * float(o.head.width));
    // The body's half-width `drop` px below where it starts to widen: the neck's, then out along the shoulders'
    // line to the shoulders' width. The neck's side turns into the trapezius' line over kNeckFlareToNeck of the
    // neck's half-width of drop (the drop is eased in quadratically, so the outline leaves the neck vertically and
    // curves out): a line that left the neck at the trapezius' slope at once drew a column standing on a dome.
    const float flare = std::max(1.0f, kNeckFlareToNeck * neckHalfWidth);
    auto shoulderLine = [&](float drop) {
        const float reach = std::max(shoulderHalfWidth - neckHalfWidth, 1.0f);
        const float d = std::max(drop + 0.5f * flare, 0.0f);
        const float eased = d < flare ? d * d / (2 * flare) : d - 0.5f * flare;
        // Along the trapezius' straight line, then round the deltoid's corner (a soft minimum of the line and the
        // shoulders' width, kShoulderCornerToReach of the reach wide) and down the arm; an exponential approach
        // curved all the way out and read as a dome.
        const float corner = std::max(1.0f, kShoulderCornerToReach * reach), along = kShoulderSlope * eased;
        const float beyond = (reach - along) / corner;
        const float soft = beyond > 20 ? along : reach - corner * std::log1p(std::exp(beyond));
        return neckHalfWidth + std::max(soft, 0.0f);
    };
    // Which side the light comes from: the head's shading on either side of its middle.
    float lightSide = 0;
    if (!b.shade.empty() && !o.head.empty()) {
        double sum[2] = {0, 0};
        int count[2] = {0, 0};
        for (int y = o.head.y; y < o.head.y + o.head.height; ++y) {
            const float *d = b.shade.ptr<float>(y);
            for (int x = o.head.x; x < o.head.x + o.head.width; ++x) {
                if (d[x] <= 0) continue;
                const int side = float(x) > headMiddle ? 1 : 0;
                sum[side] += d[x];
                ++count[side];
            }
        }
        if (count[0] > 0 && count[1] > 0) {
            const double left = sum[0] / count[0], right = sum[1] / count[1];
            lightSide = float(std::min(std::max((right - left) / std::max(right + left, 1e-3), -double(kTorsoLightLean)), double(kTorsoLightLean)));
        }
    }
    // The template's outline first; then, each side bounded by the background seen beside the body (besideBody),
    // with the clothes the parse calls background (a white dress) told from it by the template's zone.
    std::vector<float> bound[2];
    for (int pass = 0; pass < 2 && !o.head.empty(); ++pass) {
        for (int y = 0; y < b.rect.height; ++y) {
            float *w = o.weight.ptr<float>(y), *lit = o.torso.ptr<float>(y);
            const float belowChin = std::min(std::max((float(y) - bodyFrom) / bodyRamp, 0.0f), 1.0f);
            const float fromTemplate = std::max(shoulderLine(float(y) - shoulderTop), 1.0f);
            float halfWidths[2] = {fromTemplate, fromTemplate};
            if (pass == 1)
                for (int side = 0; side < 2; ++side)
                    halfWidths[side] = std::max(std::min(fromTemplate, bound[side][size_t(y)]), std::min(fromTemplate, neckHalfWidth));
            if (belowChin <= 0) continue;
            for (int x = 0; x < b.rect.width; ++x) {
                const float halfWidth = halfWidths[float(x) > headMiddle ? 1 : 0];
                const float across = (float(x) - headMiddle) / halfWidth;
                w[x] = belowChin * std::min(std::max((halfWidth - std::fabs(float(x) - headMiddle)) / sideRamp + 0.5f, 0.0f), 1.0f);
                // The template's pass needs only where the body may be, not its light.
                if (w[x] <= 0 || pass == 0) continue;
                const float clamped = std::min(std::max(across, -1.0f), 1.0f);
                const float facing = std::sqrt(std::max(1 - clamped * clamped, 0.0f));
                const float light = (1 - kTorsoTurn * (1 - facing)) * (1 + lightSide * clamped);
                lit[x] = 1 + (std::pow(light, 1 / 2.2f) - 1) * w[x];
            }
        }
        if (pass == 1) break;
        o.zone = o.weight > kBodyZoneAbove;
        // The evidence, off the head and a band from the hair (its wisps are neither).
        const cv::Mat visible = (b.head == 0) & (b.fromHair > float(b.band));
        const cv::Mat called = b.classes == CV_PARSE_BACKGROUND;
        const cv::Mat clothes = clothesCalledBackground(rgb, width, b.rect, b.classes, o.zone, visible & called & (o.zone == 0));
        const cv::Mat bodySeen = visible & ((b.classes == CV_PARSE_CLOTH) | (b.classes == CV_PARSE_NECK) | (b.classes == CV_PARSE_SKIN) | clothes);
        // Only background joined to what shows beside the head above the body: a black belt the parse calls
        // background, enclosed by a white dress, is not the wall beside her (000126's narrowed her to her neck).
        cv::Mat backgroundSeen = visible & called & (clothes == 0), labels;
        std::vector<uint8_t> beside(size_t(cv::connectedComponents(backgroundSeen, labels, 8, CV_32S)), 0);
        for (int y = 0; y < std::min(b.rect.height, int(std::floor(bodyFrom))); ++y) {
            const int *l = labels.ptr<int>(y);
            for (int x = 0; x < b.rect.width; ++x) beside[size_t(l[x])] = 1;
        }
        beside[0] = 0;
        for (int y = 0; y < b.rect.height; ++y) {
            const int *l = labels.ptr<int>(y);
            uint8_t *seen = backgroundSeen.ptr<uint8_t>(y);
            for (int x = 0; x < b.rect.width; ++x) seen[x] = beside[size_t(l[x])] ? 255 : 0;
        }
        for (int side = 0; side < 2; ++side)
            bound[side] = besideBody(bodySeen, backgroundSeen, headMiddle, neckHalfWidth, side == 0 ? -1 : 1, headHeight);
        o.weight.setTo(0);
    }
    o.zone = o.weight > kBodyZoneAbove;
    return o;
}

// 6. The regions that continue off the head, each from its own sources: the background (outside the body's zone),
// the body's skin and the clothes. What the parse calls background inside the body's zone is evidence for no
// region unless its colours are foreign to the background beside it (clothesCalledBackground): it may be a dress
// the parse does not know as clothes; taken as background, it drew the background's fill toward white round a
// girl's head over foliage, and copied round the head it put the top there. Skin or neck below the chin far darker
// than the face (kClothesUnderSkin) is clothes: a black top called neck, continued as skin, laid a brown dome over
// the shoulders her hair hid. With only scraps of each, one region of them all.
std::vector<Region> findRegions(const uint8_t *rgb, int32_t width, const PlateBox &b, const PlateSources &s, const SkinFill &skin,
                                const BodyOutline &body) {
    const cv::Mat calledSkin = b.classes == CV_PARSE_NECK | b.classes == CV_PARSE_SKIN;
    cv::Mat clothesCalledSkin(b.rect.size(), CV_8U, cv::Scalar(0));
    if (s.haveSkinMedian) {
        const float darkest = kClothesUnderSkin * lumaOf(s.skinMedian);
        for (int y = std::max(0, int(std::ceil(body.chin))); y < b.rect.height; ++y) {
            const cv::Vec3f *l = b.linear.ptr<cv::Vec3f>(y);
            const uint8_t *c = calledSkin.ptr<uint8_t>(y), *z = body.zone.ptr<uint8_t>(y), *h = b.head.ptr<uint8_t>(y);
            uint8_t *o = clothesCalledSkin.ptr<uint8_t>(y);
            for (int x = 0; x < b.rect.width; ++x)
                if (c[x] && z[x] && !h[x] && lumaOf(l[x]) < darkest) o[x] = 255;
        }
    }
    const cv::Mat regionSources[] = {b.classes == CV_PARSE_BACKGROUND, calledSkin & (clothesCalledSkin == 0),
                                     (b.classes == CV_PARSE_CLOTH) | clothesCalledSkin |
                                         clothesCalledBackground(rgb, width, b.rect, b.classes, body.zone, s.background & (body.zone == 0))};
    std::vector<Region> regions;
    for (int kind = 0; kind < 3; ++kind) {
        Region region;
        region.source = kind == 0 ? s.background & regionSources[kind] & (body.zone == 0)
                                  : regionSources[kind] & (b.head == 0) & (b.fromHair > float(std::max(1, b.band / kBodySourceBandPart)));
        region.body = kind > 0;
        region.skin = kind == 1;
        if (cv::countNonZero(region.source) < kRegionLeastSources) continue;
        // The body's skin takes its colour from the neck the head's fill lays as well as from the skin the photo
        // shows: the neck band's foot (kNeckFootSeed). Without it the band's foot, in the face's tone, met the body's
        // skin, in the chest's, in a step: a pale neck standing on a shelf (img11, img2). Colour only: where the body
        // continues stays the visible body's to say (the foot's claim spread skin over a scrub top, ultralightfd 23).
        if (kind == 1 && !skin.fill.empty()) {
            region.seed = (b.head != 0) & (b.bare == 0) & ((b.remove > 0.5f) | regionSources[1]);
            const float footFrom = body.headBottom - std::max(2.0f, kNeckFootSeed * (body.headBottom - body.chin));
            region.seed.rowRange(0, std::min(b.rect.height, std::max(0, int(std::ceil(footFrom))))).setTo(0);
            if (cv::countNonZero(region.seed) == 0) region.seed.release();
        }
        regions.push_back(std::move(region));
    }
    if (regions.empty() && cv::countNonZero(s.background) > 0) {
        Region all;
        all.source = s.background;
        regions.push_back(std::move(all));
    }
    return regions;
}

// A region's claim sharpened (sixth power): regions meet along a soft line, not in a blend (a yellow sign and a
// blue wall into brown).
inline float sharpened(float claim) {
    const float v = std::max(claim, 0.0f);
    return v * v * v * v * v * v;
}

// Where the body's skin (`skin`, its region) may continue (CV_32F 0…1, the box's size): the neck's column, and
// across each row the span the visible body skin holds within kSkinSpanRowsToHead of the head's height above it
// (kSkinSpanRowsBelowToHead below it), softened over the body's side ramp. Elsewhere in the body the clothes continue: skin seen only at the neckline, whose
// membrane otherwise spread over the shoulders the hair hid, laid a slab of skin over a T-shirt's or a blouse's
// shoulders (insightface 2963, deepface img11); bare shoulders the photo shows keep their skin (deepface img54).
cv::Mat bodySkinSpan(const Region &skin, const BodyOutline &body) {
    const int rows = skin.source.rows, cols = skin.source.cols;
    std::vector<int> left(size_t(rows), cols), right(size_t(rows), -1);
    for (int y = 0; y < rows; ++y) {
        const uint8_t *m = skin.source.ptr<uint8_t>(y);
        for (int x = 0; x < cols; ++x)
            if (m[x]) {
                left[size_t(y)] = std::min(left[size_t(y)], x);
                right[size_t(y)] = x;
            }
    }
    const int reach = std::max(1, int(kSkinSpanRowsToHead * float(body.head.height)));
    const int reachBelow = std::max(reach, int(kSkinSpanRowsBelowToHead * float(body.head.height)));
    const float ramp = std::max(1.0f, kBodySideRampToHead * float(body.head.width));
    cv::Mat allowed(skin.source.size(), CV_32F, cv::Scalar(0));
    for (int y = 0; y < rows; ++y) {
        int from = cols, to = -1;
        for (int k = std::max(0, y - reach); k <= std::min(rows - 1, y + reachBelow); ++k) {
            from = std::min(from, left[size_t(k)]);
            to = std::max(to, right[size_t(k)]);
        }
        const float spanFrom = std::min(float(from), body.middle - body.neckHalfWidth);
        const float spanTo = std::max(float(to), body.middle + body.neckHalfWidth);
        float *a = allowed.ptr<float>(y);
        for (int x = 0; x < cols; ++x) {
            const float outside = std::max(spanFrom - float(x), float(x) - spanTo);
            a[x] = std::min(std::max(0.5f - outside / ramp, 0.0f), 1.0f);
        }
    }
    return allowed;
}

// 7. Which region continues where (the channels of one CV_32FC3, summing to 1): the regions' indicators continued
// by the membrane (so the line between a top and the wall behind runs on across the hole as the two meet at its
// rim), then moved between the background and the body by the body's outline, then sharpened. Inside the
// shoulders the background's claim passes to the body regions in their own proportions (long hair over the
// shoulders hid the person's shoulders and top, not the wall behind: a wall continued there left the head floating
// over it; where no body region claims, to the one with the most sources); above the chin and beyond the shoulders
// the body's claim passes to the background.
cv::Mat shareRegions(const PlateBox &b, const std::vector<Region> &regions, const BodyOutline &body) {
    cv::Mat indicator(b.rect.size(), CV_32FC3, cv::Scalar::all(0)), anySource(b.rect.size(), CV_8U, cv::Scalar(0));
    for (size_t k = 0; k < regions.size(); ++k) {
        indicator.setTo(cv::Scalar(k == 0, k == 1, k == 2), regions[k].source);
        anySource |= regions[k].source;
    }
    cv::Mat anyWeight;
    anySource.convertTo(anyWeight, CV_32F, 1.0 / 255);
    const cv::Mat continues = smoothFill(indicator, anyWeight, kShareFillSidePx);
    size_t widestBody = 0;
    for (size_t k = 1; k < regions.size(); ++k)
        if (widestBody == 0 || cv::countNonZero(regions[k].source) > cv::countNonZero(regions[widestBody].source)) widestBody = k;
    // No head: no shoulders to place, and the regions meet where their membranes do.
    const bool placeBody = !body.head.empty() && !regions[0].body;
    int skinKind = -1, clothesKind = -1;
    for (size_t k = 1; k < regions.size(); ++k) (regions[k].skin ? skinKind : clothesKind) = int(k);
    // The skin's span matters only where there are clothes to continue beside it.
    const cv::Mat skinAllowed = placeBody && skinKind > 0 && clothesKind > 0 ? bodySkinSpan(regions[size_t(skinKind)], body) : cv::Mat();
    cv::Mat share(b.rect.size(), CV_32FC3, cv::Scalar::all(0));
    for (int y = 0; y < b.rect.height; ++y) {
        const cv::Vec3f *c = continues.ptr<cv::Vec3f>(y);
        const float *allowedRow = body.weight.ptr<float>(y);
        cv::Vec3f *sh = share.ptr<cv::Vec3f>(y);
        for (int x = 0; x < b.rect.width; ++x) {
            const float allowed = allowedRow[x];
            cv::Vec3f claim = c[x];
            if (placeBody) {
                float bodyClaim = 0;
                for (size_t k = 1; k < regions.size(); ++k) bodyClaim += std::max(claim[int(k)], 0.0f);
                const float toBody = std::max(claim[0], 0.0f) * allowed;
                if (widestBody > 0 && toBody > 0) {
                    claim[0] -= toBody;
                    for (size_t k = 1; k < regions.size(); ++k)
                        claim[int(k)] += bodyClaim > 1e-4f ? toBody * std::max(claim[int(k)], 0.0f) / bodyClaim : (k == widestBody ? toBody : 0.0f);
                }
                for (size_t k = 1; k < regions.size(); ++k) {
                    const float moved = std::max(claim[int(k)], 0.0f) * (1 - allowed);
                    claim[int(k)] -= moved;
                    claim[0] += moved;
                }
                if (!skinAllowed.empty()) {
                    const float moved = std::max(claim[skinKind], 0.0f) * (1 - skinAllowed.at<float>(y, x));
                    claim[skinKind] -= moved;
                    claim[clothesKind] += moved;
                }
            }
            const cv::Vec3f p(sharpened(claim[0]), sharpened(claim[1]), sharpened(claim[2]));
            const float total = p[0] + p[1] + p[2];
            sh[x] = total > 1e-12f ? p / total : cv::Vec3f(1, 0, 0);
        }
    }
    return share;
}

// Step 8's product: what continues off the head.
struct RegionFill {
    cv::Mat fill;          // CV_32FC3 (linear): each region's fill by its share; the photo where no region continues
    cv::Mat grain;         // CV_32F: the grain the fill still needs (the regions' own, less what copies carry)
    cv::Mat completed;     // CV_32F, or empty: the background's completion's share of each pixel, where it was made
};

// 8. Each region's smooth fill (in perceptual values: a high-contrast backdrop averaged in linear light is a pale
// grey the eye never sees in it, which glowed over a hedge; the body's under the torso's light, the background's
// along the lines it carries), then its completion from its own sources only: multi-scale PatchMatch with EM voting
// (patch_complete.cpp, via completeRegion), so a wall's edge, a doorway or foliage carries across the hole, a
// sweater's knit continues under where long hair hung, and the person never comes into the background. `record`,
// when given, receives the background's hole and sources.
RegionFill completeRegions(const PlateBox &b, std::vector<Region> &regions, const cv::Mat &share, const BodyOutline &body,
                           const cv::Mat &skinFill, uint64_t seed, CompletionRecord *record) {
    RegionFill out;
    out.fill = b.linear.clone();
    out.grain = cv::Mat(b.rect.size(), CV_32F, cv::Scalar(0));
    if (regions.empty()) return out;
    const cv::Mat offHead = b.removing & (b.head == 0);
    std::vector<cv::Mat> channels;
    cv::split(share, channels);
    cv::Mat perceptual = b.linear.clone();
    Gamma::apply(perceptual, gamma22().encode);
    for (size_t k = 0; k < regions.size(); ++k) {
        Region &region = regions[k];
        // A region that continues nowhere off the head needs no fill.
        double claimed = 0;
        cv::minMaxLoc(channels[k], nullptr, &claimed, nullptr, nullptr, offHead);
        if (claimed < kShareToFill) continue;
        cv::Mat weight;
        cv::Mat values = perceptual;
        if (region.seed.empty()) {
            region.source.convertTo(weight, CV_32F, 1.0 / 255);
        } else {
            // At the seed, what the head's fill lays there: the photo where nothing is removed, the skin fill where
            // the hair hid it.
            cv::Mat(region.source | region.seed).convertTo(weight, CV_32F, 1.0 / 255);
            values = perceptual.clone();
            const float *encode = gamma22().encode;
            for (int y = 0; y < b.rect.height; ++y) {
                const uint8_t *sd = region.seed.ptr<uint8_t>(y);
                const float *r = b.remove.ptr<float>(y);
                const cv::Vec3f *ph = b.linear.ptr<cv::Vec3f>(y), *sk = skinFill.ptr<cv::Vec3f>(y);
                cv::Vec3f *v = values.ptr<cv::Vec3f>(y);
                for (int x = 0; x < b.rect.width; ++x) {
                    if (!sd[x]) continue;
                    const float w = std::min(std::max(r[x], 0.0f), 1.0f);
                    const cv::Vec3f laid = ph[x] * (1 - w) + sk[x] * w;
                    for (int c = 0; c < 3; ++c) v[x][c] = Gamma::lookUp(encode, laid[c]);
                }
            }
        }
        region.fill = region.body ? smoothFillUnderShading(values, weight, body.torso, kRegionFillSidePx) : orientedFill(values, weight, kRegionFillSidePx);
        region.grain = std::min(grainSigma(b.linear, region.source), kGrainMost);
    }
    // The smooth fill, each region's by its share: the guide the completion keeps to, and the grain of the regions
    // that have no copies.
    for (int y = 0; y < b.rect.height; ++y) {
        const cv::Vec3f *sh = share.ptr<cv::Vec3f>(y);
        cv::Vec3f *f = out.fill.ptr<cv::Vec3f>(y);
        float *g = out.grain.ptr<float>(y);
        for (int x = 0; x < b.rect.width; ++x) {
            cv::Vec3f sum(0, 0, 0);
            float grain = 0;
            for (size_t k = 0; k < regions.size(); ++k) {
                if (regions[k].fill.empty()) continue;
                sum += regions[k].fill.at<cv::Vec3f>(y, x) * sh[x][int(k)];
                grain += regions[k].grain * sh[x][int(k)];
            }
            f[x] = sum;
            g[x] = grain;
        }
    }
    // Each region's completion where it continues, matched in perceptual values as the eye compares. It replaced
    // tiles laid by image quilting, which carried texture but broke a line into steps.
    std::vector<cv::Mat> canvases(regions.size()), laids(regions.size());
    const bool backgroundFirst = !regions[0].body;
    for (size_t k = 0; k < regions.size(); ++k) {
        if (regions[k].fill.empty()) continue;
        const cv::Mat hole = offHead & (channels[k] > kShareToComplete);
        const cv::Mat &sources = regions[k].source;
        if (cv::countNonZero(hole) == 0 ||
            !completeRegion(perceptual, hole, sources, regions[k].fill, b.quiltSize, seed ^ (0x9E3779B97F4A7C15ull * k), regions[k].body, canvases[k]))
            continue;
        laids[k] = hole;
        if (record && k == 0 && backgroundFirst) {
            record->box = b.rect;
            record->hole = hole;
            record->source = sources;
        }
    }
    // Each region's part of each pixel is its completion's: the line between a top and the wall behind stays the
    // regions' soft line. The copies carry their own grain.
    for (size_t k = 0; k < regions.size(); ++k) {
        const cv::Mat &laid = laids[k], &canvas = canvases[k];
        if (laid.empty()) continue;
        if (k == 0 && backgroundFirst) {
            out.completed = cv::Mat(b.rect.size(), CV_32F, cv::Scalar(0));
            channels[0].copyTo(out.completed, laid);
        }
        for (int y = 0; y < b.rect.height; ++y) {
            const cv::Vec3f *sh = share.ptr<cv::Vec3f>(y), *c = canvas.ptr<cv::Vec3f>(y), *smooth = regions[k].fill.ptr<cv::Vec3f>(y);
            const uint8_t *l = laid.ptr<uint8_t>(y);
            cv::Vec3f *f = out.fill.ptr<cv::Vec3f>(y);
            float *g = out.grain.ptr<float>(y);
            for (int x = 0; x < b.rect.width; ++x) {
                if (!l[x]) continue;
                f[x] += (c[x] - smooth[x]) * sh[x][int(k)];
                g[x] = std::max(g[x] - regions[k].grain * sh[x][int(k)], 0.0f);
            }
        }
    }
    Gamma::apply(out.fill, gamma22().decode);
    return out;
}

// 9a. The person's hair-bearing scalp (the head off the bare face and forehead), which the composite draws as
// close-cropped hair: softened over an eighth of the skull's shading falloff (~1% of the face's width) so the
// hairline is not a cut (over a third, the crop's edge at the temples was a dark haze that read as a shadow), and
// weighted by twice the removal, capped: under a thin fringe (matte ~0.5) the scalp still carries its whole crop.
void markScalp(const PlateBox &b, const cv::Mat &alpha, float falloff, int32_t width, float *out_scalp) {
    cv::Mat scalp = (b.head != 0) & (b.bare == 0), scalpWeight;
    scalp.convertTo(scalpWeight, CV_32F, 1.0 / 255);
    cv::GaussianBlur(scalpWeight, scalpWeight, cv::Size(0, 0), std::max(1.0f, falloff / kScalpSoftenToFalloff));
    for (int y = 0; y < b.rect.height; ++y) {
        const float *w = scalpWeight.ptr<float>(y), *a = alpha.ptr<float>(y);
        float *dst = out_scalp + size_t(b.rect.y + y) * width + b.rect.x;
        for (int x = 0; x < b.rect.width; ++x) dst[x] = std::min(w[x], 1.0f) * std::min(2 * a[x], 1.0f);
    }
}

// The plate at the photo's own size (cv_hair_fill's contract; it calls this at most kPlateSidePx on the long side):
// the steps above in order, then 9b, the join: skin inside the head's anti-aliased silhouette, the regions outside,
// plus grain as the sources carry it, blended over the photo by the removal softened by a pixel. `record`, when
// given, receives where the background was completed (empty where it was not).
int32_t fillAt(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *classes, const float *remove,
               const uint8_t *head, const uint8_t *bare, const float *shade, uint64_t seed, uint8_t *out_rgb, float *out_scalp,
               CompletionRecord *record = nullptr) {
    std::memcpy(out_rgb, rgb, size_t(width) * height * 3);
    if (out_scalp) std::fill(out_scalp, out_scalp + size_t(width) * height, 0.0f);
    try {
        PlateBox b;
        if (!openBox(rgb, width, height, classes, remove, head, bare, shade, b)) return 0;
        const PlateSources sources = findSources(b);
        const cv::Mat shading = headShading(b);
        SkinFill skin = lightHiddenSkin(b, sources, shading, seed);
        const BodyOutline body = outlineBody(rgb, width, b);
        std::vector<Region> regions = findRegions(rgb, width, b, sources, skin, body);
        const cv::Mat share = regions.empty() ? cv::Mat() : shareRegions(b, regions, body);
        const RegionFill around = completeRegions(b, regions, share, body, skin.fill, seed, record);
        // No skin to continue: the head is filled as what surrounds it.
        if (skin.fill.empty()) skin.fill = around.fill.clone();

        const int side = b.longSide();
        const double soften = std::max(1.0, side / double(kSilhouetteSoftenPart));
        cv::Mat headWeight;
        b.head.convertTo(headWeight, CV_32F, 1.0 / 255);
        cv::GaussianBlur(headWeight, headWeight, cv::Size(0, 0), soften);
        // No skin outside the silhouette beside skin the photo keeps (a cheek's own edge, kept by the removal's
        // edge): softened across it, the skin's fill laid a pale haze over the background beside a sharp cheek.
        // Where the skin inside is filled too (a forehead under a fringe) the softening stays on both sides.
        const int reach = int(std::ceil(3 * soften));
        cv::Mat nearKept;
        cv::dilate((b.head != 0) & (b.remove < 0.5f), nearKept, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * reach + 1, 2 * reach + 1)));
        headWeight.setTo(0, nearKept & (b.head == 0));
        if (record && !record->hole.empty() && !around.completed.empty()) record->weight = around.completed.mul(1 - headWeight);
        else if (record) record->hole.release();
        // Without the head's shading, skin over the skull is lit as a rounded surface: darker toward the silhouette.
        cv::Mat inside;
        cv::distanceTransform(b.head, inside, cv::DIST_L2, 3);
        const float falloff = std::max(kRimFalloffLeastPx, float(side) / kRimFalloffPart);
        cv::Mat alpha;
        cv::GaussianBlur(b.remove, alpha, cv::Size(0, 0), 1.0);
        cv::max(alpha, b.remove, alpha);
        if (out_scalp) markScalp(b, alpha, falloff, width, out_scalp);

        const SRGB &t = srgb();
        for (int y = 0; y < b.rect.height; ++y) {
            const cv::Vec3f *bg = around.fill.ptr<cv::Vec3f>(y), *sk = skin.fill.ptr<cv::Vec3f>(y), *ph = b.linear.ptr<cv::Vec3f>(y);
            const float *hw = headWeight.ptr<float>(y), *a = alpha.ptr<float>(y), *bgGrain = around.grain.ptr<float>(y);
            uint8_t *dst = out_rgb + (size_t(b.rect.y + y) * width + b.rect.x) * 3;
            const uint8_t *cls = b.classes.ptr<uint8_t>(y);
            for (int x = 0; x < b.rect.width; ++x) {
                const float k = std::min(a[x], 1.0f);
                // The blend never reaches a feature the parse sees: their pixels keep the photo's bytes.
                if (k <= 0 || isFeatureClass(cls[x])) continue;
                const float n = gauss(uint64_t(b.rect.x + x), uint64_t(b.rect.y + y), seed);
                const float skinGrain = !skin.laid.empty() && skin.laid.at<uint8_t>(y, x) ? kGrainOverSkinTiles * skin.grain : skin.grain;
                const float grain = (hw[x] * skinGrain + (1 - hw[x]) * bgGrain[x]) * n;
                const float turn = shading.empty() ? 1 - kRimDarkening * std::exp(-inside.at<float>(y, x) / falloff) : 1.0f;
                cv::Vec3f fill = sk[x] * (hw[x] * turn) + bg[x] * (1 - hw[x]);
                // Grain in luminance: added to every channel alike.
                fill += cv::Vec3f(grain, grain, grain);
                const cv::Vec3f out = ph[x] * (1 - k) + fill * k;
                for (int c = 0; c < 3; ++c) dst[3 * x + c] = t.toByte(out[c]);
            }
        }
    } catch (const cv::Exception &) {
        return 2;
    }
    return 0;
}

// The detail a larger photo's fill lost to being made at kPlateSidePx: the background completed again at
// `photo`'s own size over the same hole from the same sources (`record`'s masks, resized up; the completion's
// search runs at a bounded size and its final vote copies full-resolution patches), its finest band (the
// completion less its copy at the plate's scale, resized back up; sRGB units, 0…1), weighted by the share the
// completion made of each pixel. Over `detailBox` (photo coordinates: the record's box at full size); empty
// where nothing was completed.
cv::Mat finerDetail(const cv::Mat &photo, double scale, const CompletionRecord &record, uint64_t seed, cv::Rect &detailBox) {
    detailBox = cv::Rect();
    if (record.hole.empty() || record.weight.empty()) return cv::Mat();
    const cv::Rect bounds(0, 0, photo.cols, photo.rows);
    const int x0 = int(std::floor(record.box.x / scale)), y0 = int(std::floor(record.box.y / scale));
    const int x1 = int(std::ceil((record.box.x + record.box.width) / scale)), y1 = int(std::ceil((record.box.y + record.box.height) / scale));
    detailBox = cv::Rect(x0, y0, x1 - x0, y1 - y0) & bounds;
    if (detailBox.empty()) return cv::Mat();
    cv::Mat hole, source, completed;
    cv::resize(record.hole, hole, detailBox.size(), 0, 0, cv::INTER_NEAREST);
    cv::resize(record.source, source, detailBox.size(), 0, 0, cv::INTER_NEAREST);
    if (coif::completeHole(photo(detailBox), hole, source, seed, completed) != coif::CompletionStatus::ok) return cv::Mat();
    cv::Mat fine, coarse;
    completed.convertTo(fine, CV_32FC3, 1.0 / 255);
    cv::resize(fine, coarse, record.box.size(), 0, 0, cv::INTER_AREA);
    cv::resize(coarse, coarse, detailBox.size(), 0, 0, cv::INTER_LINEAR);
    cv::Mat band = fine - coarse, weight;
    cv::resize(record.weight, weight, detailBox.size(), 0, 0, cv::INTER_LINEAR);
    for (int y = 0; y < band.rows; ++y) {
        cv::Vec3f *p = band.ptr<cv::Vec3f>(y);
        const float *w = weight.ptr<float>(y);
        const uint8_t *h = hole.ptr<uint8_t>(y);
        for (int x = 0; x < band.cols; ++x) p[x] *= h[x] ? std::min(std::max(w[x], 0.0f), 1.0f) : 0.0f;
    }
    return band;
}

}  // namespace

int32_t cv_hair_fill(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *classes, const float *remove,
                     const uint8_t *head, const uint8_t *bare, const float *shade, uint64_t seed, uint8_t *out_rgb, float *out_scalp) {
    if (!rgb || width <= 0 || height <= 0 || !classes || !remove || !head || !bare || !out_rgb) return 1;
    if (std::max(width, height) <= kPlateSidePx) return fillAt(rgb, width, height, classes, remove, head, bare, shade, seed, out_rgb, out_scalp);
    // A larger photo is filled at kPlateSidePx on its long side and the fill resized back: the fill is smooth
    // fields and copied texture, and at full size a 10-megapixel portrait's plate took 9 s (its full-size
    // resamplings and buffers), where the parse it follows sees the head at 512 px.
    try {
        const double scale = double(kPlateSidePx) / std::max(width, height);
        const cv::Size full(width, height), small(std::max(1, int(std::lround(width * scale))), std::max(1, int(std::lround(height * scale))));
        cv::Mat photo(full, CV_8UC3, const_cast<uint8_t *>(rgb)), removeMap(full, CV_32F, const_cast<float *>(remove));
        const cv::Mat classMap(full, CV_8U, const_cast<uint8_t *>(classes));
        cv::Mat photoSmall, classesSmall, removeSmall, headSmall, bareSmall, shadeSmall;
        cv::resize(photo, photoSmall, small, 0, 0, cv::INTER_AREA);
        cv::resize(classMap, classesSmall, small, 0, 0, cv::INTER_NEAREST);
        cv::resize(removeMap, removeSmall, small, 0, 0, cv::INTER_AREA);
        cv::resize(cv::Mat(full, CV_8U, const_cast<uint8_t *>(head)), headSmall, small, 0, 0, cv::INTER_NEAREST);
        cv::resize(cv::Mat(full, CV_8U, const_cast<uint8_t *>(bare)), bareSmall, small, 0, 0, cv::INTER_NEAREST);
        if (shade) cv::resize(cv::Mat(full, CV_32F, const_cast<float *>(shade)), shadeSmall, small, 0, 0, cv::INTER_NEAREST);
        cv::Mat filledSmall(small, CV_8UC3), scalpSmall(small, CV_32F, cv::Scalar(0));
        CompletionRecord record;
        const int32_t status = fillAt(photoSmall.data, small.width, small.height, classesSmall.data, removeSmall.ptr<float>(),
                                      headSmall.data, bareSmall.data, shade ? shadeSmall.ptr<float>() : nullptr, seed, filledSmall.data, out_scalp ? scalpSmall.ptr<float>() : nullptr,
                                      &record);
        if (status != 0) return status;
        if (out_scalp) {
            cv::Mat scalp(full, CV_32F, out_scalp);
            cv::resize(scalpSmall, scalp, full, 0, 0, cv::INTER_LINEAR);
        }
        // Back at full size, over the removal's box: the resized fill blended over the photo in linear light by
        // the removal softened by a pixel (as the fill itself blends), features keeping their bytes.
        std::memcpy(out_rgb, rgb, size_t(width) * height * 3);
        const cv::Mat removing = removeMap > 0.02f;
        if (cv::countNonZero(removing) == 0) return 0;
        const cv::Rect box = grownWithin(cv::boundingRect(removing), 4, cv::Size(width, height));
        cv::Mat filled, alpha;
        cv::resize(filledSmall, filled, full, 0, 0, cv::INTER_LINEAR);
        cv::GaussianBlur(removeMap(box), alpha, cv::Size(0, 0), 1.0);
        cv::max(alpha, removeMap(box), alpha);
        cv::Rect detailBox;
        const cv::Mat detail = finerDetail(photo, scale, record, seed, detailBox);
        const SRGB &t = srgb();
        for (int y = 0; y < box.height; ++y) {
            const float *a = alpha.ptr<float>(y);
            const uint8_t *cls = classMap.ptr<uint8_t>(box.y + y) + box.x, *f = filled.ptr<uint8_t>(box.y + y) + 3 * box.x;
            uint8_t *dst = out_rgb + (size_t(box.y + y) * width + box.x) * 3;
            const int dy = box.y + y - detailBox.y;
            const cv::Vec3f *d = dy >= 0 && dy < detailBox.height ? detail.ptr<cv::Vec3f>(dy) : nullptr;
            for (int x = 0; x < box.width; ++x) {
                const float k = std::min(a[x], 1.0f);
                if (k <= 0 || isFeatureClass(cls[x])) continue;
                const int dx = box.x + x - detailBox.x;
                const cv::Vec3f add = d && dx >= 0 && dx < detailBox.width ? d[dx] * k : cv::Vec3f(0, 0, 0);
                for (int c = 0; c < 3; ++c) {
                    const uint8_t blended = t.toByte(t.decode[dst[3 * x + c]] * (1 - k) + t.decode[f[3 * x + c]] * k);
                    dst[3 * x + c] = uint8_t(std::lround(std::min(std::max(float(blended) + 255 * add[c], 0.0f), 255.0f)));
                }
            }
        }
    } catch (const cv::Exception &) {
        return 2;
    }
    return 0;
}

int32_t cv_hair_recolor(const uint8_t *rgb, int32_t width, int32_t height, const float *matte, float target_r,
                        float target_g, float target_b, float strength, uint8_t *out_rgb) {
    if (!rgb || width <= 0 || height <= 0 || !matte || !out_rgb) return 1;
    const size_t n = size_t(width) * height;
    std::memcpy(out_rgb, rgb, n * 3);
    const SRGB &t = srgb();
    auto luma = [](float r, float g, float b) { return lumaOf(cv::Vec3f(r, g, b)); };
    // The hair's mean luminance (matte-weighted, linear): the level its texture is measured against.
    double sum = 0, weight = 0;
    for (size_t i = 0; i < n; ++i) {
        if (matte[i] <= 0) continue;
        sum += double(matte[i]) * luma(t.decode[rgb[3 * i]], t.decode[rgb[3 * i + 1]], t.decode[rgb[3 * i + 2]]);
        weight += matte[i];
    }
    if (weight <= 0) return 0;
    const float mean = std::max(float(sum / weight), 1e-4f);
    const float target = std::max(luma(target_r, target_g, target_b), 1e-4f);
    // Texture is kept as luminance relative to the mean, compressed in log space as the colour is lightened:
    // dark hair's highlights are 3-4x its mean, which kept as they are would burn platinum to white; every
    // doubling of the level above the source's takes the contrast's exponent down (1 → 1/1.5 at 2x, 1/2.5
    // at 8x); darkening keeps it.
    const float stops = std::max(0.0f, std::log2(target / mean));
    const float exponent = 1 / (1 + 0.5f * stops);
    const float k = std::min(std::max(strength, 0.0f), 1.0f);
    for (size_t i = 0; i < n; ++i) {
        const float a = std::min(matte[i], 1.0f) * k;
        if (a <= 0) continue;  // outside the matte: the photo's own bytes
        const float r = t.decode[rgb[3 * i]], g = t.decode[rgb[3 * i + 1]], b = t.decode[rgb[3 * i + 2]];
        const float ratio = std::pow(std::max(luma(r, g, b), 1e-5f) / mean, exponent);
        const float nr = target_r * ratio, ng = target_g * ratio, nb = target_b * ratio;
        out_rgb[3 * i] = t.toByte(r * (1 - a) + nr * a);
        out_rgb[3 * i + 1] = t.toByte(g * (1 - a) + ng * a);
        out_rgb[3 * i + 2] = t.toByte(b * (1 - a) + nb * a);
    }
    return 0;
}

void cv_fill_triangles(uint8_t *mask, int32_t width, int32_t height, const float *xy, int32_t triangle_count) {
    if (!mask || width <= 0 || height <= 0 || !xy || triangle_count <= 0) return;
    cv::Mat out(height, width, CV_8U, mask);
    constexpr int shift = 4;  // sub-pixel vertices: 1/16 px
    for (int32_t t = 0; t < triangle_count; ++t) {
        cv::Point corners[3];
        bool finite = true;
        for (int k = 0; k < 3; ++k) {
            const float x = xy[6 * t + 2 * k], y = xy[6 * t + 2 * k + 1];
            if (!std::isfinite(x) || !std::isfinite(y) || std::fabs(x) > 1e6f || std::fabs(y) > 1e6f) { finite = false; break; }
            corners[k] = cv::Point(int(std::lround(x * (1 << shift))), int(std::lround(y * (1 << shift))));
        }
        if (finite) cv::fillConvexPoly(out, corners, 3, cv::Scalar(255), cv::LINE_8, shift);
    }
}

void cv_max_filter(const float *values, int32_t width, int32_t height, int32_t radius, float *out) {
    if (!values || !out || width <= 0 || height <= 0) return;
    const cv::Mat in(height, width, CV_32F, const_cast<float *>(values));
    cv::Mat result(height, width, CV_32F, out);
    const int r = std::max(0, int(radius));
    // A square max filter is a dilation by a square (separable inside OpenCV).
    cv::dilate(in, result, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * r + 1, 2 * r + 1)), cv::Point(-1, -1), 1,
               cv::BORDER_REPLICATE);
}

void cv_soften(float *values, int32_t width, int32_t height, float sigma) {
    if (!values || width <= 0 || height <= 0 || !(sigma > 0)) return;
    cv::Mat m(height, width, CV_32F, values);
    cv::GaussianBlur(m, m, cv::Size(0, 0), sigma, sigma, cv::BORDER_REPLICATE);
}

