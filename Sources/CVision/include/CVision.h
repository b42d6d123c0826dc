// CVision: Coif's only C++ code, behind a small C API of plain structs.
//  - image decode (JPEG via libjpeg, PNG via libpng, binary PPM/PGM) with EXIF orientation applied
//  - dlib HOG frontal face detection and the 68-point shape predictor
//  - OpenCV solvePnP for head pose
// Nothing here allocates on the caller's behalf except cv_image_decode (free with cv_image_free) and
// cv_face_model_load (free with cv_face_model_free). Nothing here prints; failures come back as values.
#ifndef COIF_CVISION_H
#define COIF_CVISION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "CVisionComplete.h"  // background completion (patch_complete.cpp)

#ifdef __cplusplus
extern "C" {
#endif

// ── Image decode ───────────────────────────────────────────────────────────────────────────
typedef enum {
    CV_DECODE_OK = 0,
    CV_DECODE_NOT_FOUND = 1,     // no such file, or not readable
    CV_DECODE_NOT_AN_IMAGE = 2,  // signature is no format we read
    CV_DECODE_CORRUPT = 3,       // recognised format, but truncated or damaged
    CV_DECODE_UNSUPPORTED = 4,   // recognised, but a variant we do not read
    CV_DECODE_TOO_LARGE = 5,     // over CV_MAX_IMAGE_PIXELS or CV_MAX_IMAGE_FILE_BYTES
} cv_decode_status;

// Coif's limits on an image, for every command that decodes one (docs/hostile-input.md).
enum {
    CV_MAX_IMAGE_PIXELS = 200000000,  // 200 megapixels (600 MB as 8-bit RGB), checked from the header
    CV_MAX_DEFLATE_RATIO = 1032,      // deflate's best case: 258 bytes from 2 bits; a PNG can hold no more
};
#define CV_MAX_IMAGE_FILE_BYTES ((uint64_t)1 << 30)  // 1 GiB, for a regular file or a stream

// The bounded open every image reader shares: `path` opened for reading without waiting on a FIFO that
// has no writer. NULL with `status` CV_DECODE_NOT_FOUND (missing, unreadable, a directory) or
// CV_DECODE_TOO_LARGE (a regular file over CV_MAX_IMAGE_FILE_BYTES) and `message` set. `file_bytes`
// receives a regular file's size, -1 for a pipe or device. Close the stream with fclose.
FILE *cv_image_open(const char *path, cv_decode_status *status, int64_t *file_bytes, char *message, size_t message_len);

// The check of an image header's size before its pixels are allocated: CV_DECODE_TOO_LARGE over
// CV_MAX_IMAGE_PIXELS; CV_DECODE_CORRUPT for a zero side, or when width × height at `bits_per_pixel`
// needs more than `max_raw_bytes` (the most raw bytes the file can hold; -1 when unknown).
cv_decode_status cv_image_check_size(uint64_t width, uint64_t height, uint32_t bits_per_pixel, int64_t max_raw_bytes,
                                     char *message, size_t message_len);

typedef struct {
    int32_t width;          // after EXIF orientation is applied
    int32_t height;
    uint8_t *rgb;           // width*height*3 bytes, sRGB, rows top to bottom, tightly packed
    int32_t exif_orientation;       // 1..8 as found (1 when absent); already applied to rgb
    float exif_focal_length_35mm;   // FocalLengthIn35mmFilm in mm, 0 when absent
} cv_image;

// Decodes `path`. On failure fills `message` (NUL-terminated, at most message_len bytes) with a short reason.
cv_decode_status cv_image_decode(const char *path, cv_image *out, char *message, size_t message_len);
void cv_image_free(cv_image *image);

// ── Faces ──────────────────────────────────────────────────────────────────────────────────
typedef struct cv_face_model cv_face_model;  // detector + predictor; load once per process

typedef struct {
    float left, top, right, bottom;  // pixels; right/bottom are the exclusive edge (width = right - left)
    double score;                    // detector confidence (larger is surer; 0 is dlib's default threshold)
} cv_face_box;

// Loads dlib's HOG detector and the 68-point shape predictor at `predictor_path`. NULL on failure (message set).
cv_face_model *cv_face_model_load(const char *predictor_path, char *message, size_t message_len);

// Where cv_face_model_load_cached found the shape predictor.
enum {
    CV_MODEL_FROM_ORIGINAL = 0,       // dlib's file (cache disabled, unwritable, or the model not cacheable)
    CV_MODEL_FROM_CACHE = 1,          // the compact cache (~10x faster to load; bit-identical model)
    CV_MODEL_CACHE_WRITTEN = 2,       // dlib's file, and the cache was written for next time
};

// Like cv_face_model_load, through a compact binary copy of the predictor in `cache_dir` (NULL: the
// default, $XDG_CACHE_HOME/coif, else $HOME/.cache/coif; "": no cache). The copy is keyed by the
// original's size and modification time and checked by a checksum; a stale, damaged or missing copy is
// (re)written after reading the original, and a cache that cannot be written is silently skipped.
// `out_source` (may be NULL) receives one of CV_MODEL_*.
cv_face_model *cv_face_model_load_cached(const char *predictor_path, const char *cache_dir, int32_t *out_source,
                                         char *message, size_t message_len);

// The cache file cv_face_model_load_cached uses for `predictor_path` in `cache_dir` (NULL: default).
// Returns its length, or negative when there is no cache folder or `out_len` is too small.
int32_t cv_face_model_cache_path(const char *predictor_path, const char *cache_dir, char *out_path, size_t out_len);
void cv_face_model_free(cv_face_model *model);

// Detects faces in an 8-bit grayscale image. `upsample` doubles the image that many times first (finds
// smaller faces, costs ~4x per step). Writes up to `max_faces` boxes sorted by score (best first) and
// returns the number found (may exceed max_faces; only max_faces are written). Negative on error.
int32_t cv_detect_faces(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                        int32_t stride, int32_t upsample, double threshold,
                        cv_face_box *out_boxes, int32_t max_faces);

// cv_detect_faces over both cores: the HOG pyramid's first two levels on this thread, the rest on a
// second one; merged and suppressed as dlib does, so the boxes are the same as cv_detect_faces's.
// `scale` < 1 (only with upsample 0) detects on an area-resampled copy that size instead and maps the
// boxes back (rounded to whole pixels): faces under ~80/scale px are then missed.
int32_t cv_detect_faces_fast(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                             int32_t stride, int32_t upsample, double scale, double threshold,
                             cv_face_box *out_boxes, int32_t max_faces);

// Fits the 68 iBUG points inside `box` on a grayscale image. Writes 136 floats (x0,y0,x1,y1,…) in pixels
// (whole pixels: dlib rounds its shape to integer points). Returns 68, or negative on error.
// Neither call is thread-safe on one model; use one model per thread.
int32_t cv_landmarks68(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                       int32_t stride, cv_face_box box, float *out_xy);

// Like cv_landmarks68, then `refits` more times, each from the box that dlib's mean shape (the
// predictor's initial shape, in box-normalised coordinates) best fits to the previous result (least
// squares, scale + translation); returns the mean of all fits (sub-pixel). refits = 0 is cv_landmarks68.
int32_t cv_landmarks68_refined(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                               int32_t stride, cv_face_box box, int32_t refits, float *out_xy);

// Fallback detector for profile faces: OpenCV's Haar profile cascade (Debian opencv-data,
// `cascade_path`), run on the image and on its mirror image (the cascade knows one side only). The
// cascade is loaded on first use and kept for the process. Boxes are converted to dlib's box convention
// (square, about the dlib detector's scale); score is 0. With `eye_cascade_path` (may be NULL: no check)
// a box is kept only when OpenCV's eye cascade finds an eye in its upper 60% (the classic Viola-Jones
// verification stage): the profile cascade alone fires on textures (fish scales, facades, chessboards).
// Returns the number written, negative on error (-2: a cascade file cannot be loaded).
int32_t cv_detect_profile_faces(cv_face_model *model, const uint8_t *gray, int32_t width, int32_t height,
                                int32_t stride, const char *cascade_path, const char *eye_cascade_path,
                                int32_t min_size_px,
                                cv_face_box *out_boxes, int32_t max_faces);

// ── Faces at any angle: MediaPipe's BlazeFace and FaceMesh (face_mesh.cpp) ─────────────────
// Both networks are ONNX files converted once by the set-up (scripts/fetch-models.sh) and run by OpenCV's
// dnn. A model pair is loaded once per process and is not thread-safe (one caller at a time).
typedef struct cv_face_mesh cv_face_mesh;

typedef struct {
    float left, top, right, bottom;  // photo pixels, dlib's convention (right/bottom exclusive)
    float score;                     // the detector's probability (sigmoid of its logit), 0..1
    float keypoints[12];             // six (x, y): right eye, left eye, nose tip, mouth, right ear, left ear
} cv_face_detection;

// Reads FaceMesh (`landmark_onnx`: 192x192 RGB in, 468 x,y,z and a face flag out) and BlazeFace full range
// (`detector_onnx`: 192x192 RGB in, 2304 anchors out). NULL on failure with `message` set and `failed`
// 1 (the landmark network) or 2 (the detector).
cv_face_mesh *cv_face_mesh_open(const char *landmark_onnx, const char *detector_onnx, int32_t *failed, char *message,
                                size_t message_len);
void cv_face_mesh_free(cv_face_mesh *mesh);

// BlazeFace over the whole RGB image (letterboxed into the square input): detections with score at least
// `min_score`, merged by weighted non-maximum suppression (IoU 0.3), best first. Returns how many were
// found (only `max_faces` are written), negative on error.
int32_t cv_face_mesh_detect(cv_face_mesh *mesh, const uint8_t *rgb, int32_t width, int32_t height, float min_score,
                            cv_face_detection *out, int32_t max_faces);

// FaceMesh inside the square region centred at (cx, cy), `side` pixels, sampled along `angle` (radians, the
// eye line's direction in image axes, y down) so the face reaches the network upright; pixels past the
// photo's edges repeat it. Writes 468 x,y,z (x, y photo pixels; z in the same scale, + away from the
// camera) and the face-presence probability. 0 = ok.
int32_t cv_face_mesh_fit(cv_face_mesh *mesh, const uint8_t *rgb, int32_t width, int32_t height, float cx, float cy,
                         float side, float angle, float *out_xyz, float *out_presence);

// ── MATLAB v5 .mat (libmatio) ──────────────────────────────────────────────────────────────
// Reads numeric variable `name` (double or single, real, 2-D) into `out` as doubles in MATLAB's
// column-major order, at most `capacity` values; writes its rows and columns. Returns the number of
// values, or negative: -1 file missing or unreadable, -2 no such variable, -3 not a real numeric 2-D array, -4
// libmatio (opened on first use) is not installed, -5 the file exists but is no .mat file libmatio opens.
int32_t cv_mat_read(const char *path, const char *name, double *out, int32_t capacity, int32_t *out_rows,
                    int32_t *out_cols);

// ── Head pose ──────────────────────────────────────────────────────────────────────────────
typedef struct {
    double fx, fy, cx, cy;  // pinhole intrinsics, pixels; no distortion
} cv_intrinsics;

// Solves the rigid pose (rvec, tvec) that maps model points (any right-handed frame, any unit; at least
// 4, not all coplanar for best results) into OpenCV camera coordinates (x right, y down, z forward) so
// that they project onto the image points (pixel-index coordinates, like the landmarks): EPnP and SQPnP
// starts, each refined by Levenberg-Marquardt; the one with the smaller reprojection error wins.
// Guarantees the model origin lies in front of the camera (tvec z > 0). Writes Rodrigues rvec and tvec;
// returns the RMS reprojection error in pixels, or a negative number on failure.
double cv_solve_pose(const float *image_xy, const float *model_xyz, int32_t count, cv_intrinsics intrinsics,
                     double *out_rvec3, double *out_tvec3);

// Rodrigues vector → row-major 3x3 rotation matrix.
void cv_rodrigues(const double *rvec3, double *out_rotation9);

// Weighted similarity Procrustes (Umeyama): the scale s, rotation R (row-major 3x3, det +1: a reflection
// the SVD returns is turned into the nearest rotation) and translation t minimising
// sum_i w_i |s R source_i + t - target_i|^2 over `count` point pairs (xyz each) with weights w_i >= 0
// (NULL: all 1). Returns the weighted RMS residual (target units), or a negative number when the points
// are degenerate (fewer than 3, zero total weight, a source with no spread).
double cv_weighted_procrustes(const double *source_xyz, const double *target_xyz, const double *weights,
                              int32_t count, double *out_scale, double *out_rotation9, double *out_translation3);

// Row-major 3x3 rotation matrix → Rodrigues vector.
void cv_rotation_to_rvec(const double *rotation9, double *out_rvec3);

// ── The person's own hair: face parsing, matte, plate, recolour (face_parse.cpp, hair_plate.cpp) ──
// The face-parsing network's classes (CelebAMask-HQ, as the BiSeNet of face-parsing.PyTorch numbers them).
enum {
    CV_PARSE_BACKGROUND = 0, CV_PARSE_SKIN = 1, CV_PARSE_LEFT_EAR = 7, CV_PARSE_RIGHT_EAR = 8, CV_PARSE_NECK = 14,
    CV_PARSE_CLOTH = 16, CV_PARSE_HAIR = 17, CV_PARSE_HAT = 18, CV_PARSE_CLASSES = 19,
    // The face's features, which a fill never paints over: brows (2, 3), eyes (4, 5), glasses (6), ears
    // (7, 8), earrings (9), nose (10), mouth and lips (11–13).
    CV_PARSE_FIRST_FEATURE = 2, CV_PARSE_LAST_FEATURE = 13,
    CV_PARSE_UNKNOWN = 255,  // a photo pixel the parse's crop does not reach
};

typedef struct cv_face_parser cv_face_parser;  // load once per process; one caller at a time

// Reads the ONNX network (an input of input_size² RGB, 19 class logits out). NULL with a message on failure.
cv_face_parser *cv_face_parser_open(const char *onnx_path, int32_t input_size, char *message, size_t message_len);
void cv_face_parser_free(cv_face_parser *parser);
int32_t cv_face_parser_size(const cv_face_parser *parser);

// Parses the square crop (crop_x, crop_y, crop_side: photo pixels, may reach past the edges, which repeat)
// of an RGB image: classes[size²] (argmax) and hair[size²] (softmax probability of hair or hat). 0 = ok.
int32_t cv_face_parser_run(cv_face_parser *parser, const uint8_t *rgb, int32_t width, int32_t height, float crop_x,
                           float crop_y, float crop_side, uint8_t *classes, float *hair, char *message,
                           size_t message_len);

// The parse back on the photo: classes_out[width*height] (nearest; CV_PARSE_UNKNOWN off the crop) and
// matte_out[width*height], the hair probability refined by a guided filter (radius px, eps) with the photo
// as guide, 0 off the crop. 0 = ok.
int32_t cv_parse_to_photo(const uint8_t *rgb, int32_t width, int32_t height, float crop_x, float crop_y, float crop_side,
                          int32_t size, const uint8_t *classes, const float *hair, int32_t guided_radius,
                          float guided_eps, uint8_t *classes_out, float *matte_out);

// The removal's edge where hair meets skin: for each pixel of remove[] (in/out, 0..1) in the matte's outer half
// or the ring the removal grew it by (matte < 0.5), below one of the below_count lines (5 floats each: the value
// at pixel (0, 0), its step per column and per row, the limit it must be under, and the ramp under it over which
// the colour's removal takes over from the grown one; none: every pixel, wholly), that the
// parse calls skin, neck or hair, and whose colour
// lies between the hair's and the visible skin's beside it (means over a window ~3·radius px), the removal
// becomes its hair share along that line; elsewhere it is unchanged. unmixed_rgb (may be NULL; a copy of rgb
// the caller made) receives at those pixels the skin that shows through, the hair's share taken out in linear
// light, so rgb·(1 − remove) + fill·remove keeps the photo's own edge. 0 = ok.
int32_t cv_removal_at_skin(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *classes, const float *matte,
                           const float *below, int32_t below_count, int32_t radius, float *remove, uint8_t *unmixed_rgb);

// Whether each pixel marked in judge[] (non-zero) may be this person's hair by its colour: plausible_out is 0
// where a region (over half a (2·radius+1)² window) of judged pixels is in colours the confident hair
// (model_matte ≥ 0.9) never takes, 255 elsewhere; all 255 where fewer than 200 pixels are confident hair.
// 0 = ok (hair_colour_model.cpp says why a parse needs it).
int32_t cv_hair_colour_plausible(const uint8_t *rgb, int32_t width, int32_t height, const float *model_matte,
                                 const uint8_t *judge, int32_t radius, uint8_t *plausible_out);

// The plate: rgb with `remove` (0..1 a pixel) of it replaced: by skin where head[] is non-zero, elsewhere by
// the region beside it (background; the body's skin or clothes, below the chin), each continued from its own
// visible class (classes[] at photo resolution) with that region's texture or grain, seeded by `seed`;
// pixels the parse calls a feature (CV_PARSE_FIRST_FEATURE…LAST) keep their bytes.
// out_rgb[width*height*3]. bare[] (non-zero: the face and its forehead) marks the head's bare skin;
// out_scalp[width*height] (may be NULL) receives, 0..1, how much of each pixel was filled on the hair-bearing
// scalp (head off bare), softened. shade[width*height] (may be NULL): the head's shading under the photo's
// light relative to the face's mean (0: unknown); where given, skin is continued as colour over shading and
// shaded again. 0 = ok.
int32_t cv_hair_fill(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *classes, const float *remove,
                     const uint8_t *head, const uint8_t *bare, const float *shade, uint64_t seed, uint8_t *out_rgb, float *out_scalp);

// The hair (matte 0..1) recoloured toward a linear RGB target in linear light, its texture kept as
// luminance relative to its mean; pixels where matte is 0 keep their bytes. out_rgb[width*height*3]. 0 = ok.
int32_t cv_hair_recolor(const uint8_t *rgb, int32_t width, int32_t height, const float *matte, float target_r,
                        float target_g, float target_b, float strength, uint8_t *out_rgb);

// Fills triangles (xy: 6 floats each, photo pixels) into an 8-bit mask with 255: the head's silhouette.
void cv_fill_triangles(uint8_t *mask, int32_t width, int32_t height, const float *xy, int32_t triangle_count);

// How a fill sits in the background around it (fill_judge.cpp). Masks (non-zero = in): fill_mask the filled
// region judged, removed_mask all that was removed, source_mask the untouched background; the ring is the source
// between inner_px from the removed region and outer_px from the fill. sigma: the local averaging's scale (px).
// out[5]: the mean CIE76 difference of the two local means over the fill the ring reaches, the fill's Laplacian
// energy (L*) over the ring's (each with the energy of grain too faint to see added), the fill's and the ring's
// pixel counts (0 for the first two when either is empty), and the count of fill pixels the ring reaches (where
// the halo was measured). 0 = ok.
int32_t cv_fill_judge(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *fill_mask, const uint8_t *removed_mask,
                      const uint8_t *source_mask, int32_t inner_px, int32_t outer_px, float sigma, double *out);

// A video frame's own-hair parse from its keyframe's: `matte` (float) and `classes` (uint8), both
// width×height, warped by `to_keyframe`, the 2×3 affine map (row-major) from the frame's pixels to the
// keyframe's. Outside the keyframe: matte 0, class 255.
void cv_carry_parse(const float *matte, const uint8_t *classes, int32_t width, int32_t height,
                    const double *to_keyframe, float *out_matte, uint8_t *out_classes);

// values blurred in place by a Gaussian of sigma px (edges repeated).
void cv_soften(float *values, int32_t width, int32_t height, float sigma);

// out[i] = the largest of values over the (2·radius+1)² square around i (edges repeated).
void cv_max_filter(const float *values, int32_t width, int32_t height, int32_t radius, float *out);

// ── Digests (model files, batch items) ───────────────────────────────────────────────────────
// The SHA-256 of the file at `path` (OpenSSL's libcrypto), as 64 lowercase hex digits and a NUL in
// `hex` (65 bytes). 0 on success; 1 when the file cannot be opened or read.
int32_t cv_sha256_file(const char *path, char *hex);
// The SHA-256 of `count` bytes, written as cv_sha256_file writes it. 0 on success.
int32_t cv_sha256_bytes(const void *bytes, size_t count, char *hex);

#ifdef __cplusplus
}
#endif
#endif
