// StyleLibrary: the one place a style name or a groom file becomes guides on Coif's head, and the one cache
// of what a style costs to prepare. Three origins: the built-in catalog (embedded Meshes/), user catalog
// directories (`--styles DIR`, COIF_STYLES; what `coif groom import --out DIR` writes), and a groom file
// named directly (.tfx, .data, Assimp curves, hair cards), fitted to the head as `groom import` fits it,
// nothing written. Render, preview, sheet, golden and bench all resolve styles here, so a style means the
// same thing in each, and each is loaded once per process.
import CoifCore
import Foundation

/// Where a style's guides come from.
public enum StyleOrigin: Sendable, Equatable {
    case builtIn
    /// A user catalog directory (holding catalog.json and styles/).
    case user(directory: String)
    /// A groom file named directly, fitted to Coif's head on load (by its own head mesh when given).
    case file(path: String, headPath: String?)

    public var label: String {
        switch self {
        case .builtIn: return "built-in"
        case .user(let directory): return "user (\(directory))"
        case .file(let path, _): return "file (\(path))"
        }
    }
}

/// A resolved style: its catalog entry (made up for a file) and where it comes from.
public struct Style: Sendable, Equatable {
    public var entry: StyleEntry
    public var origin: StyleOrigin
    public var name: String { entry.name }
    /// Unique within a process: the cache key of everything derived from the style.
    public var key: String {
        switch origin {
        case .builtIn: return "builtin:" + entry.name
        case .user(let directory): return "user:" + PathKey.exactText(directory) + "|" + entry.name
        case .file(let path, let headPath): return "file:" + StyleLibrary.fileKey(path, headPath: headPath)
        }
    }
}

/// One row of `coif styles`: an entry, its origin, and whether a user entry hides a built-in of that name.
public struct StyleListing: Sendable {
    public var style: Style
    public var overridesBuiltIn: Bool
    public var isDefault: Bool
}

/// Thread-safe: one lock guards the caches (a one-shot command prepares a style on a second thread while
/// the GPU comes up, then draws it on the first).
public final class StyleLibrary: @unchecked Sendable {
    /// A library with the same catalogs and empty caches (what a new process starts with).
    public func emptied() throws -> StyleLibrary {
        try StyleLibrary(builtIn: builtIn, builtInFile: builtInFile, userDirectories: userCatalogs.map(\.directory), head: head)
    }

    /// The environment variable naming user catalog directories (colon-separated), as `--styles` does.
    public static let environmentVariable = "COIF_STYLES"
    /// Widths of strands from a groom file: the catalog's usual fine strands (mm).
    public static let fileWidths = (rootMm: Float(0.3), tipMm: Float(0.1))

    public let head: HeadModel
    public let builtIn: StyleCatalog
    /// User catalogs, in the order given (a later directory wins over an earlier one on a shared name).
    public let userCatalogs: [(directory: String, catalog: StyleCatalog)]
    private let builtInFile: @Sendable (String) -> String?
    private let lock = NSLock()
    private var files: [String: (entry: StyleEntry, guides: StrandSet)] = [:]
    private var grooms: [String: Groom] = [:]
    private var resampling: [String: [Float]] = [:]
    private var strandLengths: [String: Float] = [:]
    private var underLayers: [String: UnderLayer] = [:]
    private var boxes: [String: (low: Vec3, high: Vec3)] = [:]
    private var fronts: [String: Vec3?] = [:]

    /// - Parameters:
    ///   - builtInFile: the text of a built-in catalog file by its catalog path ("styles/bob.obj").
    ///   - userDirectories: user catalog directories; each must hold a readable catalog.json.
    public init(builtIn: StyleCatalog, builtInFile: @escaping @Sendable (String) -> String?, userDirectories: [String] = [],
                head: HeadModel) throws {
        self.builtIn = builtIn
        self.builtInFile = builtInFile
        self.head = head
        userCatalogs = try userDirectories.map { ($0, try Self.readCatalog(directory: $0)) }
    }

    /// Every file a command using `style` from this library reads or could: each user catalog's catalog.json
    /// and groom files, a groom file named directly and its head. No output may be one of them (`OutputPaths`):
    /// a render written over a user catalog's catalog.json or groom had replaced it.
    public func inputPaths(_ style: Style) -> [String] {
        var paths = catalogFiles
        if case .file(let path, let headPath) = style.origin { paths += [path] + (headPath.map { [$0] } ?? []) }
        return paths
    }

    /// Every user catalog's files: its catalog.json and each entry's groom.
    public var catalogFiles: [String] { userCatalogs.flatMap { Self.catalogFiles(directory: $0.directory, catalog: $0.catalog) } }

    /// The files of the user catalogs in `directories` (catalog.json and each entry's groom), for a command
    /// that checks its outputs before it loads them; a catalog that does not parse gives its catalog.json only
    /// (loading it fails later with its own error).
    public static func userCatalogFiles(directories: [String]) -> [String] {
        directories.flatMap { directory -> [String] in
            guard let catalog = try? readCatalog(directory: directory) else {
                return [(directory as NSString).appendingPathComponent("catalog.json")]
            }
            return catalogFiles(directory: directory, catalog: catalog)
        }
    }

    static func catalogFiles(directory: String, catalog: StyleCatalog) -> [String] {
        [(directory as NSString).appendingPathComponent("catalog.json")]
            + catalog.styles.map { (directory as NSString).appendingPathComponent($0.file) }
    }

    /// The user catalog directories named by `COIF_STYLES` (colon-separated; empty parts ignored).
    public static func environmentDirectories(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        (environment[environmentVariable] ?? "").split(separator: ":").map(String.init)
    }

    /// The largest catalog.json read: 16 MiB, some forty thousand styles.
    public static let catalogLimitBytes: UInt64 = 16 << 20

    /// A user directory's catalog.json: `inputMissing` when the directory or its catalog is absent,
    /// `assetFailed` when the catalog does not parse.
    static func readCatalog(directory: String) throws -> StyleCatalog {
        let path = (directory as NSString).appendingPathComponent("catalog.json")
        // A catalog is a few hundred bytes a style: one over `catalogLimitBytes` is refused from its size (a
        // 1.6 GB catalog.json had been read whole, and aborted).
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? UInt64, size > catalogLimitBytes {
            throw CoifError.assetFailed(path: path, reason: "too large for a catalog (\(size) bytes; at most \(catalogLimitBytes))")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw CoifError.inputMissing(path: path) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CoifError.assetFailed(path: path, reason: "not valid UTF-8 JSON")
        }
        do { return try StyleCatalog.parse(json: text) } catch CoifError.assetFailed(_, let reason) {
            throw CoifError.assetFailed(path: path, reason: reason)
        }
    }

    public var defaultStyle: String { builtIn.defaultStyle }

    /// Every catalog style, built-in order first, then each user catalog's new names; a user entry replaces
    /// a built-in (or earlier user) entry of the same name in place.
    public var listing: [StyleListing] {
        var rows = builtIn.styles.map { StyleListing(style: Style(entry: $0, origin: .builtIn), overridesBuiltIn: false, isDefault: false) }
        for (directory, catalog) in userCatalogs {
            for entry in catalog.styles {
                let style = Style(entry: entry, origin: .user(directory: directory))
                if let i = rows.firstIndex(where: { $0.style.name == entry.name }) {
                    rows[i] = StyleListing(style: style, overridesBuiltIn: rows[i].style.origin == .builtIn || rows[i].overridesBuiltIn,
                                           isDefault: false)
                } else {
                    rows.append(StyleListing(style: style, overridesBuiltIn: false, isDefault: false))
                }
            }
        }
        for i in rows.indices { rows[i].isDefault = rows[i].style.name == defaultStyle }
        return rows
    }

    /// Every catalog style name (see `listing`).
    public var names: [String] { listing.map(\.style.name) }

    /// A catalog name (user catalogs win), else an existing groom file, fitted to the head (with its own
    /// head mesh at `headPath` when given). nil = the default style. `unknownStyle` (20) when neither;
    /// `assetFailed` (50) when the file is no groom Coif reads.
    public func resolve(_ nameOrFile: String?, headPath: String? = nil) throws -> Style {
        let wanted = nameOrFile ?? defaultStyle
        if let row = listing.first(where: { $0.style.name == wanted }) { return row.style }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: wanted, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw CoifError.unknownStyle(name: wanted, known: names)
        }
        return Style(entry: try importedFile(wanted, headPath: headPath).entry, origin: .file(path: wanted, headPath: headPath))
    }

    /// A groom file's guides fitted to the head, and an entry describing them (imported once).
    private func importedFile(_ path: String, headPath: String?) throws -> (entry: StyleEntry, guides: StrandSet) {
        let key = Self.fileKey(path, headPath: headPath)
        if let known = locked({ files[key] }) { return known }
        let placed = try GroomImport.load(path: path, headPath: headPath, head: head)
        let entry = StyleEntry(name: (path as NSString).lastPathComponent, file: path, description: "Groom file \(path)",
                               tags: ["file", placed.format], guides: placed.strands.strandCount,
                               pointsPerGuide: placed.strands.pointsPerStrand,
                               rootWidthMm: Self.fileWidths.rootMm, tipWidthMm: Self.fileWidths.tipMm)
        locked { files[key] = (entry, placed.strands) }
        return (entry, placed.strands)
    }

    /// A file's cache key: its path, and the head mesh it was fitted with, by their bytes (two names that
    /// differ only in Unicode normalisation are two files).
    static func fileKey(_ path: String, headPath: String?) -> String {
        headPath.map { PathKey.exactText(path) + "\u{0}" + PathKey.exactText($0) } ?? PathKey.exactText(path)
    }

    /// Every strand a frame of `style` draws: its guides and the children interpolated between them (`count`
    /// in all, `pointsPerStrand` each, placed by `seed`), slid to a person's hairline when `slide` is given.
    /// The one scene builder of a still, a batch item and a preview.
    public func strands(_ style: Style, count: Int, pointsPerStrand: Int, seed: UInt64, slide: ScalpSlide? = nil) throws -> StrandSet {
        let groom = try groom(style)
        let interpolation = ChildInterpolation.standard(strands: count, groom: groom, pointsPerStrand: pointsPerStrand, seed: seed)
        // Slid after interpolation: children are rooted on Coif's scalp, so sliding the guides alone would
        // leave the children's roots behind.
        let strands = interpolation.apply(guides: groom.guides, head: head)
        return slide.map { $0.apply(to: strands, shape: head.shape) } ?? strands
    }

    /// The style's guides, loaded once.
    public func groom(_ style: Style) throws -> Groom {
        if let known = locked({ grooms[style.key] }) { return known }
        let entry = style.entry
        var groom: Groom
        switch style.origin {
        case .builtIn:
            guard let text = builtInFile(entry.file) else {
                throw CoifError.assetFailed(path: "Meshes/" + entry.file, reason: "not embedded in this build")
            }
            groom = try Groom.load(objText: text, name: "Meshes/" + entry.file, pointsPerStrand: entry.pointsPerGuide,
                                   rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
        case .user(let directory):
            let path = (directory as NSString).appendingPathComponent(entry.file)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw CoifError.inputMissing(path: path) }
            groom = try Groom.load(objText: text, name: path, pointsPerStrand: entry.pointsPerGuide,
                                   rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
        case .file(let path, let headPath):
            let imported = try importedFile(path, headPath: headPath)
            groom = Groom(name: entry.name, guides: imported.guides, rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
        }
        groom.strandCoil = entry.strandCoil
        locked { grooms[style.key] = groom }
        return groom
    }

    /// The style's `resamplingErrorsMm` (its shape's need for points, for the level of detail), once.
    public func resamplingErrors(_ style: Style) throws -> [Float] {
        if let known = locked({ resampling[style.key] }) { return known }
        let errors = try groom(style).guides.resamplingErrorsMm()
        locked { resampling[style.key] = errors }
        return errors
    }

    /// The style's mean guide length (StrandSet.meanLengthMm: how much of the head a strand covers, for the
    /// level of detail), once.
    public func meanStrandLength(_ style: Style) throws -> Float {
        if let known = locked({ strandLengths[style.key] }) { return known }
        let length = try groom(style).guides.meanLengthMm()
        locked { strandLengths[style.key] = length }
        return length
    }

    /// The scalp the style's roots cover (its under-layer), once.
    public func underLayer(_ style: Style) throws -> UnderLayer {
        if let known = locked({ underLayers[style.key] }) { return known }
        let layer = try groom(style).underLayer(head: head, radiusMm: Groom.underLayerRadiusMm)
        locked { underLayers[style.key] = layer }
        return layer
    }

    /// The head-space box of the style's guides and under-layer corners, grown by `marginMm` (the part of
    /// the photo its hair can cover), slid as `slide` says.
    public func headSpaceBox(_ style: Style, marginMm: Float, slid slide: ScalpSlide? = nil) throws -> (low: Vec3, high: Vec3) {
        let key = style.key + "|\(marginMm)" + Self.slideKey(slide)
        if let known = locked({ boxes[key] }) { return known }
        var low = Vec3(repeating: .infinity), high = Vec3(repeating: -.infinity)
        for index in try underLayer(style, slid: slide).triangles {
            let p = head.vertices[Int(index)]
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        for p in try groom(style, slid: slide).guides.positions { low = pointwiseMin(low, p); high = pointwiseMax(high, p) }
        let box = (low - Vec3(repeating: marginMm), high + Vec3(repeating: marginMm))
        locked {
            if boxes.count >= Self.slidCacheLimit { boxes.removeAll() }
            boxes[key] = box
        }
        return box
    }

    /// The style's guides slid over the scalp (ScalpSlide; as loaded for nil or no slide). Not kept: it is a
    /// pass over the guides, and every photo has its own slide.
    public func groom(_ style: Style, slid slide: ScalpSlide?) throws -> Groom {
        var groom = try groom(style)
        guard let slide, !slide.isIdentity else { return groom }
        groom.guides = slide.apply(to: groom.guides, shape: head.shape)
        return groom
    }

    /// The under-layer of the slid style, once per style and slide.
    public func underLayer(_ style: Style, slid slide: ScalpSlide?) throws -> UnderLayer {
        guard let slide, !slide.isIdentity else { return try underLayer(style) }
        let key = style.key + Self.slideKey(slide)
        if let known = locked({ underLayers[key] }) { return known }
        let layer = try groom(style, slid: slide).underLayer(head: head, radiusMm: Groom.underLayerRadiusMm)
        locked {
            if underLayers.count >= Self.slidCacheLimit { underLayers.removeAll() }
            underLayers[key] = layer
        }
        return layer
    }

    /// Entries kept per cache of slid styles before it is emptied (a batch of many photos has many slides).
    static let slidCacheLimit = 64

    /// A slide's part of a cache key ("" for none).
    public static func slideKey(_ slide: ScalpSlide?) -> String {
        guard let slide, !slide.isIdentity else { return "" }
        return "|slide:\(slide.tilt.bitPattern):\(slide.front.x.bitPattern),\(slide.front.y.bitPattern),\(slide.front.z.bitPattern)"
    }

    /// Where the style's hair starts at the front (head space, mm): among the roots near the midline (within
    /// 15% of the cranium's half-width) on the front half of the head, the lowest but for a twentieth (a stray
    /// root is not the hairline). nil for a style with no roots there. Once per style.
    public func frontHairline(_ style: Style) throws -> Vec3? {
        if let known = locked({ fronts[style.key] }) { return known }
        let guides = try groom(style).guides
        let centre = head.shape.craniumCentre, halfWidth = head.shape.craniumRadii.x
        var front: [Vec3] = []
        for i in 0..<guides.strandCount {
            let root = guides.positions[i * guides.pointsPerStrand]
            if abs(root.x) <= 0.15 * halfWidth && root.z > centre.z { front.append(root) }
        }
        front.sort { $0.y < $1.y }
        let found: Vec3? = front.isEmpty ? nil : front[front.count / 20]
        locked { fronts[style.key] = found }
        return found
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

extension ChildInterpolation {
    /// The children every try-on, preview, sheet and benchmark draws: clumped a third of the way onto
    /// their nearest guide at the tip, with 1.2 mm of seeded noise (looks tuned on the catalog styles).
    public static func standard(childCount: Int, pointsPerStrand: Int, seed: UInt64, coil: StrandCoil? = nil) -> ChildInterpolation {
        var interpolation = ChildInterpolation(childCount: childCount, pointsPerStrand: pointsPerStrand, seed: seed, clump: 0.35,
                                               noiseMm: 1.2)
        interpolation.coil = coil
        interpolation.flyaways = .standard
        return interpolation
    }

    /// `standard` drawing exactly `strands` strands of `groom`: every guide plus children (with the groom's
    /// coil, if any), or, asked for fewer than the guides, that many guides evenly spaced and no children.
    public static func standard(strands: Int, groom: Groom, pointsPerStrand: Int, seed: UInt64) -> ChildInterpolation {
        let guides = groom.guides.strandCount
        var interpolation = standard(childCount: max(strands - guides, 0), pointsPerStrand: pointsPerStrand, seed: seed,
                                     coil: groom.strandCoil)
        if strands < guides { interpolation.guideLimit = strands }
        return interpolation
    }
}

extension StrandFlyaways {
    /// About 100 flyaways a head, each free for up to a quarter of its length and at most 30 mm: a few dozen
    /// loose fibres catch the light at a groomed head's outline in a portrait.
    public static let standard = StrandFlyaways(count: 100, freeShare: 0.25, freeMm: 30)
}
