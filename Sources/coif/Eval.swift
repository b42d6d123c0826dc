// coif eval landmarks|pose: accuracy of the vision stages against ground truth, per image and in summary.
import ArgumentParser
import CoifCore
import CoifEval
import CoifPipeline
import CoifRender
import CoifVideo
import CoifVision
import Foundation

struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure detection, landmarks and head pose against ground truth.",
        subcommands: [EvalLandmarks.self, EvalPose.self, EvalRobustness.self, EvalOwnHair.self, EvalReadsAsHair.self, EvalBelievable.self, EvalJitter.self, EvalLook.self]
    )
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

private func f(_ value: Double?, _ format: String = "%.2f") -> String { value.map { String(format: format, $0) } ?? "—" }

/// The summary of how the chosen points compare with the other model's ("other" in the tables).
private func regretLine(_ regret: ChoiceRegret) -> String {
    String(format: "chosen vs other model: %d faces where both fitted, %d with the choice worse by over %.0f point of NME, worst %@",
           regret.compared, regret.over, ChoiceRegret.allowed * 100, f(regret.worst.map { $0 * 100 }, "%+.2f points") as NSString)
}

struct EvalLandmarks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "landmarks",
        abstract: "Detection rate and 68-point NME (mean error / outer-eye-corner distance, points 36 and 45).",
        discussion: "SOURCE is a directory of images with iBUG .pts files of the same name (1-based, as 300-W), or a dlib imglab XML file (0-based)."
    )
    @Argument(help: "A directory of images + .pts, or an imglab .xml file.")
    var source: String
    @Flag(help: "Print JSON instead of a table.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            _ = global.makeLogger()
            let images = source.lowercased().hasSuffix(".xml") ? try GroundTruth.imglabXML(path: source) : try GroundTruth.ptsDirectory(source)
            guard !images.isEmpty else { throw CoifError.invalidOption(name: "SOURCE", reason: "\(source) has no annotated images") }
            let report = try Evaluator(analyzer: try FaceAnalyzer.standard()).landmarks(images)
            if json {
                struct Out: Encodable {
                    var rows: [LandmarkRow]; var faces: Int; var detectionRate: Double; var meanNME: Double?; var maxNME: Double?; var regret: ChoiceRegret
                }
                try printJSON(Out(rows: report.rows, faces: report.faces, detectionRate: report.detectionRate, meanNME: report.meanNME,
                                  maxNME: report.maxNME, regret: report.regret))
                return
            }
            print("image                          face  found   NME    other  mean px  detect ms  landmarks ms")
            for r in report.rows {
                print(padded(r.image, 30) + String(format: " %4d  ", r.face) + padded(r.found ? (r.model ?? "yes") : "NO", 5) + " "
                      + padded(f(r.nme.map { $0 * 100 }, "%.2f%%"), 6, right: true) + " "
                      + padded(f(r.alternativeNME.map { $0 * 100 }, "%.1f%%"), 6, right: true) + "  " + padded(f(r.meanErrorPx), 7, right: true)
                      + String(format: "  %9.1f  %12.2f", r.ms.detect, r.ms.landmarks))
            }
            print(String(format: "faces %d, detection rate %.1f%%, mean NME %@, max NME %@", report.faces, report.detectionRate * 100,
                         f(report.meanNME.map { $0 * 100 }, "%.2f%%") as NSString, f(report.maxNME.map { $0 * 100 }, "%.2f%%") as NSString))
            print(regretLine(report.regret))
        }
    }
}

struct EvalPose: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Head-pose error against AFLW2000-3D ground truth (imageN.jpg + imageN.mat).",
        discussion: "Angles are degrees in AFLW2000-3D's own convention (Pose_Para = pitch, yaw, roll; see docs/vision.md, \"Measuring the vision\"): AFLW yaw is the negative of `coif landmarks` yaw."
    )
    @Argument(help: "A directory of imageN.jpg + imageN.mat (MATLAB v5, Pose_Para and pt3d_68).")
    var directory: String
    @Flag(help: "Print JSON instead of a table.")
    var json = false
    @Option(help: "Horizontal field of view in degrees (default: EXIF, else 50, as `coif render`).")
    var fovDegrees: Double?
    @Option(help: "The mesh's yaw (degrees) past which its points replace dlib's (default 40; 0: the mesh wherever it fits, 90: dlib alone).")
    var meshSwitchYaw: Double?
    @Option(help: "Where dlib's points are kept, which points the pose is solved from: 'mesh' (the default: the mesh's, wherever it fits, by whichever of its two poses reprojects Coif's head best), 'mesh-geometry' or 'mesh-pnp' (that pose of the mesh's alone), or 'dlib'.")
    var poseFrom: PosePoints = .mesh
    @OptionGroup var global: GlobalOptions

    enum PosePoints: String, ExpressibleByArgument {
        case mesh, dlib
        case meshGeometry = "mesh-geometry", meshPnP = "mesh-pnp"
    }

    /// The options alone, before a model is loaded: each refusal keeps its CoifError (22, naming the flag).
    func validate() throws {
        try FaceAnalyzer.checkFieldOfView(fovDegrees)
        if let yaw = meshSwitchYaw, !(yaw >= 0 && yaw <= 90) {
            throw CoifError.invalidOption(name: "--mesh-switch-yaw", reason: "must be between 0 and 90, got \(yaw)")
        }
    }

    func run() throws {
        var failed: [PoseRow] = []
        try runReportingErrors {
            _ = global.makeLogger()
            let analyzer = try FaceAnalyzer.standard()
            if let meshSwitchYaw { analyzer.meshSwitchYawDegrees = meshSwitchYaw }
            analyzer.poseFromMesh = poseFrom != .dlib
            analyzer.meshPoseMethod = poseFrom == .meshGeometry ? .meshGeometry : poseFrom == .meshPnP ? .meshPnP : nil
            let report = try Evaluator(analyzer: analyzer, fieldOfViewDegrees: fovDegrees).pose(directory: directory)
            guard !report.rows.isEmpty else { throw CoifError.invalidOption(name: "DIR", reason: "\(directory) has no imageN.jpg + imageN.mat pairs") }
            defer { if !report.failedRows.isEmpty { failed = report.failedRows } }
            if json {
                struct Out: Encodable {
                    var rows: [PoseRow]; var detectionRate: Double; var mae: [Double]?; var meanMAE: Double?; var meanRotationError: Double?; var meanSignedError: [Double]?
                    var byYaw: [YawBin]; var regret: ChoiceRegret; var failed: Int
                }
                try printJSON(Out(rows: report.rows, detectionRate: report.detectionRate, mae: report.mae, meanMAE: report.meanMAE, meanRotationError: report.meanRotationError,
                                  meanSignedError: report.meanSignedError, byYaw: report.byYaw, regret: report.regret,
                                  failed: report.failedRows.count))
                return
            }
            print("image            found  truth p/y/r (°)        estimate p/y/r (°)     |err| p/y/r (°)  rot (°)   NME   other   det/lmk/pose ms  pose from")
            for r in report.rows {
                if let error = r.error {
                    print(padded(r.image, 16) + " FAILED " + error.replacingOccurrences(of: "\n", with: " "))
                    continue
                }
                let t = r.truth.map { String(format: "%6.1f", $0) }.joined(separator: " ")
                let e = r.estimate?.map { String(format: "%6.1f", $0) }.joined(separator: " ") ?? "     —      —      —"
                let a = r.absError?.map { String(format: "%5.1f", $0) }.joined(separator: " ") ?? "    —     —     —"
                print(padded(r.image, 16) + " " + padded(r.found ? (r.model ?? "yes") : "NO", 5) + "  \(t)   \(e)   \(a)  "
                      + padded(f(r.rotationError, "%.1f"), 6, right: true) + " " + padded(f(r.nme.map { $0 * 100 }, "%.1f%%"), 6, right: true) + " "
                      + padded(f(r.alternativeNME.map { $0 * 100 }, "%.1f%%"), 6, right: true)
                      + String(format: "  %5.1f/%4.1f/%4.2f", r.ms.detect, r.ms.landmarks, r.ms.pose) + "  " + (r.poseMethod ?? ""))
            }
            let mae = report.mae, bias = report.meanSignedError
            print(String(format: "images %d (%d failed), detection rate %.1f%%, MAE pitch %@ yaw %@ roll %@, mean %@ (degrees)", report.rows.count,
                         report.failedRows.count, report.detectionRate * 100, f(mae?[0]) as NSString, f(mae?[1]) as NSString, f(mae?[2]) as NSString,
                         f(report.meanMAE) as NSString))
            print("mean rotation error " + f(report.meanRotationError) + " (degrees: the angle of the one rotation from truth to estimate)")
            print(String(format: "mean signed error (estimate - truth) pitch %@ yaw %@ roll %@ (degrees)", f(bias?[0], "%+.2f") as NSString,
                         f(bias?[1], "%+.2f") as NSString, f(bias?[2], "%+.2f") as NSString))
            for bin in report.byYaw {
                let name = String(format: "|yaw| %2.0f-%2.0f°", bin.fromDegrees, bin.toDegrees)
                guard bin.faces > 0 else { print("\(name): no faces"); continue }
                let m = bin.mae, b = bin.meanSignedError
                print(String(format: "%@: %d faces, %d missed, MAE pitch %@ yaw %@ roll %@, mean signed pitch %@ yaw %@ roll %@", name as NSString,
                             bin.faces, bin.missed, f(m?[0]) as NSString, f(m?[1]) as NSString, f(m?[2]) as NSString,
                             f(b?[0], "%+.2f") as NSString, f(b?[1], "%+.2f") as NSString, f(b?[2], "%+.2f") as NSString))
            }
            print(regretLine(report.regret))
        }
        // Every row was measured and printed; unreadable ground truth still fails the run (exit 50).
        if let first = failed.first {
            printErrorLine("coif: \(directory): \(failed.count) ground-truth file(s) unreadable, first \(first.error ?? first.image)")
            throw ExitCode(CoifError.assetFailed(path: directory, reason: "").exitCode)
        }
    }
}

struct EvalRobustness: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "robustness",
        abstract: "How far detection and landmarks stretch on a real photo: smallest face, largest roll, largest yaw, many faces.",
        discussion: "Smallest: the photo downscaled ×0.85 per step until its face is lost. Roll: rotated about the face in 5° steps. Yaw: AFLW2000-3D's sample (skipped when absent). Many: the face crop tiled 8×8."
    )
    @Argument(help: "The photo (default: Debian python3-skimage's astronaut.png).")
    var photo: String = "/usr/lib/python3/dist-packages/skimage/data/astronaut.png"
    @Option(help: "AFLW2000-3D directory (default: $COIF_TESTDATA/headpose_aflw2000_3d, else ../shared/testdata/headpose_aflw2000_3d).")
    var aflw: String?
    @Flag(help: "Print JSON instead of a table.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            _ = global.makeLogger()
            let testdata = ProcessInfo.processInfo.environment["COIF_TESTDATA"].flatMap { $0.isEmpty ? nil : $0 } ?? "../shared/testdata"
            let report = try RobustnessProbe(analyzer: try FaceAnalyzer.standard())
                .run(photoPath: photo, aflwDirectory: aflw ?? testdata + "/headpose_aflw2000_3d")
            if json { try printJSON(report); return }
            print("\(photo)")
            func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }
            print(pad("test", 14) + " " + pad("result", 13) + " how")
            for row in report.rows { print(pad(row.test, 14) + " " + pad(row.result, 13) + " " + row.detail) }
        }
    }
}

/// The photos an output-judging evaluation (own-hair, reads-as-hair, believable) renders, and the new colour.
struct JudgedPhotos: ParsableArguments {
    @Argument(help: "Photos (the largest face of each).")
    var photos: [String]

    @Option(help: "The new hair's colour.")
    var color: HairColor = try! HairColor.parse("auburn")
}

struct EvalOwnHair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "own-hair",
        abstract: "How much of the own hair a try-on leaves showing, as the face-parsing network sees the output.",
        discussion: "Per photo and style: of the own hair the new style does not cover, the share the network labels hair or hat in the composite with the own hair kept (--keep-own-hair) and removed (the default), and what the removed region reads as instead."
    )
    @OptionGroup var judged: JudgedPhotos

    @Option(name: .customLong("style"), help: "Comma-separated styles, as `coif sheet --style` takes them.")
    var styles: String = "pixie,buzz-cut,bob"

    @Flag(help: "Print the rows as JSON.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            let engine = try TryOnEngine(logger: global.makeLogger())
            let names = styles.split(separator: ",").map(String.init)
            if !json { print("photo                      style       uncovered px   hair/hat kept   hair/hat removed   → background   → skin   parse ms  plate ms") }
            let rows = try OwnHairEvaluation.run(engine: engine, photos: judged.photos, styles: names, color: judged.color) { r in
                guard !json else { return }
                print(padded(r.photo, 26) + " " + padded(r.style, 11) + String(format: " %12d %14.1f%% %17.1f%% %13.1f%% %7.1f%% %9.1f %9.1f",
                      r.uncoveredPixels, 100 * r.labelledHairKept, 100 * r.labelledHairRemoved, 100 * r.removedAsBackground,
                      100 * r.removedAsSkin, r.parseMs, r.plateMs))
            }
            if json { try printJSON(rows); return }
            print(String(format: "all (pixel-weighted): hair/hat kept %.1f%%, removed %.1f%%",
                         100 * OwnHairEvaluation.pixelWeighted(rows, \.labelledHairKept),
                         100 * OwnHairEvaluation.pixelWeighted(rows, \.labelledHairRemoved)))
        }
    }
}

struct EvalReadsAsHair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reads-as-hair",
        abstract: "Whether the new hair reads as hair, as the face-parsing network sees the output.",
        discussion: "Per photo and style (own hair removed): of the pixels the new style covers (its matte >= 0.5), the share the network labels hair, hat, background and skin in the composite."
    )
    @OptionGroup var judged: JudgedPhotos

    @Option(name: .customLong("style"), help: "Comma-separated styles, as `coif sheet --style` takes them (default: every catalog style).")
    var styles: String?

    @Option(name: .customLong("images"), help: "Write each composite here as <photo>-<style>.png, to look at.")
    var imagesDirectory: String?

    @Option(help: "Render each case with seeds 1...N (its child strands differ) and report over them (1-64).")
    var seeds: Int = 1

    @Flag(help: "Print the rows as JSON.")
    var json = false

    @OptionGroup var global: GlobalOptions

    /// An option value out of range is exit 22 with one line, as for every other command's options.
    func validate() throws {
        guard (1...64).contains(seeds) else { throw CoifError.invalidOption(name: "--seeds", reason: "must be 1…64, got \(seeds)") }
    }

    func run() throws {
        try runReportingErrors {
            let engine = try TryOnEngine(logger: global.makeLogger())
            let names = styles.map { $0.split(separator: ",").map(String.init) } ?? engine.styles.names
            if !json { print("photo                      style           hair px    hair      hat   backgr.    skin   head  lens") }
            let rows = try ReadsAsHairEvaluation.run(engine: engine, photos: judged.photos, styles: names, color: judged.color,
                                                     seeds: (1...UInt64(seeds)).map { $0 }, outputDirectory: imagesDirectory) { r in
                guard !json else { return }
                print(padded(r.photo, 26) + " " + padded(r.style + (seeds > 1 ? " s\(r.seed)" : ""), 14)
                      + String(format: " %8d %7.1f%% %7.1f%% %7.1f%% %7.1f%%  %5.2f %5.2f",
                      r.hairPixels, 100 * r.labelledHair, 100 * r.labelledHat, 100 * r.labelledBackground, 100 * r.labelledSkin,
                      r.headScale, r.focalFactor))
            }
            if json { try printJSON(rows); return }
            var byStyle: [String: [ReadsAsHairMeasurement]] = [:]
            for r in rows { byStyle[r.style, default: []].append(r) }
            for name in names {
                guard let summary = ReadsAsHairEvaluation.summary(byStyle[name] ?? []) else { continue }
                var line = padded(name, 14) + String(format: " hair: mean %5.1f%%, worst photo %5.1f%%", 100 * summary.mean,
                                                     100 * summary.worstPhoto)
                if seeds > 1 {
                    line += String(format: ", seed means %.1f–%.1f%%", 100 * summary.seedMeans.lowerBound, 100 * summary.seedMeans.upperBound)
                }
                print(line)
            }
        }
    }
}

struct EvalBelievable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "believable",
        abstract: "Whether the whole head reads as the person wearing the style: bared scalp, the fill's halo and texture, hair, own hair left.",
        discussion: "Per photo and style (own hair removed, seed 1; the 512² face-parsing network judges the photo and the output): scalp bared (skin where own hair was, off the jaw outline and the forehead between the brows' ends up to the facial-thirds hairline, per face-skin pixel), face widened (new skin below the eyes off the jaw grown 3% and a jaw-wide neck, over the jaw's area), halo (CIE76 between the background fill and the untouched background beside it, each locally averaged), texture (the fill's Laplacian energy over that background's), reads as hair (share of the new hair labelled hair), own hair left (share of the uncovered own hair labelled hair or hat). docs/own-hair.md: 'Believable on any photo'."
    )
    @OptionGroup var judged: JudgedPhotos

    @Option(name: .customLong("style"), help: "Comma-separated styles, as `coif sheet --style` takes them (default: buzz-cut,pixie,bob,long-wavy).")
    var styles: String = "buzz-cut,pixie,bob,long-wavy"

    @Option(name: .customLong("images"), help: "Write each composite here as <photo>-<style>.png, to look at.")
    var imagesDirectory: String?

    @Flag(help: "Print the rows as JSON.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            let engine = try TryOnEngine(logger: global.makeLogger())
            let names = styles.split(separator: ",").map(String.init)
            for name in names { _ = try engine.styles.resolve(name) }
            if !json { print("photo                      style          scalp bared  widened    halo  texture   hair  own hair left") }
            let rows = try BelievableEvaluation.run(engine: engine, photos: judged.photos, styles: names, color: judged.color,
                                                    outputDirectory: imagesDirectory) { r in
                guard !json else { return }
                print(padded(r.photo, 26) + " " + padded(r.style, 14) + String(format: " %10.1f%% %7.1f%% %7@ %8@ %5.1f%% %10.1f%%",
                      100 * r.scalpBared, 100 * r.faceWidened, f(r.halo, "%.1f") as NSString, f(r.texture) as NSString, 100 * r.readsAsHair, 100 * r.ownHairLeft))
            }
            let summaries = names.compactMap { BelievableEvaluation.summary(rows, style: $0) }
            if json {
                struct Out: Encodable { var rows: [BelievableMeasurement]; var styles: [BelievableEvaluation.Summary] }
                try printJSON(Out(rows: rows, styles: summaries))
                return
            }
            for s in summaries {
                print(padded(s.style, 14) + String(format: " cases %d: scalp bared median %.1f%% (worst %.1f%%, %d ≤ 3%%), face widened median %.1f%% (worst %.1f%%, %d ≤ 3%%), halo median %@ (%d ≤ 8), texture median %@ (%d in 0.5–1.6), hair median %.1f%% (%d ≥ 80%%), own hair left median %.1f%% (%d ≤ 5%%)",
                      s.cases, 100 * s.scalpBaredMedian, 100 * s.scalpBaredWorst, s.scalpMet,
                      100 * s.faceWidenedMedian, 100 * s.faceWidenedWorst, s.widenedMet, f(s.haloMedian, "%.1f") as NSString, s.haloMet,
                      f(s.textureMedian) as NSString, s.textureMet, 100 * s.readsAsHairMedian, s.readsMet, 100 * s.ownHairLeftMedian, s.ownHairMet))
            }
        }
    }
}

struct EvalJitter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jitter",
        abstract: "How steady a video try-on is: pose and hairline noise raw and drawn, the filter's lag, the fill's flicker.",
        discussion: """
        Renders the clip as `coif video` does (to -o, or to a temporary that is removed) and reports, on its steadiest \
        second, the frame-to-frame noise of yaw, pitch and roll and of the hairline's image (px, and mm at the face: \
        150 mm jaw to jaw), raw and as drawn; the lag of the drawn yaw behind the raw; and the mean change per frame of \
        the fill behind the removed hair against the visible background's (levels). See docs/video.md.
        """
    )
    @Argument(help: "The clip.")
    var input: String
    @Option(help: "A style from `coif styles`, or a groom file.")
    var style: String?
    @Option(help: "Hair colour.")
    var color: HairColor = try! HairColor.parse("dark-brown")
    @Option(help: "Render only frames A to B (0-based, inclusive).")
    var frames: String?
    @Option(help: "Head-pose smoothing, as `coif video --smoothing`.")
    var smoothing: String = "standard"
    @Option(name: [.short, .long], help: "Keep the rendered clip here.")
    var output: String?
    @Option(help: "Also write the per-frame CSV, as `coif video --timing`.")
    var timing: String?
    @Option(help: "Also write the summary JSON, as `coif video --summary`.")
    var summary: String?
    @Flag(help: "Print JSON instead of a table.")
    var json = false
    @OptionGroup var styleDirectories: StyleDirectoryOptions
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            let path = output ?? FileManager.default.temporaryDirectory.appendingPathComponent("coif-jitter-\(getpid()).mp4").path
            // The clip made only to be measured goes, whether the command ends or a signal stops it.
            let onStop = output == nil ? StopSignals.removeOnStop(path) : nil
            defer {
                if output == nil { unlink(path) }
                onStop?.cancel()
            }
            try OutputPaths.checkWritable([path] + [timing, summary].compactMap { $0 },
                                          inputs: [input] + (style.map { [$0] } ?? []) + styleDirectories.catalogFiles)
            var options = VideoTryOnOptions(input: input, output: path, style: style, color: color)
            options.smoothing = try VideoTryOnOptions.smoothing(smoothing)
            options.timingPath = timing
            options.summaryPath = summary
            options.frames = try frames.map(VideoTryOnOptions.frames)
            let logger = global.makeLogger()
            let engine = try TryOnEngine(logger: logger, userStyleDirectories: styleDirectories.directories)
            let summary = try VideoTryOn(engine: engine, logger: logger).run(options)
            let report = VideoJitterEvaluation.evaluate(summary.records, framesPerSecond: summary.clipFramesPerSecond)
            if json { return try printJSON(report) }
            print("\(input): \(report.frames) frames, \(report.framesWithFace) with a face")
            if let raw = report.raw, let drawn = report.drawn, let from = report.steadiestFrom {
                print("steadiest second: frames \(from)–\(from + report.steadiestFrames - 1)")
                print("  noise         yaw °   pitch °  roll °   hairline px  hairline mm")
                for (name, n) in [("raw", raw), ("drawn", drawn)] {
                    print("  " + padded(name, 10) + String(format: "%7.3f  %7.3f  %7.3f  %10.2f  %10.2f", n.yawDegrees, n.pitchDegrees, n.rollDegrees,
                                                            n.hairlinePx, n.hairlineMm))
                }
            } else {
                print("no second of the clip has a face tracked throughout")
            }
            print("lag of the drawn yaw: \(report.lagFrames.map(String.init) ?? "—") frames (\(f(report.lagMs, "%.0f")) ms)")
            print("fill change per frame: \(f(report.fillChangeLevels)) levels; visible background's: \(f(report.backgroundChangeLevels)) levels")
            print("hair shading noise: \(f(report.hairLevelNoise)) levels a frame")
        }
    }
}
