// BatchReport: one self-contained HTML page over a batch's results files (`coif batch-report`): totals, the
// failures with their reasons, per-stage timing over the items rendered, and a grid of thumbnails (PNG
// data URIs, so the page travels alone). An item's latest line wins, except that a done item stays done (done
// is a file on disk: a second process's later failure on the same item does not undo it).
import CoifCore
import CoifFarm
import CoifMedia
import Foundation

public struct BatchReport: Sendable {
    /// Each item's latest result, by item index.
    public var latest: [Int: BatchItemResult]
    /// Every rendered line (an item rendered twice, by two processes, counts twice in the timings).
    public var renders: [BatchItemResult]
    /// Lines that are no batch result, as `FILE:LINE`: cut by a full disk or a kill mid-append (the next
    /// run ends such a line and appends after it). Reported and skipped; the rest are read.
    public var damagedLines: [String] = []

    /// The largest results file read (bytes): a million items' lines are ~500 MB.
    public static let maxFileBytes = 1 << 30

    public init(resultsFiles: [String]) throws {
        latest = [:]
        renders = []
        let decoder = JSONDecoder()
        for path in resultsFiles {
            let data = try RegularFile.contents(of: path, maxBytes: Self.maxFileBytes, kind: "results file")
            let text = String(decoding: data, as: UTF8.self)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
                guard let result = try? decoder.decode(BatchItemResult.self, from: Data(line.utf8)) else {
                    damagedLines.append("\(path):\(number + 1)")
                    continue
                }
                if let previous = latest[result.index], previous.status == .rendered || previous.status == .done,
                   result.status == .failed || result.status == .stopped { continue }
                latest[result.index] = result
                if result.status == .rendered { renders.append(result) }
            }
        }
    }

    public func count(_ status: BatchItemResult.Status) -> Int { latest.values.filter { $0.status == status }.count }

    /// The outputs `html(thumbnails: limit)` reads for its thumbnails.
    public func thumbnailPaths(_ limit: Int) -> [String] {
        latest.keys.sorted().compactMap { latest[$0] }.filter { $0.status == .rendered || $0.status == .done }.prefix(limit).map(\.output)
    }

    /// Each stage's times (and the item's whole time) over the renders, summarised as `coif bench` and
    /// `coif video --summary` summarise (DurationSummary: one definition of a percentile).
    public var stageSummary: [(stage: String, figures: DurationSummary)] {
        var byStage: [String: [Double]] = [:]
        for r in renders {
            if let ms = r.ms { byStage["item (render + write)", default: []].append(ms) }
            for (stage, ms) in r.stages ?? [:] { byStage[stage, default: []].append(ms) }
        }
        let order = Stage.allCases.map(\.rawValue) + ["item (render + write)"]
        return order.compactMap { stage in
            guard let values = byStage[stage], !values.isEmpty else { return nil }
            return (stage, DurationSummary(values))
        }
    }

    public func html(thumbnails limit: Int) -> String {
        let items = latest.keys.sorted().map { latest[$0]! }
        let failed = items.filter { $0.status == .failed }
        var page = """
        <!doctype html><html><head><meta charset="utf-8"><title>Coif batch report</title><style>
        body{font:14px sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 24px}
        td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}td.n{text-align:right}
        .grid{display:flex;flex-wrap:wrap;gap:8px}.grid figure{margin:0;width:168px;font-size:11px;overflow-wrap:anywhere}
        .grid img{width:160px;border:1px solid #ccc}</style></head><body>
        <h1>Coif batch report</h1>
        <table><tr><th>items</th><th>done</th><th>rendered (last run)</th><th>failed</th><th>stopped (to run again)</th></tr>
        <tr><td class="n">\(items.count)</td><td class="n">\(count(.rendered) + count(.done))</td><td class="n">\(count(.rendered))</td><td class="n">\(failed.count)</td><td class="n">\(count(.stopped))</td></tr></table>

        """
        if !damagedLines.isEmpty {
            page += "<p><b>\(damagedLines.count) damaged line(s) skipped</b> (cut by a full disk or a kill): \(escape(damagedLines.joined(separator: ", ")))</p>\n"
        }
        page += "<h2>Failures (\(failed.count))</h2>\n"
        if failed.isEmpty { page += "<p>None.</p>\n" } else {
            page += "<table><tr><th>item</th><th>photo</th><th>style</th><th>colour</th><th>exit</th><th>reason</th></tr>\n"
            for r in failed {
                page += "<tr><td class=\"n\">\(r.index)</td><td>\(escape(r.photo))</td><td>\(escape(r.style))</td><td>\(escape(r.color))</td><td class=\"n\">\(r.exitCode.map(String.init) ?? "")</td><td>\(escape(r.reason ?? ""))</td></tr>\n"
            }
            page += "</table>\n"
        }
        page += "<h2>Stage timing (ms, over \(renders.count) renders)</h2>\n<table><tr><th>stage</th><th>mean</th><th>p50</th><th>p95</th><th>n</th></tr>\n"
        for row in stageSummary {
            page += "<tr><td>\(row.stage)</td>" + [row.figures.meanMs, row.figures.p50Ms, row.figures.p95Ms].map { String(format: "<td class=\"n\">%.1f</td>", $0) }.joined()
                + "<td class=\"n\">\(row.figures.count)</td></tr>\n"
        }
        page += "</table>\n"
        let done = items.filter { $0.status == .rendered || $0.status == .done }
        let shown = done.prefix(limit)
        page += "<h2>Outputs (\(shown.count) of \(done.count))</h2>\n<div class=\"grid\">\n"
        for r in shown {
            let caption = "\(r.index): \(escape((r.photo as NSString).lastPathComponent)) · \(escape(r.style)) · \(escape(r.color))" + (r.variant.map { " · " + escape($0) } ?? "")
            if let thumbnail = Self.thumbnail(r.output) {
                page += "<figure><img src=\"data:image/png;base64,\(thumbnail)\" alt=\"\"><figcaption>\(caption)</figcaption></figure>\n"
            } else {
                page += "<figure><figcaption>\(caption): \(escape(r.output)) unreadable</figcaption></figure>\n"
            }
        }
        page += "</div></body></html>\n"
        return page
    }

    /// The PNG at `path`, 160 px wide, as base64 PNG; nil when it cannot be read.
    static func thumbnail(_ path: String) -> String? {
        guard let image = try? PNGFile.read(path: path, channels: 3), image.width > 0 else { return nil }
        let width = min(160, image.width)
        let height = max(1, image.height * width / image.width)
        var small = PixelImage(width: width, height: height, channels: 3)
        small.blitDownsampled(image, x: 0, y: 0, width: width, height: height)
        return (try? PNGFile.encode(small)).map { Data($0).base64EncodedString() }
    }

    func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
