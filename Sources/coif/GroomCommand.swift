// coif groom generate: re-runs the generator that writes Meshes/ (head, landmarks, styles, catalog).
// coif groom import: fits a groom made elsewhere to Coif's head and adds it to the catalog.
// coif groom bench: load, interpolation and upload times and GPU memory of grooms.
import ArgumentParser
import CoifCore
import CoifEval
import CoifGroom
import CoifPipeline
import CoifRender
import Foundation

struct GroomCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groom",
        abstract: "Hairstyle tools.",
        subcommands: [Generate.self, Import.self, Bench.self]
    )

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Regenerate Meshes/: Coif's head, its 68 reference points and every preset style (deterministic).",
            discussion: "The 68 reference points are fitted to AFLW2000-3D's 3D landmarks (headpose_aflw2000_3d/DERIVED_pose_landmarks.json in the test data). Rebuild coif afterwards: meshes are embedded at build time."
        )

        @Option(help: "Directory to write into.")
        var out: String = "Meshes"

        @Option(help: "Test data folder holding headpose_aflw2000_3d/ (default: $COIF_TESTDATA, else ../shared/testdata).")
        var testdata: String?

        @Option(help: "The style presets to grow (copied into the output as style-presets.json).")
        var presets: String = "Meshes/style-presets.json"

        func run() throws {
            try runReportingErrors {
                let folder = testdata ?? ProcessInfo.processInfo.environment["COIF_TESTDATA"] ?? "../shared/testdata"
                let path = folder + "/headpose_aflw2000_3d/DERIVED_pose_landmarks.json"
                guard let json = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw CoifError.inputMissing(path: path)
                }
                guard let presetsJSON = try? String(contentsOfFile: presets, encoding: .utf8) else {
                    throw CoifError.inputMissing(path: presets)
                }
                let written = try MeshGeneration.generate(into: out, aflwLandmarksJSON: json, presetsJSON: presetsJSON,
                                                         presetsPath: presets)
                for file in written { print("wrote \(file)") }
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fit a groom made elsewhere to Coif's head and add it to the catalog.",
            discussion: "Reads AMD TressFX .tfx (v4), USC-HairSalon .data, or curves Assimp reads (OBJ 'l', glTF LINES/LINE_STRIP), assumed +y up. Scale, facing and position come from the groom's own head mesh (--head) when given, else from its roots; roots are snapped onto the scalp and every point is pushed outside the head. Writes OUT/styles/NAME.obj and adds NAME to OUT/catalog.json (created, with its directory, when missing). Use the result at once with --styles OUT (or COIF_STYLES=OUT) wherever a style is named; no rebuild. With --out Meshes (the source tree's built-in catalog) a rebuild embeds it."
        )

        @Argument(help: "The groom file.")
        var file: String

        @Option(help: "The groom's own head mesh (any format Assimp reads), in the same frame as the hair.")
        var head: String?

        @Option(name: [.customShort("o"), .short, .customLong("name")], help: "Style name for the catalog.")
        var name: String

        @Option(help: "Catalog directory to write into (a user catalog; created when missing).")
        var out: String = "Meshes"

        func run() throws {
            try runReportingErrors {
                let coifHead = try HeadModel.standard()
                let (entry, fit) = try GroomImport.importStyle(path: file, headPath: head, name: name, meshesDirectory: out, head: coifHead)
                print("wrote \(out)/\(entry.file) (\(entry.guides) guides × \(entry.pointsPerGuide) points) and \(out)/catalog.json")
                print("fitted by \(fit.usedSourceHead ? "its head mesh" : "its roots"): scale \(String(format: "%.3f", fit.scale))"
                      + (fit.quarterTurnsAboutX == 0 ? "" : ", up axis \(["+y", "-z", "-y", "+z"][fit.quarterTurnsAboutX & 3]) turned to +y")
                      + (fit.turned ? ", turned 180° about +y" : ""))
            }
        }
    }

    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Time how long grooms take to become drawable, and what they take on the GPU.",
            discussion: "Per groom: the load (parse, or import and fit), the once-per-style work a try-on caches (shape analysis, under-layer), and the per-still work over --iterations: child interpolation and the upload of every strand point to the GPU, timed to glFinish. Strands follow the level of detail of a --face-width face unless --strands is given. Wall-clock figures; the machine's other load shows in them."
        )

        @Argument(help: "Catalog styles or groom files (default: every catalog style).")
        var grooms: [String] = []

        @Option(help: "Warm iterations per groom.")
        var iterations: Int = 20

        @Option(help: "Face width in pixels whose level of detail is measured.")
        var faceWidth: Double = 300

        @Option(help: "Draw exactly this many strands (guides plus children, or fewer guides) at the groom's own points per guide, instead of the level of detail.")
        var strands: Int?

        @Flag(help: "Print the figures as JSON.")
        var json = false

        @OptionGroup var styleDirectories: StyleDirectoryOptions

        @OptionGroup var global: GlobalOptions

        struct Report: Encodable {
            var shared: GroomBenchmarkShared
            var grooms: [GroomBenchmarkResult]
        }

        /// The options alone, before a model is loaded: each refusal keeps its CoifError (22, naming the flag).
        func validate() throws {
            guard (1...10_000).contains(iterations) else {
                throw CoifError.invalidOption(name: "--iterations", reason: "must be 1…10000, got \(iterations)")
            }
            guard faceWidth >= 10 && faceWidth <= 10_000 else {
                throw CoifError.invalidOption(name: "--face-width", reason: "must be 10–10000 pixels, got \(faceWidth)")
            }
            try LevelOfDetail.checkStrands(strands)
        }

        func run() throws {
            try runReportingErrors {
                let start = monotonicMs()
                let engine = try PreviewEngine(logger: global.makeLogger(), userStyleDirectories: styleDirectories.directories)
                let engineMs = monotonicMs() - start
                let names = grooms.isEmpty ? engine.styles.names : grooms
                let (shared, results) = try GroomBenchmark.run(engine: engine, grooms: names, iterations: iterations,
                                                               faceWidthPx: faceWidth, strands: strands)
                if json { try printJSON(Report(shared: shared, grooms: results)); return }
                func mib(_ bytes: Int) -> String { String(format: "%.2f", Double(bytes) / 1_048_576) }
                print("renderer: \(shared.renderer); engine start \(String(format: "%.1f", engineMs)) ms; \(iterations) iterations"
                      + (strands.map { ", \($0) strands" } ?? ", level of detail of a \(Int(faceWidth))-px face"))
                print("")
                print("groom              guides×pts  strands×pts  segments  load cold/warm ms  shape  layer  interp p50/p95  upload p50/p95  ready p50/p95  GPU MiB")
                for r in results {
                    let name = r.groom.count > 18 ? String(r.groom.prefix(17)) + "…" : r.groom
                    print(padded(name, 18) + String(format: " %6d×%-3d %8d×%-3d %9d %8.1f /%6.1f %7.1f %6.1f %7.1f /%6.1f %7.1f /%6.1f %7.1f /%6.1f %8@",
                                 r.guides, r.pointsPerGuide, r.strands, r.pointsPerStrand, r.segments,
                                 r.loadColdMs, r.loadWarmMs, r.shapeAnalysisMs, r.underLayerMs,
                                 r.interpolateMs.p50Ms, r.interpolateMs.p95Ms, r.uploadMs.p50Ms, r.uploadMs.p95Ms,
                                 r.readyMs.p50Ms, r.readyMs.p95Ms, mib(r.strandBytes + r.underLayerBytes) as NSString))
                }
                print("")
                print("shared GPU memory: head occluder \(mib(shared.occluderBytes)) MiB, \(shared.targetSizePx)² 4×MSAA target \(mib(shared.targetBytes)) MiB")
                print("ready = interpolation + upload, warm (the groom parsed once per process, as a try-on engine keeps it)")
            }
        }
    }
}
