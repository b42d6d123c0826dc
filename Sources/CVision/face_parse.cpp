// face_parse.cpp: the face-parsing network (BiSeNet, 19 CelebAMask-HQ classes) run by OpenCV's dnn module
// on a head-centred square crop. The ONNX file is converted once by the set-up (scripts/fetch-models.sh);
// here it is only read. A net is loaded once per process and is not thread-safe (one caller at a time).
#include "CVision.h"
#include "onnx_net.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

struct cv_face_parser {
    cv::dnn::Net net;
    int size = 0;
    cv::Mat input;  // reused 1×3×size×size blob
};

namespace {

using cvision::set_message;

// ImageNet's mean and standard deviation, the normalisation the network was trained with.
constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kStd[3] = {0.229f, 0.224f, 0.225f};

}  // namespace

cv_face_parser *cv_face_parser_open(const char *onnx_path, int32_t input_size, char *message, size_t message_len) {
    if (input_size < 64 || input_size > 2048) {
        set_message(message, message_len, "input size out of range");
        return nullptr;
    }
    auto *parser = new (std::nothrow) cv_face_parser();
    if (!parser) return nullptr;
    if (!cvision::read_onnx(onnx_path, parser->net, message, message_len)) {
        delete parser;
        return nullptr;
    }
    parser->size = input_size;
    int dims[4] = {1, 3, input_size, input_size};
    parser->input.create(4, dims, CV_32F);
    return parser;
}

void cv_face_parser_free(cv_face_parser *parser) { delete parser; }

int32_t cv_face_parser_size(const cv_face_parser *parser) { return parser ? parser->size : 0; }

int32_t cv_face_parser_run(cv_face_parser *parser, const uint8_t *rgb, int32_t width, int32_t height, float crop_x,
                           float crop_y, float crop_side, uint8_t *classes, float *hair, char *message,
                           size_t message_len) {
    if (!parser || !rgb || width <= 0 || height <= 0 || !(crop_side > 1) || !classes || !hair) {
        set_message(message, message_len, "bad arguments");
        return 1;
    }
    const int S = parser->size;
    try {
        cv::Mat photo(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        // The crop as an affine map (pixel centres): crop pixel (u, v) samples the photo at
        // crop_x + (u + 0.5)·side/S − 0.5. Outside the photo the edge pixels repeat.
        const double scale = crop_side / S;
        cv::Mat map = (cv::Mat_<double>(2, 3) << scale, 0, crop_x + 0.5 * scale - 0.5, 0, scale, crop_y + 0.5 * scale - 0.5);
        cv::Mat crop;
        cv::warpAffine(photo, crop, map, cv::Size(S, S), cv::INTER_AREA | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
        float *blob = parser->input.ptr<float>();
        const size_t plane = size_t(S) * S;
        for (int y = 0; y < S; ++y) {
            const uint8_t *row = crop.ptr<uint8_t>(y);
            for (int x = 0; x < S; ++x) {
                for (int c = 0; c < 3; ++c) {
                    blob[c * plane + size_t(y) * S + x] = (row[x * 3 + c] / 255.0f - kMean[c]) / kStd[c];
                }
            }
        }
        parser->net.setInput(parser->input);
        cv::Mat logits = parser->net.forward();
        if (logits.dims != 4 || logits.size[1] != CV_PARSE_CLASSES || logits.size[2] != S || logits.size[3] != S) {
            set_message(message, message_len, "the network's output is not 19 class maps of the input's size");
            return 2;
        }
        const float *out = logits.ptr<float>();
        for (size_t i = 0; i < plane; ++i) {
            int best = 0;
            float bestValue = out[i];
            for (int c = 1; c < CV_PARSE_CLASSES; ++c) {
                const float v = out[c * plane + i];
                if (v > bestValue) { bestValue = v; best = c; }
            }
            classes[i] = uint8_t(best);
            // Softmax probability of hair or hat (a hat over hair is removed with it).
            double sum = 0;
            for (int c = 0; c < CV_PARSE_CLASSES; ++c) sum += std::exp(double(out[c * plane + i] - bestValue));
            const double h = std::exp(double(out[CV_PARSE_HAIR * plane + i] - bestValue)) +
                             std::exp(double(out[CV_PARSE_HAT * plane + i] - bestValue));
            hair[i] = float(h / sum);
        }
    } catch (const cv::Exception &e) {
        set_message(message, message_len, std::string("OpenCV: ") + e.err);
        return 3;
    }
    return 0;
}
