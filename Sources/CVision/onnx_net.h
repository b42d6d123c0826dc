// onnx_net.h: what the networks CVision runs through OpenCV's dnn share (face_parse.cpp, face_mesh.cpp):
// reading a converted ONNX file for OpenCV's own CPU backend, and writing a failed call's reason back
// through the C API's message buffer. Internal to CVision.
#ifndef COIF_CVISION_ONNX_NET_H
#define COIF_CVISION_ONNX_NET_H

#include "message.h"

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/dnn.hpp>

#include <cstdio>
#include <string>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cvision {

inline void set_message(char *message, size_t len, const std::string &text) { set_message(message, len, text.c_str()); }

// OpenCV's thread count, the same on every machine (see read_onnx): 4, about what a network's layers at
// Coif's input sizes (192² to 512²) gain from.
constexpr int kNetworkThreads = 4;

// Reads the ONNX network at `path` for OpenCV's CPU backend. false with `message` set on failure: "no such
// file" (missing, or not a regular file), or OpenCV's reason the file is no network it reads.
inline bool read_onnx(const char *path, cv::dnn::Net &net, char *message, size_t len) {
    struct stat info {};
    if (!path || stat(path, &info) != 0 || !S_ISREG(info.st_mode)) {
        set_message(message, len, "no such file");
        return false;
    }
    // OpenCV's own log is silenced once, before the first network is read: a network of the wrong shape
    // printed seven "[ERROR:…]" lines before Coif's one-line message (README: errors are one line).
    // The networks' results must not depend on the machine's core count: OpenCV's dnn splits a layer's work
    // into as many stripes as it has threads, and the stripes' sums round differently (a render on one core
    // and on two differed in 20% of its pixels; `coif landmarks` in 1,550 numbers). A fixed thread count
    // fixes the split: the same bytes on a laptop and a 64-core farm node, and a golden recorded on one
    // verifies on the other.
    static const bool silenced = [] {
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
        // Where the process may use fewer cores than that (taskset, a container's CPU set), TBB, OpenCV's
        // threading backend, prints a warning here when it is asked for more workers: not Coif's to show.
        std::fflush(stderr);
        const int saved = dup(2), null = open("/dev/null", O_WRONLY);
        if (saved >= 0 && null >= 0) dup2(null, 2);
        cv::setNumThreads(kNetworkThreads);
        if (saved >= 0 && null >= 0) dup2(saved, 2);
        if (null >= 0) close(null);
        if (saved >= 0) close(saved);
        return true;
    }();
    (void)silenced;
    try {
        net = cv::dnn::readNetFromONNX(path);
        net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        if (net.empty()) throw cv::Exception(0, "empty network", "", "", 0);
    } catch (const cv::Exception &e) {
        set_message(message, len, std::string("not a network OpenCV reads: ") + e.err);
        return false;
    }
    return true;
}

}  // namespace cvision

#endif
