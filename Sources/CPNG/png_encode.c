// PNG encoder over libpng's full API into a growing memory buffer. See CPNG.h.
#include "CPNG.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    coif_png_buffer *out;
    size_t capacity;
    int failed;
    char *message;
    size_t message_len;
} writer_state;

static void on_write(png_structp png, png_bytep data, png_size_t length) {
    writer_state *state = (writer_state *)png_get_io_ptr(png);
    if (state->failed) return;
    coif_png_buffer *out = state->out;
    if (out->size + length > state->capacity) {
        size_t capacity = state->capacity ? state->capacity : 65536;
        while (capacity < out->size + length) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(out->bytes, capacity);
        if (!grown) {
            state->failed = 1;
            png_error(png, "out of memory");
        }
        out->bytes = grown;
        state->capacity = capacity;
    }
    memcpy(out->bytes + out->size, data, length);
    out->size += length;
}

static void on_flush(png_structp png) { (void)png; }

static void on_error(png_structp png, png_const_charp text) {
    writer_state *state = (writer_state *)png_get_error_ptr(png);
    if (state && state->message && state->message_len) snprintf(state->message, state->message_len, "%s", text);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

int coif_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels, int zlib_level,
                    int filter, coif_png_buffer *out, char *message, size_t message_len) {
    static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                       PNG_COLOR_TYPE_RGB_ALPHA};
    out->bytes = NULL;
    out->size = 0;
    if (channels < 1 || channels > 4 || width == 0 || height == 0) {
        snprintf(message, message_len, "bad image shape %ux%u with %d channels", width, height, channels);
        return 1;
    }
    writer_state state = {out, 0, 0, message, message_len};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
    if (!png) {
        snprintf(message, message_len, "png_create_write_struct failed");
        return 1;
    }
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, info ? &info : NULL);
        coif_png_buffer_free(out);
        return 1;
    }
    png_set_write_fn(png, &state, on_write, on_flush);
    png_set_IHDR(png, info, width, height, 8, color_types[channels], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, zlib_level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filter);
    png_write_info(png, info);
    size_t stride = (size_t)width * (size_t)channels;
    for (uint32_t y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(pixels + y * stride));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

void coif_png_buffer_free(coif_png_buffer *buffer) {
    free(buffer->bytes);
    buffer->bytes = NULL;
    buffer->size = 0;
}
