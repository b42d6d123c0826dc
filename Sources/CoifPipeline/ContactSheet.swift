// ContactSheet: every style (× every colour) on one photo, as a labelled grid. The photo is analysed once
// (decode, detect, landmarks, pose) and each tile is one `TryOnEngine.render`, so a sheet of 15 styles costs
// one analysis plus 15 renders in one process. Tiles are area-downsampled composites; labels use CoifCore's
// 3×5 BitmapFont.
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
    /// Every cell's flags, as `coif render` and a batch job name them (the face is always the largest).
    public var settings = RenderSettings()
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
        var settings = request.settings
        settings.face = .largest
        let cells = try request.colors.flatMap { color in try styles.map { style -> TryOnJob in
            var job = TryOnJob(input: .file(path: request.photoPath), style: style, look: HairLook(color: color))
            try settings.apply(to: &job)
            return job
        } }
        for cell in cells { try cell.validate(styles: engine.styles) }
        var analysisTiming = FrameTiming()
        let frame = try TryOnEngine.decode(.file(path: request.photoPath), fieldOfViewDegrees: settings.fovDegrees, timing: &analysisTiming)
        let analysed = AnalysedPhoto(try engine.analyse(frame, faces: .largest, timing: &analysisTiming))
        // The own hair is parsed and removed once for every cell (the cells share one seed), in the analysis's time.
        if let first = cells.first(where: \.removesOwnHair) { _ = try analysed.faces(for: first, engine: engine, timing: &analysisTiming) }
        let photo = frame.image
        let tileW = request.tileWidthPx
        let tileH = max(1, Int((Double(photo.height) * Double(tileW) / Double(photo.width)).rounded()))
        let scale = max(1, tileW / 128)
        let labelH = (BitmapFont.glyphHeight + 4) * scale
        let columns = min(cells.count, request.colors.count > 1 ? styles.count : min(5, cells.count))
        let rows = (cells.count + columns - 1) / columns
        let width = columns * tileW, height = rows * (tileH + labelH)
        var sheet = PixelImage(width: width, height: height, channels: 3, fill: 255)
        var timing = analysisTiming
        for (i, cell) in cells.enumerated() {
            var t = FrameTiming()
            let result = try analysed.render(cell, engine: engine, timing: &t)
            for stage in Stage.allCases { if let ms = t[stage] { timing[stage] = (timing[stage] ?? 0) + ms } }
            let x0 = (i % columns) * tileW, y0 = (i / columns) * (tileH + labelH)
            sheet.blitDownsampled(result.images.composite, x: x0, y: y0, width: tileW, height: tileH)
            let styleName = try engine.style(named: cell.style).name
            let label = request.colors.count > 1 ? "\(styleName) \(cell.look.name)" : styleName
            BitmapFont.draw(label, x: x0 + 2 * scale, y: y0 + tileH + 2 * scale, scale: scale, color: (20, 20, 20),
                            into: &sheet, maxWidth: tileW - 4 * scale)
        }
        return (sheet, timing)
    }
}
