// fill_judge.cpp: how a plate's background fill sits against the untouched background beside it (coif eval
// believable). Two figures over the filled region, each against the ring of untouched background around it:
//  - halo: the mean CIE76 ΔE between the fill and the ring, each averaged locally (normalised Gaussian
//    convolution, Knutsson & Westin 1993): a fill that glows or darkens against what surrounds it shows here,
//    its texture does not; measured only where the ring reaches (its count is out[4]: a fill the ring
//    reaches nowhere has no halo, not a halo of 0);
//  - texture: the fill's Laplacian energy (mean squared 3×3 Laplacian of CIE L*) over the ring's, each with the
//    energy of grain too faint to see added (kUnseenGrain): 1 is the background's own grain and structure, under
//    ~0.5 a smear, over ~1.6 static.
#include "CVision.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

// Mean of `value` weighted by `mask` around each pixel (σ px), and the weight found there.
void localMean(const cv::Mat &value, const cv::Mat &mask, double sigma, cv::Mat &mean, cv::Mat &weight) {
    cv::Mat w;
    mask.convertTo(w, CV_32F, 1.0 / 255);
    cv::Mat w3;
    cv::merge(std::vector<cv::Mat>{w, w, w}, w3);
    cv::Mat sum;
    cv::GaussianBlur(value.mul(w3), sum, cv::Size(0, 0), sigma);
    cv::GaussianBlur(w, weight, cv::Size(0, 0), sigma);
    cv::Mat denominator;
    cv::merge(std::vector<cv::Mat>{weight, weight, weight}, denominator);
    mean = sum / cv::max(denominator, 1e-6);
}

// The Laplacian energy of grain too faint to see: white noise of σ = 0.5 L* (about one sRGB level in the
// midtones) through the 3×3 Laplacian ([2 0 2; 0 −8 0; 2 0 2], whose squared weights sum to 80) has 80·σ².
constexpr double kUnseenGrainSigma = 0.5;
constexpr double kUnseenGrain = 80 * kUnseenGrainSigma * kUnseenGrainSigma;

}  // namespace

int32_t cv_fill_judge(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *fill_mask, const uint8_t *removed_mask,
                      const uint8_t *source_mask, int32_t inner_px, int32_t outer_px, float sigma, double *out) {
    if (!rgb || width <= 0 || height <= 0 || !fill_mask || !removed_mask || !source_mask || !out || !(sigma > 0)) return 1;
    out[0] = out[1] = out[2] = out[3] = out[4] = 0;
    try {
        cv::Mat fullFill(height, width, CV_8U, const_cast<uint8_t *>(fill_mask));
        if (cv::countNonZero(fullFill) == 0) return 0;
        // Only the fill's neighbourhood matters: the ring's reach and three σ of averaging around it.
        cv::Rect roi = cv::boundingRect(fullFill);
        const int reach = std::max(1, int(outer_px)) + int(std::ceil(3 * sigma)) + 2;
        roi.x = std::max(0, roi.x - reach);
        roi.y = std::max(0, roi.y - reach);
        roi.width = std::min(width - roi.x, roi.width + 2 * reach);
        roi.height = std::min(height - roi.y, roi.height + 2 * reach);
        cv::Mat image = cv::Mat(height, width, CV_8UC3, const_cast<uint8_t *>(rgb))(roi);
        cv::Mat fill = fullFill(roi);
        cv::Mat removed = cv::Mat(height, width, CV_8U, const_cast<uint8_t *>(removed_mask))(roi);
        cv::Mat source = cv::Mat(height, width, CV_8U, const_cast<uint8_t *>(source_mask))(roi);
        width = roi.width;
        height = roi.height;
        // The ring: untouched background between inner_px and outer_px from what was removed and near the fill.
        auto disc = [](int r) { return cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * r + 1, 2 * r + 1)); };
        cv::Mat nearRemoved, nearFill;
        cv::dilate(removed, nearRemoved, disc(std::max(0, int(inner_px))));
        cv::dilate(fill, nearFill, disc(std::max(1, int(outer_px))));
        cv::Mat ring = (source != 0) & (nearRemoved == 0) & (nearFill != 0);
        const int fillCount = cv::countNonZero(fill), ringCount = cv::countNonZero(ring);
        out[2] = fillCount;
        out[3] = ringCount;
        if (fillCount == 0 || ringCount == 0) return 0;
        cv::Mat lab;
        image.convertTo(lab, CV_32FC3, 1.0 / 255);
        cv::cvtColor(lab, lab, cv::COLOR_RGB2Lab);  // float input: L* 0…100

        // Halo: at every fill pixel the ring reaches (its local weight ≥ 2% of a full neighbourhood's).
        cv::Mat fillMean, fillWeight, ringMean, ringWeight;
        localMean(lab, fill, sigma, fillMean, fillWeight);
        localMean(lab, ring, sigma, ringMean, ringWeight);
        double sum = 0;
        long count = 0;
        for (int y = 0; y < height; ++y) {
            const uint8_t *f = fill.ptr<uint8_t>(y);
            const float *rw = ringWeight.ptr<float>(y);
            const cv::Vec3f *fm = fillMean.ptr<cv::Vec3f>(y), *rm = ringMean.ptr<cv::Vec3f>(y);
            for (int x = 0; x < width; ++x) {
                if (!f[x] || rw[x] < 0.02f) continue;
                const cv::Vec3f d = fm[x] - rm[x];
                sum += std::sqrt(double(d.dot(d)));
                ++count;
            }
        }
        out[0] = count > 0 ? sum / count : 0;
        out[4] = double(count);

        // Texture: each region's interior (2 px in, so the boundary between them is neither's texture).
        std::vector<cv::Mat> channels;
        cv::split(lab, channels);
        cv::Mat laplacian;
        cv::Laplacian(channels[0], laplacian, CV_32F, 3);
        laplacian = laplacian.mul(laplacian);
        const cv::Mat kernel = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5));
        cv::Mat fillInside, ringInside;
        cv::erode(fill, fillInside, kernel);
        cv::erode(ring, ringInside, kernel);
        if (cv::countNonZero(fillInside) == 0 || cv::countNonZero(ringInside) == 0) return 0;
        const double ringEnergy = cv::mean(laplacian, ringInside)[0], fillEnergy = cv::mean(laplacian, fillInside)[0];
        // Both energies carry the grain no one sees (kUnseenGrain): on a flat backdrop the ring's energy is near 0
        // and any trace of grain in the fill made the ratio explode (a white studio wall, energies 1.9 and 0.13:
        // "15 times the texture", where neither shows any).
        out[1] = (fillEnergy + kUnseenGrain) / (ringEnergy + kUnseenGrain);
    } catch (const cv::Exception &) {
        return 2;
    }
    return 0;
}
