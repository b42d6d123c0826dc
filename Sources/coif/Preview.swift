// coif preview STYLE_OR_FILE -o out.png [--view front|left|back|top] [--size 512] [--color SPEC] [--turntable N]
import ArgumentParser
import CoifCore
import CoifMedia
import CoifPipeline
import CoifRender
import Foundation

struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a hairstyle on Coif's own head, no photo needed.",
        discussion: "STYLE_OR_FILE is a name from `coif styles` or a groom file (.tfx, .data, .obj, .gltf) that is fitted to Coif's head as `coif groom import` would, without writing anything."
    )

    @Argument(help: "A catalog style name or a groom file.")
    var styleOrFile: String

    @Option(name: [.short, .long], help: "Output PNG path.")
    var output: String

    @Option(help: "Camera: front, left (the subject's left side), back or top.")
    var view: PreviewView = .front

    @Option(help: "Image width and height in pixels.")
    var size: Int = 512

    @Option(help: "Hair colour: #rrggbb, #rgb or a preset.")
    var color: HairColor = try! HairColor.parse("dark-brown")

    @OptionGroup var styleDirectories: StyleDirectoryOptions

    @Option(help: "For a groom file: its own head mesh (e.g. sintel.obj), used to fit it to Coif's head.")
    var head: String?

    @Option(help: "Seed for child strands.")
    var seed: UInt64 = 1

    @Option(help: "Draw exactly this many strands (the guides plus interpolated children; fewer than the guides: that many guides) instead of the automatic count.")
    var strands: Int?

    @Option(help: "Write N views turning once around the head instead of one: an MP4 (25 fps) when -o ends in .mp4, else PNGs view-000.png … into the folder -o names.")
    var turntable: Int?

    @Flag(help: "Print the time of each stage, engine start and groom loading included.")
    var showTiming = false

    @OptionGroup var global: GlobalOptions

    /// The options alone, before a model is loaded: each refusal keeps its CoifError and code.
    func validate() throws {
        // Coif's own head has no hair of its own to take the colour from.
        if color.isOwn { throw CoifError.malformedColor(spec: color.name, reason: "preview has no photo to read the own colour from") }
        try LevelOfDetail.checkStrands(strands)
        if let turntable, !(1...3600).contains(turntable) {
            throw CoifError.invalidOption(name: "--turntable", reason: "must be 1–3600 views, got \(turntable)")
        }
    }

    func run() throws {
        try runReportingErrors {
            let start = monotonicMs()
            let camera = view
            if let turntable { return try writeTurntable(turntable, start: start) }
            try OutputPaths.checkWritable([output], inputs: [styleOrFile] + (head.map { [$0] } ?? []) + styleDirectories.catalogFiles)
            var outcome = try PreviewEngine.renderOnce(styleOrFile, headPath: head, view: camera, sizePx: size, color: color,
                                                       seed: seed, strands: strands, userStyleDirectories: styleDirectories.directories,
                                                       logger: global.makeLogger())
            let png = try outcome.timing.measure(.encode) { try PNGFile.encode(outcome.image) }
            try outcome.timing.measure(.write) { try AtomicFile.write(png, to: output) }
            let timing = outcome.timing
            print("wrote \(output) (\(outcome.groomName), \(camera.rawValue), \(size)x\(size), \(timing.strandCount) strands, \(String(format: "%.1f", monotonicMs() - start)) ms)")
            if showTiming {
                print("renderer: \(timing.renderer)")
                print("  " + padded("engine", 10) + String(format: " %8.2f ms (GPU context, shaders, a warm-up frame)", outcome.engineMs))
                print("  " + padded("groom", 10) + String(format: " %8.2f ms (catalog, head, groom read and fit, scene; beside the engine)", outcome.groomMs))
                for stage in Stage.allCases {
                    guard let ms = timing[stage] else { continue }
                    print("  " + padded(stage.rawValue, 10) + String(format: " %8.2f ms", ms))
                }
            }
        }
    }

    /// `--turntable N`: N views into an MP4 (whole or absent) or a folder of PNGs (each written whole).
    func writeTurntable(_ count: Int, start: Double) throws {
        let toVideo = output.lowercased().hasSuffix(".mp4")
        if toVideo {
            try OutputPaths.checkWritable([output], inputs: [styleOrFile] + (head.map { [$0] } ?? []) + styleDirectories.catalogFiles)
        } else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw CoifError.outputNotWritable(path: output, reason: "not a directory (a turntable's PNGs go into a folder; end -o in .mp4 for a video)")
            }
            do { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) } catch {
                throw CoifError.outputNotWritable(path: output, reason: "cannot make the folder")
            }
            try AtomicFile.checkDirectory(output)
        }
        let engine = try PreviewEngine(logger: global.makeLogger(), userStyleDirectories: styleDirectories.directories)
        let style = try engine.style(styleOrFile, headPath: head)
        let writer = toVideo ? try VideoWriter(path: output, width: size, height: size, frameRate: (25, 1)) : nil
        var timing = FrameTiming()
        do {
            try engine.turntable(style, views: count, sizePx: size, color: color, seed: seed, strands: strands, timing: &timing) { k, image in
                if let writer { try writer.append(image) } else {
                    try AtomicFile.write(try PNGFile.encode(image), to: output + String(format: "/view-%03d.png", k))
                }
            }
            try writer?.finish()
        } catch {
            writer?.cancel()
            throw error
        }
        print("wrote \(output) (\(style.name), \(count) views, \(size)x\(size), \(String(format: "%.1f", monotonicMs() - start)) ms)")
    }
}
