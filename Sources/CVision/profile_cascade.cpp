// profile_cascade.cpp: the fallback detector for faces dlib's frontal HOG misses (profiles past ~50° of
// yaw): OpenCV's Haar profile cascade from Debian opencv-data, on the image and its mirror image. The
// cascade is parsed on first use only (~15 ms), so a photo dlib handles never pays for it. Each box must
// then show an eye to OpenCV's eye cascade: the profile cascade alone answers on textures.

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

// The cascade at `path`, parsed on first use and kept for the process; null when it cannot be loaded.
// Callers hold cascade_mutex.
cv::CascadeClassifier *cascade_at(const char *path) {
    auto &cascade = cascades[path];
    if (!cascade) {
        auto loaded = std::make_unique<cv::CascadeClassifier>();
        if (!loaded->load(path) || loaded->empty()) {
            cascades.erase(path);
            return nullptr;
        }
        cascade = std::move(loaded);
    }
    return cascade.get();
}

// True when the eye cascade finds an eye centred in the upper 60% of `face`, sized 1/8 to 1/3 of the
// box. minNeighbors 4, one above OpenCV's default: at 3 a chessboard square in Debian's calibration
// samples (right06.jpg) passes; at 4 none of the face-free sample photos does, and every AFLW2000-3D
// sample face, profile included, still shows one or more eyes at 5.
bool shows_an_eye(cv::CascadeClassifier &eyes, const cv::Mat &image, const cv::Rect &face) {
    const int smallest = std::max(1, face.width / 8), largest = std::max(smallest, face.width / 3);
    std::vector<cv::Rect> found;
    eyes.detectMultiScale(image(face), found, 1.1, 4, 0, cv::Size(smallest, smallest), cv::Size(largest, largest));
    return std::any_of(found.begin(), found.end(),
                       [&](const cv::Rect &e) { return e.y + e.height / 2 < face.height * 6 / 10; });
}

// Removes the boxes (found in `image`) that show no eye.
void drop_eyeless(std::vector<cv::Rect> &boxes, cv::CascadeClassifier &eyes, const cv::Mat &image) {
    boxes.erase(std::remove_if(boxes.begin(), boxes.end(), [&](const cv::Rect &r) { return !shows_an_eye(eyes, image, r); }),
                boxes.end());
}

}  // namespace

extern "C" int32_t cv_detect_profile_faces(cv_face_model *, const uint8_t *gray, int32_t width, int32_t height,
                                           int32_t stride, const char *cascade_path, const char *eye_cascade_path,
                                           int32_t min_size_px, cv_face_box *out_boxes, int32_t max_faces) {
    if (!gray || width <= 0 || height <= 0 || stride < width || !cascade_path) return -1;
    try {
        std::lock_guard<std::mutex> lock(cascade_mutex);
        cv::CascadeClassifier *cascade = cascade_at(cascade_path);
        cv::CascadeClassifier *eyes = eye_cascade_path ? cascade_at(eye_cascade_path) : nullptr;
        if (!cascade || (eye_cascade_path && !eyes)) return -2;
        const cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray), size_t(stride));
        cv::Mat mirrored;
        cv::flip(image, mirrored, 1);
        const cv::Size minimum(std::max(20, min_size_px), std::max(20, min_size_px));
        std::vector<cv::Rect> found, foundMirrored;
        cascade->detectMultiScale(image, found, 1.1, 3, 0, minimum);
        cascade->detectMultiScale(mirrored, foundMirrored, 1.1, 3, 0, minimum);
        if (eyes) {
            drop_eyeless(found, *eyes, image);
            drop_eyeless(foundMirrored, *eyes, mirrored);
        }
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
