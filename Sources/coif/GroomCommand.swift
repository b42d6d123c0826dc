// coif groom generate: re-runs the generator that writes Meshes/ (head, landmarks, styles, catalog).
import ArgumentParser
import CoifCore
import CoifGroom
import Foundation

struct GroomCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groom",
        abstract: "Hairstyle tools.",
        subcommands: [Generate.self]
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
}
