// image_decode.cpp: cv_image_decode / cv_image_free. Reads a whole file into memory, sniffs its
// signature (never the extension) and decodes JPEG (libjpeg, with EXIF orientation and focal length
// via libexif), PNG (libpng) or binary PPM/PGM (by hand) into tightly packed 8-bit RGB.
// Nothing here prints: libjpeg's and libpng's message hooks are replaced, and every failure becomes a
// status plus a short message for the caller.

#include "CVision.h"

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

// Largest image we agree to decode: 200 megapixels (600 MB of RGB). Anything bigger is an attack or
// a mistake, and is reported as UNSUPPORTED rather than attempted.
constexpr size_t kMaxPixels = size_t(200) * 1000 * 1000;

void set_message(char *message, size_t message_len, const char *text) {
    if (message && message_len > 0) snprintf(message, message_len, "%s", text);
}

// ── Whole-file read ─────────────────────────────────────────────────────────────────────────

bool read_file(const char *path, std::vector<unsigned char> &bytes) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    bool ok = true;
    unsigned char buffer[1 << 16];
    for (;;) {
        size_t n = fread(buffer, 1, sizeof buffer, f);
        bytes.insert(bytes.end(), buffer, buffer + n);
        if (n < sizeof buffer) {
            ok = !ferror(f);  // a directory opens, but reading it fails with EISDIR
            break;
        }
    }
    fclose(f);
    return ok;
}

// ── Result buffer ───────────────────────────────────────────────────────────────────────────

// Allocates width*height*3 bytes with malloc (freed by cv_image_free), or returns NULL.
uint8_t *alloc_rgb(size_t width, size_t height) {
    if (width == 0 || height == 0 || width * height > kMaxPixels) return nullptr;
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

// Everything that must survive a longjmp lives here, outside the function that calls setjmp.
struct JpegState {
    jpeg_decompress_struct cinfo;
    JpegErrorManager err;
    uint8_t *rgb = nullptr;
    unsigned char *row = nullptr;
};

cv_decode_status decode_jpeg(const std::vector<unsigned char> &bytes, cv_image *out, char *message,
                             size_t message_len) {
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
    jpeg_mem_src(&s->cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
    jpeg_save_markers(&s->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&s->cinfo, TRUE);

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
        set_message(message, message_len, "JPEG too large");
        return CV_DECODE_UNSUPPORTED;
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
    const unsigned char *data;
    size_t size;
    size_t offset;
    char text[128];
};

void png_read_memory(png_structp png, png_bytep dst, png_size_t length) {
    auto *r = static_cast<PngReader *>(png_get_io_ptr(png));
    if (length > r->size - r->offset) png_error(png, "PNG data ends early (truncated file)");
    memcpy(dst, r->data + r->offset, length);
    r->offset += length;
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

cv_decode_status decode_png(const std::vector<unsigned char> &bytes, cv_image *out, char *message,
                            size_t message_len) {
    PngState *s = new PngState();
    s->reader = PngReader{bytes.data(), bytes.size(), 0, "PNG error"};
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
    png_set_read_fn(s->png, &s->reader, png_read_memory);
    png_read_info(s->png, s->info);

    const png_uint_32 width = png_get_image_width(s->png, s->info);
    const png_uint_32 height = png_get_image_height(s->png, s->info);
    const int color_type = png_get_color_type(s->png, s->info);
    const int bit_depth = png_get_bit_depth(s->png, s->info);

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
        set_message(message, message_len, "PNG too large");
        return CV_DECODE_UNSUPPORTED;
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

// Reads one ASCII header number after whitespace and '#' comments. -1 on malformed input.
long pnm_number(const std::vector<unsigned char> &b, size_t &i) {
    for (;;) {
        while (i < b.size() && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r' || b[i] == '\f' ||
                                b[i] == '\v'))
            ++i;
        if (i < b.size() && b[i] == '#') {
            while (i < b.size() && b[i] != '\n' && b[i] != '\r') ++i;
            continue;
        }
        break;
    }
    if (i >= b.size() || b[i] < '0' || b[i] > '9') return -1;
    long v = 0;
    while (i < b.size() && b[i] >= '0' && b[i] <= '9') {
        v = v * 10 + (b[i] - '0');
        if (v > 1000000000L) return -1;
        ++i;
    }
    return v;
}

cv_decode_status decode_pnm(const std::vector<unsigned char> &b, cv_image *out, char *message, size_t message_len) {
    const bool color = b[1] == '6';
    size_t i = 2;
    const long width = pnm_number(b, i), height = pnm_number(b, i), maxval = pnm_number(b, i);
    // Exactly one whitespace byte separates maxval from the raster.
    if (width <= 0 || height <= 0 || maxval <= 0 || i >= b.size()) {
        set_message(message, message_len, "PNM header is malformed or truncated");
        return CV_DECODE_CORRUPT;
    }
    ++i;
    if (maxval > 255) {
        set_message(message, message_len, "PNM with 16-bit samples (maxval > 255) not supported");
        return CV_DECODE_UNSUPPORTED;
    }
    const size_t channels = color ? 3 : 1;
    if (size_t(width) * size_t(height) > kMaxPixels) {
        set_message(message, message_len, "PNM too large");
        return CV_DECODE_UNSUPPORTED;
    }
    const size_t need = size_t(width) * size_t(height) * channels;
    if (b.size() - i < need) {
        set_message(message, message_len, "PNM data ends early (truncated file)");
        return CV_DECODE_CORRUPT;
    }
    uint8_t *rgb = alloc_rgb(size_t(width), size_t(height));
    if (!rgb) {
        set_message(message, message_len, "out of memory");
        return CV_DECODE_UNSUPPORTED;
    }
    const unsigned char *src = b.data() + i;
    const size_t pixels = size_t(width) * size_t(height);
    for (size_t p = 0; p < pixels; ++p) {
        for (size_t c = 0; c < 3; ++c) {
            unsigned v = src[color ? p * 3 + c : p];
            if (v > unsigned(maxval)) v = unsigned(maxval);
            rgb[p * 3 + c] = maxval == 255 ? uint8_t(v) : uint8_t((v * 255 + unsigned(maxval) / 2) / unsigned(maxval));
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

extern "C" cv_decode_status cv_image_decode(const char *path, cv_image *out, char *message, size_t message_len) {
    set_message(message, message_len, "");
    if (!out) {
        set_message(message, message_len, "no output image given");
        return CV_DECODE_NOT_FOUND;
    }
    *out = cv_image{0, 0, nullptr, 1, 0};
    std::vector<unsigned char> bytes;
    if (!path || !read_file(path, bytes)) {
        set_message(message, message_len, "no such file or not readable");
        return CV_DECODE_NOT_FOUND;
    }
    if (bytes.empty()) {
        set_message(message, message_len, "file is empty");
        return CV_DECODE_NOT_AN_IMAGE;
    }
    static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF)
        return decode_jpeg(bytes, out, message, message_len);
    if (bytes.size() >= 8 && memcmp(bytes.data(), png_signature, 8) == 0)
        return decode_png(bytes, out, message, message_len);
    if (bytes.size() >= 3 && bytes[0] == 'P' && bytes[1] >= '1' && bytes[1] <= '7' && is_pnm_space(bytes[2])) {
        if (bytes[1] == '5' || bytes[1] == '6') return decode_pnm(bytes, out, message, message_len);
        set_message(message, message_len, "only binary PPM (P6) and PGM (P5) are read");
        return CV_DECODE_UNSUPPORTED;
    }
    // Image formats recognised by their signature but not decoded: say which, rather than "unrecognised".
    const char *other = known_unread_format(bytes);
    if (other) {
        char text[160];
        snprintf(text, sizeof text, "a %s file; Coif reads JPEG, PNG and binary PPM/PGM", other);
        set_message(message, message_len, text);
        return CV_DECODE_UNSUPPORTED;
    }
    set_message(message, message_len, "unrecognised file signature");
    return CV_DECODE_NOT_AN_IMAGE;
}

extern "C" void cv_image_free(cv_image *image) {
    if (!image) return;
    free(image->rgb);
    image->rgb = nullptr;
    image->width = 0;
    image->height = 0;
}
