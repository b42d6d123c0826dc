// Golden: reference renders you can fail a build on. A manifest lists try-on cases; `record` renders each
// through the real pipeline (one TryOnEngine, one process) and stores NAME.png + NAME.json (the context it
// was rendered in); `verify` renders again and compares with CoifDiff; `GoldenReport` writes one
// self-contained HTML page. Nothing here prints or exits: the `coif golden` command does.
//
// Tolerance policy: a golden recorded by the same renderer (GL_RENDERER string, and for llvmpipe the host
// CPU's vector instructions: `GPUContext.pixelIdentity`) must match pixel for pixel — Coif promises identical
// bytes for identical inputs on one machine — unless the case's tolerance sets `"alsoOnSameRenderer": true`.
// Across renderers (another Mesa/LLVM, another CPU under llvmpipe, a GPU) the case's tolerance applies
// (defaults: threshold 24, 0.5% of pixels, anti-aliasing ignored) and the mismatch is reported.
import CoifCore
import CoifDiff
import CoifMedia
import CoifPipeline
import CoifRender
import Foundation

/// One case of a manifest. JSON: {"name", "photo", "style", "color", "seed", "flags": {…}, "tolerance": {…}};
/// only name, photo and color are required. `flags` are RenderSettings, `coif render`'s flags by name
/// ("fovDegrees", "detail", "keepOwnHair", "noShadows", …), as a batch job's settings.
public struct GoldenCase: Codable, Sendable, Equatable {
    public var name: String
    /// Relative to the manifest's directory, or absolute.
    public var photo: String
    /// nil = the catalog's default.
    public var style: String?
    public var color: String
    /// nil = 1, as `coif render`.
    public var seed: UInt64?
    public var flags: RenderSettings?
    public var tolerance: GoldenTolerance?
}

extension GoldenCase {
    /// As synthesised, except that a seed which is no whole number 0…2⁶⁴−1 (`-1`, `1.5`) is reported as a
    /// bad seed rather than as JSON the decoder could not read.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        photo = try c.decode(String.self, forKey: .photo)
        style = try c.decodeIfPresent(String.self, forKey: .style)
        color = try c.decode(String.self, forKey: .color)
        do { seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) } catch {
            throw DecodingError.dataCorruptedError(forKey: .seed, in: c,
                                                   debugDescription: "bad seed: must be a whole number 0…18446744073709551615")
        }
        flags = try c.decodeIfPresent(RenderSettings.self, forKey: .flags)
        tolerance = try c.decodeIfPresent(GoldenTolerance.self, forKey: .tolerance)
    }
}

/// How far a render may drift from its reference across renderers (see the file comment).
public struct GoldenTolerance: Codable, Sendable, Equatable {
    /// Per-channel difference in 8-bit steps above which a pixel differs (default 24).
    public var threshold: Double?
    /// Percentage of pixels that may differ (default 0.5).
    public var maxDifferingPercent: Double?
    /// Leave anti-aliased edge pixels out of the count (default true).
    public var ignoreAntialiasing: Bool?
    /// Apply this tolerance on the recording renderer too (default false: exact there).
    public var alsoOnSameRenderer: Bool?

    public static let acrossRenderersDefault = GoldenTolerance(threshold: 24, maxDifferingPercent: 0.5,
                                                               ignoreAntialiasing: true, alsoOnSameRenderer: false)
}

/// A parsed manifest: its cases and the directory relative photo paths start from.
public struct GoldenManifest: Sendable {
    public var path: String
    public var cases: [GoldenCase]

    public var directory: String { (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent }

    /// `inputMissing` (10) when unreadable; `invalidOption` (22) naming the manifest when malformed,
    /// empty, or when a name repeats or is not a plain file name ([A-Za-z0-9._-]).
    public static func load(path: String) throws -> GoldenManifest {
        guard let data = FileManager.default.contents(atPath: path) else { throw CoifError.inputMissing(path: path) }
        let cases: [GoldenCase]
        do {
            cases = try JSONDecoder().decode([GoldenCase].self, from: data)
        } catch {
            throw CoifError.invalidOption(name: path, reason: "not a golden manifest (a JSON array of cases): \((error as? DecodingError)?.oneLine ?? "\(error)")")
        }
        guard !cases.isEmpty else { throw CoifError.invalidOption(name: path, reason: "no cases") }
        var seen = Set<String>()
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        for c in cases {
            guard !c.name.isEmpty, c.name.allSatisfy(allowed.contains), !c.name.hasPrefix(".") else {
                throw CoifError.invalidOption(name: path, reason: "case name '\(c.name)' must be a plain file name ([A-Za-z0-9._-])")
            }
            guard seen.insert(c.name).inserted else {
                throw CoifError.invalidOption(name: path, reason: "case name '\(c.name)' appears twice")
            }
            if let t = c.tolerance?.threshold, !(0...255).contains(t) {
                throw CoifError.invalidOption(name: "\(path): \(c.name): tolerance.threshold", reason: "must be 0…255, got \(t)")
            }
            if let p = c.tolerance?.maxDifferingPercent, !(0...100).contains(p) {
                throw CoifError.invalidOption(name: "\(path): \(c.name): tolerance.maxDifferingPercent", reason: "must be 0…100, got \(p)")
            }
        }
        return GoldenManifest(path: path, cases: cases)
    }

    public func photoPath(_ c: GoldenCase) -> String {
        c.photo.hasPrefix("/") ? c.photo : directory + "/" + c.photo
    }

    /// The files a run of this manifest reads: the manifest and every case's photo.
    public var inputPaths: [String] { [path] + cases.map(photoPath) }

    /// The files `record` writes in `directory`, and `verify` reads there: each case's NAME.png and NAME.json.
    public func referencePaths(in directory: String) -> [String] {
        cases.flatMap { [directory + "/\($0.name).png", directory + "/\($0.name).json"] }
    }
}

/// What a golden's NAME.json holds: the context the reference was rendered in.
public struct GoldenMetadata: Codable, Sendable, Equatable {
    public var renderer: String
    public var coifVersion: String
    public var width: Int
    public var height: Int
    /// The flags as rendered (defaults filled in).
    public var style: String
    public var color: String
    public var seed: UInt64
    public var fovDegrees: Double?
    public var detail: Double
    public var `case`: GoldenCase
}

/// One case rendered now.
public struct RenderedCase: Sendable {
    public var goldenCase: GoldenCase
    public var image: PixelImage
    public var metadata: GoldenMetadata
}

/// The outcome of verifying one case.
public struct GoldenCaseResult: Sendable {
    public enum Status: String, Sendable { case pass, fail, missingReference = "missing-reference" }
    public var name: String
    public var status: Status
    /// nil when there is no reference.
    public var difference: ImageDifference?
    /// The tolerance applied, in words ("exact (same renderer)", "threshold 24, ≤0.5%, AA ignored").
    public var rule: String
    /// Set when the reference was recorded by another renderer.
    public var rendererNote: String?
    public var message: String
    public var referencePNG: [UInt8]?
    public var actualPNG: [UInt8]
    public var heatmapPNG: [UInt8]?
}

public struct GoldenVerifyOutcome: Sendable {
    public var manifest: String
    public var renderer: String
    public var coifVersion: String
    public var results: [GoldenCaseResult]
    public var passed: Bool { results.allSatisfy { $0.status == .pass } }
    /// Failing cases first, then passing, each in manifest order.
    public var reportOrder: [GoldenCaseResult] { results.filter { $0.status != .pass } + results.filter { $0.status == .pass } }
}

public struct GoldenRecordOutcome: Sendable {
    public enum Change: String, Sendable { case new, unchanged, changed, metadataOnly = "metadata-only" }
    /// Per case, in manifest order.
    public var changes: [(name: String, change: Change, detail: String)]
    /// False when changed references were found without `force`: then nothing was written.
    public var written: Bool
    public var changedNames: [String] { changes.filter { $0.change == .changed }.map(\.name) }
}

/// Renders a manifest through one engine and records or verifies its goldens.
public final class GoldenRunner {
    public let engine: TryOnEngine
    public let coifVersion: String

    public init(engine: TryOnEngine, coifVersion: String) {
        self.engine = engine
        self.coifVersion = coifVersion
    }

    /// The case as a try-on job (photo resolved against the manifest), so it is checked exactly as
    /// `coif render` checks its flags. The seed may be given as the case's `seed` or as `flags.seed`; both,
    /// disagreeing, is refused (exit 22, naming the case by the caller): one silently won before.
    public func job(_ c: GoldenCase, in manifest: GoldenManifest) throws -> TryOnJob {
        var job = TryOnJob(photoPath: manifest.photoPath(c), style: c.style, color: try HairColor.parse(c.color))
        if let seed = c.seed, let flagSeed = c.flags?.seed, seed != flagSeed {
            throw CoifError.invalidOption(name: "seed", reason: "the case's seed \(seed) and flags.seed \(flagSeed) disagree; give one")
        }
        try c.flags?.apply(to: &job)
        if let seed = c.seed { job.seed = seed }
        return job
    }

    /// Renders every case, analysing each (photo, field of view) once.
    public func render(_ manifest: GoldenManifest) throws -> [RenderedCase] {
        // Check every case's arguments before the first render; errors name the case.
        var jobs: [TryOnJob] = []
        for c in manifest.cases {
            do {
                let job = try job(c, in: manifest)
                try job.validate(styles: engine.styles)
                jobs.append(job)
            } catch CoifError.invalidOption(let name, let reason) {
                throw CoifError.invalidOption(name: "\(c.name): \(name)", reason: reason)
            }
        }
        // Every photo's faces are kept; the parse and plate of the last photo only (a plate can be ~140 MB).
        var analyses: [String: [PhotoAnalysis]] = [:]
        var current: (key: String, photo: AnalysedPhoto)?
        var rendered: [RenderedCase] = []
        for (c, job) in zip(manifest.cases, jobs) {
            let key = "\(job.input.name)|\(job.face)|\(job.fieldOfViewDegrees.map { String($0) } ?? "-")"
            var timing = FrameTiming()
            if current?.key != key {
                current = nil
                let found = try analyses[key] ?? engine.analyse(
                    try TryOnEngine.decode(job.input, fieldOfViewDegrees: job.fieldOfViewDegrees, timing: &timing), faces: job.face, timing: &timing)
                analyses[key] = found
                current = (key, AnalysedPhoto(found))
            }
            let result = try current!.photo.render(job, engine: engine, timing: &timing)
            let image = result.images.composite
            let metadata = GoldenMetadata(renderer: engine.pixelIdentity, coifVersion: coifVersion,
                                          width: image.width, height: image.height,
                                          style: try engine.style(named: c.style).name, color: c.color, seed: job.seed,
                                          fovDegrees: job.fieldOfViewDegrees, detail: job.detail, case: c)
            rendered.append(RenderedCase(goldenCase: c, image: image, metadata: metadata))
        }
        return rendered
    }

    /// Renders and stores DIR/NAME.png and DIR/NAME.json for every case (creating DIR). A reference that
    /// exists and differs in any pixel is replaced only with `force`; without it nothing at all is written
    /// and the outcome lists the changed cases. Identical pixels keep the PNG untouched.
    public func record(_ manifest: GoldenManifest, directory: String, force: Bool) throws -> GoldenRecordOutcome {
        try AtomicFile.checkDirectory(directory)  // before the first render
        // A case named like the manifest or its photo (`cases` beside cases.json, `p` beside p.png) would
        // write its reference over it.
        try OutputPaths.check(manifest.referencePaths(in: directory), inputs: manifest.inputPaths + engine.styles.catalogFiles)
        let cases = try render(manifest)
        var changes: [(name: String, change: GoldenRecordOutcome.Change, detail: String)] = []
        var writes: [(String, [UInt8])] = []
        for r in cases {
            let name = r.goldenCase.name
            let pngPath = directory + "/\(name).png", jsonPath = directory + "/\(name).json"
            let metadataBytes = try metadataJSON(r.metadata)
            if FileManager.default.fileExists(atPath: pngPath) {
                let reference = try DiffImage.load(pngPath, channels: r.image.channels)
                let difference = try ImageDiff.compare(reference, DiffImage(r.image, name: "render of \(name)"), options: DiffOptions()).difference
                if difference.differingPixels == 0 {
                    let old = FileManager.default.contents(atPath: jsonPath).map { [UInt8]($0) }
                    if old == metadataBytes {
                        changes.append((name, .unchanged, "pixels and context unchanged"))
                    } else {
                        changes.append((name, .metadataOnly, "pixels unchanged; context updated"))
                        writes.append((jsonPath, metadataBytes))
                    }
                    continue
                }
                changes.append((name, .changed, difference.summary(within: false)))
            } else {
                changes.append((name, .new, "\(r.image.width)x\(r.image.height)"))
            }
            writes.append((pngPath, try PNGFile.encode(r.image, compression: .small)))
            writes.append((jsonPath, metadataBytes))
        }
        let refused = !force && changes.contains { $0.change == .changed }
        if !refused {
            try AtomicFile.write(all: writes.map { ($0.0, $0.1, true) })
        }
        return GoldenRecordOutcome(changes: changes, written: !refused)
    }

    /// Renders every case and compares it with DIR/NAME.png under the policy in the file comment.
    /// `withImages` keeps reference, actual and heatmap PNG bytes for a report.
    public func verify(_ manifest: GoldenManifest, directory: String, withImages: Bool) throws -> GoldenVerifyOutcome {
        let cases = try render(manifest)
        var results: [GoldenCaseResult] = []
        for r in cases {
            let name = r.goldenCase.name
            let pngPath = directory + "/\(name).png", jsonPath = directory + "/\(name).json"
            let actualPNG = withImages ? try PNGFile.encode(r.image) : []
            guard FileManager.default.fileExists(atPath: pngPath) else {
                results.append(GoldenCaseResult(name: name, status: .missingReference, difference: nil, rule: "-",
                                                rendererNote: nil, message: "no reference \(pngPath): run `coif golden record`",
                                                referencePNG: nil, actualPNG: actualPNG, heatmapPNG: nil))
                continue
            }
            // Without its context a reference cannot say which rule applies: that is a failure, never a
            // silent switch to the looser across-renderers tolerance.
            guard let recorded = FileManager.default.contents(atPath: jsonPath)
                .flatMap({ try? JSONDecoder().decode(GoldenMetadata.self, from: $0) }) else {
                results.append(GoldenCaseResult(name: name, status: .fail, difference: nil, rule: "-", rendererNote: nil,
                                                message: "reference context \(jsonPath) is missing or malformed: run `coif golden record`",
                                                referencePNG: nil, actualPNG: actualPNG, heatmapPNG: nil))
                continue
            }
            let sameRenderer = recorded.renderer == engine.pixelIdentity
            let tolerance = r.goldenCase.tolerance ?? GoldenTolerance.acrossRenderersDefault
            let defaults = GoldenTolerance.acrossRenderersDefault
            let exact = sameRenderer && !(tolerance.alsoOnSameRenderer ?? false)
            let threshold = exact ? 0 : tolerance.threshold ?? defaults.threshold!
            let percent = exact ? 0 : tolerance.maxDifferingPercent ?? defaults.maxDifferingPercent!
            let ignoreAA = exact ? false : tolerance.ignoreAntialiasing ?? defaults.ignoreAntialiasing!
            let rule = exact ? "exact (same renderer)"
                : "threshold \(threshold), at most \(percent)% of pixels" + (ignoreAA ? ", anti-aliasing ignored" : "")
            let note: String? = sameRenderer ? nil
                : "recorded by '\(recorded.renderer)', rendered by '\(engine.pixelIdentity)'"
            let reference = try DiffImage.load(pngPath, channels: r.image.channels)
            guard reference.width == r.image.width, reference.height == r.image.height else {
                results.append(GoldenCaseResult(name: name, status: .fail, difference: nil, rule: rule, rendererNote: note,
                                                message: "size changed: reference \(reference.width)x\(reference.height), render \(r.image.width)x\(r.image.height)",
                                                referencePNG: withImages ? FileManager.default.contents(atPath: pngPath).map { [UInt8]($0) } : nil,
                                                actualPNG: actualPNG, heatmapPNG: nil))
                continue
            }
            let options = DiffOptions(threshold: threshold, ignoreAntialiasing: ignoreAA, keepMap: withImages)
            let (difference, map) = try ImageDiff.compare(reference, DiffImage(r.image, name: "render of \(name)"), options: options)
            let pass = PixelBudget.percent(percent).allows(difference) && (!exact || difference.differingPixels == 0)
            results.append(GoldenCaseResult(
                name: name, status: pass ? .pass : .fail, difference: difference, rule: rule, rendererNote: note,
                message: difference.summary(within: pass),
                referencePNG: withImages ? FileManager.default.contents(atPath: pngPath).map { [UInt8]($0) } : nil,
                actualPNG: actualPNG,
                heatmapPNG: try map.map { try PNGFile.encode(Heatmap.render($0, threshold: threshold)) }))
        }
        return GoldenVerifyOutcome(manifest: manifest.path, renderer: engine.pixelIdentity, coifVersion: coifVersion,
                                   results: results)
    }

    private func metadataJSON(_ metadata: GoldenMetadata) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return Array(try encoder.encode(metadata)) + [10]
    }
}

/// One self-contained HTML page for a verify run: per case, reference | actual | heatmap (PNG data URIs)
/// and the figures; failing cases first.
public enum GoldenReport {
    public static func html(_ outcome: GoldenVerifyOutcome) -> String {
        let failed = outcome.results.filter { $0.status != .pass }.count
        var page = """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>coif golden verify: \(escape(outcome.manifest))</title>
        <style>
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
        .case{border:1px solid #ccc;border-radius:6px;margin:1em 0;padding:.8em}
        .fail{border-color:#c33;background:#fff5f5}.pass{border-color:#3a3}
        .imgs{display:flex;gap:1em;flex-wrap:wrap}.imgs figure{margin:0}
        .imgs img{max-width:31vw;image-rendering:pixelated;border:1px solid #ddd}
        table{border-collapse:collapse}td{padding:1px 10px 1px 0}code{background:#f3f3f3}
        </style></head><body>
        <h1>coif golden verify: \(failed == 0 ? "all \(outcome.results.count) pass" : "\(failed) of \(outcome.results.count) FAIL")</h1>
        <p>manifest <code>\(escape(outcome.manifest))</code>; renderer <code>\(escape(outcome.renderer))</code>; coif \(escape(outcome.coifVersion))</p>

        """
        for r in outcome.reportOrder {
            let css = r.status == .pass ? "pass" : "fail"
            page += "<div class=\"case \(css)\" id=\"case-\(escape(r.name))\"><h2>\(r.status == .pass ? "PASS" : "FAIL") \(escape(r.name))</h2>\n"
            page += "<p>\(escape(r.message))</p><p>tolerance: \(escape(r.rule))</p>\n"
            if let note = r.rendererNote { page += "<p><b>renderer mismatch:</b> \(escape(note))</p>\n" }
            if let d = r.difference {
                page += "<table>"
                let rows: [(String, String)] = [
                    ("differing pixels", "\(d.differingPixels) of \(d.comparedPixels) (\(formatted(d.differingPercent, 4))%)"),
                    ("anti-aliased pixels", "\(d.antialiasedPixels)\(d.ignoringAntialiasing ? " (ignored)" : "")"),
                    ("max / mean channel error", "\(formatted(d.maxChannelError, 2)) / \(formatted(d.meanAbsoluteError, 4))"),
                    ("PSNR", d.psnr.isFinite ? "\(formatted(d.psnr, 2)) dB" : "inf"),
                    ("SSIM (8×8 luma)", d.ssim.map { formatted($0, 6) } ?? "n/a"),
                    ("CIEDE2000 mean / max", "\(formatted(d.deltaE00Mean, 4)) / \(formatted(d.deltaE00Max, 3))"),
                    ("box", d.bounds.map { "(\($0.minX),\($0.minY))–(\($0.maxX),\($0.maxY))" } ?? "none"),
                ]
                for (k, v) in rows { page += "<tr><td>\(k)</td><td>\(escape(v))</td></tr>" }
                page += "</table>\n"
            }
            page += "<div class=\"imgs\">"
            for (title, bytes) in [("reference", r.referencePNG), ("actual", Optional(r.actualPNG)), ("heatmap", r.heatmapPNG)] {
                guard let bytes, !bytes.isEmpty else { continue }
                page += "<figure><img alt=\"\(title)\" src=\"data:image/png;base64,\(Data(bytes).base64EncodedString())\"><figcaption>\(title)</figcaption></figure>"
            }
            page += "</div></div>\n"
        }
        return page + "</body></html>\n"
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func formatted(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
}
