// MeshGeneration: writes everything in Meshes/ from the AFLW2000-3D landmark JSON and the style presets:
// the head occluder and scalp (head.obj), its 68 reference landmarks (head-landmarks68.json), one OBJ of
// guide polylines per preset (styles/<name>.obj), catalog.json, and the presets themselves
// (style-presets.json, as given). Deterministic: same input, same bytes. Each file is
// written to a temporary name beside it and renamed, so a reader never sees half a file.
import CoifCore
import Foundation

public enum MeshGeneration {
    /// Writes all generated mesh files under `directory` (created if needed); returns the paths written.
    /// `presetsJSON` is the text of a style presets file (see `StyleParameters.presets`), read from `presetsPath`.
    public static func generate(into directory: String, aflwLandmarksJSON: String, presetsJSON: String,
                                presetsPath: String = "Meshes/style-presets.json") throws -> [String] {
        let files = try generateFiles(aflwLandmarksJSON: aflwLandmarksJSON, presetsJSON: presetsJSON, presetsPath: presetsPath)
        var written: [String] = []
        for (relative, text) in files {
            let path = (directory as NSString).appendingPathComponent(relative)
            try AtomicFile.write(text: text, to: path, createDirectories: true)
            written.append(path)
        }
        return written
    }

    /// The per-image Procrustes RMS residuals (mm) of the landmark template fit, for reporting.
    public static func landmarkResidualsMm(aflwLandmarksJSON: String) throws -> [(image: String, rmsMm: Double)] {
        try LandmarkFitting.fit(aflwJSON: aflwLandmarksJSON).residualsMm.map { (image: $0.0, rmsMm: $0.1) }
    }

    /// (relative path, contents) of every generated file, in a fixed order.
    static func generateFiles(aflwLandmarksJSON: String, presetsJSON: String,
                              presetsPath: String = "Meshes/style-presets.json") throws -> [(String, String)] {
        let head = try HeadGenerator.generate(aflwLandmarksJSON: aflwLandmarksJSON)
        let styles = try StyleParameters.presets(json: presetsJSON, shape: head.shape, path: presetsPath)
        var files: [(String, String)] = [("head.obj", head.objText), ("head-landmarks68.json", head.landmarksJSON)]
        var catalog = "{\n  \"default\": \"\(styles[0].name)\",\n  \"styles\": [\n"
        // Styles are independent (each draws from its own seeded streams): grow them on all cores.
        let objs = generateStyles(styles, head: head)
        for (i, params) in styles.enumerated() {
            let (text, guides, points) = objs[i]
            let file = "styles/\(params.name).obj"
            files.append((file, text))
            catalog += "    " + catalogLine(params, file: file, guides: guides, pointsPerGuide: points)
            catalog += i == styles.count - 1 ? "\n" : ",\n"
        }
        catalog += "  ]\n}\n"
        files.append(("catalog.json", catalog))
        files.append(("style-presets.json", presetsJSON))
        return files
    }

    /// Grows `styles` in parallel; per style: (OBJ text, guide count, points per guide), in input order.
    static func generateStyles(_ styles: [StyleParameters], head: GeneratedHead) -> [(String, Int, Int)] {
        let results = ResultSlots<(String, Int, Int)>(count: styles.count)
        let mesh = head.mesh, shape = head.shape
        DispatchQueue.concurrentPerform(iterations: styles.count) { i in
            let style = StyleGenerator.generate(styles[i], mesh: mesh, shape: shape)
            results.set(i, (StyleGenerator.objText(style), style.guides.count, style.pointsPerGuide))
        }
        return results.values
    }

    /// One catalog entry as a JSON object on one line (fixed key order, fixed decimals).
    static func catalogLine(_ params: StyleParameters, file: String, guides: Int, pointsPerGuide: Int) -> String {
        func list(_ items: [String]) -> String { "[" + items.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
        var line = "{\"name\": \"\(params.name)\", \"file\": \"\(file)\", \"description\": \"\(params.description)\", "
        line += "\"tags\": \(list(params.tags)), \"length\": \"\(params.lengthClass)\", \"texture\": \"\(params.texture)\", "
        line += "\"faceShapes\": \(list(params.faceShapes)), \"guides\": \(guides), \"pointsPerGuide\": \(pointsPerGuide), "
        line += "\"rootWidthMm\": \(fixed(params.rootWidthMm)), \"tipWidthMm\": \(fixed(params.tipWidthMm))"
        if params.strandCoilRadiusMm > 0 {
            line += ", \"strandCoilRadiusMm\": \(fixed(params.strandCoilRadiusMm)), \"strandCoilPeriodMm\": \(fixed(params.strandCoilPeriodMm))"
        }
        return line + "}"
    }
}

/// Write-once slots filled from `concurrentPerform` workers (each index written by exactly one worker).
final class ResultSlots<T>: @unchecked Sendable {
    private var slots: [T?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: T) { lock.lock(); slots[i] = value; lock.unlock() }
    var values: [T] { slots.map { $0! } }
}
