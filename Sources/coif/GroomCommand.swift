// coif groom generate: re-runs the generator that writes Meshes/ (head, landmarks, styles, catalog).
import ArgumentParser
import CoifCore
import CoifGroom
import CoifPipeline
import Foundation

struct GroomCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groom",
        abstract: "Hairstyle tools.",
        subcommands: [Generate.self, Import.self]
    )

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Regenerate Meshes/: Coif's head, its 68 reference points and every catalog style (deterministic).",
            discussion: "The 68 reference points are fitted to AFLW2000-3D's 3D landmarks (headpose_aflw2000_3d/DERIVED_pose_landmarks.json in the test data). Rebuild coif afterwards: meshes are embedded at build time."
        )

        @Option(help: "Directory to write into.")
        var out: String = "Meshes"

        @Option(help: "Test data folder holding headpose_aflw2000_3d/ (default: $COIF_TESTDATA, else ../shared/testdata).")
        var testdata: String?

        func run() throws {
            try runReportingErrors {
                let folder = testdata ?? ProcessInfo.processInfo.environment["COIF_TESTDATA"] ?? "../shared/testdata"
                let path = folder + "/headpose_aflw2000_3d/DERIVED_pose_landmarks.json"
                guard let json = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw CoifError.inputMissing(path: path)
                }
                let written = try MeshGeneration.generate(into: out, aflwLandmarksJSON: json)
                for file in written { print("wrote \(file)") }
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fit a groom made elsewhere to Coif's head and add it to the catalog.",
            discussion: "Reads AMD TressFX .tfx (v4), USC-HairSalon .data, or curves Assimp reads (OBJ 'l', glTF LINES/LINE_STRIP), assumed +y up. Scale, facing and position come from the groom's own head mesh (--head) when given, else from its roots; roots are snapped onto the scalp and every point is pushed outside the head. Writes OUT/styles/NAME.obj and adds NAME to OUT/catalog.json. Rebuild coif afterwards: meshes are embedded at build time."
        )

        @Argument(help: "The groom file.")
        var file: String

        @Option(help: "The groom's own head mesh (any format Assimp reads), in the same frame as the hair.")
        var head: String?

        @Option(name: [.short, .customLong("name")], help: "Style name for the catalog.")
        var name: String

        @Option(help: "Meshes directory to write into.")
        var out: String = "Meshes"

        func run() throws {
            try runReportingErrors {
                let coifHead = try HeadModel.standard()
                let entry = try GroomImport.importStyle(path: file, headPath: head, name: name, meshesDirectory: out, head: coifHead)
                print("wrote \(out)/\(entry.file) (\(entry.guides) guides × \(entry.pointsPerGuide) points) and \(out)/catalog.json")
            }
        }
    }
}
