// image_decode.cpp: cv_image_decode / cv_image_free, and the bounded input every image reader shares
// (cv_image_open, cv_image_check_size). A photo is opened without blocking on a FIFO that has no writer,
// refused when it is a regular file over CV_MAX_IMAGE_FILE_BYTES, sniffed by its first bytes (never the
// extension), then streamed to the decoder: JPEG (libjpeg, with EXIF orientation and focal length via
// libexif), PNG (libpng) or binary PPM/PGM (by hand) into tightly packed 8-bit RGB. The header's size is
// checked (CV_MAX_IMAGE_PIXELS, and whether the file can hold that many pixels at all) before a pixel is
// allocated, so /dev/zero, an endless pipe or a 69-byte "bomb" costs a few kilobytes.
// Nothing here prints: libjpeg's and libpng's message hooks are replaced, and every failure becomes a
// status plus a short message for the caller.

#include "CVision.h"
#include "message.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <jpeglib.h>
#include <jerror.h>
#include <libexif/exif-data.h>
#include <png.h>

namespace {

using cvision::set_message;

// ── Bounded input ───────────────────────────────────────────────────────────────────────────

// A photo as a stream: the first bytes (kept for sniffing, then handed out again) and the rest read on
// demand. Never holds more than the decoder asked for; stops at CV_MAX_IMAGE_FILE_BYTES.
struct Input {
    FILE *file = nullptr;
    int64_t file_bytes = -1;  // a regular file's size; -1 for a pipe or device
    unsigned char head[64];
    size_t head_len = 0, head_pos = 0;
    uint64_t consumed = 0;
    bool too_long = false;

    ~Input() { if (file) fclose(file); }

    // Up to n bytes into dst; fewer only at the end of the data (or past the size cap).
    size_t read(void *dst, size_t n) {
        auto *out = static_cast<unsigned char *>(dst);
        size_t got = 0;
        while (got < n && head_pos < head_len) out[got++] = head[head_pos++];
        if (got < n) {
            const uint64_t room = CV_MAX_IMAGE_FILE_BYTES - consumed;
            size_t want = n - got;
            if (want > room) { want = size_t(room); too_long = true; }
            got += fread(out + got, 1, want, file);
        }
        consumed += got;
        return got;
    }
};

// ── Result buffer// ── Result buffer ───────────────────────────────────────────────────────────────────────────

// Allocates width*height*3 bytes with malloc (freed by cv_image_free), or returns NULL.
uint8_t *alloc_rgb(size_t width, size_t height) {
    if (width == 0 || height == 0 || width * height > CV_MAX_IMAGE_PIXELS) return nullptr;
    return static_cast<uint8_t *>(malloc(width * height * 3));
}

// Applies EXIF orientation `o` (1..8) to a width×height RGB buffer. Returns the new buffer (the input
// is freed) and swaps width/height for the transposing orientations 5..8. Returns NULL, leaving the
// input untouched, when the new buffer cannot be allocated.
// For each destination pixel (x, y) the source pixel is (per the EXIF 2.3 definition of the tag):
//   1 (x, y)         2 (W-1-x, y)       3 (W-1-x, H-1-y)   4 (x, H-1-y)
//   5 (y, x)         6 (y, H-1-x)       7 (W-1-y, H-1-x)   8 (W-1-y, x)
uint8_t *apply_orientation(uint8_t *src, int32_t &width, int32_t &height, int o) {
    if (o <= 1 || o > 8) return src;
    const long W = width, H = height;
    const bool transpose = o >= 5;
    const long dw = transpose ? H : W, dh = transpose ? W : H;
    uint8_t *dst = static_cast<uint8_t *>(malloc(size_t(W) * size_t(H) * 3));
    if (!dst) return nullptr;
    for (long y = 0; y < dh; ++y) {
        uint8_t *row = dst + size_t(y) * size_t(dw) * 3;
        for (long x = 0; x < dw; ++x) {
            long sx, sy;
            switch (o) {
            case 2: sx = W - 1 - x; sy = y; break;
            case 3: sx = W - 1 - x; sy = H - 1 - y; break;
            case 4: sx = x; sy = H - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = H - 1 - x; break;
            case 7: sx = W - 1 - y; sy = H - 1 - x; break;
            default: sx = W - 1 - y; sy = x; break;  // 8
            }
            const uint8_t *p = src + (size_t(sy) * size_t(W) + size_t(sx)) * 3;
            row[x * 3 + 0] = p[0];
            row[x * 3 + 1] = p[1];
            row[x * 3 + 2] = p[2];
        }
    }
    free(src);
    width = int32_t(dw);
    height = int32_t(dh);
    return dst;
}

// ── EXIF (from a JPEG APP1 segment) ─────────────────────────────────────────────────────────

struct ExifFacts {
    int orientation = 1;         // 1..8
    float focal_length_35mm = 0; // mm, 0 when absent
};

ExifFacts read_exif(const unsigned char *data, unsigned int length) {
    ExifFacts facts;
    ExifData *exif = exif_data_new_from_data(data, length);
    if (!exif) return facts;
    const ExifByteOrder order = exif_data_get_byte_order(exif);
    if (ExifEntry *e = exif_data_get_entry(exif, EXIF_TAG_ORIENTATION)) {
        if (e->format == EXIF_FORMAT_SHORT && e->components >= 1 && e->data && e->size >= 2) {
            int o = exif_get_short(e->data, order);
            if (o >= 1 && o <= 8) facts.orientation = o;
        }
    }
    if (ExifEntry *e = exif_data_get_entry(exif, EXIF_TAG_FOCAL_LENGTH_IN_35MM_FILM)) {
        if (e->format == EXIF_FORMAT_SHORT && e->components >= 1 && e->data && e->size >= 2)
            facts.focal_length_35mm = float(exif_get_short(e->data, order));
    }
    exif_data_unref(exif);
    return facts;
}

// ── JPEG ────────────────────────────────────────────────────────────────────────────────────

struct JpegErrorManager {
    jpeg_error_mgr base;  // first member: libjpeg hands us a jpeg_error_mgr*
    jmp_buf jump;
    char text[JMSG_LENGTH_MAX];
};

// Fatal errors: keep the text, unwind to cv_image_decode's setjmp.
[[noreturn]] void jpeg_fail(j_common_ptr cinfo) {
    auto *err = reinterpret_cast<JpegErrorManager *>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, err->text);
    longjmp(err->jump, 1);
}

// Warnings and trace messages: never printed. libjpeg only warns (JWRN_JPEG_EOF) when the data
// ends early and pads the rest with grey; for us that is a truncated file, so stop right there. This is
// strict on purpose: the entropy decoder reads ahead, so a file missing only its EOI marker cannot be
// told from one missing part of its last MCU row, and both are reported as CORRUPT.
void jpeg_message(j_common_ptr cinfo, int msg_level) {
    auto *err = reinterpret_cast<JpegErrorManager *>(cinfo->err);
    if (msg_level < 0) {
        cinfo->err->num_warnings++;
        if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
            snprintf(err->text, sizeof err->text, "JPEG data ends early (truncated file)");
            longjmp(err->jump, 1);
        }
    }
}

void jpeg_silent_output(j_common_ptr) {}

// libjpeg's source manager over an Input, as jdatasrc.c's stdio one: at the end of the data it inserts
// an EOI marker and warns JWRN_JPEG_EOF, which jpeg_message turns into a truncation error.
struct JpegSource {
    jpeg_source_mgr base;  // first member: libjpeg hands us a jpeg_source_mgr*
    Input *input;
    JOCTET buffer[1 << 16];
};

void jpeg_source_init(j_decompress_ptr) {}

boolean jpeg_source_fill(j_decompress_ptr cinfo) {
    auto *src = reinterpret_cast<JpegSource *>(cinfo->src);
    size_t n = src->input->read(src->buffer, sizeof src->buffer);
    if (n == 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF);
        src->buffer[0] = 0xFF;
        src->buffer[1] = JPEG_EOI;
        n = 2;
    }
    src->base.next_input_byte = src->buffer;
    src->base.bytes_in_buffer = n;
    return TRUE;
}

void jpeg_source_skip(j_decompress_ptr cinfo, long count) {
    jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    while (count > long(src->bytes_in_buffer)) {
        count -= long(src->bytes_in_buffer);
        jpeg_source_fill(cinfo);
    }
    src->next_input_byte += size_t(count);
    src->bytes_in_buffer -= size_t(count);
}

void jpeg_source_term(j_decompress_ptr) {}

// Everything that must survive a longjmp lives here, outside the function that calls setjmp.
struct JpegState {
    jpeg_decompress_struct cinfo;
    JpegErrorManager err;
    JpegSource source;
    uint8_t *rgb = nullptr;
    unsigned char *row = nullptr;
};

cv_decode_status decode_jpeg(Input &input, cv_image *out, char *message, size_t message_len) {
    JpegState *s = new JpegState();
    s->cinfo.err = jpeg_std_error(&s->err.base);
    s->err.base.error_exit = jpeg_fail;
    s->err.base.emit_message = jpeg_message;
    s->err.base.output_message = jpeg_silent_output;
    if (setjmp(s->err.jump)) {
        set_message(message, message_len, s->err.text);
        jpeg_destroy_decompress(&s->cinfo);
        free(s->rgb);
        free(s->row);
        delete s;
        return CV_DECODE_CORRUPT;
    }
    jpeg_create_decompress(&s->cinfo);
    s->source.input = &input;
    s->source.base.init_source = jpeg_source_init;
    s->source.base.fill_input_buffer = jpeg_source_fill;
    s->source.base.skip_input_data = jpeg_source_skip;
    s->source.base.resync_to_restart = jpeg_resync_to_restart;
    s->source.base.term_source = jpeg_source_term;
    s->source.base.bytes_in_buffer = 0;
    s->source.base.next_input_byte = nullptr;
    s->cinfo.src = &s->source.base;
    jpeg_save_markers(&s->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&s->cinfo, TRUE);
    // The header's size, before anything the size of the image is allocated. No bound from the file's
    // length here: progressive and arithmetic-coded scans can be arbitrarily small.
    const cv_decode_status sized = cv_image_check_size(s->cinfo.image_width, s->cinfo.image_height, 0, -1, message, message_len);
    if (sized != CV_DECODE_OK) {
        jpeg_destroy_decompress(&s->cinfo);
        delete s;
        return sized;
    }

    ExifFacts exif;
    for (jpeg_saved_marker_ptr m = s->cinfo.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            exif = read_exif(m->data, m->data_length);
            break;
        }
    }

    const J_COLOR_SPACE in_space = s->cinfo.jpeg_color_space;
    const bool cmyk = in_space == JCS_CMYK || in_space == JCS_YCCK;
    s->cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;  // libjpeg converts gray/YCbCr → RGB itself
    jpeg_start_decompress(&s->cinfo);

    const size_t width = s->cinfo.output_width, height = s->cinfo.output_height;
    const int components = s->cinfo.output_components;
    if ((cmyk && components != 4) || (!cmyk && components != 3)) {
        jpeg_destroy_decompress(&s->cinfo);
        delete s;
        set_message(message, message_len, "JPEG colour layout not supported");
        return CV_DECODE_UNSUPPORTED;
    }
    s->rgb = alloc_rgb(width, height);
    if (cmyk) s->row = static_cast<unsigned char *>(malloc(width * 4));
    if (!s->rgb || (cmyk && !s->row)) {
        jpeg_destroy_decompress(&s->cinfo);
        free(s->rgb);
        free(s->row);
        delete s;
        set_message(message, message_len, "out of memory");
        return CV_DECODE_TOO_LARGE;
    }
    // Adobe's writers store CMYK (and YCCK, which libjpeg turns into CMYK) inverted: 255 = no ink.
    const bool inverted = s->cinfo.saw_Adobe_marker;
    while (s->cinfo.output_scanline < height) {
        const size_t y = s->cinfo.output_scanline;
        uint8_t *dst = s->rgb + y * width * 3;
        if (!cmyk) {
            JSAMPROW rows[1] = {dst};
            jpeg_read_scanlines(&s->cinfo, rows, 1);
            continue;
        }
        JSAMPROW rows[1] = {s->row};
        jpeg_read_scanlines(&s->cinfo, rows, 1);
        for (size_t x = 0; x < width; ++x) {
            const unsigned char *p = s->row + x * 4;
            unsigned c = p[0], m = p[1], yv = p[2], k = p[3];
            if (!inverted) { c = 255 - c; m = 255 - m; yv = 255 - yv; k = 255 - k; }
            // Now 255 = no ink: the remaining light is (1 - ink) * (1 - black).
            dst[x * 3 + 0] = uint8_t((c * k + 127) / 255);
            dst[x * 3 + 1] = uint8_t((m * k + 127) / 255);
            dst[x * 3 + 2] = uint8_t((yv * k + 127) / 255);
        }
    }
    jpeg_finish_decompress(&s->cinfo);
    jpeg_destroy_decompress(&s->cinfo);

    int32_t w = int32_t(width), h = int32_t(height);
    uint8_t *oriented = apply_orientation(s->rgb, w, h, exif.orientation);
    free(s->row);
    if (!oriented) {
        free(s->rgb);
        delete s;
        set_message(message, message_len, "out of memory");
        return CV_DECODE_UNSUPPORTED;
    }
    delete s;
    out->width = w;
    out->height = h;
    out->rgb = oriented;
    out->exif_orientation = exif.orientation;
    out->exif_focal_length_35mm = exif.focal_length_35mm;
    return CV_DECODE_OK;
}

// ── PNG ─────────────────────────────────────────────────────────────────────────────────────

struct PngReader {
    Input *input;
    char text[128];
};

void png_read_input(png_structp png, png_bytep dst, png_size_t length) {
    auto *r = static_cast<PngReader *>(png_get_io_ptr(png));
    if (r->input->read(dst, length) < length) png_error(png, "PNG data ends early (truncated file)");
}

[[noreturn]] void png_fail(png_structp png, png_const_charp text) {
    auto *r = static_cast<PngReader *>(png_get_error_ptr(png));
    snprintf(r->text, sizeof r->text, "%s", text ? text : "PNG error");
    png_longjmp(png, 1);
}

void png_silent_warning(png_structp, png_const_charp) {}

struct PngState {
    PngReader reader;
    png_structp png = nullptr;
    png_infop info = nullptr;
    uint8_t *rgb = nullptr;
    std::vector<png_bytep> rows;
};

cv_decode_status decode_png(Input &input, cv_image *out, char *message, size_t message_len) {
    PngState *s = new PngState();
    s->reader = PngReader{&input, "PNG error"};
    s->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s->reader, png_fail, png_silent_warning);
    if (s->png) s->info = png_create_info_struct(s->png);
    if (!s->png || !s->info) {
        png_destroy_read_struct(&s->png, &s->info, nullptr);
        delete s;
        set_message(message, message_len, "out of memory");
        return CV_DECODE_UNSUPPORTED;
    }
    if (setjmp(png_jmpbuf(s->png))) {
        set_message(message, message_len, s->reader.text);
        png_destroy_read_struct(&s->png, &s->info, nullptr);
        free(s->rgb);
        delete s;
        return CV_DECODE_CORRUPT;
    }
    png_set_read_fn(s->png, &s->reader, png_read_input);
    png_read_info(s->png, s->info);

    const png_uint_32 width = png_get_image_width(s->png, s->info);
    const png_uint_32 height = png_get_image_height(s->png, s->info);
    const int color_type = png_get_color_type(s->png, s->info);
    const int bit_depth = png_get_bit_depth(s->png, s->info);
    const int64_t deflated = input.file_bytes < 0 ? -1 : input.file_bytes * CV_MAX_DEFLATE_RATIO;
    const cv_decode_status sized = cv_image_check_size(width, height, uint32_t(png_get_channels(s->png, s->info)) * uint32_t(bit_depth),
                                                       deflated, message, message_len);
    if (sized != CV_DECODE_OK) {
        png_destroy_read_struct(&s->png, &s->info, nullptr);
        delete s;
        return sized;
    }

    // Everything becomes 8-bit RGB: palettes and low-depth gray expand, 16 bits scale down (rounded),
    // gray is replicated, and alpha (including tRNS transparency) is simply dropped.
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(s->png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(s->png);
    if (bit_depth == 16) png_set_scale_16(s->png);
    png_set_strip_alpha(s->png);  // also the alpha that expanding a palette's tRNS would add
    if (!(color_type & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(s->png);
    png_set_interlace_handling(s->png);
    png_read_update_info(s->png, s->info);

    if (png_get_channels(s->png, s->info) != 3 || png_get_rowbytes(s->png, s->info) != size_t(width) * 3) {
        png_destroy_read_struct(&s->png, &s->info, nullptr);
        delete s;
        set_message(message, message_len, "PNG colour layout not supported");
        return CV_DECODE_UNSUPPORTED;
    }
    s->rgb = alloc_rgb(width, height);
    if (!s->rgb) {
        png_destroy_read_struct(&s->png, &s->info, nullptr);
        delete s;
        set_message(message, message_len, "out of memory");
        return CV_DECODE_TOO_LARGE;
    }
    s->rows.resize(height);
    for (png_uint_32 y = 0; y < height; ++y) s->rows[y] = s->rgb + size_t(y) * width * 3;
    png_read_image(s->png, s->rows.data());
    png_read_end(s->png, nullptr);  // as strict as JPEG: a file cut anywhere, even in IEND, is CORRUPT
    png_destroy_read_struct(&s->png, &s->info, nullptr);

    out->width = int32_t(width);
    out->height = int32_t(height);
    out->rgb = s->rgb;
    out->exif_orientation = 1;
    out->exif_focal_length_35mm = 0;
    delete s;
    return CV_DECODE_OK;
}

// ── Binary PPM (P6) / PGM (P5) ──────────────────────────────────────────────────────────────

// Reads one ASCII header number after whitespace and '#' comments, one byte at a time (`c` holds the
// byte read ahead, -1 at the end). -1 on malformed input.
long pnm_number(Input &in, int &c) {
    auto next = [&] {
        unsigned char byte;
        c = in.read(&byte, 1) == 1 ? byte : -1;
    };
    for (;;) {
        while (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') next();
        if (c == '#') {
            while (c != -1 && c != '\n' && c != '\r') next();
            continue;
        }
        break;
    }
    if (c < '0' || c > '9') return -1;
    long v = 0;
    while (c >= '0' && c <= '9') {
        v = v * 10 + (c - '0');
        if (v > 1000000000L) return -1;
        next();
    }
    return v;
}

cv_decode_status decode_pnm(Input &in, cv_image *out, char *message, size_t message_len) {
    unsigned char magic[2];
    in.read(magic, 2);
    const bool color = magic[1] == '6';
    int c = ' ';
    const long width = pnm_number(in, c), height = pnm_number(in, c), maxval = pnm_number(in, c);
    // Exactly one whitespace byte (already read into `c`) separates maxval from the raster.
    if (width <= 0 || height <= 0 || maxval <= 0 || c == -1) {
        set_message(message, message_len, "PNM header is malformed or truncated");
        return CV_DECODE_CORRUPT;
    }
    if (maxval > 255) {
        set_message(message, message_len, "PNM with 16-bit samples (maxval > 255) not supported");
        return CV_DECODE_UNSUPPORTED;
    }
    const size_t channels = color ? 3 : 1;
    // The raster is stored raw: the file must hold width × height × channels bytes after the header.
    const int64_t raster_bytes = in.file_bytes < 0 ? -1 : in.file_bytes - int64_t(in.consumed);
    const cv_decode_status sized = cv_image_check_size(uint64_t(width), uint64_t(height), uint32_t(channels * 8),
                                                       raster_bytes, message, message_len);
    if (sized != CV_DECODE_OK) return sized;
    const size_t pixels = size_t(width) * size_t(height);
    uint8_t *rgb = alloc_rgb(size_t(width), size_t(height));
    if (!rgb) {
        set_message(message, message_len, "out of memory");
        return CV_DECODE_TOO_LARGE;
    }
    // Read into the end of the RGB buffer, then expand forward (gray → RGB) without a second buffer.
    uint8_t *src = rgb + pixels * 3 - pixels * channels;
    if (in.read(src, pixels * channels) < pixels * channels) {
        free(rgb);
        set_message(message, message_len, "PNM data ends early (truncated file)");
        return CV_DECODE_CORRUPT;
    }
    for (size_t p = 0; p < pixels; ++p) {
        unsigned v[3];
        for (size_t k = 0; k < 3; ++k) v[k] = src[color ? p * 3 + k : p];
        for (size_t k = 0; k < 3; ++k) {
            if (v[k] > unsigned(maxval)) v[k] = unsigned(maxval);
            rgb[p * 3 + k] = maxval == 255 ? uint8_t(v[k]) : uint8_t((v[k] * 255 + unsigned(maxval) / 2) / unsigned(maxval));
        }
    }
    out->width = int32_t(width);
    out->height = int32_t(height);
    out->rgb = rgb;
    out->exif_orientation = 1;
    out->exif_focal_length_35mm = 0;
    return CV_DECODE_OK;
}

bool is_pnm_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#'; }

}  // namespace

// The name of an image format the file's signature shows, among those Coif does not decode; null if none.
static const char *known_unread_format(const std::vector<unsigned char> &b) {
    const auto starts = [&](const char *sig, size_t n, size_t at = 0) {
        return b.size() >= at + n && memcmp(b.data() + at, sig, n) == 0;
    };
    if (starts("II*\0", 4) || starts("MM\0*", 4)) return "TIFF";
    if (starts("GIF87a", 6) || starts("GIF89a", 6)) return "GIF";
    if (starts("BM", 2) && b.size() >= 26) {  // and a known DIB header size, so "BM…" text is not taken for one
        const uint32_t dib = uint32_t(b[14]) | uint32_t(b[15]) << 8 | uint32_t(b[16]) << 16 | uint32_t(b[17]) << 24;
        if (dib == 12 || dib == 40 || dib == 52 || dib == 56 || dib == 64 || dib == 108 || dib == 124) return "BMP";
    }
    if (starts("RIFF", 4) && starts("WEBP", 4, 8)) return "WebP";
    if (starts("ftyp", 4, 4) && (starts("heic", 4, 8) || starts("heix", 4, 8) || starts("mif1", 4, 8))) return "HEIF";
    if (starts("ftyp", 4, 4) && starts("avif", 4, 8)) return "AVIF";
    if (starts("\0\0\0\x0cjP  ", 8)) return "JPEG 2000";
    if (starts("\x76\x2f\x31\x01", 4)) return "OpenEXR";
    return nullptr;
}

extern "C" FILE *cv_image_open(const char *path, cv_decode_status *status, int64_t *file_bytes, char *message,
                               size_t message_len) {
    set_message(message, message_len, "");
    *status = CV_DECODE_NOT_FOUND;
    *file_bytes = -1;
    if (!path) {
        set_message(message, message_len, "no such file or not readable");
        return nullptr;
    }
    // O_NONBLOCK only for the open: a FIFO with no writer opens (and then reads as empty) instead of
    // waiting for one forever; reads block again afterwards.
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat info;
    if (fd < 0 || fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
        if (fd >= 0) close(fd);
        set_message(message, message_len, "no such file or not readable");
        return nullptr;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (S_ISREG(info.st_mode)) {
        *file_bytes = int64_t(info.st_size);
        if (uint64_t(info.st_size) > CV_MAX_IMAGE_FILE_BYTES) {
            close(fd);
            char text[160];
            snprintf(text, sizeof text, "a %lld-byte file; Coif reads image files up to %llu bytes (1 GiB)",
                     static_cast<long long>(info.st_size), static_cast<unsigned long long>(CV_MAX_IMAGE_FILE_BYTES));
            set_message(message, message_len, text);
            *status = CV_DECODE_TOO_LARGE;
            return nullptr;
        }
    }
    FILE *file = fdopen(fd, "rb");
    if (!file) {
        close(fd);
        set_message(message, message_len, "no such file or not readable");
        return nullptr;
    }
    *status = CV_DECODE_OK;
    return file;
}

extern "C" cv_decode_status cv_image_check_size(uint64_t width, uint64_t height, uint32_t bits_per_pixel,
                                                int64_t max_raw_bytes, char *message, size_t message_len) {
    char text[200];
    if (width == 0 || height == 0) {
        set_message(message, message_len, "the header gives a zero width or height");
        return CV_DECODE_CORRUPT;
    }
    if (width > CV_MAX_IMAGE_PIXELS || height > CV_MAX_IMAGE_PIXELS || width * height > CV_MAX_IMAGE_PIXELS) {
        snprintf(text, sizeof text, "%llux%llu pixels; Coif decodes images up to %llu megapixels",
                 static_cast<unsigned long long>(width), static_cast<unsigned long long>(height),
                 static_cast<unsigned long long>(CV_MAX_IMAGE_PIXELS / 1000000));
        set_message(message, message_len, text);
        return CV_DECODE_TOO_LARGE;
    }
    const uint64_t raw = height * ((width * bits_per_pixel + 7) / 8);
    if (max_raw_bytes >= 0 && raw > uint64_t(max_raw_bytes)) {
        snprintf(text, sizeof text, "the header claims %llux%llu pixels, more than the file's data can hold",
                 static_cast<unsigned long long>(width), static_cast<unsigned long long>(height));
        set_message(message, message_len, text);
        return CV_DECODE_CORRUPT;
    }
    return CV_DECODE_OK;
}

extern "C" cv_decode_status cv_image_decode(const char *path, cv_image *out, char *message, size_t message_len) {
    set_message(message, message_len, "");
    if (!out) {
        set_message(message, message_len, "no output image given");
        return CV_DECODE_NOT_FOUND;
    }
    *out = cv_image{0, 0, nullptr, 1, 0};
    Input input;
    cv_decode_status opened;
    input.file = cv_image_open(path, &opened, &input.file_bytes, message, message_len);
    if (!input.file) return opened;
    // The signature from the first bytes; nothing more is read before it is known.
    input.head_len = fread(input.head, 1, sizeof input.head, input.file);
    if (input.head_len == 0) {
        if (ferror(input.file)) {
            set_message(message, message_len, "no such file or not readable");
            return CV_DECODE_NOT_FOUND;
        }
        set_message(message, message_len, "file is empty");
        return CV_DECODE_NOT_AN_IMAGE;
    }
    input.consumed = 0;
    const std::vector<unsigned char> bytes(input.head, input.head + input.head_len);
    static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    cv_decode_status status = CV_DECODE_NOT_AN_IMAGE;
    if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) {
        status = decode_jpeg(input, out, message, message_len);
    } else if (bytes.size() >= 8 && memcmp(bytes.data(), png_signature, 8) == 0) {
        status = decode_png(input, out, message, message_len);
    } else if (bytes.size() >= 3 && bytes[0] == 'P' && bytes[1] >= '1' && bytes[1] <= '7' && is_pnm_space(bytes[2])) {
        if (bytes[1] == '5' || bytes[1] == '6') {
            status = decode_pnm(input, out, message, message_len);
        } else {
            set_message(message, message_len, "only binary PPM (P6) and PGM (P5) are read");
            return CV_DECODE_UNSUPPORTED;
        }
    } else if (const char *other = known_unread_format(bytes)) {
        // Image formats recognised by their signature but not decoded: say which, rather than "unrecognised".
        char text[160];
        snprintf(text, sizeof text, "a %s file; Coif reads JPEG, PNG and binary PPM/PGM", other);
        set_message(message, message_len, text);
        return CV_DECODE_UNSUPPORTED;
    } else {
        set_message(message, message_len, "unrecognised file signature");
        return CV_DECODE_NOT_AN_IMAGE;
    }
    if (status != CV_DECODE_OK && input.too_long) {
        // A pipe or device that went on past the size cap: that, not the damage it caused, is the reason.
        char text[160];
        snprintf(text, sizeof text, "more than %llu bytes; Coif reads image files up to 1 GiB",
                 static_cast<unsigned long long>(CV_MAX_IMAGE_FILE_BYTES));
        set_message(message, message_len, text);
        cv_image_free(out);
        return CV_DECODE_TOO_LARGE;
    }
    return status;
}

extern "C" void cv_image_free(cv_image *image) {
    if (!image) return;
    free(image->rgb);
    image->rgb = nullptr;
    image->width = 0;
    image->height = 0;
}
