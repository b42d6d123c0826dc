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

    /// Checks a model file the set-up wrote: present, with its sidecar `PATH.sha256` ("SHA256 SIZE NAME"), and
    /// of the size recorded there (cheap, on every load; the set-up checked the digest when it wrote the
    /// file, and a damaged network fails OpenCV's parse after this). `what` names the model in the error:
    /// `assetFailed` (exit 50) naming the file and how to install it.
    public static func checkSealed(_ path: String, what: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CoifError.assetFailed(path: path, reason: "\(what) missing; \(installHint)")
        }
        guard let sidecar = try? String(contentsOfFile: path + ".sha256", encoding: .utf8),
              let size = sidecar.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw CoifError.assetFailed(path: path, reason: "no checksum sidecar (\(path).sha256); \(installHint)")
        }
        // The file's own size, through a symbolic link (a shared model folder linked in).
        let actual = (try? FileManager.default.attributesOfItem(atPath: (path as NSString).resolvingSymlinksInPath)[.size] as? Int) ?? nil
        guard actual == size else {
            throw CoifError.assetFailed(path: path, reason: "damaged: \(actual ?? 0) bytes, expected \(size); \(installHint)")
        }
    }
}
