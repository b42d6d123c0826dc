// StylePresets: the built-in styles as data. Meshes/style-presets.json names each preset's
// `StyleParameters` fields; this reads it (the caller hands over the text: CoifGroom reads no files) and
// checks it at the door, so a typo in a parameter's name fails instead of silently growing a default.
import CoifCore
import Foundation

extension StyleParameters {
    /// The styles of a presets file (Meshes/style-presets.json), in its order: the catalog's default first.
    /// `{"styles": [{"name": …, "description": …, "tags": […], "lengthMm": …, "minLengthMm": …, …}]}`: the
    /// five shown are required, every other field is optional and keeps its Swift default when left out.
    /// Besides the fields' own names: `hemFrontAboveChinMm` and `hemBackAboveChinMm` set `hemYFront` and
    /// `hemYBack` relative to `shape`'s chin (negative: below it), `seed` is hexadecimal ("0xB0B") or a
    /// number, `gatherDirection` is [x, y, z]. Other top-level keys (such as "about") are ignored.
    /// Throws `CoifError.assetFailed` naming `path` on malformed JSON, a missing or unknown field, a value
    /// of the wrong type, or a name that is used twice or cannot name a file.
    public static func presets(json: String, shape: HeadShape,
                               path: String = "Meshes/style-presets.json") throws -> [StyleParameters] {
        let file: PresetFile
        do {
            file = try JSONDecoder().decode(PresetFile.self, from: Data(json.utf8))
        } catch let error as DecodingError {
            throw CoifError.assetFailed(path: path, reason: error.oneLine)
        } catch {
            throw CoifError.assetFailed(path: path, reason: "unreadable style presets: \(error)")
        }
        guard !file.styles.isEmpty else { throw CoifError.assetFailed(path: path, reason: "no styles") }
        var seen = Set<String>()
        for (i, preset) in file.styles.enumerated() {
            let name = preset.parameters.name
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw CoifError.assetFailed(path: path, reason: "styles[\(i)].name: '\(name)' must be letters, digits, '-' or '_' (it names a file)")
            }
            guard seen.insert(name).inserted else {
                throw CoifError.assetFailed(path: path, reason: "styles[\(i)].name: '\(name)' is defined twice")
            }
        }
        return file.styles.map { preset in
            var p = preset.parameters
            if let above = preset.hemFrontAboveChinMm { p.hemYFront = shape.chinY + above }
            if let above = preset.hemBackAboveChinMm { p.hemYBack = shape.chinY + above }
            return p
        }
    }
}

private struct PresetFile: Decodable {
    var styles: [Preset]
}

/// One preset: the parameters it names, the hem heights still relative to the chin.
private struct Preset: Decodable {
    var parameters: StyleParameters
    var hemFrontAboveChinMm: Float?
    var hemBackAboveChinMm: Float?

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        var known: Set<String> = []
        func required<T: Decodable>(_ name: String, _ type: T.Type) throws -> T {
            known.insert(name)
            return try c.decode(T.self, forKey: Key(name))
        }
        func optional<T: Decodable>(_ name: String, _ type: T.Type) throws -> T? {
            known.insert(name)
            return try c.decodeIfPresent(T.self, forKey: Key(name))
        }
        var p = StyleParameters(name: try required("name", String.self), description: try required("description", String.self),
                                tags: try required("tags", [String].self), lengthMm: try required("lengthMm", Float.self),
                                minLengthMm: try required("minLengthMm", Float.self))
        func read<T: Decodable>(_ name: String, _ field: WritableKeyPath<StyleParameters, T>) throws {
            if let value = try optional(name, T.self) { p[keyPath: field] = value }
        }
        try read("targetGuides", \.targetGuides)
        try read("segments", \.segments)
        try read("partX", \.partX)
        try read("partPull", \.partPull)
        try read("backPull", \.backPull)
        try read("fringeDepthMm", \.fringeDepthMm)
        try read("fringeSide", \.fringeSide)
        try read("fringeSweep", \.fringeSweep)
        try read("fringeClearanceMm", \.fringeClearanceMm)
        try read("gravityPerMm", \.gravityPerMm)
        try read("hugPerMm", \.hugPerMm)
        try read("stiffnessMm", \.stiffnessMm)
        try read("rootLift", \.rootLift)
        try read("marginMm", \.marginMm)
        try read("volumeMm", \.volumeMm)
        try read("curlRadiusMm", \.curlRadiusMm)
        try read("curlPeriodMm", \.curlPeriodMm)
        try read("strandCoilRadiusMm", \.strandCoilRadiusMm)
        try read("strandCoilPeriodMm", \.strandCoilPeriodMm)
        try read("clump", \.clump)
        try read("clumpEvery", \.clumpEvery)
        try read("frizzMm", \.frizzMm)
        try read("rootWidthMm", \.rootWidthMm)
        try read("tipWidthMm", \.tipWidthMm)
        try read("lengthClass", \.lengthClass)
        try read("texture", \.texture)
        try read("faceShapes", \.faceShapes)
        try read("regionHalfWidthMm", \.regionHalfWidthMm)
        try read("fringeRise", \.fringeRise)
        try read("fringeForward", \.fringeForward)
        try read("fringeSplit", \.fringeSplit)
        try read("tailLengthMm", \.tailLengthMm)
        try read("tailRadiusMm", \.tailRadiusMm)
        try read("bunRadiusMm", \.bunRadiusMm)
        hemFrontAboveChinMm = try optional("hemFrontAboveChinMm", Float.self)
        hemBackAboveChinMm = try optional("hemBackAboveChinMm", Float.self)
        if let direction = try optional("gatherDirection", [Float].self) {
            guard direction.count == 3 else {
                throw DecodingError.dataCorruptedError(forKey: Key("gatherDirection"), in: c,
                                                       debugDescription: "expected [x, y, z], found \(direction.count) numbers")
            }
            p.gatherDirection = Vec3(direction[0], direction[1], direction[2])
        }
        known.insert("seed")
        if c.contains(Key("seed")) {
            if let number = try? c.decode(UInt64.self, forKey: Key("seed")) {
                p.seed = number
            } else {
                let text = try c.decode(String.self, forKey: Key("seed"))
                guard text.hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16) else {
                    throw DecodingError.dataCorruptedError(forKey: Key("seed"), in: c,
                                                           debugDescription: "expected a number or hexadecimal \"0x…\", found \"\(text)\"")
                }
                p.seed = value
            }
        }
        for key in c.allKeys where !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "unknown parameter '\(key.stringValue)'")
        }
        parameters = p
    }
}
