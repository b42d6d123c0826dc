// TimingChart: a video's per-frame timing CSV (`coif video --timing`) drawn so a person sees where the time
// goes: a bar per frame stacked by stage (milliseconds up), the frames that detected or parsed marked under
// the axis, and a legend with each stage's mean. As SVG (text, any size) or as a PNG (Coif's pixel font).
import CoifCore
import Foundation

public struct TimingChart: Sendable {
    public struct Row: Sendable {
        public var frame: Int
        public var state: String
        public var keyframe: Bool
        public var stageMs: [(stage: String, ms: Double)]
    }

    public var rows: [Row]
    public var stages: [String]

    /// One colour per stage, in pipeline order (sRGB bytes); stages past the list reuse it.
    static let palette: [(UInt8, UInt8, UInt8)] = [
        (141, 160, 203), (102, 194, 165), (252, 141, 98), (231, 138, 195), (166, 216, 84), (255, 217, 47),
        (229, 196, 148), (179, 179, 179), (27, 158, 119), (217, 95, 2), (117, 112, 179), (231, 41, 138),
        (102, 166, 30), (230, 171, 2),
    ]

    /// Reads the CSV: its `*_ms` columns (but the sum) are the stages, in the file's order. `jobRefused`-free:
    /// a file that is not such a CSV is `invalidOption` naming it.
    public init(csv path: String) throws {
        // A file that exists but is no UTF-8 text (a clip given by mistake) is named as what it is not, not as missing.
        let data = try RegularFile.contents(of: path, maxBytes: Self.maxFileBytes, kind: "`coif video --timing` CSV")
        guard let text = String(data: data, encoding: .utf8) else {
            throw CoifError.invalidOption(name: path, reason: "not a `coif video --timing` CSV (not UTF-8 text)")
        }
        let lines = text.split(separator: "\n").map(String.init)
        guard let header = lines.first?.split(separator: ",", omittingEmptySubsequences: false).map(String.init),
              let frameColumn = header.firstIndex(of: "frame"), let stateColumn = header.firstIndex(of: "state") else {
            throw CoifError.invalidOption(name: path, reason: "not a `coif video --timing` CSV (no frame and state columns)")
        }
        let keyColumn = header.firstIndex(of: "keyframe")
        let stageColumns = header.enumerated().filter { $0.element.hasSuffix("_ms") && $0.element != "sum_ms" }
        stages = stageColumns.map { String($0.element.dropLast(3)) }
        rows = try lines.dropFirst().enumerated().map { n, line in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard cells.count == header.count, let frame = Int(cells[frameColumn]) else {
                throw CoifError.invalidOption(name: path, reason: "line \(n + 2) has \(cells.count) cells, the header \(header.count)")
            }
            let stageMs = try stageColumns.map { column -> (String, Double) in
                let cell = cells[column.offset]
                guard cell.isEmpty || Double(cell).map({ $0.isFinite && $0 >= 0 && $0 < 1e9 }) == true else {
                    throw CoifError.invalidOption(name: path, reason: "line \(n + 2): \(column.element) is \"\(cell)\", not a time in ms")
                }
                return (String(column.element.dropLast(3)), Double(cell) ?? 0)
            }
            return Row(frame: frame, state: cells[stateColumn], keyframe: keyColumn.map { cells[$0] == "1" } ?? false, stageMs: stageMs)
        }
        guard !rows.isEmpty else { throw CoifError.invalidOption(name: path, reason: "no frames") }
    }

    /// The largest CSV read: a 10,000-frame clip's is ~2 MB.
    static let maxFileBytes = 256 << 20

    /// `text` safe as an SVG text node or attribute value: the five XML specials as entities, and the
    /// characters XML 1.0 does not allow (controls but tab, newline, return) left out.
    static func xmlEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    var maxTotalMs: Double { rows.map { $0.stageMs.reduce(0) { $0 + $1.ms } }.max() ?? 1 }

    func meanMs(_ stage: String) -> Double {
        rows.reduce(0) { $0 + ($1.stageMs.first { $0.stage == stage }?.ms ?? 0) } / Double(rows.count)
    }

    /// The stages that ran on some frame, in order.
    var shownStages: [String] { stages.filter { meanMs($0) > 0 } }

    /// A round top for the axis: 1, 2 or 5 times a power of ten at or above `value`.
    static func niceCeiling(_ value: Double) -> Double {
        let power = pow(10, floor(log10(max(value, 1e-3))))
        for step in [1.0, 2, 5, 10] where step * power >= value { return step * power }
        return 10 * power
    }

    static func hex(_ c: (UInt8, UInt8, UInt8)) -> String { String(format: "#%02x%02x%02x", c.0, c.1, c.2) }

    public func svg(width: Int = 1200, height: Int = 480) -> String {
        let left = 60.0, right = 200.0, top = 20.0, bottom = 50.0
        let plotW = Double(width) - left - right, plotH = Double(height) - top - bottom
        let yMax = Self.niceCeiling(maxTotalMs), barW = plotW / Double(rows.count)
        var out = ["<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" font-family=\"sans-serif\" font-size=\"11\">",
                   "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>"]
        for k in 0...4 {
            let v = yMax * Double(k) / 4, y = top + plotH * (1 - Double(k) / 4)
            out.append(String(format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", left, y, left + plotW, y))
            out.append(String(format: "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f ms</text>", left - 4, y + 4, v))
        }
        let shown = shownStages
        for (i, row) in rows.enumerated() {
            var y = top + plotH
            let x = left + Double(i) * barW
            for (stage, ms) in row.stageMs where ms > 0 {
                guard let s = shown.firstIndex(of: stage) else { continue }
                let h = plotH * ms / yMax
                y -= h
                out.append(String(format: "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%@\"/>", x, y, max(barW - 0.3, 0.3), h,
                                  Self.hex(Self.palette[s % Self.palette.count]) as NSString))
            }
            if row.keyframe {
                out.append(String(format: "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"5\" fill=\"#333\"/>", x, top + plotH + 4, max(barW - 0.3, 0.3)))
            }
            if row.state != "tracked" {
                let colour = row.state == "detected" ? "#1b9e77" : row.state == "held" ? "#e6ab02" : "#999"
                out.append(String(format: "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"5\" fill=\"%@\"/>", x, top + plotH + 11, max(barW - 0.3, 0.3), colour))
            }
        }
        out.append(String(format: "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">frame %d … %d   (row 1: keyframes; row 2: detected green, held yellow, passed grey)</text>",
                          left + plotW / 2, Double(height) - 12, rows.first!.frame, rows.last!.frame))
        for (s, stage) in shown.enumerated() {
            let y = top + Double(s) * 16
            out.append(String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%@\"/>", left + plotW + 16, y,
                              Self.hex(Self.palette[s % Self.palette.count]) as NSString))
            out.append(String(format: "<text x=\"%.1f\" y=\"%.1f\">%@ %.1f ms</text>", left + plotW + 30, y + 9, Self.xmlEscaped(stage) as NSString, meanMs(stage)))
        }
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    public func image(width: Int = 1200, height: Int = 480) -> PixelImage {
        var image = PixelImage(width: width, height: height, channels: 3, fill: 255)
        let left = 70, right = 230, top = 20, bottom = 50
        let plotW = width - left - right, plotH = height - top - bottom
        let yMax = Self.niceCeiling(maxTotalMs)
        func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ c: (UInt8, UInt8, UInt8)) {
            for y in max(0, y0)..<min(height, y1) { for x in max(0, x0)..<min(width, x1) {
                image.pixels[3 * (y * width + x)] = c.0; image.pixels[3 * (y * width + x) + 1] = c.1; image.pixels[3 * (y * width + x) + 2] = c.2
            } }
        }
        for k in 0...4 {
            let y = top + plotH - plotH * k / 4
            fill(left, y, left + plotW, y + 1, (221, 221, 221))
            let label = String(format: "%.0f MS", yMax * Double(k) / 4)
            BitmapFont.draw(label, x: left - 6 - BitmapFont.width(of: label, scale: 2), y: y - 5, scale: 2, color: (40, 40, 40), into: &image)
        }
        let shown = shownStages
        for (i, row) in rows.enumerated() {
            let x0 = left + plotW * i / rows.count, x1 = max(x0 + 1, left + plotW * (i + 1) / rows.count)
            var acc = 0.0
            for (stage, ms) in row.stageMs where ms > 0 {
                guard let s = shown.firstIndex(of: stage) else { continue }
                let y1 = top + plotH - Int((Double(plotH) * acc / yMax).rounded())
                acc += ms
                let y0 = top + plotH - Int((Double(plotH) * acc / yMax).rounded())
                fill(x0, y0, x1, y1, Self.palette[s % Self.palette.count])
            }
            if row.keyframe { fill(x0, top + plotH + 4, x1, top + plotH + 9, (51, 51, 51)) }
            if row.state != "tracked" {
                fill(x0, top + plotH + 11, x1, top + plotH + 16, row.state == "detected" ? (27, 158, 119) : row.state == "held" ? (230, 171, 2) : (153, 153, 153))
            }
        }
        BitmapFont.draw("FRAME \(rows.first!.frame) - \(rows.last!.frame)", x: left, y: height - 22, scale: 2, color: (40, 40, 40), into: &image)
        for (s, stage) in shown.enumerated() {
            let y = top + s * 18
            fill(left + plotW + 16, y, left + plotW + 28, y + 12, Self.palette[s % Self.palette.count])
            BitmapFont.draw(String(format: "%@ %.1f MS", stage as NSString, meanMs(stage)), x: left + plotW + 34, y: y + 1, scale: 2,
                            color: (40, 40, 40), into: &image)
        }
        return image
    }
}
