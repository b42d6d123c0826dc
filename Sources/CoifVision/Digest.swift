// Digest: SHA-256 of files and bytes (OpenSSL's libcrypto, through CVision), as lowercase hex. What a model
// file is checked against (ModelCache) and what a batch item's inputs are named by (BatchItem.inputHash).
import CVision
import CoifCore

public enum Digest {
    /// The SHA-256 of the file's bytes; `inputMissing` (10) when it cannot be read.
    public static func sha256(file path: String) throws -> String {
        var hex = [CChar](repeating: 0, count: 65)
        guard cv_sha256_file(path, &hex) == 0 else { throw CoifError.inputMissing(path: path) }
        return String(nulTerminated: hex)
    }

    /// The SHA-256 of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> String {
        var hex = [CChar](repeating: 0, count: 65)
        let status = bytes.withUnsafeBytes { cv_sha256_bytes($0.baseAddress, $0.count, &hex) }
        precondition(status == 0, "SHA-256 of \(bytes.count) bytes failed")
        return String(nulTerminated: hex)
    }

    /// The SHA-256 of the text's UTF-8 bytes.
    public static func sha256(text: String) -> String { sha256(Array(text.utf8)) }
}
