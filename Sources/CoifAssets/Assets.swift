// Assets: Coif's shaders and meshes, compiled into the binary by the EmbedAssets plugin so that an
// installed `coif` finds them with no files beside it. For shader work without a rebuild, set
// COIF_ASSETS_DIR to a checkout's root and files there win over the embedded copies.
import Foundation

public enum Assets {
    /// The text of an asset by its repository path ("Shaders/strand.vert", "Meshes/catalog.json"), or nil.
    public static func text(_ path: String) -> String? {
        if let override = ProcessInfo.processInfo.environment["COIF_ASSETS_DIR"], !override.isEmpty,
           let text = try? String(contentsOfFile: override + "/" + path, encoding: .utf8) {
            return text
        }
        guard let literal = embeddedFile(path) else { return nil }
        return literal.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }

    /// Every embedded path, sorted.
    public static var paths: [String] { embeddedPaths }
}
