// head_pose.cpp: cv_solve_pose and cv_rodrigues over OpenCV's calib3d. Only core and calib3d are
// included (and linked): the rest of OpenCV costs ~370 ms of process start for nothing we use.

#include "CVision.h"

#include <cmath>
#include <vector>

#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>

namespace {

// RMS distance in pixels between `image` and `object` projected through (rvec, tvec, K).
double rms_reprojection(const cv::Mat &object, const cv::Mat &image, const cv::Mat &K, const cv::Mat &rvec,
                        const cv::Mat &tvec) {
    std::vector<cv::Point2d> projected;
    cv::projectPoints(object, rvec, tvec, K, cv::noArray(), projected);
    double sum = 0;
    for (int i = 0; i < image.rows; ++i) {
        const double dx = projected[size_t(i)].x - image.at<double>(i, 0);
        const double dy = projected[size_t(i)].y - image.at<double>(i, 1);
        sum += dx * dx + dy * dy;
    }
    return std::sqrt(sum / image.rows);
}

// One attempt: `flag` for a start, then Levenberg-Marquardt on the reprojection error. Returns the RMS
// error, or a negative number when the method fails or puts the model behind the camera.
double attempt(int flag, const cv::Mat &object, const cv::Mat &image, const cv::Mat &K, cv::Mat &rvec,
               cv::Mat &tvec) {
    rvec = cv::Mat::zeros(3, 1, CV_64F);
    tvec = cv::Mat::zeros(3, 1, CV_64F);
    if (!cv::solvePnP(object, image, K, cv::noArray(), rvec, tvec, false, flag)) return -1;
    if (!(tvec.at<double>(2) > 0)) return -1;
    cv::solvePnPRefineLM(object, image, K, cv::noArray(), rvec, tvec,
                         cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 50, 1e-10));
    if (!(tvec.at<double>(2) > 0)) return -1;
    const double rms = rms_reprojection(object, image, K, rvec, tvec);
    return std::isfinite(rms) ? rms : -1;
}

}  // namespace

extern "C" double cv_solve_pose(const float *image_xy, const float *model_xyz, int32_t count, cv_intrinsics intrinsics,
                                double *out_rvec3, double *out_tvec3) {
    if (!image_xy || !model_xyz || !out_rvec3 || !out_tvec3 || count < 4) return -1;
    if (!(intrinsics.fx > 0) || !(intrinsics.fy > 0) || !std::isfinite(intrinsics.cx) || !std::isfinite(intrinsics.cy))
        return -1;
    try {
        cv::Mat object(count, 3, CV_64F), image(count, 2, CV_64F);
        for (int i = 0; i < count; ++i) {
            for (int c = 0; c < 3; ++c) object.at<double>(i, c) = model_xyz[3 * i + c];
            for (int c = 0; c < 2; ++c) image.at<double>(i, c) = image_xy[2 * i + c];
        }
        if (!cv::checkRange(object) || !cv::checkRange(image)) return -1;
        const cv::Mat K = (cv::Mat_<double>(3, 3) << intrinsics.fx, 0, intrinsics.cx, 0, intrinsics.fy,
                           intrinsics.cy, 0, 0, 1);
        // EPnP is fast and non-iterative, but on (nearly) planar point sets it can start LM in the wrong
        // basin (4 px RMS on exact planar data) or land behind the camera. SQPnP is globally optimal and
        // costs ~0.1 ms more for 68 points, so both run and the smaller reprojection error wins.
        cv::Mat rvec, tvec, rvec2, tvec2;
        double rms = attempt(cv::SOLVEPNP_EPNP, object, image, K, rvec, tvec);
        const double rms2 = attempt(cv::SOLVEPNP_SQPNP, object, image, K, rvec2, tvec2);
        if (rms2 >= 0 && (rms < 0 || rms2 < rms)) {
            rms = rms2;
            rvec = rvec2;
            tvec = tvec2;
        }
        if (rms < 0) return -1;
        for (int i = 0; i < 3; ++i) {
            out_rvec3[i] = rvec.at<double>(i);
            out_tvec3[i] = tvec.at<double>(i);
        }
        return rms;
    } catch (...) {
        return -1;
    }
}

extern "C" void cv_rodrigues(const double *rvec3, double *out_rotation9) {
    if (!rvec3 || !out_rotation9) return;
    cv::Mat rvec = (cv::Mat_<double>(3, 1) << rvec3[0], rvec3[1], rvec3[2]);
    cv::Mat R;
    cv::Rodrigues(rvec, R);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) out_rotation9[3 * r + c] = R.at<double>(r, c);
}

extern "C" double cv_weighted_procrustes(const double *source_xyz, const double *target_xyz, const double *weights,
                                         int32_t count, double *out_scale, double *out_rotation9,
                                         double *out_translation3) {
    if (!source_xyz || !target_xyz || !out_scale || !out_rotation9 || !out_translation3 || count < 3) return -1;
    double total = 0;
    cv::Vec3d source_mean(0, 0, 0), target_mean(0, 0, 0);
    for (int i = 0; i < count; ++i) {
        const double w = weights ? weights[i] : 1;
        if (!(w >= 0) || !std::isfinite(w)) return -1;
        total += w;
        source_mean += w * cv::Vec3d(source_xyz + 3 * i);
        target_mean += w * cv::Vec3d(target_xyz + 3 * i);
    }
    if (!(total > 0)) return -1;
    source_mean /= total;
    target_mean /= total;
    // Weighted cross-covariance of the centred points, and the source's weighted variance.
    cv::Matx33d covariance = cv::Matx33d::zeros();
    double source_variance = 0;
    for (int i = 0; i < count; ++i) {
        const double w = (weights ? weights[i] : 1) / total;
        const cv::Vec3d a = cv::Vec3d(source_xyz + 3 * i) - source_mean, b = cv::Vec3d(target_xyz + 3 * i) - target_mean;
        covariance += w * (b * a.t());
        source_variance += w * a.dot(a);
    }
    if (!(source_variance > 1e-12)) return -1;
    cv::Mat w, u, vt;
    cv::SVD::compute(cv::Mat(covariance), w, u, vt);
    // det(U V^T) = -1 is a reflection: flip the axis of the smallest singular value.
    cv::Matx33d d = cv::Matx33d::eye();
    if (cv::determinant(u * vt) < 0) d(2, 2) = -1;
    const cv::Matx33d R = cv::Matx33d(cv::Mat(u)) * d * cv::Matx33d(cv::Mat(vt));
    double trace = 0;
    for (int i = 0; i < 3; ++i) trace += w.at<double>(i) * d(i, i);
    const double scale = trace / source_variance;
    const cv::Vec3d t = target_mean - scale * (R * source_mean);
    double residual = 0;
    for (int i = 0; i < count; ++i) {
        const cv::Vec3d e = scale * (R * cv::Vec3d(source_xyz + 3 * i)) + t - cv::Vec3d(target_xyz + 3 * i);
        residual += (weights ? weights[i] : 1) / total * e.dot(e);
    }
    *out_scale = scale;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) out_rotation9[3 * r + c] = R(r, c);
    for (int i = 0; i < 3; ++i) out_translation3[i] = t[i];
    return std::sqrt(residual);
}

extern "C" void cv_rotation_to_rvec(const double *rotation9, double *out_rvec3) {
    if (!rotation9 || !out_rvec3) return;
    cv::Mat R(3, 3, CV_64F), rvec;
    for (int i = 0; i < 9; ++i) R.at<double>(i / 3, i % 3) = rotation9[i];
    cv::Rodrigues(R, rvec);
    for (int i = 0; i < 3; ++i) out_rvec3[i] = rvec.at<double>(i);
}
