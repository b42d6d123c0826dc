// A video frame's own-hair parse carried from its keyframe: the keyframe's matte and classes warped by the
// head's motion since then (an affine map from the landmarks), so the network runs on keyframes only.
#include "CVision.h"

#include <opencv2/imgproc.hpp>

extern "C" void cv_carry_parse(const float *matte, const uint8_t *classes, int32_t width, int32_t height,
                               const double *to_keyframe, float *out_matte, uint8_t *out_classes) {
    const cv::Size size(width, height);
    const cv::Mat map(2, 3, CV_64F, const_cast<double *>(to_keyframe));
    const cv::Mat matteIn(size, CV_32F, const_cast<float *>(matte)), classesIn(size, CV_8U, const_cast<uint8_t *>(classes));
    cv::Mat matteOut(size, CV_32F, out_matte), classesOut(size, CV_8U, out_classes);
    // The map takes each output pixel to where it was in the keyframe (WARP_INVERSE_MAP); what the keyframe
    // never saw is no hair and an unknown class.
    cv::warpAffine(matteIn, matteOut, map, size, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::warpAffine(classesIn, classesOut, map, size, cv::INTER_NEAREST | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT, cv::Scalar(255));
}
