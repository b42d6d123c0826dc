// face_dlib.cpp: the only dlib translation unit (dlib's headers compile slowly; keep this file small).
// Owns cv_face_model: dlib's HOG frontal face detector and the 68-point ERT shape predictor, and the
// three calls over them. Caller buffers are wrapped in place as a dlib generic image, never copied,
// except for the 2x pyramid_up that upsampled detection needs.

#include "CVision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_processing/shape_predictor.h>
#include <dlib/image_transforms/interpolation.h>
#include <dlib/serialize.h>

#include <fstream>

namespace coif_vision {

// A read-only view of caller-owned 8-bit gray pixels, rows `stride` bytes apart, that satisfies dlib's
// generic image interface (dlib/image_processing/generic_image.h). dlib never writes to an input
// image, so the non-const image_data overload exists only because the interface asks for it.
struct GrayView {
    const unsigned char *data;
    long rows, cols, stride;
};
inline long num_rows(const GrayView &v) { return v.rows; }
inline long num_columns(const GrayView &v) { return v.cols; }
inline long width_step(const GrayView &v) { return v.stride; }
inline const void *image_data(const GrayView &v) { return v.data; }
inline void *image_data(GrayView &v) { return const_cast<unsigned char *>(v.data); }

}  // namespace coif_vision

namespace dlib {
template <> struct image_traits<coif_vision::GrayView> { typedef unsigned char pixel_type; };
}  // namespace dlib

struct cv_face_model {
    dlib::frontal_face_detector detector;
    dlib::shape_predictor predictor;
    // The predictor's initial (mean) shape, x0,y0,x1,y1…, in box-normalised coordinates ((0,0) = the box's
    // top-left, (1,1) its bottom-right): the first thing dlib serialises after the format version.
    std::vector<float> mean_shape;
};

namespace {

void set_message(char *message, size_t message_len, const char *text) {
    if (message && message_len > 0) snprintf(message, message_len, "%s", text);
}

bool valid_image(const uint8_t *gray, int32_t width, int32_t height, int32_t stride) {
    return gray && width > 0 && height > 0 && stride >= width;
}

}  // namespace

extern "C" cv_face_model *cv_face_model_load(const char *predictor_path, char *message, size_t message_len) {
    set_message(message, message_len, "");
    if (!predictor_path) {
        set_message(message, message_len, "no predictor path given");
        return nullptr;
    }
    cv_face_model *model = nullptr;
    try {
        model = new cv_face_model();
        model->detector = dlib::get_frontal_face_detector();
        dlib::deserialize(predictor_path) >> model->predictor;
        if (model->predictor.num_parts() != 68) {
            delete model;
            set_message(message, message_len, "shape predictor does not have 68 parts");
            return nullptr;
        }
        {  // Only the head of the file: format version, then the initial shape (136 floats).
            std::ifstream in(predictor_path, std::ios::binary);
            int version = 0;
            dlib::matrix<float, 0, 1> initial;
            dlib::deserialize(version, in);
            dlib::deserialize(initial, in);
            if (initial.size() == 136) model->mean_shape.assign(initial.begin(), initial.end());
        }
        return model;
    } catch (const std::exception &e) {
        delete model;
        // dlib's messages can run to several lines; keep the first.
        char text[256];
        snprintf(text, sizeof text, "%s", e.what());
        for (char *p = text; *p; ++p)
            if (*p == '\n') { *p = 0; break; }
        set_message(message, message_len, text[0] ? text : "cannot load shape predictor");
        return nullptr;
    } catch (...) {
        delete model;
        set_message(message, message_len, "cannot load shape predictor");
        return nullptr;
    }
}

extern "C" void cv_face_model_free(cv_face_model *model) { delete model; }

extern "C" int32_t cv_detect_faces(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                                   int32_t stride, int32_t upsample, double threshold, cv_face_box *out_boxes,
                                   int32_t max_faces) {
    if (!model || !valid_image(gray, width, height, stride) || upsample < 0 || upsample > 4) return -1;
    try {
        const coif_vision::GrayView view{gray, height, width, stride};
        std::vector<dlib::rect_detection> found;
        if (upsample == 0) {
            model->detector(view, found, threshold);
        } else {
            // pyramid_up doubles the image (bilinear); rect_down maps boxes back through `upsample` levels.
            dlib::pyramid_down<2> pyramid;
            dlib::array2d<unsigned char> big;
            dlib::pyramid_up(view, big, pyramid);
            for (int32_t i = 1; i < upsample; ++i) dlib::pyramid_up(big, pyramid);
            model->detector(big, found, threshold);
            for (auto &d : found) d.rect = pyramid.rect_down(d.rect, static_cast<unsigned int>(upsample));
        }
        std::stable_sort(found.begin(), found.end(), [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
            return a.detection_confidence > b.detection_confidence;
        });
        const int32_t n = static_cast<int32_t>(found.size());
        for (int32_t i = 0; i < n && i < max_faces && out_boxes; ++i) {
            const dlib::rectangle &r = found[i].rect;
            // dlib's right/bottom are inclusive pixel indices; ours are the exclusive edge.
            out_boxes[i] = cv_face_box{float(r.left()), float(r.top()), float(r.right() + 1), float(r.bottom() + 1),
                                       found[i].detection_confidence};
        }
        return n;
    } catch (...) {
        return -1;
    }
}

extern "C" int32_t cv_landmarks68(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                                  int32_t stride, cv_face_box box, float *out_xy) {
    if (!model || !out_xy || !valid_image(gray, width, height, stride)) return -1;
    if (!(box.right > box.left) || !(box.bottom > box.top)) return -1;
    try {
        const coif_vision::GrayView view{gray, height, width, stride};
        const dlib::rectangle rect(std::lround(box.left), std::lround(box.top), std::lround(box.right) - 1,
                                   std::lround(box.bottom) - 1);
        const dlib::full_object_detection shape = model->predictor(view, rect);
        if (shape.num_parts() != 68) return -1;
        for (unsigned long i = 0; i < 68; ++i) {
            out_xy[2 * i] = float(shape.part(i).x());
            out_xy[2 * i + 1] = float(shape.part(i).y());
        }
        return 68;
    } catch (...) {
        return -1;
    }
}

namespace {

// Scale s and translation (tx, ty) minimising Σ |s·m_i + t − p_i|² (no rotation: dlib boxes are upright).
bool fit_scale_translation(const std::vector<float> &mean, const float *points, double &s, double &tx, double &ty) {
    double mx = 0, my = 0, px = 0, py = 0;
    for (int i = 0; i < 68; ++i) {
        mx += mean[2 * i], my += mean[2 * i + 1], px += points[2 * i], py += points[2 * i + 1];
    }
    mx /= 68, my /= 68, px /= 68, py /= 68;
    double num = 0, den = 0;
    for (int i = 0; i < 68; ++i) {
        const double ax = mean[2 * i] - mx, ay = mean[2 * i + 1] - my;
        num += ax * (points[2 * i] - px) + ay * (points[2 * i + 1] - py);
        den += ax * ax + ay * ay;
    }
    if (!(den > 0) || !(num > 0)) return false;
    s = num / den;
    tx = px - s * mx;
    ty = py - s * my;
    return true;
}

}  // namespace

extern "C" int32_t cv_landmarks68_refined(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                                          int32_t stride, cv_face_box box, int32_t refits, float *out_xy) {
    if (cv_landmarks68(model, gray, width, height, stride, box, out_xy) != 68) return -1;
    if (refits <= 0 || model->mean_shape.size() != 136) return 68;
    std::vector<double> sum(out_xy, out_xy + 136);
    std::vector<float> current(out_xy, out_xy + 136), next(136);
    int fits = 1;
    for (int32_t k = 0; k < refits; ++k) {
        double s, tx, ty;
        if (!fit_scale_translation(model->mean_shape, current.data(), s, tx, ty)) break;
        // unnormalizing_tform maps (0,0) to the box's top-left and (1,1) to its bottom-right pixel index.
        const cv_face_box refit{float(tx), float(ty), float(tx + s + 1), float(ty + s + 1), box.score};
        if (cv_landmarks68(model, gray, width, height, stride, refit, next.data()) != 68) break;
        for (int i = 0; i < 136; ++i) sum[size_t(i)] += next[size_t(i)];
        current = next;
        ++fits;
    }
    for (int i = 0; i < 136; ++i) out_xy[i] = float(sum[size_t(i)] / fits);
    return 68;
}
