// hair_colour_model.cpp: where the parse of a crop below the face calls something hair that no hair of this
// person's has the colour of. Long hair is followed past the face's crop by parsing a second crop below it
// (FaceParser.parseFollowingHair); that crop shows no face, and the network, without the head to place the
// hair by, calls a light sweater's shoulders beside dark hair "hair" as readily as the hair. Removed as hair,
// the sweater came back as a dome of whatever the top's few visible pixels were (a mauve dome over a beige
// sweater, deepface img11). The hair in the face's own crop, which the network sees with the head, is the
// person's hair colour; a region of the lower crop in colours that hair never takes is not hair.
#include "CVision.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <vector>

namespace {

// sRGB levels per histogram bin along each channel: 16 bins a channel.
constexpr int kLevelsPerBin = 16;
constexpr int kBins = 256 / kLevelsPerBin;
// The model needs this many confident hair pixels to say anything.
constexpr int kLeastModelPixels = 200;
// A colour is the hair's when its density (the histogram spread over the neighbouring bins, ±1 bin: about
// ±16 levels, a shade darker or lighter in the lower crop's light) reaches that of the hair's rarest 2%.
constexpr double kRarestHairShare = 0.02;
// A judged pixel turns "not hair" only where most of its neighbourhood does (this share): a region in colours
// the hair never takes, not single pixels (a highlight, a wisp against the background) spread through the hair.
constexpr float kRegionShare = 0.6f;

inline int binOf(const uint8_t *p) {
    return (p[0] / kLevelsPerBin * kBins + p[1] / kLevelsPerBin) * kBins + p[2] / kLevelsPerBin;
}

}  // namespace

int32_t cv_hair_colour_plausible(const uint8_t *rgb, int32_t width, int32_t height, const float *model_matte,
                                 const uint8_t *judge, int32_t radius, uint8_t *plausible_out) {
    if (!rgb || width <= 0 || height <= 0 || !model_matte || !judge || !plausible_out || radius < 0) return 1;
    const size_t count = size_t(width) * height;
    std::fill(plausible_out, plausible_out + count, uint8_t(255));
    try {
        std::vector<float> histogram(kBins * kBins * kBins, 0.0f);
        long modelPixels = 0;
        for (size_t i = 0; i < count; ++i)
            if (model_matte[i] >= 0.9f) {
                histogram[binOf(rgb + 3 * i)] += 1;
                ++modelPixels;
            }
        if (modelPixels < kLeastModelPixels) return 0;
        // Spread over the 3×3×3 neighbouring bins.
        std::vector<float> density(histogram.size(), 0.0f);
        for (int r = 0; r < kBins; ++r)
            for (int g = 0; g < kBins; ++g)
                for (int b = 0; b < kBins; ++b) {
                    float sum = 0;
                    for (int dr = -1; dr <= 1; ++dr)
                        for (int dg = -1; dg <= 1; ++dg)
                            for (int db = -1; db <= 1; ++db) {
                                const int rr = r + dr, gg = g + dg, bb = b + db;
                                if (rr < 0 || gg < 0 || bb < 0 || rr >= kBins || gg >= kBins || bb >= kBins) continue;
                                sum += histogram[(rr * kBins + gg) * kBins + bb];
                            }
                    density[(r * kBins + g) * kBins + b] = sum;
                }
        std::vector<float> own;
        own.reserve(size_t(modelPixels));
        for (size_t i = 0; i < count; ++i)
            if (model_matte[i] >= 0.9f) own.push_back(density[binOf(rgb + 3 * i)]);
        const size_t k = size_t(kRarestHairShare * double(own.size()));
        std::nth_element(own.begin(), own.begin() + long(k), own.end());
        const float threshold = own[k];
        cv::Mat unlike(height, width, CV_32F, cv::Scalar(0));
        bool any = false;
        for (int y = 0; y < height; ++y) {
            float *u = unlike.ptr<float>(y);
            for (int x = 0; x < width; ++x) {
                const size_t i = size_t(y) * width + x;
                if (judge[i] && density[binOf(rgb + 3 * i)] < threshold) {
                    u[x] = 1;
                    any = true;
                }
            }
        }
        if (!any) return 0;
        // The window's share over the judged pixels' box grown by the window (the lower crop's, not the whole
        // photo): every judged pixel's window lies inside it, or meets the photo's edge as the whole frame's would.
        const cv::Mat judged(height, width, CV_8U, const_cast<uint8_t *>(judge));
        cv::Rect box = cv::boundingRect(judged);
        box = cv::Rect(box.x - radius, box.y - radius, box.width + 2 * radius, box.height + 2 * radius) & cv::Rect(0, 0, width, height);
        cv::Mat share;
        cv::boxFilter(unlike(box), share, CV_32F, cv::Size(2 * radius + 1, 2 * radius + 1), cv::Point(-1, -1), true, cv::BORDER_REPLICATE);
        for (int y = 0; y < box.height; ++y) {
            const float *s = share.ptr<float>(y);
            for (int x = 0; x < box.width; ++x) {
                const size_t i = size_t(box.y + y) * width + box.x + x;
                if (judge[i] && s[x] >= kRegionShare) plausible_out[i] = 0;
            }
        }
    } catch (const cv::Exception &) {
        return 2;
    }
    return 0;
}
