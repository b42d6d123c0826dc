// face_landmarks.cpp: the 68-point ERT shape predictor: loading it (dlib's file, or the compact model
// cache of face_cache.cpp, read in place) together with the face detector, and evaluating it
// (cv_landmarks68, and the refitted cv_landmarks68_refined).

#include "face_cache.h"
#include "face_dlib.h"
#include "message.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <dlib/image_processing/shape_predictor.h>
#include <dlib/revision.h>
#include <dlib/serialize.h>

namespace coif_vision {

// The predictor read in place from the mapped cache file: trees and leaves are used where they lie (no
// copy, no allocation per tree: dlib's own structures took ~130 MB of small allocations and 0.1–0.2 s
// to build, growing a thread's heap a page at a time), and evaluated step for step as dlib's
// shape_predictor::operator() does, with dlib's own feature extraction and transforms, so its landmarks
// are bit-identical to dlib's (tested). The file's pages are shared by every process that maps it.
struct MappedPredictor {
    std::unique_ptr<MappedCache> cache;  // the mapping `forests` points into
    dlib::matrix<float, 0, 1> initial_shape;
    std::vector<std::vector<unsigned long>> anchor_idx;  // per cascade, as shape_predictor's constructor makes them
    std::vector<std::vector<dlib::vector<float, 2>>> deltas;
    const unsigned char *forests = nullptr;  // cascades × trees × {u32 idx1, u32 idx2, f32 thresh}[splits], f32 leaves[splits + 1][dim]
    uint32_t cascades = 0, trees = 0, splits = 0, dim = 0;
    size_t tree_bytes = 0;

    unsigned long num_parts() const { return initial_shape.size() / 2; }

    template <typename image_type>
    dlib::full_object_detection operator()(const image_type &img, const dlib::rectangle &rect) const {
        using namespace dlib::impl;
        dlib::matrix<float, 0, 1> current_shape = initial_shape;
        std::vector<float> feature_pixel_values;
        const unsigned char *tree = forests;
        for (uint32_t c = 0; c < cascades; ++c) {
            extract_feature_pixel_values(img, rect, current_shape, initial_shape, anchor_idx[c], deltas[c],
                                         feature_pixel_values);
            for (uint32_t t = 0; t < trees; ++t, tree += tree_bytes) {
                uint32_t i = 0;
                while (i < splits) {
                    uint32_t idx1, idx2;
                    float thresh;
                    std::memcpy(&idx1, tree + 12 * size_t(i), 4);
                    std::memcpy(&idx2, tree + 12 * size_t(i) + 4, 4);
                    std::memcpy(&thresh, tree + 12 * size_t(i) + 8, 4);
                    // Checked at load, and again here (.at): the pages are the file's, and a file rewritten in
                    // place under a running process (never by Coif, which renames a new file over it) would
                    // show through. An out-of-range index then fails the fit instead of reading past the end.
                    i = feature_pixel_values.at(idx1) - feature_pixel_values.at(idx2) > thresh ? 2 * i + 1 : 2 * i + 2;
                }
                const unsigned char *leaf = tree + 12 * size_t(splits) + size_t(i - splits) * dim * 4;
                for (uint32_t k = 0; k < dim; ++k) {
                    float v;
                    std::memcpy(&v, leaf + 4 * size_t(k), 4);
                    current_shape(long(k)) += v;
                }
            }
        }
        const dlib::point_transform_affine tform_to_img = unnormalizing_tform(rect);
        std::vector<dlib::point> parts(current_shape.size() / 2);
        for (unsigned long i = 0; i < parts.size(); ++i) parts[i] = tform_to_img(location(current_shape, i));
        return dlib::full_object_detection(rect, parts);
    }
};

// The shape predictor: dlib's own, loaded from its file (no usable cache), or read in place from the cache.
class Predictor {
public:
    dlib::shape_predictor original;
    std::unique_ptr<MappedPredictor> mapped;

    unsigned long num_parts() const { return mapped ? mapped->num_parts() : original.num_parts(); }
    template <typename image_type>
    dlib::full_object_detection operator()(const image_type &img, const dlib::rectangle &rect) const {
        return mapped ? (*mapped)(img, rect) : original(img, rect);
    }
};

}  // namespace coif_vision

cv_face_model::cv_face_model() : predictor(std::make_unique<coif_vision::Predictor>()) {}
cv_face_model::~cv_face_model() = default;

namespace {

using namespace coif_vision;

using cvision::set_message;

const char *const kDefaultModelError = "cannot load shape predictor";

void set_error_from(const std::exception &e, char *message, size_t message_len) {
    // dlib's messages can run to several lines; keep the first.
    char text[256];
    snprintf(text, sizeof text, "%s", e.what());
    for (char *p = text; *p; ++p)
        if (*p == '\n') { *p = 0; break; }
    set_message(message, message_len, text[0] ? text : kDefaultModelError);
}

// ── To and from the model cache (face_cache.cpp) ────────────────────────────────────────────
// dlib's shape_predictor keeps the pixels as (anchor index, delta) pairs and its public constructor takes
// the pixel coordinates; the cache is written only after checking that re-encoding the coordinates gives
// back the file's anchors and deltas bit for bit, so the rebuilt model equals the original one. The
// cache is keyed by dlib's version too: the detector it holds comes from libdlib.
constexpr uint32_t kDlibVersion[4] = {DLIB_MAJOR_VERSION, DLIB_MINOR_VERSION, DLIB_PATCH_VERSION, 0};

// The model's pieces, in dlib's own types.
struct PredictorParts {
    dlib::matrix<float, 0, 1> initial_shape;
    std::vector<std::vector<dlib::impl::regression_tree>> forests;
    std::vector<std::vector<dlib::vector<float, 2>>> pixels;  // per cascade, in the initial shape's frame
};

// Reads dlib's file piecewise (the order of dlib's own deserialize(shape_predictor)), and recovers each
// cascade's pixel coordinates from its (anchor, delta) encoding. `exact` is set when re-encoding them
// (what shape_predictor's constructor does) reproduces the stored anchors and deltas bit for bit.
void read_original(const char *path, PredictorParts &parts, bool &exact) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw dlib::serialization_error(std::string("unable to open ") + path + " for reading");
    int version = 0;
    std::vector<std::vector<unsigned long>> anchors;
    std::vector<std::vector<dlib::vector<float, 2>>> deltas;
    dlib::deserialize(version, in);
    if (version != 1) throw dlib::serialization_error("Unexpected version found while deserializing dlib::shape_predictor.");
    dlib::deserialize(parts.initial_shape, in);
    dlib::deserialize(parts.forests, in);
    dlib::deserialize(anchors, in);
    dlib::deserialize(deltas, in);
    exact = anchors.size() == deltas.size() && anchors.size() == parts.forests.size();
    parts.pixels.assign(anchors.size(), {});
    for (size_t c = 0; exact && c < anchors.size(); ++c) {
        if (anchors[c].size() != deltas[c].size()) { exact = false; break; }
        auto &px = parts.pixels[c];
        px.reserve(anchors[c].size());
        for (size_t i = 0; i < anchors[c].size(); ++i) {
            if (2 * anchors[c][i] + 1 >= static_cast<unsigned long>(parts.initial_shape.size())) { exact = false; break; }
            px.push_back(dlib::impl::location(parts.initial_shape, anchors[c][i]) + deltas[c][i]);
        }
        if (!exact) break;
        std::vector<unsigned long> a;
        std::vector<dlib::vector<float, 2>> d;
        dlib::impl::create_shape_relative_encoding(parts.initial_shape, px, a, d);
        if (a != anchors[c] || d.size() != deltas[c].size()) { exact = false; break; }
        for (size_t i = 0; i < d.size(); ++i)
            if (std::memcmp(&d[i].x(), &deltas[c][i].x(), sizeof(float)) != 0 ||
                std::memcmp(&d[i].y(), &deltas[c][i].y(), sizeof(float)) != 0) { exact = false; break; }
    }
}

// dlib's serialisation of the detector, when reading it back gives the same detector (same bytes again).
std::string detector_bytes(const dlib::frontal_face_detector &detector) {
    std::ostringstream out;
    dlib::serialize(detector, out);
    std::string bytes = out.str();
    std::istringstream in(bytes);
    dlib::frontal_face_detector back;
    dlib::deserialize(back, in);
    std::ostringstream again;
    dlib::serialize(back, again);
    return again.str() == bytes ? bytes : std::string();
}

// The model as the cache stores it; false when it is not the regular shape the layout assumes.
bool cache_contents(const PredictorParts &parts, std::string detector, CacheContents &out) {
    const auto &forests = parts.forests;
    if (forests.empty() || forests[0].empty() || parts.pixels.size() != forests.size()) return false;
    const size_t pixels = parts.pixels[0].size(), trees = forests[0].size();
    const size_t splits = forests[0][0].splits.size();
    if (forests[0][0].leaf_values.empty()) return false;
    const size_t dim = size_t(forests[0][0].leaf_values[0].size());
    for (size_t c = 0; c < forests.size(); ++c) {
        if (forests[c].size() != trees || parts.pixels[c].size() != pixels) return false;
        for (const auto &tree : forests[c]) {
            if (tree.splits.size() != splits || tree.leaf_values.size() != splits + 1) return false;
            for (const auto &leaf : tree.leaf_values)
                if (size_t(leaf.size()) != dim) return false;
            for (const auto &s : tree.splits)
                if (s.idx1 >= pixels || s.idx2 >= pixels) return false;
        }
    }
    out.layout = PredictorLayout{uint32_t(forests.size()), uint32_t(pixels), uint32_t(trees), uint32_t(splits), uint32_t(dim)};
    out.initial_shape.assign(parts.initial_shape.begin(), parts.initial_shape.end());
    out.pixel_xy.clear();
    out.pixel_xy.reserve(forests.size() * pixels * 2);
    for (const auto &cascade : parts.pixels)
        for (const auto &p : cascade) out.pixel_xy.push_back(p.x()), out.pixel_xy.push_back(p.y());
    out.forests.clear();
    out.forests.reserve(forests.size() * trees * out.layout.tree_bytes());
    for (const auto &cascade : forests)
        for (const auto &tree : cascade) {
            for (const auto &s : tree.splits) append_split(out.forests, uint32_t(s.idx1), uint32_t(s.idx2), s.thresh);
            for (const auto &leaf : tree.leaf_values) append_leaf(out.forests, &leaf(0), uint32_t(dim));
        }
    out.detector = std::move(detector);
    return true;
}

// Reads the model from the cache file at `path` when its key matches `key` and its checksum its payload:
// the predictor in place (MappedPredictor, which keeps the mapping), the detector deserialised (2 ms).
bool load_cache(const std::string &path, const SourceKey &key, cv_face_model &model, bool &has_detector) {
    try {
        std::unique_ptr<MappedCache> cache = MappedCache::open(path, key, kDlibVersion);
        if (!cache) return false;
        const PredictorLayout &l = cache->layout;
        auto mapped = std::make_unique<MappedPredictor>();
        mapped->initial_shape.set_size(long(l.dim));
        std::memcpy(&mapped->initial_shape(0), cache->initial_shape, 4 * size_t(l.dim));
        mapped->anchor_idx.resize(l.cascades);
        mapped->deltas.resize(l.cascades);
        std::vector<dlib::vector<float, 2>> coordinates(l.pixels);
        const unsigned char *xy = cache->pixel_xy;
        for (uint32_t c = 0; c < l.cascades; ++c) {
            for (auto &p : coordinates) {
                float x, y;
                std::memcpy(&x, xy, 4);
                std::memcpy(&y, xy + 4, 4);
                xy += 8;
                p = dlib::vector<float, 2>(x, y);
            }
            dlib::impl::create_shape_relative_encoding(mapped->initial_shape, coordinates, mapped->anchor_idx[c],
                                                       mapped->deltas[c]);
        }
        mapped->forests = cache->forests;
        mapped->cascades = l.cascades, mapped->trees = l.trees, mapped->splits = l.splits, mapped->dim = l.dim;
        mapped->tree_bytes = l.tree_bytes();
        if (!cache->verify()) return false;
        if (cache->detector_size > 0) {
            std::istringstream in(std::string(reinterpret_cast<const char *>(cache->detector), cache->detector_size));
            dlib::deserialize(model.detector, in);
        }
        has_detector = cache->detector_size > 0;
        model.mean_shape.assign(mapped->initial_shape.begin(), mapped->initial_shape.end());
        mapped->cache = std::move(cache);
        model.predictor->mapped = std::move(mapped);
        return true;
    } catch (...) {
        return false;
    }
}

}  // namespace

extern "C" cv_face_model *cv_face_model_load_cached(const char *predictor_path, const char *cache_dir,
                                                    int32_t *out_source, char *message, size_t message_len) {
    set_message(message, message_len, "");
    if (out_source) *out_source = CV_MODEL_FROM_ORIGINAL;
    if (!predictor_path) {
        set_message(message, message_len, "no predictor path given");
        return nullptr;
    }
    cv_face_model *model = nullptr;
    try {
        model = new cv_face_model();
        const std::string dir = cache_dir ? std::string(cache_dir) : default_cache_dir();
        SourceKey key;
        const bool keyed = !dir.empty() && source_key(predictor_path, key);
        const std::string cache = keyed ? cache_path_for(dir, predictor_path) : std::string();
        bool cached_detector = false;
        if (keyed && load_cache(cache, key, *model, cached_detector)) {
            if (!cached_detector) model->detector = dlib::get_frontal_face_detector();
            if (out_source) *out_source = CV_MODEL_FROM_CACHE;
        } else if (keyed) {
            // dlib unpacks its detector on a second thread while this one parses the predictor.
            std::exception_ptr failed;
            std::thread detector_loader([&] {
                try { model->detector = dlib::get_frontal_face_detector(); } catch (...) { failed = std::current_exception(); }
            });
            PredictorParts parts;
            bool exact = false;
            try {
                read_original(predictor_path, parts, exact);
            } catch (...) {
                detector_loader.join();
                throw;
            }
            detector_loader.join();
            if (failed) std::rethrow_exception(failed);
            if (exact) {
                model->predictor->original = dlib::shape_predictor(parts.initial_shape, parts.forests, parts.pixels);
                CacheContents contents;
                if (cache_contents(parts, detector_bytes(model->detector), contents) &&
                    write_cache(dir, cache, key, kDlibVersion, contents) && out_source)
                    *out_source = CV_MODEL_CACHE_WRITTEN;
            } else {  // the encoding does not round-trip: only dlib's own reader gives the exact model
                dlib::deserialize(predictor_path) >> model->predictor->original;
            }
            model->mean_shape.assign(parts.initial_shape.begin(), parts.initial_shape.end());
        } else {
            model->detector = dlib::get_frontal_face_detector();
            dlib::deserialize(predictor_path) >> model->predictor->original;
            std::ifstream in(predictor_path, std::ios::binary);  // the head again: version, initial shape
            int version = 0;
            dlib::matrix<float, 0, 1> initial;
            dlib::deserialize(version, in);
            dlib::deserialize(initial, in);
            model->mean_shape.assign(initial.begin(), initial.end());
        }
        if (model->predictor->num_parts() != 68) {
            delete model;
            set_message(message, message_len, "shape predictor does not have 68 parts");
            return nullptr;
        }
        if (model->mean_shape.size() != 136) model->mean_shape.clear();
        return model;
    } catch (const std::exception &e) {
        delete model;
        set_error_from(e, message, message_len);
        return nullptr;
    } catch (...) {
        delete model;
        set_message(message, message_len, kDefaultModelError);
        return nullptr;
    }
}

extern "C" cv_face_model *cv_face_model_load(const char *predictor_path, char *message, size_t message_len) {
    return cv_face_model_load_cached(predictor_path, "", nullptr, message, message_len);
}

extern "C" int32_t cv_face_model_cache_path(const char *predictor_path, const char *cache_dir, char *out_path,
                                            size_t out_len) {
    if (!predictor_path || !out_path || out_len == 0) return -1;
    const std::string dir = cache_dir ? std::string(cache_dir) : default_cache_dir();
    if (dir.empty()) return -1;
    const std::string path = cache_path_for(dir, predictor_path);
    if (path.size() + 1 > out_len) return -1;
    std::memcpy(out_path, path.c_str(), path.size() + 1);
    return int32_t(path.size());
}

extern "C" void cv_face_model_free(cv_face_model *model) { delete model; }

extern "C" int32_t cv_landmarks68(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                                  int32_t stride, cv_face_box box, float *out_xy) {
    if (!model || !out_xy || !coif_vision::valid_image(gray, width, height, stride)) return -1;
    if (!(box.right > box.left) || !(box.bottom > box.top)) return -1;
    try {
        const coif_vision::GrayView view{gray, height, width, stride};
        const dlib::rectangle rect(std::lround(box.left), std::lround(box.top), std::lround(box.right) - 1,
                                   std::lround(box.bottom) - 1);
        const dlib::full_object_detection shape = (*model->predictor)(view, rect);
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
