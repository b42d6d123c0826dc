// face_detect.cpp: face detection with dlib's HOG frontal face detector: dlib's own call
// (cv_detect_faces), and the same detection split over two threads (cv_detect_faces_fast). Caller
// buffers are wrapped in place as a dlib generic image, never copied, except for the 2x pyramid_up that
// upsampled detection needs and the resampled copy of coarse detection.

#include "face_dlib.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <thread>
#include <vector>

#include <dlib/image_transforms/interpolation.h>

namespace {

// ── Detection over both cores ───────────────────────────────────────────────────────────────
// dlib's frontal face detector scans an HOG pyramid (each level 5/6 the size of the one above) with five
// filters and keeps the best of overlapping hits. Levels 0–1 cost about as much as levels 2 and on, so
// this thread takes the first two levels while a second thread takes the rest, starting from its own
// twice-downsampled copy; the raw hits of both are then merged and suppressed exactly as dlib's
// object_detector does. Same pyramid images, same features, same filters, same box mapping: the same
// boxes as `detector(image)`.
using Pyramid = dlib::pyramid_down<6>;
using FhogPyramid = dlib::array<dlib::array<dlib::array2d<float>>>;
constexpr unsigned long kSplitLevel = 2;

// Maps boxes from level l of a pyramid that starts `Base` levels down, as dlib maps level Base + l.
template <unsigned long Base> struct ShiftedPyramid : Pyramid {
    dlib::drectangle rect_up(const dlib::drectangle &rect, unsigned int levels) const {
        return Pyramid::rect_up(rect, levels + static_cast<unsigned int>(Base));
    }
};

// The number of pyramid levels dlib's scanner uses for an image of `rect`'s size.
unsigned long pyramid_levels(const dlib::frontal_face_detector &detector, dlib::rectangle rect) {
    const auto &scanner = detector.get_scanner();
    Pyramid pyr;
    unsigned long levels = 0;
    do {
        rect = pyr.rect_down(rect);
        ++levels;
    } while (rect.width() >= scanner.get_min_pyramid_layer_width() &&
             rect.height() >= scanner.get_min_pyramid_layer_height() && levels < scanner.get_max_pyramid_levels());
    return levels;
}

// Raw hits (score, box in the original image) per filter for pyramid levels [first, first + count) of
// `image`, whose level `first` is `level_image` (the image itself when first == 0).
template <typename PyramidType, typename Image>
void scan_levels(const dlib::frontal_face_detector &detector, const Image &level_image, unsigned long count,
                 double adjust_threshold, std::vector<std::vector<std::pair<double, dlib::rectangle>>> &hits) {
    const auto &scanner = detector.get_scanner();
    const auto &fe = scanner.get_feature_extractor();
    const unsigned long win_w = scanner.get_fhog_window_width(), win_h = scanner.get_fhog_window_height();
    const int cell = int(scanner.get_cell_size());
    FhogPyramid feats;
    feats.set_max_size(count);
    feats.set_size(count);
    if (count > 0) fe(level_image, feats[0], cell, int(win_h), int(win_w));
    dlib::array2d<unsigned char> a, b;
    for (unsigned long l = 1; l < count; ++l) {
        if (l == 1) Pyramid()(level_image, a);
        else { Pyramid()(a, b); dlib::swap(a, b); }
        fe(a, feats[l], cell, int(win_h), int(win_w));
    }
    hits.assign(detector.num_detectors(), {});
    for (unsigned long d = 0; d < detector.num_detectors(); ++d) {
        const auto &w = detector.get_processed_w(d);
        const double thresh = w.w(scanner.get_num_dimensions());
        dlib::impl::detect_from_fhog_pyramid<PyramidType>(feats, fe, w.get_detect_argument(), thresh + adjust_threshold,
                                                          win_h - 2 * scanner.get_padding(), win_w - 2 * scanner.get_padding(),
                                                          cell, int(win_h), int(win_w), hits[d]);
    }
}

template <typename Image>
void detect_split(const dlib::frontal_face_detector &detector, const Image &image, double adjust_threshold,
                  std::vector<dlib::rect_detection> &found) {
    const unsigned long levels = pyramid_levels(detector, dlib::get_rect(image));
    if (levels <= kSplitLevel) {  // too small to be worth a thread
        dlib::frontal_face_detector copy = detector;  // never reached for real photos (≥ ~70 px)
        copy(image, found, adjust_threshold);
        return;
    }
    std::vector<std::vector<std::pair<double, dlib::rectangle>>> top, rest;
    std::exception_ptr failed;
    std::thread worker([&] {
        try {
            dlib::array2d<unsigned char> a, b;
            Pyramid()(image, a);
            for (unsigned long l = 1; l < kSplitLevel; ++l) { Pyramid()(a, b); dlib::swap(a, b); }
            scan_levels<ShiftedPyramid<kSplitLevel>>(detector, a, levels - kSplitLevel, adjust_threshold, rest);
        } catch (...) {
            failed = std::current_exception();
        }
    });
    try {
        scan_levels<Pyramid>(detector, image, kSplitLevel, adjust_threshold, top);
    } catch (...) {
        worker.join();
        throw;
    }
    worker.join();
    if (failed) std::rethrow_exception(failed);
    // As object_detector::operator(): per filter, hits best first; then all filters' hits sorted by
    // confidence and greedily kept unless they overlap a kept box.
    std::vector<dlib::rect_detection> accum;
    for (unsigned long d = 0; d < detector.num_detectors(); ++d) {
        auto &dets = top[d];
        dets.insert(dets.end(), rest[d].begin(), rest[d].end());
        std::sort(dets.rbegin(), dets.rend(), dlib::impl::compare_pair_rect);
        const double thresh = detector.get_processed_w(d).w(detector.get_scanner().get_num_dimensions());
        for (const auto &hit : dets) {
            dlib::rect_detection r;
            r.detection_confidence = hit.first - thresh;
            r.weight_index = d;
            r.rect = hit.second;
            accum.push_back(r);
        }
    }
    if (detector.num_detectors() > 1) std::sort(accum.rbegin(), accum.rend());
    const dlib::test_box_overlap &overlaps = detector.get_overlap_tester();
    found.clear();
    for (const auto &r : accum) {
        bool suppressed = false;
        for (const auto &kept : found)
            if (overlaps(kept.rect, r.rect)) { suppressed = true; break; }
        if (!suppressed) found.push_back(r);
    }
}

// Area-weighted resample of 8-bit gray to (out_w, out_h) (a box filter of the exact footprint: no aliasing
// when shrinking), separable: rows first into floats, then columns.
void resample_area(const coif_vision::GrayView &in, long out_w, long out_h, dlib::array2d<unsigned char> &out) {
    struct Tap { long first; std::vector<float> weights; };
    auto taps = [](long in_n, long out_n) {
        std::vector<Tap> result(static_cast<size_t>(out_n));
        const double step = double(in_n) / double(out_n);
        for (long o = 0; o < out_n; ++o) {
            const double a = o * step, b = std::min(double(in_n), (o + 1) * step);
            Tap t;
            t.first = long(std::floor(a));
            for (long i = t.first; i < in_n && i < b; ++i) {
                const double w = std::min(b, double(i + 1)) - std::max(a, double(i));
                t.weights.push_back(float(w / step));
            }
            result[size_t(o)] = std::move(t);
        }
        return result;
    };
    const std::vector<Tap> tx = taps(in.cols, out_w), ty = taps(in.rows, out_h);
    std::vector<float> rows(size_t(in.rows) * size_t(out_w));
    for (long y = 0; y < in.rows; ++y) {
        const unsigned char *src = in.data + y * in.stride;
        float *dst = rows.data() + size_t(y) * size_t(out_w);
        for (long x = 0; x < out_w; ++x) {
            const Tap &t = tx[size_t(x)];
            float sum = 0;
            for (size_t k = 0; k < t.weights.size(); ++k) sum += t.weights[k] * src[t.first + long(k)];
            dst[x] = sum;
        }
    }
    out.set_size(out_h, out_w);
    std::vector<float> acc(static_cast<size_t>(out_w));
    for (long y = 0; y < out_h; ++y) {
        const Tap &t = ty[size_t(y)];
        std::fill(acc.begin(), acc.end(), 0.f);
        for (size_t k = 0; k < t.weights.size(); ++k) {
            const float w = t.weights[k];
            const float *src = rows.data() + size_t(t.first + long(k)) * size_t(out_w);
            for (long x = 0; x < out_w; ++x) acc[size_t(x)] += w * src[x];
        }
        for (long x = 0; x < out_w; ++x) out[y][x] = static_cast<unsigned char>(std::min(255.f, std::max(0.f, acc[size_t(x)] + 0.5f)));
    }
}

// Runs `detect(image)`, which fills `found`, on `view` doubled `upsample` times first (pyramid_up:
// bilinear), and maps the boxes back through the `upsample` levels.
template <typename Detect>
void detect_upsampled(const coif_vision::GrayView &view, int32_t upsample, std::vector<dlib::rect_detection> &found,
                      Detect detect) {
    if (upsample == 0) {
        detect(view);
        return;
    }
    dlib::pyramid_down<2> pyramid;
    dlib::array2d<unsigned char> big;
    dlib::pyramid_up(view, big, pyramid);
    for (int32_t i = 1; i < upsample; ++i) dlib::pyramid_up(big, pyramid);
    detect(big);
    for (auto &d : found) d.rect = pyramid.rect_down(d.rect, static_cast<unsigned int>(upsample));
}

// Writes up to `max_faces` of `found`, best first, scaled by (sx, sy) to the caller's image and rounded;
// returns how many were found.
int32_t write_boxes(std::vector<dlib::rect_detection> &found, double sx, double sy, cv_face_box *out_boxes,
                    int32_t max_faces) {
    std::stable_sort(found.begin(), found.end(), [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
        return a.detection_confidence > b.detection_confidence;
    });
    const int32_t n = static_cast<int32_t>(found.size());
    for (int32_t i = 0; i < n && i < max_faces && out_boxes; ++i) {
        const dlib::rectangle &r = found[i].rect;
        // dlib's right/bottom are inclusive pixel indices; ours are the exclusive edge.
        out_boxes[i] = cv_face_box{float(std::round(r.left() * sx)), float(std::round(r.top() * sy)),
                                   float(std::round((r.right() + 1) * sx)), float(std::round((r.bottom() + 1) * sy)),
                                   found[i].detection_confidence};
    }
    return n;
}

}  // namespace

extern "C" int32_t cv_detect_faces(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                                   int32_t stride, int32_t upsample, double threshold, cv_face_box *out_boxes,
                                   int32_t max_faces) {
    if (!model || !coif_vision::valid_image(gray, width, height, stride) || upsample < 0 || upsample > 4) return -1;
    try {
        const coif_vision::GrayView view{gray, height, width, stride};
        std::vector<dlib::rect_detection> found;
        detect_upsampled(view, upsample, found, [&](const auto &image) { model->detector(image, found, threshold); });
        return write_boxes(found, 1, 1, out_boxes, max_faces);
    } catch (...) {
        return -1;
    }
}

extern "C" int32_t cv_detect_faces_fast(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                                        int32_t stride, int32_t upsample, double scale, double threshold,
                                        cv_face_box *out_boxes, int32_t max_faces) {
    if (!model || !coif_vision::valid_image(gray, width, height, stride) || upsample < 0 || upsample > 4) return -1;
    if (!(scale > 0) || scale > 1 || (scale < 1 && upsample > 0)) return -1;
    try {
        const coif_vision::GrayView view{gray, height, width, stride};
        std::vector<dlib::rect_detection> found;
        if (scale < 1) {
            const long w = std::max(1L, std::lround(width * scale)), h = std::max(1L, std::lround(height * scale));
            dlib::array2d<unsigned char> small;
            resample_area(view, w, h, small);
            detect_split(model->detector, small, threshold, found);
            return write_boxes(found, double(width) / double(w), double(height) / double(h), out_boxes, max_faces);
        }
        detect_upsampled(view, upsample, found,
                         [&](const auto &image) { detect_split(model->detector, image, threshold, found); });
        return write_boxes(found, 1, 1, out_boxes, max_faces);
    } catch (...) {
        return -1;
    }
}
