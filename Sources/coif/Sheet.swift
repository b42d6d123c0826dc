// coif sheet PHOTO -o sheet.png [--style a,b,…] [--colors c,d,…]
import ArgumentParser
import CoifCore
import CoifMedia
import CoifPipeline
import CoifRender
import Foundation

struct Sheet: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Every style on one photo as a labelled contact sheet (one row per colour).",
        discussion: "The photo is analysed once; each tile is one render in the same process."
    )

    @Argument(help: "The portrait photo (JPEG, PNG or PPM).")
    var photo: String

    @Option(name: [.short, .long], help: "Output PNG path.")
    var output: String

    @Option(name: .customLong("style"), help: "A style name or groom file per column; repeatable, or comma-separated (default: every catalog style).")
    var styleNames: [String] = []

    @OptionGroup var styleDirectories: StyleDirectoryOptions

    @Option(help: "Comma-separated colours (#rrggbb, #rgb or presets).")
    var colors: String = "dark-brown"

    @Option(help: "Tile width in pixels.")
    var tile: Int = 256

    @OptionGroup var flags: RenderFlags

    @OptionGroup var global: GlobalOptions

    /// The options alone, before the photo is read: each refusal keeps its CoifError (22, naming the flag).
    func validate() throws {
        guard (32...2048).contains(tile) else { throw CoifError.invalidOption(name: "--tile", reason: "must be 32–2048 pixels, got \(tile)") }
        let colors = try parsedColors()
        guard let color = colors.first else { throw CoifError.invalidOption(name: "--colors", reason: "needs at least one colour") }
        try flags.validateSettings(photo: photo, face: .largest, color: color)
    }

    func parsedColors() throws -> [HairColor] { try colors.split(separator: ",").map { try HairColor.parse(String($0)) } }

    func run() throws {
        try runReportingErrors {
            let start = monotonicMs()
            var request = ContactSheetRequest(photoPath: photo, colors: try parsedColors())
            request.styles = styleNames.flatMap { $0.split(separator: ",").map(String.init) }
            request.tileWidthPx = tile
            request.settings = flags.settings(face: .largest)
            // The styles named may be groom files: each is an input, as is every user catalog's file.
            try OutputPaths.checkWritable([output], inputs: [photo] + request.styles + styleDirectories.catalogFiles)
            let engine = try TryOnEngine(logger: global.makeLogger(), userStyleDirectories: styleDirectories.directories)
            let (image, _) = try ContactSheet.render(request, engine: engine)
            try AtomicFile.write(try PNGFile.encode(image), to: output)
            print("wrote \(output) (\(image.width)x\(image.height), \(String(format: "%.1f", monotonicMs() - start)) ms)")
        }
    }
}
