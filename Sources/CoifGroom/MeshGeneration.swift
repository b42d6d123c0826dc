// MeshGeneration: writes everything in Meshes/ from the AFLW2000-3D landmark JSON: the head occluder and
// scalp (head.obj), its 68 reference landmarks (head-landmarks68.json), one OBJ of guide polylines per
// built-in style (styles/<name>.obj) and catalog.json. Deterministic: same input, same bytes. Each file is
// written to a temporary name beside it and renamed, so a reader never sees half a file.
import CoifCore
import Foundation

public enum MeshGeneration {
    /// Writes all generated mesh files under `directory` (created if needed); returns the paths written.
    public static func generate(into directory: String, aflwLandmarksJSON: String) throws -> [String] {
        let files = try generateFiles(aflwLandmarksJSON: aflwLandmarksJSON)
        var written: [String] = []
        for (relative, text) in files {
            let path = (directory as NSString).appendingPathComponent(relative)
            try writeAtomically(text, to: path)
            written.append(path)
        }
        return written
    }

    /// The per-image Procrustes RMS residuals (mm) of the landmark template fit, for reporting.
    public static func landmarkResidualsMm(aflwLandmarksJSON: String) throws -> [(image: String, rmsMm: Double)] {
        try LandmarkFitting.fit(aflwJSON: aflwLandmarksJSON).residualsMm.map { (image: $0.0, rmsMm: $0.1) }
    }

    /// (relative path, contents) of every generated file, in a fixed order.
    static func generateFiles(aflwLandmarksJSON: String) throws -> [(String, String)] {
        let head = try HeadGenerator.generate(aflwLandmarksJSON: aflwLandmarksJSON)
        var files: [(String, String)] = [("head.obj", head.objText), ("head-landmarks68.json", head.landmarksJSON)]
        var catalog = "{\n  \"default\": \"bob\",\n  \"styles\": [\n"
        let styles = StyleParameters.builtIn(shape: head.shape)
        for (i, params) in styles.enumerated() {
            let style = StyleGenerator.generate(params, mesh: head.mesh, shape: head.shape)
            let file = "styles/\(params.name).obj"
            files.append((file, StyleGenerator.objText(style)))
            let tags = params.tags.map { "\"\($0)\"" }.joined(separator: ", ")
            catalog += "    {\"name\": \"\(params.name)\", \"file\": \"\(file)\", \"description\": \"\(params.description)\", "
            catalog += "\"tags\": [\(tags)], \"guides\": \(style.guides.count), \"pointsPerGuide\": \(style.pointsPerGuide), "
            catalog += "\"rootWidthMm\": \(fixed(params.rootWidthMm)), \"tipWidthMm\": \(fixed(params.tipWidthMm))}"
            catalog += i == styles.count - 1 ? "\n" : ",\n"
        }
        catalog += "  ]\n}\n"
        files.append(("catalog.json", catalog))
        return files
    }

    static func writeAtomically(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let temp = dir.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
            try Data(text.utf8).write(to: temp)
            if rename(temp.path, url.path) != 0 {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: temp)
                throw CoifError.outputNotWritable(path: path, reason: reason)
            }
        } catch let error as CoifError {
            throw error
        } catch {
            throw CoifError.outputNotWritable(path: path, reason: "\(error)")
        }
    }
}
