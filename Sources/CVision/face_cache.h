// face_cache.h (private to CVision): the compact model cache's file format, with no dlib types, so that
// face_cache.cpp compiles without dlib's headers. face_landmarks.cpp turns dlib's model into
// CacheContents and a MappedCache back into a predictor it evaluates in place.
#ifndef COIF_FACE_CACHE_H
#define COIF_FACE_CACHE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace coif_vision {

// The cache's key: the original file's size and modification time.
struct SourceKey {
    uint64_t size = 0;
    int64_t mtime_sec = 0, mtime_nsec = 0;
};

// False when `path` is not a regular file that can be stat'ed.
bool source_key(const char *path, SourceKey &key);
// $XDG_CACHE_HOME/coif, else $HOME/.cache/coif; empty when neither is set.
std::string default_cache_dir();
// `dir`/<predictor file name>.coif-cache
std::string cache_path_for(const std::string &dir, const char *predictor_path);

// The predictor's shape: every cascade has `pixels` feature pixels and `trees` trees of `splits` splits
// and `splits + 1` leaves of `dim` floats (dim = the initial shape's length).
struct PredictorLayout {
    uint32_t cascades = 0, pixels = 0, trees = 0, splits = 0, dim = 0;
    // One tree's record: {u32 idx1, u32 idx2, f32 thresh}[splits], f32 leaves[splits + 1][dim].
    size_t tree_bytes() const { return size_t(splits) * 12 + (size_t(splits) + 1) * size_t(dim) * 4; }
};

// What write_cache stores.
struct CacheContents {
    std::vector<float> initial_shape;  // x0, y0, x1, y1…; its length is layout.dim
    PredictorLayout layout;
    std::vector<float> pixel_xy;       // [cascades][pixels][2], in the initial shape's frame
    std::string forests;               // cascades × trees tree records, built with append_split / append_leaf
    std::string detector;              // the detector as dlib::serialize writes it; empty: not cached
};
void append_split(std::string &forests, uint32_t idx1, uint32_t idx2, float thresh);
void append_leaf(std::string &forests, const float *values, uint32_t dim);

// Writes the cache file at `path` (in `dir`, made if missing) through a temporary file renamed over it.
// `library_version` (major, minor, patch, 0 of the library that serialised the detector) is part of the
// key. False, leaving no file behind, on any failure or when `contents` do not match their layout.
bool write_cache(const std::string &dir, const std::string &path, const SourceKey &key,
                 const uint32_t library_version[4], const CacheContents &contents);

// A cache file mapped read-only (its pages shared by every process that maps it) and read in place: the
// pointers below point into the mapping, which lives as long as this object. Multi-byte values may be
// unaligned: read them with memcpy.
class MappedCache {
public:
    // The cache at `path` when its key matches and its structure is sound (every split names one of its
    // cascade's pixels); null otherwise. The checksum runs on a second thread until verify().
    static std::unique_ptr<MappedCache> open(const std::string &path, const SourceKey &key,
                                             const uint32_t library_version[4]);
    ~MappedCache();
    MappedCache(const MappedCache &) = delete;
    MappedCache &operator=(const MappedCache &) = delete;

    // Waits for the checksum; true when the payload is the one that was written.
    bool verify();

    PredictorLayout layout;
    const unsigned char *initial_shape = nullptr;  // f32[dim]
    const unsigned char *pixel_xy = nullptr;       // f32[cascades][pixels][2]
    const unsigned char *forests = nullptr;        // cascades × trees tree records
    const unsigned char *detector = nullptr;
    size_t detector_size = 0;                      // 0: no detector cached

private:
    MappedCache() = default;
    void *map_ = nullptr;
    size_t map_size_ = 0;
    std::thread checker_;
    bool checksum_ok_ = false;
};

}  // namespace coif_vision

#endif
