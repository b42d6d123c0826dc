// message.h: how CVision's C API writes a failed call's reason back into the caller's buffer. Internal.
#ifndef COIF_CVISION_MESSAGE_H
#define COIF_CVISION_MESSAGE_H

#include <cstddef>
#include <cstdio>

namespace cvision {

// Writes `text` into `message` (NUL-terminated, cut to `len`); nothing when there is no buffer.
inline void set_message(char *message, size_t len, const char *text) {
    if (message && len > 0) std::snprintf(message, len, "%s", text);
}

}  // namespace cvision

#endif
