// profile_cascade.cpp: the fallback detector for faces dlib's frontal HOG misses (profiles past ~50° of
// yaw): OpenCV's Haar profile cascade from Debian opencv-data, on the image and its mirror image. The
// cascade is parsed on first use only (~15 ms), so a photo dlib handles never pays for it.

#include "CVision.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/objdetect.hpp>

namespace {

std::mutex cascade_mutex;
std::map<std::string, std::unique_ptr<cv::CascadeClassifier>> cascades;  // by path; guarded by cascade_mutex

// Haar profile boxes are larger than dlib's and start above the brows: dlib's box is ~0.8 of the side,
// centred ~0.1 of the side lower. (Refitting landmarks from their own box corrects the rest.)
cv_face_box to_dlib_box(const cv::Rect &r) {
    const float side = 0.8f * float(r.width);
    const float cx = float(r.x) + 0.5f * float(r.width), cy = float(r.y) + 0.6f * float(r.height);
    return cv_face_box{cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2, 0};
}

}  // namespace

extern "C" int32_t cv_detect_profile_faces(cv_face_model *, const uint8_t *gray, int32_t width, int32_t height,
                                           int32_t stride, const char *cascade_path, int32_t min_size_px,
                                           cv_face_box *out_boxes, int32_t max_faces) {
    if (!gray || width <= 0 || height <= 0 || stride < width || !cascade_path) return -1;
    try {
        std::lock_guard<std::mutex> lock(cascade_mutex);
        auto &cascade = cascades[cascade_path];
        if (!cascade) {
            auto loaded = std::make_unique<cv::CascadeClassifier>();
            if (!loaded->load(cascade_path) || loaded->empty()) {
                cascades.erase(cascade_path);
                return -2;
            }
            cascade = std::move(loaded);
        }
        const cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), size_t(stride));
        cv::Mat mirrored;
        cv::flip(image, mirrored, 1);
        const cv::Size minimum(std::max(20, min_size_px), std::max(20, min_size_px));
        std::vector<cv::Rect> found, foundMirrored;
        cascade->detectMultiScale(image, found, 1.1, 3, 0, minimum);
        cascade->detectMultiScale(mirrored, foundMirrored, 1.1, 3, 0, minimum);
        for (auto &r : foundMirrored) r.x = width - r.x - r.width;
        found.insert(found.end(), foundMirrored.begin(), foundMirrored.end());
        // Both passes can find the same head: keep the larger of two boxes that overlap by half.
        std::sort(found.begin(), found.end(), [](const cv::Rect &a, const cv::Rect &b) { return a.area() > b.area(); });
        std::vector<cv::Rect> kept;
        for (const auto &r : found) {
            bool overlaps = false;
            for (const auto &k : kept) overlaps = overlaps || (r & k).area() * 2 > std::min(r.area(), k.area());
            if (!overlaps) kept.push_back(r);
        }
        const int32_t n = int32_t(kept.size());
        for (int32_t i = 0; i < n && i < max_faces && out_boxes; ++i) out_boxes[i] = to_dlib_box(kept[size_t(i)]);
        return n;
    } catch (...) {
        return -1;
    }
}
