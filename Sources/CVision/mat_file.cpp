// mat_file.cpp: numeric variables from MATLAB v5 .mat files through Debian's libmatio (for the
// AFLW2000-3D ground truth that `coif eval pose` reads: Pose_Para, pt3d_68).
// libmatio is opened on first use rather than linked: it brings HDF5 and, through it, curl, GnuTLS,
// Kerberos and LDAP (some 35 shared libraries), which every `coif` process would otherwise map and
// relocate at start-up (~7 ms) though only `coif eval pose` reads a .mat file.

#include "CVision.h"

#include <dlfcn.h>
#include <matio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mutex>

namespace {

struct Matio {
    decltype(&Mat_Open) open = nullptr;
    decltype(&Mat_VarRead) read = nullptr;
    decltype(&Mat_VarFree) free = nullptr;
    decltype(&Mat_Close) close = nullptr;
    bool loaded = false;
};

// The library's functions, resolved once per process (thread-safe); `loaded` false when it is missing.
const Matio &matio() {
    static Matio m;
    static std::once_flag once;
    std::call_once(once, [] {
        void *library = dlopen("libmatio.so.11", RTLD_NOW | RTLD_LOCAL);
        if (!library) library = dlopen("libmatio.so", RTLD_NOW | RTLD_LOCAL);
        if (!library) return;
        m.open = reinterpret_cast<decltype(&Mat_Open)>(dlsym(library, "Mat_Open"));
        m.read = reinterpret_cast<decltype(&Mat_VarRead)>(dlsym(library, "Mat_VarRead"));
        m.free = reinterpret_cast<decltype(&Mat_VarFree)>(dlsym(library, "Mat_VarFree"));
        m.close = reinterpret_cast<decltype(&Mat_Close)>(dlsym(library, "Mat_Close"));
        m.loaded = m.open && m.read && m.free && m.close;
    });
    return m;
}

// Whether a MATLAB v5 file's top-level elements (an 8-byte tag: type, byte count; then the data, padded
// to 8 bytes) run past its end: libmatio reads a cut-off variable's missing bytes as zeros. Files that are
// not v5 (v7.3 is HDF5) are left to libmatio.
bool v5_truncated(const char *path, int64_t size) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    unsigned char header[128];
    bool truncated = false;
    if (fread(header, 1, sizeof header, f) == sizeof header && header[126] == 'I' && header[127] == 'M') {
        int64_t offset = 128;
        unsigned char tag[8];
        while (offset < size) {
            if (fseek(f, long(offset), SEEK_SET) != 0 || fread(tag, 1, 8, f) != 8) { truncated = true; break; }
            const uint32_t bytes = uint32_t(tag[4]) | uint32_t(tag[5]) << 8 | uint32_t(tag[6]) << 16 | uint32_t(tag[7]) << 24;
            const int64_t padded = tag[0] == 15 ? int64_t(bytes) : (int64_t(bytes) + 7) / 8 * 8;  // compressed: unpadded
            offset += 8 + padded;
            if (offset > size + (tag[0] == 15 ? 0 : 7)) { truncated = true; break; }
        }
    }
    fclose(f);
    return truncated;
}

}  // namespace

extern "C" int32_t cv_mat_read(const char *path, const char *name, double *out, int32_t capacity, int32_t *out_rows,
                               int32_t *out_cols) {
    if (!path || !name) return -1;
    const Matio &lib = matio();
    if (!lib.loaded) return -4;
    struct stat info;
    if (access(path, R_OK) != 0 || stat(path, &info) != 0 || !S_ISREG(info.st_mode)) return -1;
    if (info.st_size < 128 || v5_truncated(path, int64_t(info.st_size))) return -5;  // libmatio opens an empty file
    mat_t *file = lib.open(path, MAT_ACC_RDONLY);
    if (!file) return -5;
    matvar_t *var = lib.read(file, name);
    if (!var) {
        lib.close(file);
        return -2;
    }
    int32_t result = -3;
    if (var->rank == 2 && !var->isComplex && var->data &&
        (var->class_type == MAT_C_DOUBLE || var->class_type == MAT_C_SINGLE)) {
        const size_t count = var->dims[0] * var->dims[1];
        if (count > size_t(INT32_MAX)) {
            lib.free(var);
            lib.close(file);
            return -3;
        }
        for (size_t i = 0; i < count && i < size_t(capacity > 0 ? capacity : 0) && out; ++i)
            out[i] = var->class_type == MAT_C_DOUBLE ? static_cast<const double *>(var->data)[i]
                                                     : double(static_cast<const float *>(var->data)[i]);
        if (out_rows) *out_rows = int32_t(var->dims[0]);
        if (out_cols) *out_cols = int32_t(var->dims[1]);
        result = int32_t(count);
    }
    lib.free(var);
    lib.close(file);
    return result;
}
