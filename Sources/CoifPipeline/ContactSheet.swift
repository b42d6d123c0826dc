// ContactSheet: every style (× every colour) on one photo, as a labelled grid. The photo is analysed once
// (decode, detect, landmarks, pose) and each tile is one `TryOnEngine.render`, so a sheet of 15 styles costs
// one analysis plus 15 renders in one process. Tiles are area-downsampled composites; labels use a tiny
// 3×5 bitmap font of our own (CoifDiff's font is internal to that module and has no J, Q or Z).
import CoifCore
import CoifGroom
import CoifRender
import CoifVision
import Foundation

public struct ContactSheetRequest: Sendable {
    public var photoPath: String
    /// Style names; empty = every catalog style.
    public var styles: [String] = []
    public var colors: [HairColor]
    public var tileWidthPx: Int = 256
    public var seed: UInt64 = 1
    public var detail: Double = 1
    public init(photoPath: String, colors: [HairColor]) {
        self.photoPath = photoPath
        self.colors = colors
    }
}

public enum ContactSheet {
    /// Renders the sheet: one row per colour, one column per style (wrapping every `columns`).
    public static func render(_ request: ContactSheetRequest, engine: TryOnEngine) throws -> (image: PixelImage, timing: FrameTiming) {
        let styles = request.styles.isEmpty ? engine.styles.names : request.styles
        guard !request.colors.isEmpty else { throw CoifError.invalidOption(name: "--colors", reason: "no colours given") }
        guard request.tileWidthPx >= 32 && request.tileWidthPx <= 2048 else {
            throw CoifError.invalidOption(name: "--tile", reason: "must be 32–2048 pixels, got \(request.tileWidthPx)")
        }
        // Every cell is a job on the same photo: validated before the photo is analysed, once.
        let cells = request.colors.flatMap { color in styles.map { style -> TryOnJob in
            var job = TryOnJob(input: .file(path: request.photoPath), style: style, look: HairLook(color: color))
            job.seed = request.seed
            job.detail = request.detail
            return job
        } }
        for cell in cells { try cell.validate(styles: engine.styles) }
        var analysisTiming = FrameTiming()
        let frame = try TryOnEngine.decode(.file(path: request.photoPath), fieldOfViewDegrees: nil, timing: &analysisTiming)
        let analyses = try engine.analyse(frame, faces: .largest, timing: &analysisTiming)
        let photo = frame.image
        let tileW = request.tileWidthPx
        let tileH = max(1, Int((Double(photo.height) * Double(tileW) / Double(photo.width)).rounded()))
        let scale = max(1, tileW / 128)
        let labelH = (BitmapGlyphs.height + 4) * scale
        let columns = min(cells.count, request.colors.count > 1 ? styles.count : min(5, cells.count))
        let rows = (cells.count + columns - 1) / columns
        let width = columns * tileW, height = rows * (tileH + labelH)
        var sheet = PixelImage(width: width, height: height, channels: 3, fill: 255)
        var timing = analysisTiming
        for (i, cell) in cells.enumerated() {
            var t = FrameTiming()
            let result = try engine.render(analyses, job: cell, timing: &t)
            for stage in Stage.allCases { if let ms = t[stage] { timing[stage] = (timing[stage] ?? 0) + ms } }
            let x0 = (i % columns) * tileW, y0 = (i / columns) * (tileH + labelH)
            blitDownsampled(result.images.composite, into: &sheet, x: x0, y: y0, width: tileW, height: tileH)
            let styleName = try engine.style(named: cell.style).name
            let label = request.colors.count > 1 ? "\(styleName) \(cell.look.name)" : styleName
            BitmapGlyphs.draw(label, x: x0 + 2 * scale, y: y0 + tileH + 2 * scale, scale: scale, into: &sheet,
                              maxWidth: tileW - 4 * scale)
        }
        return (sheet, timing)
    }

    /// Area-average downsample of an RGB image into a `width`×`height` rectangle of `sheet` at (x, y).
    static func blitDownsampled(_ src: PixelImage, into sheet: inout PixelImage, x: Int, y: Int, width: Int, height: Int) {
        let sx = Double(src.width) / Double(width), sy = Double(src.height) / Double(height)
        for ty in 0..<height {
            let y0 = Int(Double(ty) * sy), y1 = max(y0 + 1, min(src.height, Int(Double(ty + 1) * sy)))
            for tx in 0..<width {
                let x0 = Int(Double(tx) * sx), x1 = max(x0 + 1, min(src.width, Int(Double(tx + 1) * sx)))
                var sum = (0, 0, 0)
                for yy in y0..<y1 {
                    for xx in x0..<x1 {
                        let i = (yy * src.width + xx) * src.channels
                        sum.0 += Int(src.pixels[i]); sum.1 += Int(src.pixels[i + 1]); sum.2 += Int(src.pixels[i + 2])
                    }
                }
                let n = (y1 - y0) * (x1 - x0)
                let o = ((y + ty) * sheet.width + x + tx) * 3
                sheet.pixels[o] = UInt8(sum.0 / n); sheet.pixels[o + 1] = UInt8(sum.1 / n); sheet.pixels[o + 2] = UInt8(sum.2 / n)
            }
        }
    }
}

/// A 3×5 pixel font: capitals (lower case is drawn as capitals), digits and a little punctuation.
enum BitmapGlyphs {
    static let width = 3, height = 5
    /// Rows top to bottom, 3 bits each, bit 2 = left column.
    static let rows: [Character: [UInt8]] = [
        "A": [2, 5, 7, 5, 5], "B": [6, 5, 6, 5, 6], "C": [3, 4, 4, 4, 3], "D": [6, 5, 5, 5, 6], "E": [7, 4, 6, 4, 7],
        "F": [7, 4, 6, 4, 4], "G": [3, 4, 5, 5, 3], "H": [5, 5, 7, 5, 5], "I": [7, 2, 2, 2, 7], "J": [1, 1, 1, 5, 2],
        "K": [5, 5, 6, 5, 5], "L": [4, 4, 4, 4, 7], "M": [5, 7, 7, 5, 5], "N": [6, 5, 5, 5, 5], "O": [2, 5, 5, 5, 2],
        "P": [6, 5, 6, 4, 4], "Q": [2, 5, 5, 6, 3], "R": [6, 5, 6, 5, 5], "S": [3, 4, 2, 1, 6], "T": [7, 2, 2, 2, 2],
        "U": [5, 5, 5, 5, 7], "V": [5, 5, 5, 5, 2], "W": [5, 5, 7, 7, 5], "X": [5, 5, 2, 5, 5], "Y": [5, 5, 2, 2, 2],
        "Z": [7, 1, 2, 4, 7],
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [6, 1, 2, 4, 7], "3": [6, 1, 2, 1, 6], "4": [5, 5, 7, 1, 1],
        "5": [7, 4, 6, 1, 6], "6": [3, 4, 7, 5, 7], "7": [7, 1, 2, 2, 2], "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 6],
        "-": [0, 0, 7, 0, 0], ".": [0, 0, 0, 0, 2], "#": [5, 7, 5, 7, 5], "_": [0, 0, 0, 0, 7], " ": [0, 0, 0, 0, 0],
    ]

    /// Draws black text with its top-left at (x, y) into an RGB image, clipped to `maxWidth` and the image.
    static func draw(_ text: String, x: Int, y: Int, scale: Int, into image: inout PixelImage, maxWidth: Int) {
        var pen = x
        for character in text.uppercased() {
            if pen + width * scale > x + maxWidth { break }
            let glyph = rows[character] ?? rows[" "]!
            for (row, bits) in glyph.enumerated() {
                for column in 0..<width where bits & (4 >> UInt8(column)) != 0 {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            let px = pen + column * scale + dx, py = y + row * scale + dy
                            guard px >= 0, py >= 0, px < image.width, py < image.height else { continue }
                            let i = (py * image.width + px) * image.channels
                            for c in 0..<3 { image.pixels[i + c] = 20 }
                        }
                    }
                }
            }
            pen += (width + 1) * scale
        }
    }
}
