// coif recolor PHOTO --color SPEC -o OUT.png [--matte MATTE.png] [--strength S] [--face …]
import ArgumentParser
import CoifCore
import CoifPipeline
import CoifRender
import CoifVision
import Foundation

struct Recolor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Recolour the person's own hair, keeping its texture; nothing outside the hair changes.",
        discussion: "The hair is found by the face-parsing network (or given with --matte). Colours are mixed in linear light: the target colour scaled by each pixel's luminance relative to the hair's mean, that contrast softened as the colour is lightened, so highlights stay highlights and roots stay darker. Prints ΔE00 between the target and the mean recoloured hair."
    )

    @Argument(help: "The photo (JPEG, PNG or PPM).")
    var photo: String

    @Option(help: "Hair colour: #rrggbb, #rgb or a preset.")
    var color: HairColor

    @Option(name: [.short, .long], help: "Output PNG path.")
    var output: String

    @Option(help: "A gray PNG of the photo's size: the hair's matte (0 = not hair), instead of the network's.")
    var matte: String?

    @Option(help: "How far toward the colour, 0–1.")
    var strength: Float = 1

    @OptionGroup var faces: FacesOption
    var face: FaceChoice { faces.face }

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            _ = global.makeLogger()
            // Recolouring the own hair to the own colour would change nothing.
            if color.isOwn { throw CoifError.malformedColor(spec: color.name, reason: "recolor needs a colour other than the hair's own") }
            var job = RecolorJob(photoPath: photo, color: color, outputPath: output)
            job.mattePath = matte
            job.strength = strength
            job.face = face
            try job.validate()
            let analyzer = try FaceAnalyzer.standard()
            let result = try OwnHairRecolor.run(job, analyzer: analyzer, parser: { try FaceParser() })
            print(String(format: "wrote %@ (%dx%d, %d pixels recoloured, ΔE00 to %@ %.2f, %.1f ms)", output as NSString,
                         result.image.width, result.image.height, result.changedPixels, color.name as NSString,
                         result.deltaE00, result.timing.stageMs.values.reduce(0, +)))
        }
    }
}
