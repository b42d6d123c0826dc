// coif video IN --style NAME --color SPEC -o OUT.mp4 [--timing frames.csv] [--summary summary.json]
//            [--frames A-B | --start S --duration D | --segment I/N|auto]
// coif video-join SEGMENT.mp4… -o OUT.mp4 [--audio-from IN]
import ArgumentParser
import CoifCore
import CoifFarm
import CoifMedia
import CoifPipeline
import CoifRender
import CoifReports
import CoifVideo
import CoifVision
import Foundation

struct VideoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video",
        abstract: "Render a hairstyle onto the face in a video clip, frame after frame, and write an H.264 MP4.",
        discussion: """
        Reads any clip ffmpeg reads (rotation metadata honoured). The face is detected on the first frame and every \
        --redetect-every frames, and followed from frame to frame in between; its head pose is smoothed by a One Euro \
        filter (--smoothing). The own hair is parsed on keyframes and carried between them. Frames with no face keep \
        the last face for --hold seconds, then pass through unchanged. Output: H.264 (yuv420p, --crf) at the input's \
        size and frame rate, with the input's audio copied (not for a segment); written to a temporary and renamed, \
        so OUT.mp4 is whole or absent, also after Ctrl-C (exit 130). --frames A-B renders one segment of a long \
        clip for a farm; `coif video-join` puts segments back together without re-encoding. See docs/video.md.
        """
    )

    @Argument(help: "The clip (MP4, AVI, WebM, MOV, …).")
    var input: String

    @Option(help: "A style from `coif styles`, or a groom file (default: the catalog's default).")
    var style: String?

    @OptionGroup var styleDirectories: StyleDirectoryOptions

    @Option(help: "Hair colour: #rrggbb, #rgb, or a preset.")
    var color: HairColor = try! HairColor.parse("dark-brown")

    @Option(name: [.short, .long], help: "Output MP4 path.")
    var output: String

    @Option(help: "Write a CSV with one row per frame: how its face was found, whether it was a keyframe, each stage's milliseconds.")
    var timing: String?

    @Option(help: "Write a JSON summary: frames by how their face was found, and per stage count, mean, p50, p95, p99 and max ms.")
    var summary: String?

    @Option(help: "Render only frames A to B (0-based, inclusive), e.g. 250-499: one segment for a farm; no audio.")
    var frames: String?

    @Option(help: "Render segment I of N (0-based) of the clip's frames, e.g. 3/8, or 'auto': the segment a Slurm job array or a Kubernetes Indexed Job gives this task (as `coif batch` shards). '{segment}' in -o becomes I, zero-padded.")
    var segment: String?

    // Unconditional: `-1` is a time to refuse with its reason, not an option the parser then calls missing.
    @Option(parsing: .unconditional, help: "Render from this time (seconds); with --duration, instead of --frames.")
    var start: Double?

    @Option(help: "Render this many seconds (with --start).")
    var duration: Double?

    /// Chosen in the first frame (and where the track is lost), then followed.
    @OptionGroup var faces: FaceOption
    var face: FaceChoice { faces.face }

    @Option(help: "Head-pose smoothing: 'standard', 'none', or comma-separated key=value of rotation-cutoff (Hz), rotation-beta, translation-cutoff (Hz), translation-beta, derivative-cutoff (Hz).")
    var smoothing: String = "standard"

    @Option(help: "Detect the face afresh every this many frames (0: only when the track is lost).")
    var redetectEvery: Int = FaceTrack.Parameters.standard.redetectEvery

    @Option(help: "Seconds a lost face is held before frames pass through unchanged.")
    var hold: Double = FaceTrack.Parameters.standard.holdSeconds

    @Option(help: "Parse the own hair every this many frames (and whenever the head turns past --keyframe-turn).")
    var keyframeEvery: Int = 12

    @Option(help: "Degrees of yaw or pitch since the last keyframe that make a new one.")
    var keyframeTurn: Double = 8

    @Option(help: "Seconds before a segment's first frame that are analysed (not rendered) so its filters have settled.")
    var warmUp: Double = 2

    @Option(help: "x264's constant rate factor (0–51; lower is better quality).")
    var crf: Int = 18

    @OptionGroup var flags: RenderFlags

    @Option(help: "Progress: 'auto' (a bar on a terminal, lines otherwise), 'bar', 'lines' (key=value lines on standard error, Open Job Description's openjd_progress and openjd_status on standard output) or 'none'.")
    var progress: ProgressOption = .auto

    @OptionGroup var global: GlobalOptions

    /// The options alone, before the clip is opened: each refusal keeps its CoifError (22, naming the flag).
    func validate() throws {
        _ = try VideoTryOnOptions.smoothing(smoothing)
        guard redetectEvery >= 0 else { throw CoifError.invalidOption(name: "--redetect-every", reason: "must be 0 or more") }
        guard hold >= 0, hold <= 3600 else { throw CoifError.invalidOption(name: "--hold", reason: "must be 0–3600 seconds") }
        try VideoTryOnOptions.check(keyframeEvery: keyframeEvery, keyframeTurnDegrees: keyframeTurn, warmUpSeconds: warmUp, crf: crf)
        // The render's flags as a still checks them, here before a model is loaded or a frame counted (the
        // clip's job checks them again, with its style).
        try flags.validateSettings(photo: input, face: face, color: color)
        if let frames {
            guard start == nil, duration == nil else {
                throw CoifError.invalidOption(name: "--frames", reason: "give either --frames or --start/--duration")
            }
            _ = try VideoTryOnOptions.frames(frames)
        }
        if segment != nil, frames != nil || start != nil || duration != nil {
            throw CoifError.invalidOption(name: "--segment", reason: "give one of --segment, --frames and --start/--duration")
        }
        // Ten days of frames at most either way: past that a time is no clip's, and frames must stay an Int.
        if let start { guard start >= 0, start <= Self.longestSeconds else { throw CoifError.invalidOption(name: "--start", reason: "must be 0–864000 seconds") } }
        if let duration {
            guard duration > 0, duration <= Self.longestSeconds else {
                throw CoifError.invalidOption(name: "--duration", reason: "must be over 0 and at most 864000 seconds")
            }
        }
    }

    static let longestSeconds = 864_000.0

    func run() throws {
        try runReportingErrors {
            let began = monotonicMs()
            var options = VideoTryOnOptions(input: input, output: output, style: style, color: color, settings: flags.settings(face: face))
            options.smoothing = try VideoTryOnOptions.smoothing(smoothing)
            options.tracking = FaceTrack.Parameters(redetectEvery: redetectEvery, holdSeconds: hold)
            options.keyframeEvery = keyframeEvery
            options.keyframeTurnDegrees = keyframeTurn
            options.warmUpSeconds = warmUp
            options.crf = crf
            options.timingPath = timing
            options.summaryPath = summary
            options.frames = try frameRange()
            if let segment {
                let part = try ClipSegment.resolve(segment, input: input)
                options.frames = part.frames
                options.output = part.named(output)
                options.timingPath = timing.map(part.named)
                options.summaryPath = summary.map(part.named)
            }
            let mode = progress.mode
            let written = [options.output] + [options.timingPath, options.summaryPath].compactMap { $0 }
            try OutputPaths.checkWritable(written, inputs: [input] + (style.map { [$0] } ?? []) + styleDirectories.catalogFiles)
            let logger = global.makeLogger()
            let farm = mode == .lines ? FarmProgress() : nil
            farm?.status("loading models")
            let engine = try TryOnEngine(logger: logger, userStyleDirectories: styleDirectories.directories)
            let cancel = VideoCancel()
            let onStop = StopSignals.register { cancel.cancel() }
            defer { onStop.cancel() }
            farm?.status("rendering \(input)")
            let summary = try VideoTryOn(engine: engine, logger: logger).run(options, cancel: cancel) { p in
                Self.report(p, mode: mode)
                if let total = p.framesTotal { farm?.progress(p.framesDone, of: total) }
            }
            farm?.status("wrote \(options.output)")
            if mode == .bar { FileHandle.standardError.write(Data("\n".utf8)) }
            let states = summary.states
            print("wrote \(options.output) (\(summary.frames) frames: \(states["detected"] ?? 0) detected, \(states["tracked"] ?? 0) tracked, "
                  + "\(states["held"] ?? 0) held, \(states["passed"] ?? 0) passed; \(summary.keyframes) keyframes; "
                  + String(format: "%.2f fps, %.1f s)", summary.framesPerSecond, (monotonicMs() - began) / 1000))
        }
    }

    /// `--frames A-B`, or `--start` and `--duration` in seconds (turned into frames at the clip's rate).
    func frameRange() throws -> ClosedRange<Int>? {
        if let frames { return try VideoTryOnOptions.frames(frames) }
        guard start != nil || duration != nil else { return nil }
        return VideoTryOnOptions.frames(start: start, duration: duration, framesPerSecond: try VideoProbe.probe(path: input).framesPerSecond)
    }

    static func report(_ p: VideoProgress, mode: ProgressMode) {
        let eta = p.etaSeconds.map { String(format: "%.0f", $0) } ?? "?"
        switch mode {
        case .none: return
        case .lines:
            // A line every 25 frames (and the first): enough for a farm's log, not a line per frame.
            guard p.framesDone == 1 || p.framesDone % 25 == 0 || p.framesDone == p.framesTotal else { return }
            let total = p.framesTotal.map(String.init) ?? "?"
            FileHandle.standardError.write(Data("frames=\(p.framesDone) total=\(total) fps=\(String(format: "%.2f", p.framesPerSecond)) eta_s=\(eta)\n".utf8))
        case .bar:
            let total = p.framesTotal.map(String.init) ?? "?"
            FileHandle.standardError.write(Data("\r[\(progressBar(p.framesDone, of: p.framesTotal))] \(p.framesDone)/\(total) frames  \(String(format: "%.2f", p.framesPerSecond)) fps  ETA \(eta) s ".utf8))
        }
    }
}

struct VideoJoin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video-join",
        abstract: "Join the segments of one clip (`coif video --frames` or `--segment`) into one MP4 without re-encoding.",
        discussion: "Segments are joined in the order given (ffmpeg's concat demuxer, streams copied); --audio-from adds the original clip's audio."
    )

    @Argument(help: "The segments, in order.")
    var segments: [String]

    @Option(name: [.short, .long], help: "Output MP4 path.")
    var output: String

    @Option(help: "Copy this clip's audio (the original) into the joined file.")
    var audioFrom: String?

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            guard !segments.isEmpty else { throw CoifError.invalidOption(name: "segments", reason: "give at least one segment") }
            for path in segments { _ = try VideoProbe.probe(path: path) }
            if let audioFrom { _ = try VideoProbe.probe(path: audioFrom) }
            try OutputPaths.checkWritable([output], inputs: segments + (audioFrom.map { [$0] } ?? []))
            let frames = try VideoJoiner.join(segments, into: output, audioFrom: audioFrom)
            print("wrote \(output) (\(segments.count) segments, \(frames) frames)")
        }
    }
}

struct TimingChartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timing-chart",
        abstract: "Draw a video's per-frame timing CSV (`coif video --timing`): a bar per frame stacked by stage.",
        discussion: "The output is SVG when -o ends in .svg, else PNG. Under the bars: keyframes (dark), and frames detected (green), held (yellow) or passed through (grey)."
    )

    @Argument(help: "The CSV `coif video --timing` wrote.")
    var csv: String

    @Option(name: [.short, .long], help: "Output chart (.svg or .png).")
    var output: String

    @Option(help: "Width in pixels.")
    var width: Int = 1200

    @Option(help: "Height in pixels.")
    var height: Int = 480

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try runReportingErrors {
            guard (400...8000).contains(width), (200...4000).contains(height) else {
                throw CoifError.invalidOption(name: "--width/--height", reason: "must be 400–8000 by 200–4000 pixels")
            }
            try OutputPaths.checkWritable([output], inputs: [csv])
            let chart = try TimingChart(csv: csv)
            if output.lowercased().hasSuffix(".svg") {
                try AtomicFile.write(text: chart.svg(width: width, height: height), to: output)
            } else {
                try AtomicFile.write(try PNGFile.encode(chart.image(width: width, height: height)), to: output)
            }
            print("wrote \(output) (\(chart.rows.count) frames)")
        }
    }
}
