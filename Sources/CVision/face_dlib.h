// face_dlib.h (private to CVision): what the two dlib translation units share (dlib's headers compile
// slowly; keep this small). cv_face_model is dlib's HOG frontal face detector (face_detect.cpp runs it)
// and the 68-point shape predictor (face_landmarks.cpp loads and evaluates it, and defines Predictor).
#ifndef COIF_FACE_DLIB_H
#define COIF_FACE_DLIB_H

#include "CVision.h"

#include <memory>
#include <vector>

#include <dlib/image_processing/frontal_face_detector.h>

namespace coif_vision {

// A read-only view of caller-owned 8-bit gray pixels, rows `stride` bytes apart, that satisfies dlib's
// generic image interface (dlib/image_processing/generic_image.h). dlib never writes to an input
// image, so the non-const image_data overload exists only because the interface asks for it. Caller
// buffers are wrapped in place this way, never copied.
struct GrayView {
    const unsigned char *data;
    long rows, cols, stride;
};
inline long num_rows(const GrayView &v) { return v.rows; }
inline long num_columns(const GrayView &v) { return v.cols; }
inline long width_step(const GrayView &v) { return v.stride; }
inline const void *image_data(const GrayView &v) { return v.data; }
inline void *image_data(GrayView &v) { return const_cast<unsigned char *>(v.data); }

inline bool valid_image(const uint8_t *gray, int32_t width, int32_t height, int32_t stride) {
    return gray && width > 0 && height > 0 && stride >= width;
}

class Predictor;  // the shape predictor: dlib's own, or read in place from the model cache

}  // namespace coif_vision

namespace dlib {
template <> struct image_traits<coif_vision::GrayView> { typedef unsigned char pixel_type; };
}  // namespace dlib

struct cv_face_model {
    dlib::frontal_face_detector detector;
    std::unique_ptr<coif_vision::Predictor> predictor;
    // The predictor's initial (mean) shape, x0,y0,x1,y1…, in box-normalised coordinates ((0,0) = the box's
    // top-left, (1,1) its bottom-right): the first thing dlib serialises after the format version.
    std::vector<float> mean_shape;

    cv_face_model();
    ~cv_face_model();  // where Predictor is complete
};

#endif
