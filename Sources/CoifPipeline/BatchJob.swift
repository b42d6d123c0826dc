// BatchJob: a render-farm job file (JSON) and its items. The file lists photos × styles × colours × variants
// (a cross product, named by an output template), explicit items, or both; paths in it are relative to the
// file. `expand` turns it into an ordered list of items and refuses a job that cannot run whole, before
// anything renders: malformed JSON or an unknown key, a missing photo, an unknown style, a bad colour or
// setting, a template that sends two items to one file or outside the output folder, an output that is one
// of the inputs. The order depends only on the lists' order, never on the order of the JSON's keys, so
// every shard of a farm sees the same items at the same indices.
import CoifCore
import CoifGroom
import CoifRender
import CoifVision
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The job file as written.
public struct BatchJobFile: Codable, Sendable {
    /// Photos of the cross product.
    public var photos: [String]?
    /// Catalog names or groom files (default: the catalog's default style).
    public var styles: [String]?
    /// Colour specs as `--color` takes them (default: dark-brown).
    public var colors: [String]?
    /// Named settings, each one more factor of the cross product (`{variant}` in the template).
    public var variants: [BatchVariant]?
    /// The cross product's output path under `--out`, with `{photo}`, `{style}`, `{color}`, `{variant}` and
    /// `{index}`.
    public var output: String?
    /// Settings for every item (an item's or a variant's own win, field by field).
    public var settings: RenderSettings?
    /// Items listed one by one, after the cross product's.
    public var items: [BatchItemSpec]?
    /// User catalog directories, as `--styles DIR`.
    public var styleDirectories: [String]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case photos, styles, colors, variants, output, settings, items, styleDirectories
    }

    public init(from decoder: Decoder) throws {
        try RenderSettings.refuseUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        photos = try c.decodeIfPresent([String].self, forKey: .photos)
        styles = try c.decodeIfPresent([String].self, forKey: .styles)
        colors = try c.decodeIfPresent([String].self, forKey: .colors)
        variants = try c.decodeIfPresent([BatchVariant].self, forKey: .variants)
        output = try c.decodeIfPresent(String.self, forKey: .output)
        settings = try c.decodeIfPresent(RenderSettings.self, forKey: .settings)
        items = try c.decodeIfPresent([BatchItemSpec].self, forKey: .items)
        styleDirectories = try c.decodeIfPresent([String].self, forKey: .styleDirectories)
    }
}

public struct BatchVariant: Codable, Sendable {
    public var name: String
    public var settings: RenderSettings?

    enum CodingKeys: String, CodingKey, CaseIterable { case name, settings }

    public init(from decoder: Decoder) throws {
        try RenderSettings.refuseUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        settings = try c.decodeIfPresent(RenderSettings.self, forKey: .settings)
    }
}

/// One item listed in the file.
public struct BatchItemSpec: Codable, Sendable {
    public var photo: String
    public var style: String?
    public var color: String?
    /// Its output under `--out` (default: the job's template).
    public var output: String?
    public var settings: RenderSettings?

    enum CodingKeys: String, CodingKey, CaseIterable { case photo, style, color, output, settings }

    public init(from decoder: Decoder) throws {
        try RenderSettings.refuseUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        photo = try c.decode(String.self, forKey: .photo)
        style = try c.decodeIfPresent(String.self, forKey: .style)
        color = try c.decodeIfPresent(String.self, forKey: .color)
        output = try c.decodeIfPresent(String.self, forKey: .output)
        settings = try c.decodeIfPresent(RenderSettings.self, forKey: .settings)
    }
}

/// One try-on of the job, resolved: its paths absolute, its style resolved, its settings merged.
public struct BatchItem: Sendable {
    /// Its place in the whole job (0-based): what shards split.
    public var index: Int
    /// The photo's path (the job file's folder joined to what the file says).
    public var photo: String
    /// A catalog name, or a groom file's path.
    public var style: String
    /// The colour as parsed; `color.name` is its canonical name (a preset, #rrggbb or the recipe).
    public var hairColor: HairColor
    public var color: String { hairColor.name }
    public var variant: String?
    public var settings: RenderSettings
    /// The output's path (inside `--out`).
    public var output: String
    /// What the item's output depends on, as a SHA-256 (see `BatchJob.inputHash`).
    public var inputHash: String

    /// The job this item renders (outputs: the composite alone).
    public func tryOnJob() throws -> TryOnJob {
        var job = TryOnJob(photoPath: photo, style: style, color: hairColor, outputPath: output)
        try settings.apply(to: &job)
        return job
    }

    /// Items that share one analysis of their photo: the same photo (by its bytes), faces and camera.
    public var analysisKey: PathKey {
        PathKey("\(photo)|\(settings.face.map { "\($0)" } ?? "largest")|\(settings.fovDegrees.map { String($0) } ?? "-")")
    }

    /// The sidecar that says which inputs the output was made from.
    public var sidecarPath: String { output + ".coif" }
}

/// Finds a key given twice in one JSON object, in JSON that has parsed.
enum JSONDuplicateKeys {
    static func first(in data: Data) -> String? {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            // Per open container: nil for an array, else the object's keys so far and whether a key comes next.
            var stack: [(keys: Set<[UInt8]>, keyNext: Bool)?] = []
            var i = 0
            while i < bytes.count {
                let c = bytes[i]
                switch c {
                case UInt8(ascii: "\""):
                    let start = i + 1
                    var escaped = false
                    i += 1
                    while i < bytes.count && bytes[i] != UInt8(ascii: "\"") {
                        if bytes[i] == UInt8(ascii: "\\") { escaped = true; i += 1 }
                        i += 1
                    }
                    if var object = stack.last ?? nil, object.keyNext {
                        var key = Array(bytes[start..<min(i, bytes.count)])
                        if escaped, let text = try? JSONDecoder().decode(String.self, from: Data([UInt8(ascii: "\"")] + key + [UInt8(ascii: "\"")])) {
                            key = Array(text.utf8)
                        }
                        if !object.keys.insert(key).inserted { return String(decoding: key, as: UTF8.self) }
                        object.keyNext = false
                        stack[stack.count - 1] = object
                    }
                case UInt8(ascii: "{"): stack.append((keys: [], keyNext: true))
                case UInt8(ascii: "["): stack.append(nil)
                case UInt8(ascii: "}"), UInt8(ascii: "]"): if !stack.isEmpty { stack.removeLast() }
                case UInt8(ascii: ","):
                    if var object = stack.last ?? nil {
                        object.keyNext = true
                        stack[stack.count - 1] = object
                    }
                default: break
                }
                i += 1
            }
            return nil
        }
    }
}

/// A job file read and expanded.
public struct BatchJob: Sendable {
    public var path: String
    public var items: [BatchItem]
    public var styleDirectories: [String]
    /// `--out` as an absolute path: every output's folder, links resolved, must stay inside it.
    public var outputRoot = ""

    /// The largest job file read (bytes) and the most items a job may expand to: past either, split the job.
    public static let maxFileBytes = 256 << 20
    public static let maxItems = 2_000_000

    /// The placeholders an output template may use.
    public static let placeholders = ["photo", "style", "color", "variant", "index"]

    /// Reads and expands the job at `path` for outputs under `outputDirectory`; every check that can refuse
    /// the job runs here (`jobRefused`, exit 23, naming the file and the item), and nothing is written.
    /// `build` names the Coif that renders (its version and its executable's digest): a new build renders
    /// every item again.
    /// - Parameter reserved: other files the command writes (the results file): no item may write them.
    public static func load(path: String, outputDirectory: String, build: String, userStyleDirectories: [String] = [],
                            reserved: [String] = [], styles makeStyles: ([String]) throws -> StyleLibrary) throws -> BatchJob {
        let refuse = { (reason: String) in CoifError.jobRefused(path: path, reason: reason) }
        // A regular file, checked before it is opened: opening a FIFO blocks until a writer comes (forever).
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { throw CoifError.inputMissing(path: path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw refuse("not a regular file (a FIFO, a device or a socket)") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CoifError.inputMissing(path: path) }
        // Read at most one byte past the limit: a job file is JSON a person or a script wrote, not a dump.
        let data = (try? handle.read(upToCount: maxFileBytes + 1)) ?? Data()
        try? handle.close()
        guard data.count <= maxFileBytes else { throw refuse("over \(maxFileBytes >> 20) MiB: split the job") }
        let file: BatchJobFile
        do { file = try JSONDecoder().decode(BatchJobFile.self, from: data) } catch {
            throw refuse((error as? DecodingError)?.oneLine ?? "\(error)")
        }
        // JSONDecoder keeps the last of two equal keys: a setting given twice would be half ignored, as a
        // misspelt one would (which is refused).
        if let duplicate = JSONDuplicateKeys.first(in: data) { throw refuse("the key \"\(duplicate)\" appears twice in one object") }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
        func resolved(_ relative: String) -> String {
            relative.hasPrefix("/") ? relative : URL(fileURLWithPath: relative, relativeTo: URL(fileURLWithPath: base, isDirectory: true)).standardizedFileURL.path
        }
        let directories = (file.styleDirectories ?? []).map(resolved) + userStyleDirectories
        let styles: StyleLibrary
        do { styles = try makeStyles(directories) } catch let error as CoifError { throw refuse("styleDirectories: \(error)") }

        // The specs in order: the cross product (photos, then styles, colours, variants), then the listed items.
        struct Spec {
            var photo: String, style: String?, color: String?, variant: String?, settings: RenderSettings?, output: String?
        }
        for (key, list) in [("photos", file.photos?.count), ("styles", file.styles?.count), ("colors", file.colors?.count),
                            ("variants", file.variants?.count), ("items", file.items?.count)] where list == 0 {
            throw refuse("\"\(key)\" is empty: give at least one, or leave the key out")
        }
        // The item count from the lists' lengths, before any item is made: 20,000 photos × 20,000 colours in
        // a 469 KB file had filled 7 GB of memory before the limit was checked.
        var total = file.items?.count ?? 0
        if let photos = file.photos {
            var product = photos.count
            for factor in [file.styles?.count ?? 1, file.colors?.count ?? 1, file.variants?.count ?? 1] {
                let (next, overflow) = product.multipliedReportingOverflow(by: factor)
                product = overflow ? Int.max : next
            }
            total = product > maxItems ? product : total + product
        }
        guard total <= maxItems else { throw refuse("\(total) items, over \(maxItems): split the job into several files") }
        var specs: [Spec] = []
        specs.reserveCapacity(total)
        let photos = file.photos ?? []
        if !photos.isEmpty {
            guard file.output != nil else { throw refuse("\"photos\" needs an \"output\" template") }
            let variants: [BatchVariant?] = (file.variants?.isEmpty ?? true) ? [nil] : file.variants!.map { $0 }
            let styleList: [String?] = file.styles.map { $0.map { Optional($0) } } ?? [nil]
            for photo in photos {
                for style in styleList {
                    for color in file.colors ?? ["dark-brown"] {
                        for variant in variants {
                            specs.append(Spec(photo: photo, style: style, color: color, variant: variant?.name,
                                              settings: variant?.settings, output: nil))
                        }
                    }
                }
            }
        } else if file.styles != nil || file.colors != nil || file.variants != nil {
            throw refuse("\"styles\", \"colors\" and \"variants\" need \"photos\"")
        }
        for item in file.items ?? [] {
            specs.append(Spec(photo: item.photo, style: item.style, color: item.color, variant: nil, settings: item.settings, output: item.output))
        }
        guard !specs.isEmpty else { throw refuse("no items: give \"photos\" (with \"output\") or \"items\"") }
        if let names = file.variants?.map(\.name), Set(names).count != names.count {
            throw refuse("two variants share a name")
        }

        let outputRoot = URL(fileURLWithPath: outputDirectory).standardizedFileURL.path
        var items: [BatchItem] = []
        items.reserveCapacity(specs.count)
        // Paths by their bytes (PathKey): "café.png" as NFC and as NFD are two photos.
        var photoDigests: [PathKey: String] = [:]
        var styleIdentities: [String: String] = [:]
        // A hex colour is solved into a pigment recipe (~30 ms): once per spec, not once per item.
        var colors: [String: HairColor] = [:]
        // The settings checks per distinct style and settings, not per item (each checks the catalog's files).
        var validated: Set<String> = []
        for (index, spec) in specs.enumerated() {
            let what = "item \(index) (\(spec.photo))"
            let photo = resolved(spec.photo)
            if photoDigests[PathKey(photo)] == nil {
                // A regular file: a FIFO or a device (/dev/zero) would hang the digest below.
                var info = stat()
                guard stat(photo, &info) == 0 else { throw refuse("\(what): photo \(photo): no such file") }
                guard (info.st_mode & S_IFMT) == S_IFREG else { throw refuse("\(what): photo \(photo): not a regular file") }
                do { photoDigests[PathKey(photo)] = try Digest.sha256(file: photo) } catch {
                    throw refuse("\(what): photo \(photo): not readable")
                }
            }
            // A catalog name as it is; anything else is a groom file relative to the job file.
            let styleName: String
            if let style = spec.style, !styles.names.contains(style) { styleName = resolved(style) } else { styleName = spec.style ?? styles.defaultStyle }
            let style: Style
            do { style = try styles.resolve(styleName) } catch let error as CoifError { throw refuse("\(what): \(error)") }
            let colorSpec = spec.color ?? "dark-brown"
            let color: HairColor
            if let known = colors[colorSpec] { color = known } else {
                do { color = try HairColor.parse(colorSpec) } catch let error as CoifError { throw refuse("\(what): \(error)") }
                colors[colorSpec] = color
            }
            let settings = (file.settings ?? RenderSettings()).overridden(by: spec.settings)
            guard let template = spec.output ?? file.output else { throw refuse("\(what): no \"output\" and no template") }
            let relative = try Self.fill(template, photo: photo, style: style, color: color, variant: spec.variant, index: index,
                                         count: specs.count) { refuse("\(what): \($0)") }
            let output = URL(fileURLWithPath: relative, relativeTo: URL(fileURLWithPath: outputRoot, isDirectory: true)).standardizedFileURL.path
            // By bytes: String's hasPrefix folds canonically equivalent names, which are other folders.
            guard !relative.hasPrefix("/"), output.utf8.starts(with: (outputRoot + "/").utf8) else {
                throw refuse("\(what): output \"\(relative)\" is outside the output folder \(outputDirectory)")
            }
            // What the file system would refuse at the item's write, refused here: the sidecar's name and its
            // temporary's (`.NAME.coif.tmp-HOST-PID`) must fit in 255 bytes.
            let longest = AtomicFile.maxNameBytes - ".coif".utf8.count
            if let long = output.split(separator: "/").first(where: { $0.utf8.count > longest }) {
                throw refuse("\(what): output name \"\(long.prefix(40))…\" is \(long.utf8.count) bytes; at most \(longest) (its sidecar and their temporaries must fit in 255)")
            }
            guard output.utf8.count < 4000 else { throw refuse("\(what): output path is \(output.utf8.count) bytes long; at most 4000") }
            var item = BatchItem(index: index, photo: photo, style: styleName, hairColor: color, variant: spec.variant,
                                 settings: settings, output: output, inputHash: "")
            if validated.insert(style.key + "\u{0}" + settings.canonicalJSON).inserted {
                do {
                    var job = try item.tryOnJob()
                    job.outputs = TryOnOutputs()
                    try job.validate(styles: styles)
                } catch let error as CoifError { throw refuse("\(what): \(error)") }
            }
            if styleIdentities[style.key] == nil {
                do { styleIdentities[style.key] = try Self.identity(of: style, styles: styles) } catch let error as CoifError {
                    throw refuse("\(what): \(error)")
                }
            }
            item.inputHash = Self.inputHash(build: build, photoDigest: photoDigests[PathKey(photo)]!, style: styleIdentities[style.key]!,
                                            color: color.name, settings: settings)
            items.append(item)
        }

        // Two items into one file, or an output that is an input (a photo, a groom, a catalog, the job file).
        var inputs = [path] + photoDigests.keys.map(\.path) + styles.catalogFiles
        for item in items {
            if let style = try? styles.resolve(item.style), case .file(let groom, let head) = style.origin { inputs += [groom] + (head.map { [$0] } ?? []) }
        }
        // Two items into one file (an item's output or its sidecar), or an item over the results file.
        var seen: [PathKey: Int] = [:]
        let reservedPaths = Set(reserved.map { PathKey(URL(fileURLWithPath: $0).standardizedFileURL.path) })
        for item in items {
            for written in [item.output, item.sidecarPath].map(PathKey.init) {
                if let other = seen[written] {
                    throw refuse("items \(other) and \(item.index) both write \(written): add {style}, {color} or {variant} to the template")
                }
                if reservedPaths.contains(written) { throw refuse("item \(item.index) would write over the results file \(written)") }
                seen[written] = item.index
            }
        }
        do { try OutputPaths.check(items.flatMap { [$0.output, $0.sidecarPath] } + reserved, inputs: inputs) } catch let error as CoifError {
            throw refuse("\(error)")
        }
        return BatchJob(path: path, items: items, styleDirectories: directories, outputRoot: outputRoot)
    }

    /// The template with its placeholders filled; `refuse` makes the error for an unknown placeholder.
    static func fill(_ template: String, photo: String, style: Style, color: HairColor, variant: String?, index: Int, count: Int,
                     refuse: (String) -> CoifError) throws -> String {
        let values: [String: String] = [
            "photo": URL(fileURLWithPath: photo).deletingPathExtension().lastPathComponent,
            "style": Self.safeName(Self.styleLabel(style)),
            "color": Self.safeName(color.name.hasPrefix("#") ? String(color.name.dropFirst()) : color.name),
            "variant": Self.safeName(variant ?? ""),
            "index": String(repeating: "0", count: max(0, String(count - 1).count - String(index).count)) + String(index),
        ]
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { throw refuse("output template \"\(template)\": unclosed {") }
            let name = String(rest[rest.index(after: open)..<close])
            guard let value = values[name] else {
                throw refuse("output template \"\(template)\": unknown placeholder {\(name)} (known: \(placeholders.map { "{\($0)}" }.joined(separator: ", ")))")
            }
            out += value
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        guard !out.isEmpty, !out.hasSuffix("/") else { throw refuse("output template \"\(template)\" gives an empty file name") }
        return out
    }

    /// A style in a file name: its catalog name, or a groom file's name without its extension.
    static func styleLabel(_ style: Style) -> String {
        if case .file(let path, _) = style.origin { return URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent }
        return style.name
    }

    /// A value safe inside a file name: letters, digits, '-', '_' and '.' kept, anything else '_'.
    static func safeName(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
    }

    /// What a style's pixels depend on beyond the build: a built-in's name; a user catalog's entry and its
    /// files' digests; a groom file's digest (and its head's).
    static func identity(of style: Style, styles: StyleLibrary) throws -> String {
        switch style.origin {
        case .builtIn:
            return "builtin:" + style.name
        case .user(let directory):
            let catalog = (directory as NSString).appendingPathComponent("catalog.json")
            let groom = URL(fileURLWithPath: style.entry.file, relativeTo: URL(fileURLWithPath: directory, isDirectory: true)).path
            return "user:" + style.name + ":" + (try Digest.sha256(file: catalog)) + ":" + ((try? Digest.sha256(file: groom)) ?? "-")
        case .file(let path, let head):
            return "file:" + (try Digest.sha256(file: path)) + ":" + (try head.map { try Digest.sha256(file: $0) } ?? "-")
        }
    }

    /// SHA-256 over everything an item's PNG depends on: the build, the photo's bytes, the style, the colour
    /// and the merged settings (canonical JSON, sorted keys). Not the paths: a moved photo is the same item.
    static func inputHash(build: String, photoDigest: String, style: String, color: String, settings: RenderSettings) -> String {
        Digest.sha256(text: ["coif-batch 1", build, "photo " + photoDigest, "style " + style, "color " + color,
                             "settings " + settings.canonicalJSON].joined(separator: "\n"))
    }
}
