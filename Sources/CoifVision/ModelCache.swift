// ModelCache: where the set-up (`make models`, scripts/fetch-models.sh) puts Coif's converted neural
// networks, and the check every network makes before OpenCV reads it. One place for the folder's rule and
// the "missing or damaged: install it with make models" line (exit 50), so every model fails alike.
import CoifCore
import Foundation

public enum ModelCache {
    /// $COIF_MODELS, else $XDG_CACHE_HOME/coif/models, else ~/.cache/coif/models.
    public static func directory(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["COIF_MODELS"], !explicit.isEmpty { return explicit }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache")
        return cache + "/coif/models"
    }

    /// A model file's path in the cache.
    public static func path(_ file: String) -> String { directory() + "/" + file }

    /// What the one-line error says to do.
    public static let installHint = "install it with `make models` (README, Models)"

    /// Checks a model file the set-up wrote: present, with its sidecar `PATH.sha256` ("SHA256 SIZE NAME"), of
    /// the size recorded there, and, the first time this process meets the file as it is now (its size and
    /// modification time), of the SHA-256 recorded there: 20,000 flipped bits in the parsing network at its
    /// own size rendered without complaint, 8% of pixels off. The digest costs ~65 ms for the 52 MB parsing
    /// network (OpenSSL, SHA extensions), once a process; later loads compare size and time. `digest: false`
    /// checks presence and size alone: the check a command makes before it writes anything, where the load
    /// that follows on its own thread checks the digest off the critical path. `what` names the model in the
    /// error: `assetFailed` (exit 50) naming the file and how to install it.
    public static func checkSealed(_ path: String, what: String, digest checksDigest: Bool = true) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CoifError.assetFailed(path: path, reason: "\(what) missing; \(installHint)")
        }
        guard let (digest, size) = recorded(path) else {
            throw CoifError.assetFailed(path: path, reason: "no checksum sidecar (\(path).sha256); \(installHint)")
        }
        // The file's own size and time, through a symbolic link (a shared model folder linked in).
        let resolved = (path as NSString).resolvingSymlinksInPath
        let attributes = try? FileManager.default.attributesOfItem(atPath: resolved)
        let actual = attributes?[.size] as? Int
        guard actual == size else {
            throw CoifError.assetFailed(path: path, reason: "damaged: \(actual ?? 0) bytes, expected \(size); \(installHint)")
        }
        guard checksDigest else { return }
        let seen = SealedFile(path: resolved, size: size, modified: (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0,
                              digest: digest)
        if isVerified(seen) { return }
        guard let computed = try? Digest.sha256(file: resolved) else {
            throw CoifError.assetFailed(path: path, reason: "\(what) unreadable; \(installHint)")
        }
        guard computed == digest else {
            throw CoifError.assetFailed(path: path, reason: "damaged: SHA-256 \(computed.prefix(12))…, expected \(digest.prefix(12))…; \(installHint)")
        }
        lock.lock()
        verified.insert(seen)
        lock.unlock()
    }

    /// What the set-up recorded for the model at `path` in its sidecar `PATH.sha256` ("SHA256 SIZE NAME"): the
    /// digest (lowercase hex) and the size; nil when the sidecar is missing or malformed.
    public static func recorded(_ path: String) -> (digest: String, size: Int)? {
        let fields = (try? String(contentsOfFile: path + ".sha256", encoding: .utf8))?.split(separator: " ") ?? []
        guard fields.count >= 2, let size = Int(fields[1]), fields[0].count == 64 else { return nil }
        return (fields[0].lowercased(), size)
    }

    /// A model file as this process found it sealed.
    struct SealedFile: Hashable {
        var path: String
        var size: Int
        var modified: Double
        var digest: String
    }

    /// The files whose digest this process has checked, as they were then (under `lock`).
    nonisolated(unsafe) private static var verified: Set<SealedFile> = []
    private static let lock = NSLock()

    private static func isVerified(_ file: SealedFile) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return verified.contains(file)
    }
}
