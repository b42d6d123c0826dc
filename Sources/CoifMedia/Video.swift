// Video: clips in and out through ffmpeg and ffprobe (Debian's `ffmpeg`) as subprocesses, raw RGB frames
// over pipes. A subprocess rather than libav* linked in: ffmpeg reads every container and codec Debian
// builds it with (H.264/MP4, MPEG-4/AVI, VP9/WebM), applies rotation metadata, copies the audio untouched and
// muxes the MP4, with no C API surface to keep in step with libav's versions; a frame costs one copy through
// a pipe (2.7 MB at 1280×720), small beside its analysis and render. The groundwork of `coif video` (#31).
import CVision
import CoifCore
import Foundation

/// A path as ffmpeg and ffprobe must be given it: with the `file:` protocol, so a name with a colon in it
/// (`take:1.mp4`) is not read as a protocol.
func ffmpegPath(_ path: String) -> String { "file:" + path }

/// What ffprobe says of a clip's first video stream, as it will be decoded (rotation applied).
public struct VideoInfo: Sendable, Equatable {
    /// The upright size: a clip whose metadata rotates it by ±90° has its width and height swapped here.
    public var width: Int
    public var height: Int
    /// Frames per second as a fraction (`r_frame_rate`: 25/1, 30000/1001, 2997/125).
    public var frameRate: (numerator: Int, denominator: Int)
    /// The stream's frame count when its container states it, else nil.
    public var frameCount: Int?
    public var hasAudio: Bool
    /// Degrees the player turns the picture (the display matrix), 0 when none.
    public var rotationDegrees: Int
    /// The video codec and pixel format as ffprobe names them (h264, yuv420p): segments joined without
    /// re-encoding must agree on them.
    public var codec: String = ""
    public var pixelFormat: String = ""
    /// The first audio stream's codec, "" when none.
    public var audioCodec: String = ""

    public var framesPerSecond: Double { Double(frameRate.numerator) / Double(max(frameRate.denominator, 1)) }

    public static func == (a: VideoInfo, b: VideoInfo) -> Bool {
        a.width == b.width && a.height == b.height && a.frameRate == b.frameRate && a.frameCount == b.frameCount
            && a.hasAudio == b.hasAudio && a.rotationDegrees == b.rotationDegrees && a.codec == b.codec
            && a.pixelFormat == b.pixelFormat && a.audioCodec == b.audioCodec
    }
}

public enum VideoProbe {
    /// The clip's video stream; `inputMissing` (10) when there is no file, `notAVideo` (11) when ffprobe
    /// finds no video stream in it.
    public static func probe(path: String) throws -> VideoInfo {
        try checkRegularInput(path)
        let run = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries",
                                                 "stream=codec_type,codec_name,pix_fmt,width,height,r_frame_rate,nb_frames:stream_side_data=rotation",
                                                 "-of", "json", ffmpegPath(path)])
        guard run.status == 0, let json = try? JSONSerialization.jsonObject(with: run.stdout) as? [String: Any],
              let streams = json["streams"] as? [[String: Any]] else {
            throw CoifError.notAVideo(path: path, reason: run.firstErrorLine ?? "ffprobe could not read it")
        }
        guard let video = streams.first(where: { $0["codec_type"] as? String == "video" }),
              let width = video["width"] as? Int, let height = video["height"] as? Int, width > 0, height > 0 else {
            throw CoifError.notAVideo(path: path, reason: "no video stream")
        }
        let rate = (video["r_frame_rate"] as? String ?? "0/1").split(separator: "/").compactMap { Int($0) }
        guard rate.count == 2, rate[0] > 0, rate[1] > 0 else { throw CoifError.notAVideo(path: path, reason: "no frame rate") }
        let sideData = (video["side_data_list"] as? [[String: Any]]) ?? []
        let rotation = sideData.compactMap { $0["rotation"] as? Int }.first ?? 0
        let quarterTurned = abs(rotation) % 180 == 90
        // The still's limit (200 megapixels): a clip that declares more is refused before a frame buffer is made.
        guard width * height <= Int(CV_MAX_IMAGE_PIXELS) else {
            throw CoifError.imageTooLarge(path: path, reason: "\(width)×\(height) frames, over \(Int(CV_MAX_IMAGE_PIXELS) / 1_000_000) megapixels")
        }
        let audio = streams.first { $0["codec_type"] as? String == "audio" }
        var info = VideoInfo(width: quarterTurned ? height : width, height: quarterTurned ? width : height,
                             frameRate: (rate[0], rate[1]), frameCount: (video["nb_frames"] as? String).flatMap(Int.init),
                             hasAudio: audio != nil, rotationDegrees: rotation)
        info.codec = video["codec_name"] as? String ?? ""
        info.pixelFormat = video["pix_fmt"] as? String ?? ""
        info.audioCodec = audio?["codec_name"] as? String ?? ""
        return info
    }
}

extension VideoProbe {
    /// `inputMissing` (10) for no file or a folder; `notAVideo` (11) for a FIFO, device or socket, refused
    /// before ffprobe opens it: a clip is read more than once (probed, its frames counted, decoded), and
    /// ffprobe blocks on a FIFO no one writes.
    public static func checkRegularInput(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { throw CoifError.inputMissing(path: path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw CoifError.notAVideo(path: path, reason: "not a regular file (a FIFO, a device or a socket); a clip is read more than once")
        }
    }

    /// Reads the clip's packets through to its end without decoding them (ffmpeg's stream copy into its null
    /// muxer, a few hundred MB/s) and throws `corruptImage` (12) with the first error the demuxer logs: a
    /// clip cut after its index (`+faststart`) reads as whole to ffprobe, and ffmpeg copying it exits 0.
    public static func checkWhole(path: String) throws {
        try checkRegularInput(path)
        let ffmpeg = try FFmpegProcess(["-i", ffmpegPath(path), "-map", "0", "-c", "copy", "-f", "null", "-"],
                                       standardInput: FileHandle.nullDevice, standardOutput: FileHandle.nullDevice)
        ffmpeg.process.waitUntilExit()
        defer { ffmpeg.removeLog() }
        if let failure = ffmpeg.failureOrError { throw CoifError.corruptImage(path: path, reason: failure) }
    }

    /// The frames the clip decodes to (ffprobe `-count_frames`, which decodes the stream): what `VideoReader`
    /// gives, for splitting a clip into segments. Not the container's count or the packets: an MP4 cut
    /// with an edit list holds more packets than it shows frames (12 packets, 7 frames in the review's case),
    /// and a segment past the shown frames would be empty.
    public static func countFrames(path: String) throws -> Int {
        try checkRegularInput(path)
        let run = try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                                 "stream=nb_read_frames", "-of", "default=noprint_wrappers=1:nokey=1", ffmpegPath(path)])
        guard run.status == 0, let text = String(data: run.stdout, encoding: .utf8),
              let count = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CoifError.notAVideo(path: path, reason: run.firstErrorLine ?? "ffprobe could not count its frames")
        }
        return count
    }
}

/// Decodes a clip frame by frame: ffmpeg writes upright RGB24 frames to a pipe, and each becomes a Frame with
/// its index, its presentation time at the stream's frame rate, and a source label ("clip.mp4 frame 12").
public final class VideoReader {
    public let path: String
    public let info: VideoInfo
    private let ffmpeg: FFmpegProcess
    private let output: FileHandle
    private var index = 0
    private var buffer: [UInt8]

    public init(path: String) throws {
        self.path = path
        info = try VideoProbe.probe(path: path)
        let pipe = Pipe()
        output = pipe.fileHandleForReading
        buffer = [UInt8](repeating: 0, count: info.width * info.height * 3)
        // Rotation is applied by default (autorotate); each decoded frame once (passthrough: no frame
        // duplicated or dropped to hold a constant rate).
        ffmpeg = try FFmpegProcess(["-i", ffmpegPath(path), "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                                   standardInput: FileHandle.nullDevice, standardOutput: pipe)
    }

    deinit { close() }

    /// The next frame, nil at the end of the clip. A clip that ends inside a frame, or that ffmpeg stops
    /// decoding with an error, is `corruptImage` (12) naming the frame.
    public func next() throws -> Frame? {
        let frameBytes = buffer.count
        var filled = 0
        while filled < frameBytes {
            let chunk = output.readData(ofLength: frameBytes - filled)
            if chunk.isEmpty { break }
            _ = buffer.withUnsafeMutableBytes { raw in chunk.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: raw[filled...])) }
            filled += chunk.count
        }
        if filled == 0 {
            ffmpeg.process.waitUntilExit()
            // ffmpeg exits 0 at a demuxer's or decoder's error and gives the frames it could: an MP4 cut
            // after its index (`+faststart`) declared 55 frames and gave 20, "partial file" in the log.
            if let failure = ffmpeg.failureOrError { throw CoifError.corruptImage(path: path, reason: "frame \(index): " + failure) }
            return nil
        }
        guard filled == frameBytes else { throw CoifError.corruptImage(path: path, reason: "frame \(index) is cut short") }
        let frame = Frame(image: PixelImage(width: info.width, height: info.height, channels: 3, pixels: buffer),
                          source: "\(path) frame \(index)", index: index,
                          timestamp: Double(index) * Double(info.frameRate.denominator) / Double(info.frameRate.numerator))
        index += 1
        return frame
    }

    /// Stops ffmpeg (when the caller stops early) and removes its log. The pipe is closed first: an ffmpeg
    /// blocked writing a frame nobody reads would otherwise retry the write after SIGTERM and never exit.
    public func close() {
        try? output.close()
        ffmpeg.stop()
    }

    /// For a signal handler, from any thread while another reads: ffmpeg killed and its log removed, the pipe
    /// left open (closing a FileHandle another thread is reading from is a fatal error), so the reader sees
    /// the end of the clip.
    public func abandon() {
        ffmpeg.kill()
        ffmpeg.removeLog()
    }
}

/// Encodes RGB frames to H.264 MP4 (yuv420p, a stated CRF) through ffmpeg, copying an input's audio
/// untouched; frames of an odd width or height lose their last column or row (4:2:0 needs even sizes). The MP4 is written to a temporary beside the output and renamed in by `finish()`, so the output
/// is whole or absent: a process killed mid-clip leaves no half-written video (its temporary is cleared by
/// the next write into that folder).
public final class VideoWriter {
    public let path: String
    public let width: Int, height: Int
    public let crf: Int
    private let temporary: String
    private let temporaryOnStop: StopSignals.Registration
    private let ffmpeg: FFmpegProcess
    private let input: FileHandle
    private var done = false
    public private(set) var framesWritten = 0

    /// - Parameters:
    ///   - frameRate: the output's frames per second as a fraction (the input's, for a try-on of a clip).
    ///   - audioFrom: a clip whose audio (if any) is copied into the output as it is.
    ///   - crf: x264's constant rate factor (0–51; 18 is visually lossless for most footage).
    public init(path: String, width: Int, height: Int, frameRate: (numerator: Int, denominator: Int),
                audioFrom: String? = nil, crf: Int = 18) throws {
        guard width > 1, height > 1 else {
            throw CoifError.invalidOption(name: path, reason: "a video needs at least 2×2 pixels, got \(width)×\(height)")
        }
        guard (0...51).contains(crf) else { throw CoifError.invalidOption(name: "--crf", reason: "must be 0–51, got \(crf)") }
        try VideoWriter.checkRegularOutput(path)
        try AtomicFile.checkWritable(path)
        self.path = path
        self.width = width
        self.height = height
        self.crf = crf
        temporary = AtomicFile.temporaryPath(for: path)
        temporaryOnStop = StopSignals.removeOnStop(temporary)
        var arguments = ["-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(width)x\(height)",
                         "-framerate", "\(frameRate.numerator)/\(frameRate.denominator)", "-i", "-"]
        if let audioFrom {
            arguments += ["-i", ffmpegPath(audioFrom), "-map", "0:v:0", "-map", "1:a?"] + Self.audioArguments(from: audioFrom)
        }
        // A fixed thread count: x264's output depends on it, and the same clip must give the same bytes on
        // any number of cores.
        // yuv420p halves the chroma both ways, so H.264 there needs an even width and height: an odd one loses
        // its last column or row.
        if width % 2 != 0 || height % 2 != 0 { arguments += ["-vf", "crop=\(width / 2 * 2):\(height / 2 * 2):0:0"] }
        arguments += ["-c:v", "libx264", "-preset", "medium", "-crf", "\(crf)", "-pix_fmt", "yuv420p", "-threads", "4",
                      "-movflags", "+faststart", "-f", "mp4", ffmpegPath(temporary)]
        let pipe = Pipe()
        input = pipe.fileHandleForWriting
        // A write into the pipe of an ffmpeg that died (a full disk, a file size limit) must fail as an error
        // the caller reports, not kill the process with SIGPIPE and leave its temporary behind.
        signal(SIGPIPE, SIG_IGN)
        ffmpeg = try FFmpegProcess(arguments, standardInput: pipe, standardOutput: FileHandle.nullDevice)
    }

    deinit { if !done { cancel() } }

    /// A video output is a regular file renamed into place: a device or FIFO at the path (as root, /dev/null)
    /// would be replaced, so it is refused.
    public static func checkRegularOutput(_ path: String) throws {
        if AtomicFile.isSpecialFile(path) {
            throw CoifError.invalidOption(name: path, reason: "a video is written to a regular file; this is a device, FIFO or socket")
        }
    }

    /// The input's audio copied as it is where MP4 holds its codec, else encoded to AAC (PCM in an AVI, say,
    /// which MP4 cannot carry).
    static func audioArguments(from clip: String) -> [String] {
        let codec = (try? VideoProbe.probe(path: clip).audioCodec) ?? ""
        let mp4Holds: Set<String> = ["aac", "mp3", "ac3", "eac3", "alac", "opus", "flac", "mp2"]
        return codec.isEmpty || mp4Holds.contains(codec) ? ["-c:a", "copy"] : ["-c:a", "aac", "-b:a", "192k"]
    }

    /// Appends one frame (RGB or RGBA, the writer's size).
    public func append(_ image: PixelImage) throws {
        guard image.width == width, image.height == height, image.channels == 3 || image.channels == 4 else {
            throw CoifError.internalError("video frame \(framesWritten): \(image.width)×\(image.height)×\(image.channels), expected \(width)×\(height) RGB")
        }
        let rgb: [UInt8]
        if image.channels == 3 { rgb = image.pixels } else {
            var packed = [UInt8](repeating: 0, count: width * height * 3)
            for p in 0..<(width * height) { for c in 0..<3 { packed[p * 3 + c] = image.pixels[p * 4 + c] } }
            rgb = packed
        }
        do { try input.write(contentsOf: rgb) } catch {
            // ffmpeg's own reason, read before `cancel` removes its log.
            try? input.close()
            ffmpeg.process.waitUntilExit()
            let reason = ffmpeg.firstError ?? "ffmpeg stopped reading"
            cancel()
            throw CoifError.outputNotWritable(path: path, reason: reason)
        }
        framesWritten += 1
    }

    /// Ends the clip: ffmpeg finishes the MP4, which is renamed over `path`. Throws (and leaves nothing) when
    /// ffmpeg fails.
    public func finish() throws {
        done = true
        try? input.close()
        ffmpeg.process.waitUntilExit()
        defer { ffmpeg.removeLog() }
        try FFmpegProcess.putInPlace(temporary, at: path, failure: framesWritten == 0 ? "no frames" : ffmpeg.failure)
    }

    /// Ends the clip as `finish` does, but leaves the MP4 in its temporary, staged in `files`: it is renamed
    /// in with the command's other outputs at `files.commit()`, or removed with them when one fails.
    public func finish(staging files: inout AtomicFile.Batch) throws {
        done = true
        try? input.close()
        ffmpeg.process.waitUntilExit()
        defer { ffmpeg.removeLog() }
        if let failure = framesWritten == 0 ? "no frames" : ffmpeg.failure {
            unlink(temporary)
            throw CoifError.outputNotWritable(path: path, reason: failure)
        }
        files.adopt(temporary, as: path)
    }

    /// For a signal handler, from any thread while another appends: ffmpeg killed and the temporary removed,
    /// the pipe left open (closing a FileHandle another thread is writing to is a fatal error); `path` is
    /// untouched. The process is expected to exit next.
    public func abandon() {
        ffmpeg.kill()
        unlink(temporary)
        ffmpeg.removeLog()
    }

    /// Abandons the clip: ffmpeg is stopped and its temporary removed; `path` is untouched.
    public func cancel() {
        done = true
        try? input.close()
        ffmpeg.stop()
        unlink(temporary)
    }
}

/// ffmpeg running (`-nostdin -v error` and `arguments`), its standard error in a log file of its own: a pipe
/// nobody reads while frames flow could fill and stall it. The log's first line is what a failure reports.
struct FFmpegProcess {
    let process = Process()
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("coif-ffmpeg-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).log")
    /// Killed and its log removed if a signal stops Coif (not left running, orphaned, after it).
    private let onStop: StopSignals.Registration

    init(_ arguments: [String], standardInput: Any, standardOutput: Any) throws {
        _ = Self.staleLogsCleared
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        // -nostdin: ffmpeg must not read the terminal.
        process.arguments = ["-nostdin", "-v", "error"] + arguments
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let process = HandedOver(self.process), logPath = log.path
        onStop = StopSignals.register {
            if process.value.isRunning { Glibc.kill(process.value.processIdentifier, SIGKILL) }
            unlink(logPath)
        }
    }

    /// The log's first line, if any, without the `[h264 @ 0x55…] ` prefix that names a decoder instance.
    var firstError: String? {
        guard let line = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").first.map(String.init) else { return nil }
        if line.hasPrefix("["), let close = line.firstIndex(of: "]"), line[..<close].contains(" @ 0x") {
            return String(line[line.index(after: close)...]).trimmingCharacters(in: .whitespaces)
        }
        return line
    }

    /// Once it has exited: nil when it succeeded, else why it failed.
    var failure: String? {
        process.terminationStatus == 0 ? nil : firstError ?? "ffmpeg exit \(process.terminationStatus)"
    }

    /// Once it has exited: `failure`, or the first line it logged at `-v error` when it exited 0 all the
    /// same. For reading a clip: ffmpeg reads past a cut or damaged stream and exits 0 with what it could
    /// decode, naming the damage only in its log; a whole clip logs nothing at this level.
    var failureOrError: String? { failure ?? firstError }

    /// The logs of Coif processes that are gone (a SIGKILLed clip cannot remove its own), removed once per
    /// process: `coif-ffmpeg-PID-*.log` in the temporary folder whose PID no longer runs.
    static let staleLogsCleared: Bool = {
        let folder = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix("coif-ffmpeg-") && name.hasSuffix(".log") {
            let parts = name.split(separator: "-")
            guard parts.count == 4, let pid = pid_t(parts[2]), pid > 0, pid != getpid() else { continue }
            if Glibc.kill(pid, 0) != 0 && errno == ESRCH { unlink(folder.appendingPathComponent(name).path) }
        }
        return true
    }()

    /// SIGKILL, without waiting.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Kills it (a caller stopping early: SIGTERM alone can leave it retrying a blocked write), waits, and
    /// removes the log.
    func stop() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        removeLog()
    }

    func removeLog() { try? FileManager.default.removeItem(at: log) }

    /// The file ffmpeg wrote at `temporary` renamed over `path`, or, when it failed (`failure`) or the rename
    /// does, removed and reported as `outputNotWritable`: the output is whole or absent.
    static func putInPlace(_ temporary: String, at path: String, failure: String?) throws {
        if let failure {
            unlink(temporary)
            throw CoifError.outputNotWritable(path: path, reason: failure)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CoifError.outputNotWritable(path: path, reason: reason)
        }
    }
}

/// A program run to its end, its output kept (ffprobe's JSON).
enum Subprocess {
    struct Run {
        var status: Int32
        var stdout: Data
        var stderr: Data
        var firstErrorLine: String? { String(data: stderr, encoding: .utf8)?.split(separator: "\n").first.map(String.init) }
    }

    static func run(_ program: String, _ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + program)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw CoifError.assetFailed(path: "/usr/bin/" + program, reason: "cannot run it (install Debian's ffmpeg; `make setup` does)")
        }
        // Not left running, orphaned, if a signal stops Coif while it runs.
        let running = HandedOver(process)
        let onStop = StopSignals.register { if running.value.isRunning { kill(running.value.processIdentifier, SIGKILL) } }
        defer { onStop.cancel() }
        // ffprobe's answer is small, but read both pipes before waiting so neither can fill and block it.
        let stderrRead = BackgroundWork(name: "coif.subprocess-stderr") { err.fileHandleForReading.readDataToEndOfFile() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = (try? stderrRead.wait()) ?? Data()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}

/// Joins segments of one clip (same size, frame rate and encoding, as `coif video --frames` writes them)
/// into one MP4 without re-encoding: ffmpeg's concat demuxer with the streams copied. Each segment starts on
/// a keyframe (x264 opens every file with one), so the joined stream decodes from any segment's start.
public enum VideoJoiner {
    /// Writes `output` (whole or absent) and returns its frame count.
    public static func join(_ segments: [String], into output: String, audioFrom: String? = nil) throws -> Int {
        let infos = try segments.map { try VideoProbe.probe(path: $0) }
        for (path, info) in zip(segments, infos).dropFirst() {
            let first = infos[0]
            guard info.codec == first.codec, info.pixelFormat == first.pixelFormat else {
                throw CoifError.invalidOption(name: path, reason: "\(info.codec) \(info.pixelFormat) differs from \(segments[0])'s \(first.codec) \(first.pixelFormat): segments join without re-encoding only when they are encoded alike")
            }
            guard info.width == first.width, info.height == first.height, info.frameRate == first.frameRate else {
                throw CoifError.invalidOption(name: path, reason: "\(info.width)×\(info.height) at \(info.frameRate.numerator)/\(info.frameRate.denominator) fps "
                                              + "differs from \(segments[0])'s \(first.width)×\(first.height) at \(first.frameRate.numerator)/\(first.frameRate.denominator)")
            }
        }
        try VideoWriter.checkRegularOutput(output)
        try AtomicFile.checkWritable(output)
        for path in segments { try VideoProbe.checkWhole(path: path) }
        // Named as a temporary of its own, so a killed join's list is cleared as its MP4's temporary is.
        let list = AtomicFile.temporaryPath(for: output + ".list")
        let listOnStop = StopSignals.removeOnStop(list)
        defer {
            unlink(list)
            listOnStop.cancel()
        }
        // The concat demuxer's list: one `file` line per segment, absolute, single quotes escaped as '\''.
        let lines = segments.map { path -> String in
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            return "file '" + ffmpegPath(absolute).replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: list, atomically: false, encoding: .utf8)
        let temporary = AtomicFile.temporaryPath(for: output)
        let temporaryOnStop = StopSignals.removeOnStop(temporary)
        defer { temporaryOnStop.cancel() }
        var arguments = ["-y", "-f", "concat", "-safe", "0", "-i", ffmpegPath(list)]
        // No -shortest: the video keeps every frame even where the audio ends first (as a whole render does).
        if let audioFrom {
            arguments += ["-i", ffmpegPath(audioFrom), "-map", "0:v:0", "-map", "1:a?"] + VideoWriter.audioArguments(from: audioFrom)
        }
        arguments += ["-c:v", "copy", "-movflags", "+faststart", "-f", "mp4", ffmpegPath(temporary)]
        let ffmpeg = try FFmpegProcess(arguments, standardInput: FileHandle.nullDevice, standardOutput: FileHandle.nullDevice)
        ffmpeg.process.waitUntilExit()
        defer { ffmpeg.removeLog() }
        // A cut segment ends the concat demuxer's reading with an error logged and exit 0: the segments after
        // it were dropped from the join.
        try FFmpegProcess.putInPlace(temporary, at: output, failure: ffmpeg.failureOrError.map { "a segment is damaged or cut: " + $0 })
        return (try? VideoProbe.probe(path: output).frameCount ?? 0) ?? 0
    }
}
