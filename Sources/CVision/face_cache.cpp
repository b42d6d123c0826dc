// face_cache.cpp: the compact model cache's file: its key, layout, checksum, atomic write and read-only
// mapping. Knows no dlib (face_landmarks.cpp converts to and from dlib's types).
//
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

#include "face_cache.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace coif_vision {

namespace {

constexpr char kCacheMagic[8] = {'C', 'O', 'I', 'F', 'S', 'P', '0', '2'};

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

void put_u32(std::string &out, uint32_t v) { out.append(reinterpret_cast<const char *>(&v), 4); }
void put_f32(std::string &out, float v) { out.append(reinterpret_cast<const char *>(&v), 4); }

// The payload, or empty when `c` does not match its own layout.
std::string encode_payload(const CacheContents &c) {
    const PredictorLayout &l = c.layout;
    if (c.pixel_xy.size() != size_t(l.cascades) * l.pixels * 2 ||
        c.forests.size() != size_t(l.cascades) * l.trees * l.tree_bytes())
        return {};
    std::string out;
    out.reserve(4 * (1 + c.initial_shape.size() + 5 + c.pixel_xy.size()) + c.forests.size() + 8 + c.detector.size());
    put_u32(out, uint32_t(c.initial_shape.size()));
    for (float v : c.initial_shape) put_f32(out, v);
    for (uint32_t v : {l.cascades, l.pixels, l.trees, l.splits, l.dim}) put_u32(out, v);
    for (float v : c.pixel_xy) put_f32(out, v);
    out += c.forests;
    const uint64_t n = c.detector.size();
    out.append(reinterpret_cast<const char *>(&n), 8);
    out += c.detector;
    return out;
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

}  // namespace

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

void append_split(std::string &forests, uint32_t idx1, uint32_t idx2, float thresh) {
    put_u32(forests, idx1), put_u32(forests, idx2), put_f32(forests, thresh);
}

void append_leaf(std::string &forests, const float *values, uint32_t dim) {
    forests.append(reinterpret_cast<const char *>(values), 4 * size_t(dim));
}

// Writes header + payload to a temporary file in the cache folder (made if missing), then renames it
// over the cache path. Any failure leaves no file behind and is silent: the cache is only an optimisation.
bool write_cache(const std::string &dir, const std::string &path, const SourceKey &key,
                 const uint32_t library_version[4], const CacheContents &contents) {
    const std::string payload = encode_payload(contents);
    if (payload.empty() || dir.empty()) return false;
    for (size_t i = 1; i <= dir.size(); ++i)  // mkdir -p
        if (i == dir.size() || dir[i] == '/') {
            const std::string part = dir.substr(0, i);
            if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
        }
    CacheHeader header{};
    std::memcpy(header.magic, kCacheMagic, 8);
    std::memcpy(header.dlib_version, library_version, sizeof header.dlib_version);
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

std::unique_ptr<MappedCache> MappedCache::open(const std::string &path, const SourceKey &key,
                                               const uint32_t library_version[4]) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    struct stat st;
    if (fstat(fd, &st) != 0 || size_t(st.st_size) < sizeof(CacheHeader)) { close(fd); return nullptr; }
    std::unique_ptr<MappedCache> cache(new MappedCache());
    cache->map_size_ = size_t(st.st_size);
    void *map = mmap(nullptr, cache->map_size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return nullptr;
    cache->map_ = map;  // unmapped by the destructor, whatever happens next
    const auto *bytes = static_cast<const unsigned char *>(map);
    const size_t size = cache->map_size_;
    CacheHeader header;
    std::memcpy(&header, bytes, sizeof header);
    if (std::memcmp(header.magic, kCacheMagic, 8) != 0 ||
        std::memcmp(header.dlib_version, library_version, sizeof header.dlib_version) != 0 ||
        header.source_size != key.size || header.source_mtime_sec != key.mtime_sec ||
        header.source_mtime_nsec != key.mtime_nsec || header.payload_bytes != size - sizeof header)
        return nullptr;
    // The checksum (the whole file, at memory speed) on a second thread while the caller decodes.
    const uint64_t expected = header.payload_checksum;
    MappedCache *self = cache.get();
    cache->checker_ = std::thread([self, bytes, size, expected] {
        self->checksum_ok_ = payload_checksum(bytes + sizeof(CacheHeader), size - sizeof(CacheHeader)) == expected;
    });
    PayloadReader r{bytes + sizeof header, bytes + size};
    const uint32_t n = r.get<uint32_t>();
    const unsigned char *shape = r.take(4 * size_t(n));
    PredictorLayout l;
    l.cascades = r.get<uint32_t>(), l.pixels = r.get<uint32_t>(), l.trees = r.get<uint32_t>();
    l.splits = r.get<uint32_t>(), l.dim = r.get<uint32_t>();
    if (!r.ok || n == 0 || n % 2 != 0 || l.cascades == 0 || l.trees == 0 || l.pixels == 0 || l.dim != n) return nullptr;
    const unsigned char *pixels = r.take(size_t(l.cascades) * l.pixels * 8);
    const size_t tree_bytes = l.tree_bytes();
    const size_t cascade_bytes = size_t(l.trees) * tree_bytes;
    if (!r.ok || size_t(r.end - r.p) / cascade_bytes < l.cascades) return nullptr;
    const unsigned char *forests = r.take(size_t(l.cascades) * cascade_bytes);
    const uint64_t detector_size = r.get<uint64_t>();
    const unsigned char *detector = r.take(size_t(detector_size));
    if (!r.ok || r.p != r.end) return nullptr;
    // Every split must name one of its cascade's pixels.
    for (size_t t = 0; t < size_t(l.cascades) * l.trees; ++t)
        for (uint32_t i = 0; i < l.splits; ++i) {
            uint32_t idx[2];
            std::memcpy(idx, forests + t * tree_bytes + 12 * size_t(i), 8);
            if (idx[0] >= l.pixels || idx[1] >= l.pixels) return nullptr;
        }
    cache->layout = l;
    cache->initial_shape = shape;
    cache->pixel_xy = pixels;
    cache->forests = forests;
    cache->detector = detector;
    cache->detector_size = size_t(detector_size);
    return cache;
}

bool MappedCache::verify() {
    if (checker_.joinable()) checker_.join();
    return checksum_ok_;
}

MappedCache::~MappedCache() {
    if (checker_.joinable()) checker_.join();
    if (map_) munmap(map_, map_size_);
}

}  // namespace coif_vision
