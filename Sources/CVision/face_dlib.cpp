// face_dlib.cpp: the only dlib translation unit (dlib's headers compile slowly; keep this file small).
// Owns cv_face_model: dlib's HOG frontal face detector and the 68-point ERT shape predictor, and the
// calls over them; the compact model cache (cv_face_model_load_cached); detection split over two threads
// (cv_detect_faces_fast). Caller buffers are wrapped in place as a dlib generic image, never copied,
// except for the 2x pyramid_up that upsampled detection needs and the resampled copy of coarse detection.

#include "CVision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_processing/shape_predictor.h>
#include <dlib/image_transforms/interpolation.h>
#include <dlib/revision.h>
#include <dlib/serialize.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

namespace coif_vision {

// The predictor read in place from the mapped cache file: trees and leaves are used where they lie (no
// copy, no allocation per tree: dlib's own structures took ~130 MB of small allocations and 0.1–0.2 s
// to build, growing a thread's heap a page at a time), and evaluated step for step as dlib's
// shape_predictor::operator() does, with dlib's own feature extraction and transforms, so its landmarks
// are bit-identical to dlib's (tested). The file's pages are shared by every process that maps it.
struct MappedPredictor {
    void *map = nullptr;
    size_t map_size = 0;
    dlib::matrix<float, 0, 1> initial_shape;
    std::vector<std::vector<unsigned long>> anchor_idx;  // per cascade, as shape_predictor's constructor makes them
    std::vector<std::vector<dlib::vector<float, 2>>> deltas;
    const unsigned char *forests = nullptr;  // cascades × trees × {u32 idx1, u32 idx2, f32 thresh}[splits], f32 leaves[splits + 1][dim]
    uint32_t cascades = 0, trees = 0, splits = 0, dim = 0;
    size_t tree_bytes = 0;

    MappedPredictor() = default;
    MappedPredictor(const MappedPredictor &) = delete;
    MappedPredictor &operator=(const MappedPredictor &) = delete;
    ~MappedPredictor() {
        if (map) munmap(map, map_size);
    }

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

}  // namespace coif_vision

struct cv_face_model {
    dlib::frontal_face_detector detector;
    dlib::shape_predictor predictor;                         // loaded from dlib's file (no usable cache)
    std::unique_ptr<coif_vision::MappedPredictor> mapped;    // or read in place from the cache

    unsigned long num_parts() const { return mapped ? mapped->num_parts() : predictor.num_parts(); }
    template <typename image_type>
    dlib::full_object_detection predict(const image_type &img, const dlib::rectangle &rect) const {
        return mapped ? (*mapped)(img, rect) : predictor(img, rect);
    }
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

namespace {

const char *const kDefaultModelError = "cannot load shape predictor";

void set_error_from(const std::exception &e, char *message, size_t message_len) {
    // dlib's messages can run to several lines; keep the first.
    char text[256];
    snprintf(text, sizeof text, "%s", e.what());
    for (char *p = text; *p; ++p)
        if (*p == '\n') { *p = 0; break; }
    set_message(message, message_len, text[0] ? text : kDefaultModelError);
}

// ── The model cache ─────────────────────────────────────────────────────────────────────────
// dlib stores every float of the 99 MB predictor as two variable-length integers, and parsing them takes
// ~0.7 s; its face detector comes out of libdlib compressed, ~0.3–0.4 s to unpack. The cache holds the
// predictor's numbers as raw 32-bit words and the detector in dlib's own uncompressed serialisation
// (2 ms to read), so loading is one mmap, a checksum and copies. Layout (native endianness; the magic
// includes the layout version):
//   header: CacheHeader
//   payload: u32 n, f32 initial_shape[n];
//            u32 cascades, pixels, trees, splits, leaf_dim;
//            f32 pixel_coordinates[cascades][pixels][2];
//            per cascade, per tree: {u32 idx1, u32 idx2, f32 thresh}[splits], f32 leaves[splits + 1][leaf_dim];
//            u64 detector_bytes, the detector as dlib::serialize writes it (0 bytes: not cached)
// dlib's shape_predictor keeps the pixels as (anchor index, delta) pairs and its public constructor takes
// the pixel coordinates; the cache is written only after checking that re-encoding the coordinates gives
// back the file's anchors and deltas bit for bit, so the rebuilt model equals the original one.
constexpr char kCacheMagic[8] = {'C', 'O', 'I', 'F', 'S', 'P', '0', '2'};
constexpr uint32_t kDlibVersion[4] = {DLIB_MAJOR_VERSION, DLIB_MINOR_VERSION, DLIB_PATCH_VERSION, 0};

struct CacheHeader {
    char magic[8];
    uint32_t dlib_version[4];    // major, minor, patch, 0: the detector comes from libdlib
    uint64_t source_size;        // the original file's size and modification time: the cache's key
    int64_t source_mtime_sec;
    int64_t source_mtime_nsec;
    uint64_t payload_bytes;
    uint64_t payload_checksum;   // payload_checksum() of the payload
};

// A 64-bit checksum over 32-byte blocks in four independent lanes (multiply–rotate mixing): catches
// truncation and corruption at memory speed. Not cryptographic; the cache is the user's own.
uint64_t payload_checksum(const unsigned char *data, size_t n) {
    const uint64_t k1 = 0x9E3779B185EBCA87ull, k2 = 0xC2B2AE3D27D4EB4Full;
    uint64_t lane[4] = {k1, k2, k1 ^ 0x5555, k2 ^ 0xAAAA};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        for (int j = 0; j < 4; ++j) {
            uint64_t w;
            std::memcpy(&w, data + i + 8 * size_t(j), 8);
            lane[j] = (lane[j] ^ w) * k1;
            lane[j] = (lane[j] << 29) | (lane[j] >> 35);
        }
    }
    uint64_t h = uint64_t(n) * k2;
    for (; i < n; ++i) h = (h ^ data[i]) * k1;
    for (int j = 0; j < 4; ++j) {
        h ^= lane[j] * k2;
        h = ((h << 31) | (h >> 33)) * k1;
    }
    return h ^ (h >> 29);
}

struct SourceKey {
    uint64_t size = 0;
    int64_t mtime_sec = 0, mtime_nsec = 0;
};

bool source_key(const char *path, SourceKey &key) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    key.size = uint64_t(st.st_size);
    key.mtime_sec = int64_t(st.st_mtim.tv_sec);
    key.mtime_nsec = int64_t(st.st_mtim.tv_nsec);
    return true;
}

std::string default_cache_dir() {
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') return std::string(xdg) + "/coif";
    const char *home = getenv("HOME");
    if (home && home[0]) return std::string(home) + "/.cache/coif";
    return std::string();
}

std::string cache_path_for(const std::string &dir, const char *predictor_path) {
    std::string base(predictor_path);
    const size_t slash = base.find_last_of('/');
    if (slash != std::string::npos) base = base.substr(slash + 1);
    return dir + "/" + base + ".coif-cache";
}

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

void put_u32(std::string &out, uint32_t v) { out.append(reinterpret_cast<const char *>(&v), 4); }
void put_f32(std::string &out, float v) { out.append(reinterpret_cast<const char *>(&v), 4); }

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

// The payload, or empty when the model is not the regular shape the layout assumes.
std::string encode_payload(const PredictorParts &parts, const std::string &detector) {
    const auto &forests = parts.forests;
    if (forests.empty() || forests[0].empty() || parts.pixels.size() != forests.size()) return {};
    const size_t pixels = parts.pixels[0].size(), trees = forests[0].size();
    const size_t splits = forests[0][0].splits.size();
    if (forests[0][0].leaf_values.empty()) return {};
    const size_t dim = size_t(forests[0][0].leaf_values[0].size());
    for (size_t c = 0; c < forests.size(); ++c) {
        if (forests[c].size() != trees || parts.pixels[c].size() != pixels) return {};
        for (const auto &tree : forests[c]) {
            if (tree.splits.size() != splits || tree.leaf_values.size() != splits + 1) return {};
            for (const auto &leaf : tree.leaf_values)
                if (size_t(leaf.size()) != dim) return {};
            for (const auto &s : tree.splits)
                if (s.idx1 >= pixels || s.idx2 >= pixels) return {};
        }
    }
    std::string out;
    out.reserve(4 * (1 + size_t(parts.initial_shape.size()) + 5 + forests.size() * (pixels * 2 + trees * (splits * 3 + (splits + 1) * dim))));
    put_u32(out, uint32_t(parts.initial_shape.size()));
    for (long i = 0; i < parts.initial_shape.size(); ++i) put_f32(out, parts.initial_shape(i));
    for (size_t v : {forests.size(), pixels, trees, splits, dim}) put_u32(out, uint32_t(v));
    for (const auto &cascade : parts.pixels)
        for (const auto &p : cascade) put_f32(out, p.x()), put_f32(out, p.y());
    for (const auto &cascade : forests)
        for (const auto &tree : cascade) {
            for (const auto &s : tree.splits) put_u32(out, uint32_t(s.idx1)), put_u32(out, uint32_t(s.idx2)), put_f32(out, s.thresh);
            for (const auto &leaf : tree.leaf_values) out.append(reinterpret_cast<const char *>(&leaf(0)), 4 * dim);
        }
    const uint64_t n = detector.size();
    out.append(reinterpret_cast<const char *>(&n), 8);
    out += detector;
    return out;
}

// Writes header + payload to a temporary file in the cache folder (made if missing), then renames it
// over the cache path. Any failure leaves no file behind and is silent: the cache is only an optimisation.
bool write_cache(const std::string &dir, const std::string &path, const SourceKey &key, const std::string &payload) {
    if (payload.empty() || dir.empty()) return false;
    for (size_t i = 1; i <= dir.size(); ++i)  // mkdir -p
        if (i == dir.size() || dir[i] == '/') {
            const std::string part = dir.substr(0, i);
            if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
        }
    CacheHeader header{};
    std::memcpy(header.magic, kCacheMagic, 8);
    std::memcpy(header.dlib_version, kDlibVersion, sizeof kDlibVersion);
    header.source_size = key.size;
    header.source_mtime_sec = key.mtime_sec;
    header.source_mtime_nsec = key.mtime_nsec;
    header.payload_bytes = payload.size();
    header.payload_checksum = payload_checksum(reinterpret_cast<const unsigned char *>(payload.data()), payload.size());
    const std::string temp = path + ".tmp" + std::to_string(long(getpid()));
    FILE *f = fopen(temp.c_str(), "wb");
    if (!f) return false;
    bool ok = fwrite(&header, sizeof header, 1, f) == 1 && fwrite(payload.data(), 1, payload.size(), f) == payload.size();
    ok = (fclose(f) == 0) && ok;
    if (ok) ok = rename(temp.c_str(), path.c_str()) == 0;
    if (!ok) unlink(temp.c_str());
    return ok;
}

// Reads the little-endian-native words of a payload in order, refusing to run past its end.
struct PayloadReader {
    const unsigned char *p, *end;
    bool ok = true;
    template <typename T> T get() {
        T v{};
        if (size_t(end - p) < sizeof v) { ok = false; return v; }
        std::memcpy(&v, p, sizeof v);
        p += sizeof v;
        return v;
    }
    const unsigned char *take(size_t n) {
        if (size_t(end - p) < n) { ok = false; return nullptr; }
        const unsigned char *at = p;
        p += n;
        return at;
    }
};

// Reads the model from a cache file when its key matches `key` and its checksum its payload: the
// predictor in place (MappedPredictor, which keeps the mapping), the detector deserialised (2 ms).
bool load_cache(const std::string &path, const SourceKey &key, cv_face_model &model, bool &has_detector) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    if (fstat(fd, &st) != 0 || size_t(st.st_size) < sizeof(CacheHeader)) { close(fd); return false; }
    auto mapped = std::make_unique<coif_vision::MappedPredictor>();
    mapped->map_size = size_t(st.st_size);
    void *map = mmap(nullptr, mapped->map_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return false;
    mapped->map = map;  // unmapped by the predictor, whatever happens next
    const auto *bytes = static_cast<const unsigned char *>(map);
    const size_t size = mapped->map_size;
    try {
        CacheHeader header;
        std::memcpy(&header, bytes, sizeof header);
        if (std::memcmp(header.magic, kCacheMagic, 8) != 0 ||
            std::memcmp(header.dlib_version, kDlibVersion, sizeof kDlibVersion) != 0 || header.source_size != key.size ||
            header.source_mtime_sec != key.mtime_sec || header.source_mtime_nsec != key.mtime_nsec ||
            header.payload_bytes != size - sizeof header)
            return false;
        // The checksum (the whole file, at memory speed) on a second thread while this one decodes.
        bool checksum_ok = false;
        std::thread checker([&] { checksum_ok = payload_checksum(bytes + sizeof header, size - sizeof header) == header.payload_checksum; });
        struct Joiner { std::thread &t; ~Joiner() { if (t.joinable()) t.join(); } } joiner{checker};  // on every return
        PayloadReader r{bytes + sizeof header, bytes + size};
        const uint32_t n = r.get<uint32_t>();
        const unsigned char *shape = r.take(4 * size_t(n));
        const uint32_t cascades = r.get<uint32_t>(), pixels = r.get<uint32_t>(), trees = r.get<uint32_t>(),
                       splits = r.get<uint32_t>(), dim = r.get<uint32_t>();
        if (!r.ok || n == 0 || n % 2 != 0 || cascades == 0 || trees == 0 || pixels == 0 || dim != n) return false;
        mapped->initial_shape.set_size(long(n));
        std::memcpy(&mapped->initial_shape(0), shape, 4 * size_t(n));
        mapped->anchor_idx.resize(cascades);
        mapped->deltas.resize(cascades);
        std::vector<dlib::vector<float, 2>> coordinates(pixels);
        for (uint32_t c = 0; c < cascades; ++c) {
            for (auto &p : coordinates) {
                const float x = r.get<float>(), y = r.get<float>();
                p = dlib::vector<float, 2>(x, y);
            }
            dlib::impl::create_shape_relative_encoding(mapped->initial_shape, coordinates, mapped->anchor_idx[c],
                                                       mapped->deltas[c]);
        }
        const size_t tree_bytes = size_t(splits) * 12 + (size_t(splits) + 1) * size_t(dim) * 4;
        const size_t cascade_bytes = size_t(trees) * tree_bytes;
        if (!r.ok || size_t(r.end - r.p) / cascade_bytes < cascades) return false;
        const unsigned char *forest_data = r.take(size_t(cascades) * cascade_bytes);
        const uint64_t detector_size = r.get<uint64_t>();
        const unsigned char *detector = r.take(size_t(detector_size));
        if (!r.ok || r.p != r.end) return false;
        // Every split must name one of its cascade's pixels: the evaluation indexes by them unchecked.
        for (size_t t = 0; t < size_t(cascades) * trees; ++t)
            for (uint32_t i = 0; i < splits; ++i) {
                uint32_t idx[2];
                std::memcpy(idx, forest_data + t * tree_bytes + 12 * size_t(i), 8);
                if (idx[0] >= pixels || idx[1] >= pixels) return false;
            }
        mapped->forests = forest_data;
        mapped->cascades = cascades, mapped->trees = trees, mapped->splits = splits, mapped->dim = dim;
        mapped->tree_bytes = tree_bytes;
        checker.join();
        if (!checksum_ok) return false;
        if (detector_size > 0) {
            std::istringstream in(std::string(reinterpret_cast<const char *>(detector), size_t(detector_size)));
            dlib::deserialize(model.detector, in);
        }
        has_detector = detector_size > 0;
        model.mean_shape.assign(mapped->initial_shape.begin(), mapped->initial_shape.end());
        model.mapped = std::move(mapped);
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
                model->predictor = dlib::shape_predictor(parts.initial_shape, parts.forests, parts.pixels);
                if (write_cache(dir, cache, key, encode_payload(parts, detector_bytes(model->detector))) && out_source)
                    *out_source = CV_MODEL_CACHE_WRITTEN;
            } else {  // the encoding does not round-trip: only dlib's own reader gives the exact model
                dlib::deserialize(predictor_path) >> model->predictor;
            }
            model->mean_shape.assign(parts.initial_shape.begin(), parts.initial_shape.end());
        } else {
            model->detector = dlib::get_frontal_face_detector();
            dlib::deserialize(predictor_path) >> model->predictor;
            std::ifstream in(predictor_path, std::ios::binary);  // the head again: version, initial shape
            int version = 0;
            dlib::matrix<float, 0, 1> initial;
            dlib::deserialize(version, in);
            dlib::deserialize(initial, in);
            model->mean_shape.assign(initial.begin(), initial.end());
        }
        if (model->num_parts() != 68) {
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

extern "C" int32_t cv_detect_faces_fast(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                                        int32_t stride, int32_t upsample, double scale, double threshold,
                                        cv_face_box *out_boxes, int32_t max_faces) {
    if (!model || !valid_image(gray, width, height, stride) || upsample < 0 || upsample > 4) return -1;
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
        if (upsample == 0) {
            detect_split(model->detector, view, threshold, found);
        } else {
            dlib::pyramid_down<2> pyramid;
            dlib::array2d<unsigned char> big;
            dlib::pyramid_up(view, big, pyramid);
            for (int32_t i = 1; i < upsample; ++i) dlib::pyramid_up(big, pyramid);
            detect_split(model->detector, big, threshold, found);
            for (auto &d : found) d.rect = pyramid.rect_down(d.rect, static_cast<unsigned int>(upsample));
        }
        return write_boxes(found, 1, 1, out_boxes, max_faces);
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
        const dlib::full_object_detection shape = model->predict(view, rect);
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
