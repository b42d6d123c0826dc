// BatchJob: a render-farm job file (JSON) and its items. The file lists photos × styles × colours × variants
// (a cross product, named by an output template), explicit items, or both; paths in it are relative to the
// file. `expand` turns it into an ordered list of items and refuses a job that cannot run whole, before
// anything renders: malformed JSON or an unknown key, a missing photo, an unknown style, a bad colour or
// setting, a template that sends two items to one file or outside the output folder, an output that is one
// of the inputs. The order depends only on the lists' order, never on the order of the JSON's keys, so
// every shard of a farm sees the same items at the same indices.
import CoifCore
import CoifPipeline
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
        try StrictDecoding.refuseUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
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
        try StrictDecoding.refuseUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
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
        try StrictDecoding.refuseUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
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

    /// Items that share one analysis of their photo: the same photo path, faces and camera.
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

/// A job file read and checked. Its items are not held in memory: `items[i]` makes item i from the job's
/// lists when it is asked for, so a job takes the memory of its file's lists, not of its items. Expanded up
/// front, items took ~2 KB each at the load's peak, and the 2,000,000 the limit allows aborted a 4 GB node.
/// Item i is the same on every call and in every process (it is made from the lists alone), so shards and
/// `--resume` see the same items at the same indices.
public struct BatchJob: Sendable {
    public var path: String
    public var items: BatchItems
    public var styleDirectories: [String]
    /// `--out` as an absolute path: every output's folder, links resolved, must stay inside it.
    public var outputRoot: String

    /// The largest job file read (bytes) and the most items a job may hold: past either, split the job.
    /// Set by what one node holds: a job of explicit "items" is decoded whole (Foundation's JSON decoder
    /// peaks at ~10 times the file), so 64 MiB of items (~400,000) peaks under 1.5 GB; a cross product's
    /// items are made one at a time, and the load's collision check keeps 16 bytes per item (32 MB at the
    /// limit). docs/batch.md, "Limits", has the measured figures.
    public static let maxFileBytes = 64 << 20
    public static let maxItems = 2_000_000

    /// The placeholders an output template may use.
    public static let placeholders = ["photo", "style", "color", "variant", "index"]

    /// Reads and checks the job at `path` for outputs under `outputDirectory`; every check that can refuse
    /// the job runs here over every item (`jobRefused`, exit 23, naming the file and the item), and nothing
    /// is written. `build` names the Coif that renders (its version and its executable's digest): a new
    /// build renders every item again.
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
        guard data.count <= maxFileBytes else {
            throw refuse("over \(maxFileBytes >> 20) MiB: split the job, or list photos, styles and colours as a cross product")
        }
        let file: BatchJobFile
        do { file = try JSONDecoder().decode(BatchJobFile.self, from: data) } catch {
            throw refuse((error as? DecodingError)?.oneLine ?? "\(error)")
        }
        // JSONDecoder keeps the last of two equal keys: a setting given twice would be half ignored, as a
        // misspelt one would (which is refused).
        if let duplicate = JSONDuplicateKeys.first(in: data) { throw refuse("the key \"\(duplicate)\" appears twice in one object") }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let directories = (file.styleDirectories ?? []).map { BatchPlan.resolved($0, base: base) } + userStyleDirectories
        let styles: StyleLibrary
        do { styles = try makeStyles(directories) } catch let error as CoifError { throw refuse("styleDirectories: \(error)") }

        for (key, list) in [("photos", file.photos?.count), ("styles", file.styles?.count), ("colors", file.colors?.count),
                            ("variants", file.variants?.count), ("items", file.items?.count)] where list == 0 {
            throw refuse("\"\(key)\" is empty: give at least one, or leave the key out")
        }
        // The item count from the lists' lengths: 20,000 photos × 20,000 colours is a 469 KB file.
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
        if file.photos != nil {
            guard file.output != nil else { throw refuse("\"photos\" needs an \"output\" template") }
        } else if file.styles != nil || file.colors != nil || file.variants != nil {
            throw refuse("\"styles\", \"colors\" and \"variants\" need \"photos\"")
        }
        guard total > 0 else { throw refuse("no items: give \"photos\" (with \"output\") or \"items\"") }
        if let names = file.variants?.map(\.name), Set(names.map(PathKey.init)).count != names.count {
            throw refuse("two variants share a name")
        }
        let plan = try BatchPlan(file: file, jobPath: path, base: base, outputRoot: URL(fileURLWithPath: outputDirectory).standardizedFileURL.path,
                                 build: build, count: total, styles: styles, refuse: refuse)
        try plan.checkOutputs(outputDirectory: outputDirectory, inputs: [path] + plan.photoDigests.keys.map(\.path) + plan.inputFiles + styles.catalogFiles,
                              reserved: reserved, refuse: refuse)
        return BatchJob(path: path, items: BatchItems(plan: plan), styleDirectories: directories, outputRoot: plan.outputRoot)
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
    static func inputHash(build: String, photoDigest: String, style: String, color: String, settingsJSON: String) -> String {
        Digest.sha256(text: ["coif-batch 1", build, "photo " + photoDigest, "style " + style, "color " + color,
                             "settings " + settingsJSON].joined(separator: "\n"))
    }
}

/// A job's items in the job's order, each made when it is asked for (see `BatchJob`): the cross product
/// (photos, then styles, colours, variants), then the listed items.
public struct BatchItems: RandomAccessCollection, Sendable {
    let plan: BatchPlan
    public var startIndex: Int { 0 }
    public var endIndex: Int { plan.count }
    public subscript(index: Int) -> BatchItem { plan.item(index) }

    /// Item `index`'s merged settings, without making its paths and hash.
    public func settings(at index: Int) -> RenderSettings { plan.settings(index) }

    /// Whether any item takes the own hair away (and so needs the face parser).
    public var anyRemovesOwnHair: Bool { plan.anyRemovesOwnHair }
}

/// An output template split once into its text and its placeholders.
struct OutputTemplate: Sendable {
    enum Piece: Sendable { case text(String), photo, style, color, variant, index }
    let text: String
    let pieces: [Piece]

    init(_ template: String) throws(OutputTemplateProblem) {
        text = template
        var pieces: [Piece] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { pieces.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else { throw OutputTemplateProblem("output template \"\(template)\": unclosed {") }
            switch rest[rest.index(after: open)..<close] {
            case "photo": pieces.append(.photo)
            case "style": pieces.append(.style)
            case "color": pieces.append(.color)
            case "variant": pieces.append(.variant)
            case "index": pieces.append(.index)
            case let name:
                throw OutputTemplateProblem("output template \"\(template)\": unknown placeholder {\(name)} (known: \(BatchJob.placeholders.map { "{\($0)}" }.joined(separator: ", ")))")
            }
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        self.pieces = pieces
    }

    /// The path under `--out` for these values (each already safe in a file name).
    func filled(photo: String, style: String, color: String, variant: String, index: String) throws(OutputTemplateProblem) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let text): out += text
            case .photo: out += photo
            case .style: out += style
            case .color: out += color
            case .variant: out += variant
            case .index: out += index
            }
        }
        guard !out.isEmpty, !out.hasSuffix("/") else { throw OutputTemplateProblem("output template \"\(text)\" gives an empty file name") }
        return out
    }
}

struct OutputTemplateProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// What a job's items are made from: its lists, resolved and checked once at load (photos' digests, styles,
/// colours, settings), read-only afterwards and shared by every thread.
final class BatchPlan: Sendable {
    struct ResolvedStyle: Sendable {
        /// What `BatchItem.style` holds: a catalog name, or a groom file's absolute path.
        var name: String
        /// `{style}`: the catalog name or the groom file's name, made safe.
        var label: String
        /// The style's part of the input hash (`BatchJob.identity`).
        var identity: String
    }

    struct Variant: Sendable {
        var name: String?
        var settings: RenderSettings
        var settingsJSON: String
    }

    /// One item's resolved parts, before its output path and hash.
    struct Parts {
        /// The photo as the job file names it (for messages).
        var photoText: String
        var photo: String
        var photoName: String
        var style: ResolvedStyle
        var color: HairColor
        var colorName: String
        var variant: String?
        var settings: RenderSettings
        /// The settings' canonical JSON where it is known already (a variant's); made for the hash otherwise.
        var settingsJSON: String?
        var template: Result<OutputTemplate, OutputTemplateProblem>
    }

    let jobPath: String
    let base: String
    let build: String
    let outputRoot: String
    let count: Int
    let indexWidth: Int
    // The cross product: photos × styles × colours × variants, photo-major.
    let photoTexts: [String]
    let photos: [String]
    let photoNames: [String]
    let styles: [ResolvedStyle]
    let colors: [HairColor]
    let variants: [Variant]
    /// The cross product's template (a failure when it has none or it is malformed: refused at load).
    let template: Result<OutputTemplate, OutputTemplateProblem>
    let productCount: Int
    // The listed items, after the cross product's.
    let listed: [BatchItemSpec]
    let baseSettings: RenderSettings
    // Resolved once per distinct value, for every item.
    let photoDigests: [PathKey: String]
    let stylesBySpec: [PathKey: ResolvedStyle]
    let colorsBySpec: [String: HairColor]
    /// Groom and head files of the styles given as files: inputs no output may replace.
    let inputFiles: [String]
    let anyRemovesOwnHair: Bool

    /// A path the job file gives, relative to its folder.
    static func resolved(_ relative: String, base: String) -> String {
        relative.hasPrefix("/") ? relative : URL(fileURLWithPath: relative, relativeTo: URL(fileURLWithPath: base, isDirectory: true)).standardizedFileURL.path
    }

    /// Resolves and checks every distinct photo, style, colour and setting of the job.
    init(file: BatchJobFile, jobPath: String, base: String, outputRoot: String, build: String, count: Int, styles library: StyleLibrary,
         refuse: (String) -> CoifError) throws {
        let baseSettings = file.settings ?? RenderSettings()
        let listed = file.items ?? []
        func named(_ index: Int) -> String { "item \(index) (\(Self.photoText(file, item: index)))" }

        var photoDigests: [PathKey: String] = [:]
        func digest(_ text: String, item index: Int) throws {
            let photo = Self.resolved(text, base: base)
            guard photoDigests[PathKey(photo)] == nil else { return }
            // A regular file: a FIFO or a device (/dev/zero) would hang the digest.
            var info = stat()
            guard stat(photo, &info) == 0 else { throw refuse("\(named(index)): photo \(photo): no such file") }
            guard (info.st_mode & S_IFMT) == S_IFREG else { throw refuse("\(named(index)): photo \(photo): not a regular file") }
            do { photoDigests[PathKey(photo)] = try Digest.sha256(file: photo) } catch { throw refuse("\(named(index)): photo \(photo): not readable") }
        }
        var stylesBySpec: [PathKey: ResolvedStyle] = [:]
        var inputFiles: [String] = []
        func style(_ spec: String?, item index: Int) throws -> ResolvedStyle {
            if let known = stylesBySpec[PathKey(spec ?? "")] { return known }
            // A catalog name as it is; anything else is a groom file relative to the job file.
            let name: String
            if let spec, !library.names.contains(spec) { name = Self.resolved(spec, base: base) } else { name = spec ?? library.defaultStyle }
            do {
                let style = try library.resolve(name)
                let resolved = ResolvedStyle(name: name, label: BatchJob.safeName(BatchJob.styleLabel(style)),
                                             identity: try BatchJob.identity(of: style, styles: library))
                if case .file(let groom, let head) = style.origin { inputFiles += [groom] + (head.map { [$0] } ?? []) }
                stylesBySpec[PathKey(spec ?? "")] = resolved
                return resolved
            } catch let error as CoifError { throw refuse("\(named(index)): \(error)") }
        }
        var colorsBySpec: [String: HairColor] = [:]
        func color(_ spec: String?, item index: Int) throws -> HairColor {
            let text = spec ?? "dark-brown"
            if let known = colorsBySpec[text] { return known }
            // A hex colour is solved into a pigment recipe (~30 ms): once per spec, not once per item.
            do { colorsBySpec[text] = try HairColor.parse(text) } catch let error as CoifError { throw refuse("\(named(index)): \(error)") }
            return colorsBySpec[text]!
        }
        // The settings checks per distinct style and settings (each checks the catalog's files).
        var validated: Set<String> = []
        func validate(_ settings: RenderSettings, json: String, style: ResolvedStyle, color: HairColor, item index: Int) throws {
            guard validated.insert(style.identity + "\u{0}" + json).inserted else { return }
            do {
                var job = TryOnJob(photoPath: jobPath, style: style.name, color: color, outputPath: outputRoot + "/-")
                try settings.apply(to: &job)
                job.outputs = TryOnOutputs()
                _ = try job.validate(styles: library)
            } catch let error as CoifError { throw refuse("\(named(index)): \(error)") }
        }

        // The cross product, factor by factor; an error names the first item holding the bad value.
        let photoTexts = file.photos ?? []
        let styleSpecs: [String?] = file.styles.map { $0.map { Optional($0) } } ?? [nil]
        let colorSpecs = file.colors ?? ["dark-brown"]
        let variantSpecs: [BatchVariant?] = file.variants.map { $0.map { Optional($0) } } ?? [nil]
        let perStyle = colorSpecs.count * variantSpecs.count
        let perPhoto = styleSpecs.count * perStyle
        var photos: [String] = [], photoNames: [String] = [], styles: [ResolvedStyle] = [], colors: [HairColor] = []
        var variants: [Variant] = []
        var template: Result<OutputTemplate, OutputTemplateProblem> = .failure(OutputTemplateProblem("no \"output\" and no template"))
        if !photoTexts.isEmpty {
            for (p, text) in photoTexts.enumerated() {
                try digest(text, item: p * perPhoto)
                let photo = Self.resolved(text, base: base)
                photos.append(photo)
                photoNames.append(URL(fileURLWithPath: photo).deletingPathExtension().lastPathComponent)
            }
            for (s, spec) in styleSpecs.enumerated() { styles.append(try style(spec, item: s * perStyle)) }
            for (c, spec) in colorSpecs.enumerated() { colors.append(try color(spec, item: c * variantSpecs.count)) }
            for variant in variantSpecs {
                let settings = baseSettings.overridden(by: variant?.settings)
                variants.append(Variant(name: variant?.name, settings: settings, settingsJSON: settings.canonicalJSON))
            }
            for (s, style) in styles.enumerated() {
                for (v, variant) in variants.enumerated() {
                    try validate(variant.settings, json: variant.settingsJSON, style: style, color: colors[0], item: s * perStyle + v)
                }
            }
            template = Result { () throws(OutputTemplateProblem) in try OutputTemplate(file.output ?? "") }
        }
        let productCount = photos.count * perPhoto
        for (j, item) in listed.enumerated() {
            try digest(item.photo, item: productCount + j)
            let itemStyle = try style(item.style, item: productCount + j)
            let itemColor = try color(item.color, item: productCount + j)
            let settings = baseSettings.overridden(by: item.settings)
            try validate(settings, json: settings.canonicalJSON, style: itemStyle, color: itemColor, item: productCount + j)
        }
        self.jobPath = jobPath
        self.base = base
        self.build = build
        self.outputRoot = outputRoot
        self.count = count
        indexWidth = String(count - 1).count
        self.photoTexts = photoTexts
        self.photos = photos
        self.photoNames = photoNames
        self.styles = styles
        self.colors = colors
        self.variants = variants
        self.template = template
        self.productCount = productCount
        self.listed = listed
        self.baseSettings = baseSettings
        self.photoDigests = photoDigests
        self.stylesBySpec = stylesBySpec
        self.colorsBySpec = colorsBySpec
        self.inputFiles = inputFiles
        anyRemovesOwnHair = variants.contains { $0.settings.keepOwnHair != true }
            || listed.contains { baseSettings.overridden(by: $0.settings).keepOwnHair != true }
    }

    /// The photo the job file names for item `index` (for messages, before the plan exists).
    static func photoText(_ file: BatchJobFile, item index: Int) -> String {
        let photos = file.photos ?? []
        let perPhoto = (file.styles?.count ?? 1) * (file.colors?.count ?? 1) * (file.variants?.count ?? 1)
        if index < photos.count * perPhoto { return photos[index / perPhoto] }
        let listed = file.items ?? []
        let j = index - photos.count * perPhoto
        return listed.indices.contains(j) ? listed[j].photo : "?"
    }

    /// Item `index`'s parts: from the cross product's lists by its place in them, or from its listing.
    func parts(_ index: Int) -> Parts {
        if index < productCount {
            let v = index % variants.count
            let c = (index / variants.count) % colors.count
            let s = (index / (variants.count * colors.count)) % styles.count
            let p = index / (variants.count * colors.count * styles.count)
            return Parts(photoText: photoTexts[p], photo: photos[p], photoName: photoNames[p], style: styles[s], color: colors[c],
                         colorName: Self.colorLabel(colors[c]), variant: variants[v].name, settings: variants[v].settings,
                         settingsJSON: variants[v].settingsJSON, template: template)
        }
        let spec = listed[index - productCount]
        let photo = Self.resolved(spec.photo, base: base)
        let color = colorsBySpec[spec.color ?? "dark-brown"]!
        let settings = baseSettings.overridden(by: spec.settings)
        // Its own template, else the job's.
        let template = spec.output.map { text in Result { () throws(OutputTemplateProblem) in try OutputTemplate(text) } } ?? self.template
        return Parts(photoText: spec.photo, photo: photo, photoName: URL(fileURLWithPath: photo).deletingPathExtension().lastPathComponent,
                     style: stylesBySpec[PathKey(spec.style ?? "")]!, color: color, colorName: Self.colorLabel(color), variant: nil,
                     settings: settings, settingsJSON: nil, template: template)
    }

    func settings(_ index: Int) -> RenderSettings {
        index < productCount ? variants[index % variants.count].settings : baseSettings.overridden(by: listed[index - productCount].settings)
    }

    static func colorLabel(_ color: HairColor) -> String {
        BatchJob.safeName(color.name.hasPrefix("#") ? String(color.name.dropFirst()) : color.name)
    }

    /// Item `index`'s output path, or the reason it has none (checked for every item at load).
    func output(_ parts: Parts, index: Int) throws(OutputTemplateProblem) -> String {
        let number = String(index)
        let relative = try parts.template.get().filled(photo: parts.photoName, style: parts.style.label, color: parts.colorName,
                                                 variant: BatchJob.safeName(parts.variant ?? ""),
                                                 index: String(repeating: "0", count: max(0, indexWidth - number.count)) + number)
        guard !relative.hasPrefix("/") else { throw OutputTemplateProblem("output \"\(relative)\" is outside the output folder") }
        // Most templates need no clean-up ('.', '..' or '//'): joined as they are, which is what the URL's
        // standardisation below gives them, at a fraction of its cost per item.
        let output: String
        if Self.isPlain(relative) {
            output = (outputRoot == "/" ? "" : outputRoot) + "/" + relative
        } else {
            output = URL(fileURLWithPath: relative, relativeTo: URL(fileURLWithPath: outputRoot, isDirectory: true)).standardizedFileURL.path
        }
        // By bytes: String's hasPrefix folds canonically equivalent names, which are other folders.
        guard output.utf8.starts(with: ((outputRoot == "/" ? "" : outputRoot) + "/").utf8) else {
            throw OutputTemplateProblem("output \"\(relative)\" is outside the output folder")
        }
        return output
    }

    /// Whether no component of `relative` is empty, "." or "..".
    static func isPlain(_ relative: String) -> Bool {
        var length = 0, dots = 0
        for byte in relative.utf8 {
            if byte == UInt8(ascii: "/") {
                if length == 0 || (length == dots && dots <= 2) { return false }
                length = 0
                dots = 0
            } else {
                length += 1
                if byte == UInt8(ascii: ".") && dots == length - 1 { dots += 1 }
            }
        }
        return length > 0 && !(length == dots && dots <= 2)
    }

    func item(_ index: Int) -> BatchItem {
        precondition((0..<count).contains(index), "batch item \(index) of \(count)")
        let parts = parts(index)
        // Every item's output was made once at load with these same lists (`checkOutputs`): it cannot fail now.
        let output = try! self.output(parts, index: index)
        return BatchItem(index: index, photo: parts.photo, style: parts.style.name, hairColor: parts.color, variant: parts.variant,
                         settings: parts.settings, output: output,
                         inputHash: BatchJob.inputHash(build: build, photoDigest: photoDigests[PathKey(parts.photo)]!, style: parts.style.identity,
                                                       color: parts.color.name, settingsJSON: parts.settingsJSON ?? parts.settings.canonicalJSON))
    }

    /// Every item's output, made and checked once, holding 16 bytes per item: inside `--out`, a name the
    /// file system takes, no two items (output or sidecar) on one file, none over an input or `reserved`.
    func checkOutputs(outputDirectory: String, inputs: [String], reserved: [String], refuse: (String) -> CoifError) throws {
        var files = FileIdentities()
        var inputKeys: [PathKey: String] = [:]
        for input in inputs { inputKeys[PathKey(OutputPaths.identity(input))] = inputKeys[PathKey(OutputPaths.identity(input))] ?? input }
        let reservedKeys = Set(reserved.map { PathKey(OutputPaths.identity($0)) })
        for path in reserved {
            if let input = inputKeys[PathKey(OutputPaths.identity(path))] {
                throw refuse("\(CoifError.invalidOption(name: path, reason: "cannot write output: it is an input (\(input))"))")
            }
        }
        var written: [Int] = []
        written.reserveCapacity(2 * count)
        let longest = AtomicFile.maxNameBytes - ".coif".utf8.count
        for index in 0..<count {
            let parts = parts(index)
            let what = "item \(index) (\(parts.photoText))"
            let output: String
            do { output = try self.output(parts, index: index) } catch {
                throw refuse("\(what): \(error.reason.hasSuffix("outside the output folder") ? error.reason + " " + outputDirectory : error.reason)")
            }
            // What the file system would refuse at the item's write, refused here: the sidecar's name and its
            // temporary's (`.NAME.coif.tmp-HOST-PID`) must fit in 255 bytes.
            if output.utf8.count > longest, let long = output.split(separator: "/").first(where: { $0.utf8.count > longest }) {
                throw refuse("\(what): output name \"\(long.prefix(40))…\" is \(long.utf8.count) bytes; at most \(longest) (its sidecar and their temporaries must fit in 255)")
            }
            guard output.utf8.count < 4000 else { throw refuse("\(what): output path is \(output.utf8.count) bytes long; at most 4000") }
            for path in [output, output + ".coif"] {
                let key = files.key(path)
                if let input = inputKeys[key] {
                    throw refuse("\(CoifError.invalidOption(name: path, reason: "cannot write output: it is an input (\(input))"))")
                }
                if reservedKeys.contains(key) { throw refuse("item \(index) would write over the results file \(path)") }
                written.append(Self.hash(key))
            }
        }
        // Two items on one file: a repeated hash, then the items that give it found by a second pass.
        written.sort()
        var repeated: Set<Int> = []
        for i in written.indices.dropFirst() where written[i] == written[i - 1] { repeated.insert(written[i]) }
        guard !repeated.isEmpty else { return }
        var first: [PathKey: Int] = [:]
        for index in 0..<count {
            let output = try self.output(parts(index), index: index)
            for path in [output, output + ".coif"] {
                let key = files.key(path)
                guard repeated.contains(Self.hash(key)) else { continue }
                if let other = first[key], other != index {
                    throw refuse("items \(other) and \(index) both write \(path): add {style}, {color} or {variant} to the template")
                }
                first[key] = index
            }
        }
    }

    static func hash(_ key: PathKey) -> Int {
        var hasher = Hasher()
        var path = key.path
        path.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
    }
}

/// Files as `OutputPaths.identity` names them (device and inode where one exists, else the path with its
/// folder's links resolved), with each folder resolved once rather than once per item. Compared as bytes
/// (`PathKey`): names that differ only in Unicode normalisation stay two files.
struct FileIdentities {
    private var folders: [PathKey: String] = [:]

    mutating func key(_ path: String) -> PathKey {
        var info = stat()
        if stat(path, &info) == 0 { return PathKey("inode:\(info.st_dev):\(info.st_ino)") }
        if lstat(path, &info) == 0 { return PathKey("path:" + OutputPaths.canonicalPath(path)) }
        let utf8 = path.utf8
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return PathKey("path:" + OutputPaths.canonicalPath(path)) }
        let folder = PathKey(String(path[..<slash]))
        let resolved: String
        if let known = folders[folder] { resolved = known } else {
            resolved = URL(fileURLWithPath: folder.path.isEmpty ? "/" : folder.path).resolvingSymlinksInPath().path
            folders[folder] = resolved
        }
        return PathKey("path:" + (resolved == "/" ? "" : resolved) + String(path[slash...]))
    }
}
