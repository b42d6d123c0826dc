// BuildFingerprint: what a farm's items are rendered with beyond their own inputs. Part of each item's input hash,
// so a rebuilt Coif or a new model renders every item again, and an unchanged one skips what is done.
import CoifCore
import CoifVision
import Foundation

public enum BuildFingerprint {
    /// The version and the executable's digest (a rebuilt Coif renders every item again), the models as the set-up
    /// recorded them (their sidecars' digests; dlib's file by size and time), the parsing network's input size, and
    /// an assets folder named in the environment. Not the GPU: a farm of mixed renderers counts an item done on any.
    public static func current(version: String) -> String {
        let environment = ProcessInfo.processInfo.environment
        var parts = [version, (try? Digest.sha256(file: "/proc/self/exe")) ?? "unknown-executable"]
        let parsing = FaceParser.modelFile(size: FaceParser.defaultInputSize())
        for model in [parsing, FaceMesh.landmarkModelFile, FaceMesh.detectorModelFile] {
            parts.append(model + " " + (ModelCache.recorded(ModelCache.path(model))?.digest ?? "missing"))
        }
        let dlib = try? FileManager.default.attributesOfItem(atPath: FaceFinder.defaultPredictorPath)
        parts.append("dlib \((dlib?[.size] as? Int) ?? 0) \(((dlib?[.modificationDate] as? Date)?.timeIntervalSince1970) ?? 0)")
        parts.append("assets " + (environment["COIF_ASSETS_DIR"] ?? "embedded"))
        return parts.joined(separator: "\n")
    }
}
