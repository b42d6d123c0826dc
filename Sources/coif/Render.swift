// coif render PHOTO --style NAME --color SPEC -o OUT.png
import ArgumentParser
import CoifCore
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a hairstyle onto the face in a photo and write the composite PNG.",
        discussion: """
        The photo may be JPEG (EXIF orientation honoured), PNG or PPM. The largest face gets the hair (--face picks another, or all).
        Output is written to a temporary file and renamed, so OUT.png is either complete or absent.
        """
    )

    @Argument(help: "The portrait photo (JPEG, PNG or PPM).")
    var photo: String

    @Option(help: "A style from `coif styles`, or a groom file (.tfx, .data, OBJ/glTF curves or hair cards) fitted to the head (default: the catalog's default).")
    var style: String?

    @OptionGroup var styleDirectories: StyleDirectoryOptions

    @Option(help: "Hair colour: #rrggbb, #rgb, or a preset (black, dark-brown, brown, auburn, copper, red, blonde, golden-blonde, platinum, gray).")
    var color: HairColor = try! HairColor.parse("dark-brown")

    @Option(name: [.short, .long], help: "Output PNG path.")
    var output: String

    @Option(help: "Also write hair.png (premultiplied RGBA hair only), matte.png (coverage), own-hair-matte.png and filled.png (the photo with the own hair taken away) into this directory.")
    var layers: String?

    @Option(help: "Write the stage timings of this still as JSON to this file.")
    var timing: String?

    @OptionGroup var faces: FacesOption
    var face: FaceChoice { faces.face }

    @Option(help: "PNG encoder effort: fast (zlib level 1) or small (libpng default).")
    var pngCompression: PNGCompression = .fast

    @OptionGroup var flags: RenderFlags

    @Flag(help: "Print a table of the still's stage timings.")
    var showTiming = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            let logger = global.makeLogger()
            let job = try makeJob()
            let outcome = try TryOnEngine.runOnce(job, userStyleDirectories: styleDirectories.directories, logger: logger)
            let t = outcome.result.timing
            print("wrote \(output) (\(t.imageWidth)x\(t.imageHeight), \(t.strandCount) strands, \(t.segmentCount) segments, \(String(format: "%.1f", t.totalMs)) ms)")
            if showTiming {
                print("renderer: \(t.renderer)")
                for stage in Stage.allCases {
                    guard let ms = t[stage] else { continue }
                    print("  " + padded(stage.rawValue, 10) + String(format: " %8.2f ms", ms))
                }
                print("  " + padded("engine", 10) + String(format: " %8.2f ms (GPU context, shaders, a warm-up frame)", outcome.engineMs))
                print("  " + padded("vision", 10) + String(format: " %8.2f ms (dlib's model, then decode to pose; beside the engine)", outcome.visionMs))
                print("  " + padded("total", 10) + String(format: " %8.2f ms (the whole still, engine start included)", t.totalMs))
            }
        }
    }

    /// The flags as settings: the one mapping from flags to a job that a batch job file and a golden case
    /// use too (RenderSettings).
    var settings: RenderSettings { flags.settings(face: face, pngCompression: pngCompression) }

    /// The command line as a job; `TryOnJob.validate` checks it (in `runOnce`).
    func makeJob() throws -> TryOnJob {
        var job = TryOnJob(photoPath: photo, style: style, color: color, outputPath: output)
        job.outputs.layersDirectory = layers
        job.outputs.timingPath = timing
        try settings.apply(to: &job)
        return job
    }
}
