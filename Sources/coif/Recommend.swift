// coif recommend PHOTO [--json]: the face's shape from its landmarks, and the catalog's styles ranked for it.
import ArgumentParser
import CoifCore
import CoifGroom
import CoifPipeline
import CoifVision
import CoifMedia
import Foundation

struct Recommend: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Classify the face shape (oval, round, square, heart, long, diamond) and rank the catalog's styles for it.",
        discussion: """
        Ratios to the cheekbone width (the jaw contour's width at eye level): face length (chin to a hairline \
        estimated by the facial-thirds canon), jaw width (points 4–12), forehead width (brow ends 17–26). \
        Rules, in order: long if length ≥ 1.48; diamond if forehead < 0.76 and jaw < 0.81; heart if forehead ≥ \
        jaw + 0.04; square if jaw ≥ 0.85 and length < 1.42; round if length ≤ 1.30; else oval. Styles are \
        ranked by whether the catalog lists the shape for them, then by fewer shapes listed, then catalog order. \
        Widths shrink as the head turns: past 20° of yaw the class is printed with a warning.
        """
    )

    @Argument(help: "The portrait photo (JPEG, PNG or PPM).")
    var photo: String

    @OptionGroup var faces: FaceOption
    var face: FaceChoice { faces.face }

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var styleDirectories: StyleDirectoryOptions

    @OptionGroup var global: GlobalOptions

    /// Past this |yaw| the widths are foreshortened enough to move the class.
    static let reliableYawDegrees = 20.0

    struct Output: Encodable {
        var photo: String
        var face: Int
        var yawDegrees: Double
        var rollDegrees: Double
        var yawWarning: Bool
        var shape: FaceShape
        var reason: String
        var measurements: FaceMeasurements
        var ratios: [String: Double]
        var styles: [StyleSuggestion]
    }

    func run() throws {
        try runReportingErrors {
            _ = global.makeLogger()
            let choice = face == .all ? .largest : face
            let analyzer = try FaceAnalyzer.standard()
            var timing = FrameTiming()
            let analysis = try analyzer.analyse(try Frame.read(path: photo), face: choice, timing: &timing)
            guard let result = FaceShapeClassifier.classify(analysis.chosen.landmarks) else {
                throw CoifError.noFace(path: photo)
            }
            let library = try StyleLibrary.standard(userDirectories: styleDirectories.directories)
            let catalog = StyleCatalog(defaultStyle: library.defaultStyle, styles: library.listing.map(\.style.entry))
            let ranked = StyleAdvice.rank(catalog: catalog, for: result.shape)
            let index: Int
            if case .index(let i) = choice { index = i } else { index = 0 }
            let m = result.measurements
            let yaw = analysis.pose.yawDegrees
            let warn = abs(yaw) > Self.reliableYawDegrees
            if json {
                let out = Output(photo: photo, face: index, yawDegrees: yaw, rollDegrees: analysis.pose.rollDegrees, yawWarning: warn,
                                 shape: result.shape, reason: result.reason, measurements: m,
                                 ratios: ["length": m.lengthRatio, "jaw": m.jawRatio, "forehead": m.foreheadRatio], styles: ranked)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(out), as: UTF8.self))
                return
            }
            print(String(format: "%@: face %d, yaw %+.0f°, roll %+.0f°: %@", photo as NSString, index, yaw, analysis.pose.rollDegrees,
                         result.shape.rawValue as NSString))
            if warn {
                print(String(format: "  warning: the head is turned %.0f° (> %.0f°): widths are foreshortened, the class is less reliable",
                             abs(yaw), Self.reliableYawDegrees))
            }
            print(String(format: "  face length %.0f px (hairline estimated %.0f px above the brows by the facial thirds), cheekbones %.0f px, jaw %.0f px, forehead %.0f px",
                         m.faceLengthPx, m.foreheadHeightPx, m.cheekboneWidthPx, m.jawWidthPx, m.foreheadWidthPx))
            print(String(format: "  length/cheekbones %.2f, jaw/cheekbones %.2f, forehead/cheekbones %.2f", m.lengthRatio, m.jawRatio, m.foreheadRatio))
            print("  rule: \(result.shape.rawValue) because \(result.reason)")
            print("styles, best first for the \(result.shape.rawValue) face shape (catalog faceShapes/tags; ties: fewer shapes listed first, then catalog order):")
            for (rank, s) in ranked.enumerated() {
                let name = s.name.padding(toLength: max(16, s.name.count), withPad: " ", startingAt: 0)
                print(String(format: "  %2d. ", rank + 1) + name + (s.score > 0 ? " suits  " : "        ") + s.description)
            }
        }
    }
}
