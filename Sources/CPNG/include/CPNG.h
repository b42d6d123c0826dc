// CPNG: libpng for Swift. The simplified read API (png_image_*) is usable from Swift as it is; writing
// goes through this small C encoder, because choosing zlib level and row filters needs libpng's full
// API, whose error handling is setjmp/longjmp, which Swift cannot do.
#ifndef COIF_CPNG_H
#define COIF_CPNG_H

#include <png.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Row filters as plain constants (png.h's are macro expressions Swift does not import).
enum { COIF_PNG_FILTER_SUB = PNG_FILTER_SUB, COIF_PNG_FILTER_ADAPTIVE = PNG_ALL_FILTERS };

typedef struct {
    uint8_t *bytes;  // malloc'd; free with coif_png_buffer_free
    size_t size;
} coif_png_buffer;

// Encodes 8-bit pixels (channels 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA; rows top to bottom, tightly
// packed) as PNG. `zlib_level` 0–9; `filter` a PNG_FILTER_* mask (one filter, or several for libpng's
// adaptive per-row choice). No timestamps or other varying chunks are written, so equal pixels give equal bytes.
// Returns 0 on success; otherwise non-zero with `message` filled.
int coif_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, int zlib_level,
                    int filter, coif_png_buffer *out, char *message, size_t message_len);

void coif_png_buffer_free(coif_png_buffer *buffer);

#ifdef __cplusplus
}
#endif
#endif
