// file_digest.cpp: SHA-256 with OpenSSL's libcrypto (Debian's libssl-dev): of a model file, so a network
// damaged at its recorded size is refused before OpenCV reads it (ModelCache.checkSealed); of any file or
// bytes, for a batch item's input hash (Digest, BatchJob).
#include "CVision.h"

#include <openssl/evp.h>

#include <cstdio>
#include <memory>
#include <vector>

namespace {
void write_hex(const unsigned char *digest, unsigned int length, char *hex) {
    static const char digits[] = "0123456789abcdef";
    for (unsigned int i = 0; i < length; ++i) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[2 * length] = '\0';
}
}  // namespace

int32_t cv_sha256_bytes(const void *bytes, size_t count, char *hex) {
    if ((!bytes && count > 0) || !hex) return 1;
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes, count, digest, &length, EVP_sha256(), nullptr) != 1 || length != 32) return 1;
    write_hex(digest, length, hex);
    return 0;
}

int32_t cv_sha256_file(const char *path, char *hex) {
    if (!path || !hex) return 1;
    std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path, "rb"), &std::fclose);
    if (!file) return 1;
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX *)> context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) return 1;
    std::vector<unsigned char> buffer(1 << 20);
    size_t read = 0;
    while ((read = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0) {
        if (EVP_DigestUpdate(context.get(), buffer.data(), read) != 1) return 1;
    }
    if (std::ferror(file.get())) return 1;
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(context.get(), digest, &length) != 1 || length != 32) return 1;
    write_hex(digest, length, hex);
    return 0;
}
