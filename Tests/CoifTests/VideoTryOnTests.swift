// VideoTryOnTests: `coif video` (CoifPipeline/VideoTryOn.swift) on real H.264 clips that ffmpeg makes from
// astronaut.png (Debian python3-skimage): a window panning over the photo (the face moves a known 2 px a
// frame), the photo held still, and a clip whose middle has no face. The hair follows the face; a still face
// gives steady hair and the same bytes twice; faceless frames are held, then passed through untouched;
// segments joined without re-encoding match the whole clip; a stopped run leaves no output; bad input is
// one line and a documented code. Also the pieces: the similarity that carries a parse, the background
// plate kept across frames, the bounded queue.
import CoifCore
import CoifMedia
@testable import CoifPipeline
import CoifRender
@testable import CoifVideo
import CoifVision
import Foundation
import XCTest

final class VideoTryOnTests: XCTestCase {
    /// A clip made by ffmpeg from astronaut.png: `filter` on the looped photo, `frames` at 25 fps.
    func makeClip(_ name: String, filter: String, frames: Int, in dir: String, pixelFormat: String = "yuv420p") throws -> String {
        let photo = try Fixtures.requireAstronaut()
        let path = dir + "/" + name
        let run = try Fixtures.runShell("ffmpeg -nostdin -v error -y -loop 1 -framerate 25 -i '\(photo)' -vf \"\(filter),format=\(pixelFormat)\" -frames:v \(frames) -c:v libx264 -crf 12 -threads 1 '\(path)'")
        XCTAssertEqual(run.status, 0, run.stderr)
        return path
    }

    /// The per-frame CSV as rows of column name → cell.
    func readCSV(_ path: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return lines.dropFirst().map { line in
            Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
        }
    }

    /// Every frame of a clip, decoded.
    func frames(_ path: String) throws -> [PixelImage] {
        let reader = try VideoReader(path: path)
        var out: [PixelImage] = []
        while let frame = try reader.next() { out.append(frame.image) }
        return out
    }

    func psnr(_ a: PixelImage, _ b: PixelImage) -> Double {
        var squared = 0.0
        for i in 0..<a.pixels.count { let d = Double(a.pixels[i]) - Double(b.pixels[i]); squared += d * d }
        let mse = squared / Double(a.pixels.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    func testTheHairFollowsAMovingFaceFrameByFrame() throws {
        let dir = try Fixtures.temporaryDirectory()
        // The window moves right 3 px and down 1 px a frame, so the face moves left 3 px and up 1 px.
        let clip = try makeClip("pan.mp4", filter: "crop=384:384:'40+3*n':'10+n'", frames: 20, in: dir)
        let out = dir + "/out.mp4", csv = dir + "/frames.csv", summary = dir + "/summary.json"
        let run = try Fixtures.runCoif(["video", clip, "--style", "pixie", "--color", "auburn", "-o", out, "--timing", csv,
                                        "--summary", summary, "--progress", "lines"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("frames=20 total=20"), "key=value progress off a terminal: \(run.stderr)")
        let rows = try readCSV(csv)
        XCTAssertEqual(rows.map { Int($0["frame"]!)! }, Array(0..<20), "a row per frame, in order")
        XCTAssertEqual(rows[0]["state"], "detected")
        XCTAssertTrue(rows.dropFirst().allSatisfy { $0["state"] == "tracked" || $0["state"] == "detected" })
        XCTAssertEqual(rows[0]["keyframe"], "1", "the first frame parses the own hair")
        XCTAssertTrue(rows.contains { $0["carry_ms"] != "" }, "frames between keyframes carry the parse")
        // The drawn hairline moves with the face: about −3 px a frame across, −1 px down (a least-squares slope).
        func slope(_ column: String) -> Double {
            let ys = rows.map { Double($0[column]!)! }, xs = (0..<ys.count).map(Double.init)
            let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
            return zip(xs, ys).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) } / xs.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
        }
        XCTAssertEqual(slope("hairline_x"), -3, accuracy: 0.6)
        XCTAssertEqual(slope("hairline_y"), -1, accuracy: 0.6)
        // The output is a real clip of the input's frames with hair drawn on each.
        let input = try frames(clip), output = try frames(out)
        XCTAssertEqual(output.count, 20)
        XCTAssertEqual(output[0].width, 384)
        for k in [0, 10, 19] {
            XCTAssertLessThan(psnr(input[k], output[k]), 30, "frame \(k) has new hair on it")
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as! [String: Any]
        XCTAssertEqual(json["frames"] as? Int, 20)
        let stages = json["stages"] as! [String: [String: Double]]
        for stage in ["decode", "landmarks", "pose", "smooth", "parse", "plate", "render", "composite", "encode"] where stage != "decode" {
            XCTAssertNotNil(stages[stage]?["p95_ms"], "summary has \(stage)")
        }
    }

    /// A still is a one-frame shot: a clip's first frame through `coif video --frames 0-0` is `coif render` of that
    /// frame, to within what H.264 loses on it (the still's render encoded alone as the clip is, CRF 18, yuv420p).
    /// Before the still took its level of detail as a shot does (the face width rounded to 16 px), this face drew
    /// other strands in the clip than in the still.
    func testAOneFrameClipIsTheStillOfThatFrame() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("one.mp4", filter: "crop=384:384:64:16", frames: 3, in: dir)
        let first = try XCTUnwrap(try frames(clip).first)
        try AtomicFile.write(try PNGFile.encode(first), to: dir + "/frame0.png")
        let still = try Fixtures.runCoif(["render", dir + "/frame0.png", "--style", "bob", "-o", dir + "/still.png"])
        XCTAssertEqual(still.status, 0, still.stderr)
        let video = try Fixtures.runCoif(["video", clip, "--frames", "0-0", "--style", "bob", "-o", dir + "/one-frame.mp4", "--progress", "none"])
        XCTAssertEqual(video.status, 0, video.stderr)
        let rendered = try PNGFile.read(path: dir + "/still.png", channels: 3)
        let encoded = try Fixtures.runShell("ffmpeg -nostdin -v error -y -i '\(dir)/still.png' -c:v libx264 -crf 18 -pix_fmt yuv420p '\(dir)/still.mp4'")
        XCTAssertEqual(encoded.status, 0, encoded.stderr)
        let floor = psnr(try XCTUnwrap(try frames(dir + "/still.mp4").first), rendered)
        let shot = psnr(try XCTUnwrap(try frames(dir + "/one-frame.mp4").first), rendered)
        print(String(format: "VideoTryOnTests: one-frame clip against the still %.2f dB; the still through H.264 %.2f dB", shot, floor))
        XCTAssertGreaterThan(shot, floor - 0.6, "the clip's frame is not the still of that frame")
    }

    func testAStillFaceGivesSteadyHairAndTheSameBytesTwice() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("still.mp4", filter: "crop=384:384:64:16", frames: 12, in: dir)
        var outputs: [Data] = []
        for k in 0..<2 {
            let out = dir + "/out\(k).mp4", csv = dir + "/frames\(k).csv"
            let run = try Fixtures.runCoif(["video", clip, "--style", "bob", "-o", out, "--timing", csv, "--progress", "none"])
            XCTAssertEqual(run.status, 0, run.stderr)
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: out)))
            let rows = try readCSV(csv)
            let xs = rows.map { Double($0["hairline_x"]!)! }, yaws = rows.map { Double($0["yaw"]!)! }
            XCTAssertLessThan(xs.max()! - xs.min()!, 0.5, "the drawn hairline of a still face stays within half a pixel: \(xs)")
            XCTAssertLessThan(yaws.max()! - yaws.min()!, 0.2, "and its yaw within 0.2°: \(yaws)")
            let levels = rows.map { Double($0["hair_level"]!)! }
            XCTAssertLessThan(levels.max()! - levels.min()!, 0.5, "and the hair's shading within half a level: \(levels)")
        }
        XCTAssertEqual(outputs[0], outputs[1], "same clip and flags, same bytes")
    }

    func testFacelessFramesAreHeldThenPassedThroughUntouched() throws {
        let dir = try Fixtures.temporaryDirectory()
        // Frames 6–17 are a flat grey (no face); the photo before and after.
        let clip = try makeClip("gap.mp4", filter: "crop=384:384:64:16,drawbox=x=0:y=0:w=iw:h=ih:color=gray:t=fill:enable='between(n,6,17)'",
                                frames: 24, in: dir)
        let out = dir + "/out.mp4", csv = dir + "/frames.csv"
        let run = try Fixtures.runCoif(["video", clip, "--style", "pixie", "-o", out, "--timing", csv, "--hold", "0.2", "--progress", "none"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let states = try readCSV(csv).map { $0["state"]! }
        XCTAssertEqual(Array(states[0..<6]).filter { $0 == "held" || $0 == "passed" }, [])
        // 0.2 s at 25 fps: frames 6–11 are within the hold (5 frames after the last face, at 0.04 s each).
        XCTAssertEqual(Array(states[6..<11]), Array(repeating: "held", count: 5), "\(states)")
        XCTAssertEqual(Array(states[12..<18]), Array(repeating: "passed", count: 6), "\(states)")
        XCTAssertEqual(states[18], "detected", "the face is found again when it comes back")
        let input = try frames(clip), output = try frames(out)
        XCTAssertEqual(output.count, 24)
        for k in 12..<18 { XCTAssertGreaterThan(psnr(input[k], output[k]), 40, "passed frame \(k) is the input's") }
        XCTAssertLessThan(psnr(input[20], output[20]), 30, "hair again after the gap")
    }

    func testSegmentsJoinedMatchTheWholeClip() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("pan.mp4", filter: "crop=384:384:'40+2*n':'10+n'", frames: 16, in: dir)
        let whole = dir + "/whole.mp4", a = dir + "/a.mp4", b = dir + "/b.mp4", joined = dir + "/joined.mp4"
        for (out, frames) in [(whole, nil), (a, "0-6"), (b, "7-15")] as [(String, String?)] {
            // CRF 10: the encoder's own noise well under the test's 40 dB, so the content is what is compared.
            let run = try Fixtures.runCoif(["video", clip, "--style", "pixie", "-o", out, "--progress", "none", "--crf", "10"]
                                           + (frames.map { ["--frames", $0] } ?? []))
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let join = try Fixtures.runCoif(["video-join", a, b, "-o", joined])
        XCTAssertEqual(join.status, 0, join.stderr)
        XCTAssertTrue(join.stdout.contains("16 frames"), join.stdout)
        let w = try frames(whole), j = try frames(joined)
        XCTAssertEqual(j.count, 16, "every frame once")
        for k in 0..<16 { XCTAssertGreaterThan(psnr(w[k], j[k]), 40, "frame \(k): the joined clip matches the whole render") }
        XCTAssertEqual(Fixtures.listing(dir), ["a.mp4", "b.mp4", "joined.mp4", "pan.mp4", "whole.mp4"], "no temporary or list file left")
    }

    func testARotatedClipIsTriedOnUprightAndWrittenUpright() throws {
        let dir = try Fixtures.temporaryDirectory()
        // Stored sideways (384×320 turned to 320×384), with the display matrix that turns it back, as a phone
        // held upright writes it.
        let sideways = try makeClip("sideways.mp4", filter: "crop=384:320:64:16,transpose=2", frames: 4, in: dir)
        let clip = dir + "/rotated.mp4"
        let tag = try Fixtures.runShell("ffmpeg -nostdin -v error -y -i '\(sideways)' -c copy -metadata:s:v:0 rotate=270 '\(clip)'")
        XCTAssertEqual(tag.status, 0, tag.stderr)
        let out = dir + "/out.mp4", csv = dir + "/frames.csv"
        let run = try Fixtures.runCoif(["video", clip, "--style", "pixie", "-o", out, "--timing", csv, "--progress", "none"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try readCSV(csv).map { $0["state"]! }, ["detected", "tracked", "tracked", "tracked"], "the face is found upright")
        let probe = try Fixtures.runShell("ffprobe -v error -show_entries stream=width,height -of csv=p=0 '\(out)'")
        XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "384,320", "written upright")
    }

    func testAStoppedRunLeavesNoOutput() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("long.mp4", filter: "crop=384:384:'40+n':16", frames: 60, in: dir)
        var killed: pid_t = 0
        for signal in ["INT", "KILL"] {
            let out = dir + "/out-\(signal).mp4"
            let process = try Fixtures.startShell("exec '\(Fixtures.coifBinary)' video '\(clip)' -o '\(out)' --progress none 2>/dev/null")
            // Stopped once it is writing frames (its temporary exists), else after 20 s.
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline && !Fixtures.listing(dir).contains(where: { $0.hasPrefix(".out-\(signal).mp4.tmp") }) { usleep(50_000) }
            usleep(300_000)
            kill(process.processIdentifier, signal == "INT" ? SIGINT : SIGKILL)
            process.waitUntilExit()
            if signal == "KILL" { killed = process.processIdentifier }
            if signal == "INT" {
                XCTAssertEqual(process.terminationStatus, 130, "Ctrl-C is exit 130")
                XCTAssertEqual(Fixtures.listing(dir), ["long.mp4"], "Ctrl-C leaves neither output nor temporary")
            } else {
                XCTAssertFalse(FileManager.default.fileExists(atPath: out), "a killed run leaves no output")
            }
        }
        // An encoder that dies mid-clip (here the file size limit stops ffmpeg's output at 20 KiB) is one line,
        // exit 30, and no output or temporary.
        let limited = dir + "/limited"
        try FileManager.default.createDirectory(atPath: limited, withIntermediateDirectories: true)
        let full = try Fixtures.runShell("ulimit -f 20; exec '\(Fixtures.coifBinary)' video '\(clip)' -o '\(limited)/out.mp4' --progress none")
        XCTAssertEqual(full.status, 30, full.stderr)
        XCTAssertEqual(full.stderr.split(separator: "\n").count, 1, full.stderr)
        XCTAssertEqual(Fixtures.listing(limited), [])
        try FileManager.default.removeItem(atPath: limited)
        // The next run into the folder clears the killed run's temporary and writes a whole clip; the next clip
        // anywhere clears the killed run's ffmpeg logs.
        let run = try Fixtures.runCoif(["video", clip, "-o", dir + "/done.mp4", "--frames", "0-2", "--progress", "none"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(Fixtures.listing(dir), ["done.mp4", "long.mp4"])
        XCTAssertEqual(Fixtures.listing(FileManager.default.temporaryDirectory.path).filter { $0.hasPrefix("coif-ffmpeg-\(killed)-") }, [],
                       "the killed run's ffmpeg logs are gone")
    }

    func testBadInputIsOneLineAndADocumentedCode() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        let clip = try makeClip("c.mp4", filter: "crop=384:384:64:16", frames: 3, in: dir)
        let cases: [([String], Int32, String)] = [
            (["video", dir + "/missing.mp4", "-o", dir + "/o.mp4"], 10, "no such file"),
            (["video", "/etc/hostname", "-o", dir + "/o.mp4"], 11, "not a video"),
            (["video", clip, "-o", dir + "/o.mp4", "--face", "all"], 22, "one face"),
            (["video", clip, "-o", dir + "/o.mp4", "--frames", "9-3"], 22, "--frames"),
            (["video", clip, "-o", dir + "/o.mp4", "--frames", "50-60"], 22, "past the clip"),
            (["video", clip, "-o", dir + "/o.mp4", "--smoothing", "rotation-cutoff=x"], 22, "--smoothing"),
            (["video", clip, "-o", dir + "/o.mp4", "--style", "no-such-style"], 20, "no-such-style"),
            (["video", clip, "-o", clip], 22, clip),
            (["video-join", clip, photo, "-o", dir + "/o.mp4"], 22, "differs"),
        ]
        for (arguments, code, needle) in cases {
            let run = try Fixtures.runCoif(arguments)
            XCTAssertEqual(run.status, code, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one line: \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(needle), "\(arguments): \(run.stderr)")
        }
        XCTAssertEqual(Fixtures.listing(dir), ["c.mp4"], "nothing written")
        // An odd size is no error: 4:2:0 needs even sizes, so the last column and row go.
        let odd = try makeClip("odd.mp4", filter: "crop=301:299:100:20", frames: 3, in: dir, pixelFormat: "yuv444p")
        let run = try Fixtures.runCoif(["video", odd, "-o", dir + "/odd-out.mp4", "--progress", "none"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let probe = try Fixtures.runShell("ffprobe -v error -count_frames -show_entries stream=width,height,nb_read_frames -of csv=p=0 '\(dir)/odd-out.mp4'")
        XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "300,298,3")
    }

    // What a review of the first version found, each reproduced there and fixed, one test each.

    /// A FIFO (a device needs root to make) at the output is refused (22) and left as it is, not replaced.
    func testAFIFOAtTheOutputIsRefusedAndLeftAFIFO() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("c.mp4", filter: "crop=384:384:64:16", frames: 2, in: dir)
        XCTAssertEqual(mkfifo(dir + "/fifo.mp4", 0o644), 0)
        let run = try Fixtures.runCoif(["video", clip, "-o", dir + "/fifo.mp4", "--keep-own-hair", "--progress", "none"])
        XCTAssertEqual(run.status, 22, run.stderr)
        XCTAssertTrue(AtomicFile.isSpecialFile(dir + "/fifo.mp4"))
    }

    /// `eval jitter -o` naming its own input clip is refused (22), the clip kept.
    func testEvalJitterDoesNotWriteOverItsInput() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("c.mp4", filter: "crop=384:384:64:16", frames: 2, in: dir)
        let bytes = FileManager.default.contents(atPath: clip)
        let run = try Fixtures.runCoif(["eval", "jitter", clip, "-o", clip])
        XCTAssertEqual(run.status, 22, run.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: clip), bytes)
    }

    /// Times and durations past what a frame number can hold are refused (22) instead of crashing.
    func testHugeTimesAreRefusedNotACrash() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("c.mp4", filter: "crop=384:384:64:16", frames: 2, in: dir)
        for arguments in [["--start", "0", "--duration", "1e19"], ["--start", "1e300", "--duration", "1"], ["--frames", "0-1", "--warm-up", "1e300"]] {
            let run = try Fixtures.runCoif(["video", clip, "-o", dir + "/x.mp4", "--keep-own-hair", "--progress", "none"] + arguments)
            XCTAssertEqual(run.status, 22, "\(arguments): \(run.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.mp4"))
    }

    /// The render's flags are `coif render`'s (one declaration, RenderFlags) and are checked as a still's are
    /// (TryOnJob.validate): a field of view no lens has, a detail or a strand count out of range is exit 22
    /// with one line naming the flag and no output; `--flat-clumps`, once missing from video, is taken. Before,
    /// `--fov-degrees 500` rendered the clip through it and exited 0.
    func testTheRenderFlagsAreTheStillsAndCheckedAsAStillsAre() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("c.mp4", filter: "crop=384:384:64:16", frames: 2, in: dir)
        for arguments in [["--fov-degrees", "500"], ["--detail", "9"], ["--strands", "0"]] {
            let run = try Fixtures.runCoif(["video", clip, "-o", dir + "/x.mp4", "--keep-own-hair", "--progress", "none"] + arguments)
            XCTAssertEqual(run.status, 22, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(arguments[0]), run.stderr)
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.mp4"))
        let run = try Fixtures.runCoif(["video", clip, "-o", dir + "/y.mp4", "--keep-own-hair", "--flat-clumps", "--progress", "none"])
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    /// A groom file as `--style` on a clip, as on a still: the job names the file, so checking it as a still's
    /// (TryOnJob.validate) resolves the file, not its bare name.
    func testAGroomFileIsAStyleForAClip() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("c.mp4", filter: "crop=384:384:64:16", frames: 1, in: dir)
        let engine = try Fixtures.sharedEngine()
        let guides = try engine.styles.groom(try engine.styles.resolve("lob")).guides
        var obj = "", next = 1
        for k in 0..<guides.strandCount { for p in guides.strand(k) { obj += "v \(p.x) \(p.y) \(p.z)\n" } }
        for k in 0..<guides.strandCount {
            let count = guides.strand(k).count
            obj += "l " + (next..<(next + count)).map(String.init).joined(separator: " ") + "\n"
            next += count
        }
        try obj.write(toFile: dir + "/curves.obj", atomically: true, encoding: .utf8)
        let run = try Fixtures.runCoif(["video", clip, "--style", dir + "/curves.obj", "-o", dir + "/x.mp4", "--keep-own-hair", "--progress", "none"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/x.mp4"))
    }

    /// `--face 1` on a clip with one face is exit 13 naming the index, not every frame passed through silently.
    func testAFaceIndexTheClipDoesNotHaveIsExit13() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("c.mp4", filter: "crop=384:384:64:16", frames: 2, in: dir)
        let run = try Fixtures.runCoif(["video", clip, "--face", "1", "-o", dir + "/x.mp4", "--keep-own-hair", "--progress", "none"])
        XCTAssertEqual(run.status, 13, run.stderr)
        XCTAssertTrue(run.stderr.contains("face index 1"), run.stderr)
    }

    /// A colon in the input's and the output's names is a file, not an ffmpeg protocol; PCM audio in an AVI
    /// (which MP4 cannot hold) becomes AAC instead of failing the encode.
    func testAColonInAPathIsAFileAndPCMAudioBecomesAAC() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("c.mp4", filter: "crop=384:384:64:16", frames: 4, in: dir)
        let colon = dir + "/take:1.avi"
        let make = try Fixtures.runShell("ffmpeg -nostdin -v error -y -i '\(clip)' -f lavfi -i 'sine=frequency=440:duration=0.16' -c:v mpeg4 -c:a pcm_s16le -shortest 'file:\(colon)'")
        XCTAssertEqual(make.status, 0, make.stderr)
        let run = try Fixtures.runCoif(["video", colon, "-o", dir + "/out:1.mp4", "--keep-own-hair", "--progress", "none"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let streams = try Fixtures.runShell("ffprobe -v error -show_entries stream=codec_name -of csv=p=0 'file:\(dir)/out:1.mp4'")
        XCTAssertEqual(streams.stdout.split(separator: "\n").map { String($0) }, ["h264", "aac"])
    }

    /// Audio shorter than the video: the joined clip keeps every frame (the join had cut the video at the
    /// audio's end).
    func testAJoinWithShorterAudioKeepsEveryFrame() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("c.mp4", filter: "crop=384:384:64:16", frames: 4, in: dir)
        let short = dir + "/short-audio.mp4"
        XCTAssertEqual(try Fixtures.runShell("ffmpeg -nostdin -v error -y -i '\(clip)' -f lavfi -i 'sine=duration=0.06' -c:v copy -c:a aac '\(short)'").status, 0)
        for (name, frames) in [("p0", "0-1"), ("p1", "2-3")] {
            let run = try Fixtures.runCoif(["video", short, "--frames", frames, "-o", dir + "/\(name).mp4", "--keep-own-hair", "--progress", "none"])
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let run = try Fixtures.runCoif(["video-join", dir + "/p0.mp4", dir + "/p1.mp4", "-o", dir + "/j.mp4", "--audio-from", short])
        XCTAssertEqual(run.status, 0, run.stderr)
        let counted = try Fixtures.runShell("ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 '\(dir)/j.mp4'")
        XCTAssertEqual(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "4")
    }

    /// Segments of different codecs (an H.264 and an MPEG-4 part) are refused (22) by `video-join`, which
    /// copies streams without re-encoding and had written an unplayable join; nothing is written.
    func testAJoinOfMixedCodecsIsRefused() throws {
        let dir = try Fixtures.temporaryDirectory()
        let clip = try makeClip("c.mp4", filter: "crop=384:384:64:16", frames: 2, in: dir)
        XCTAssertEqual(try Fixtures.runShell("ffmpeg -nostdin -v error -y -i '\(clip)' -c:v mpeg4 '\(dir)/p1-mpeg4.mp4'").status, 0)
        let run = try Fixtures.runCoif(["video-join", clip, dir + "/p1-mpeg4.mp4", "-o", dir + "/j2.mp4"])
        XCTAssertEqual(run.status, 22, run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/j2.mp4"))
    }

    // MARK: - Pieces

    func testASimilarityCarriesAParseByTheHeadsMotion() {
        // A known similarity: scale 1.1, 10° turn, shift (12, −7).
        let angle = 10.0 * .pi / 180
        let truth = SimilarityMap(a: 1.1 * cos(angle), b: 1.1 * sin(angle), tx: 12, ty: -7)
        let from: [Vec2] = (0..<20).map { (k: Int) -> Vec2 in
            let x = Float(100 + 7 * (k % 5)), y = Float(80 + 11 * (k / 5))
            return Vec2(x, y)
        }
        let fitted = SimilarityMap.fit(from: from, to: from.map(truth.apply))
        XCTAssertEqual(fitted.a, truth.a, accuracy: 1e-6)
        XCTAssertEqual(fitted.b, truth.b, accuracy: 1e-6)
        XCTAssertEqual(fitted.tx, truth.tx, accuracy: 1e-4)
        XCTAssertEqual(fitted.turnDegrees, 10, accuracy: 1e-6)
        let back = truth.inverse.apply(truth.apply(Vec2(33, 44)))
        XCTAssertEqual(back.x, 33, accuracy: 1e-4)
        // A matte block moved by a pure shift lands where the shift puts it.
        let width = 64, height = 48
        var matte = [Float](repeating: 0, count: width * height), classes = [UInt8](repeating: OwnHair.background, count: width * height)
        for y in 10..<20 { for x in 10..<30 { matte[y * width + x] = 1; classes[y * width + x] = OwnHair.hair } }
        let hair = OwnHair(width: width, height: height, crop: (0, 0, 48), classes: classes, matte: matte)
        let moved = hair.carried(by: SimilarityMap(a: 1, b: 0, tx: 5, ty: 3))
        XCTAssertEqual(moved.matte[(13 + 5) * width + 15 + 10], 1)
        XCTAssertEqual(moved.classes[(13 + 5) * width + 15 + 10], OwnHair.hair)
        XCTAssertEqual(moved.matte[12 * width + 12], 0, "where the block was and no longer is")
        XCTAssertEqual(moved.classes[0], OwnHair.unknown, "what the keyframe never saw is unknown")
        XCTAssertEqual(moved.crop.x, 5)
    }

    func testTheBackgroundPlateHoldsTheFillAndUsesTheBackgroundTheClipShowed() {
        let width = 40, height = 30, count = width * height
        var classes = [UInt8](repeating: OwnHair.background, count: count), matte = [Float](repeating: 0, count: count)
        // Hair over columns 10–19 in frame 1.
        for y in 0..<height { for x in 10..<20 { matte[y * width + x] = 1; classes[y * width + x] = OwnHair.hair } }
        let hair1 = OwnHair(width: width, height: height, crop: (0, 0, 1), classes: classes, matte: matte)
        // Frame 2: the hair has moved to columns 25–34; columns 10–19 now show the background.
        var classes2 = [UInt8](repeating: OwnHair.background, count: count), matte2 = [Float](repeating: 0, count: count)
        for y in 0..<height { for x in 25..<35 { matte2[y * width + x] = 1; classes2[y * width + x] = OwnHair.hair } }
        let hair2 = OwnHair(width: width, height: height, crop: (0, 0, 1), classes: classes2, matte: matte2)
        let background: (Int) -> UInt8 = { UInt8(60 + ($0 % width) * 4) }
        func photo(hairFrom: Int) -> PixelImage {
            var p = [UInt8](repeating: 0, count: count * 3)
            for i in 0..<count { for c in 0..<3 { p[3 * i + c] = (i % width) >= hairFrom && (i % width) < hairFrom + 10 ? 20 : background(i) } }
            return PixelImage(width: width, height: height, channels: 3, pixels: p)
        }
        func filled(_ frame: PixelImage, hairFrom: Int, value: UInt8) -> PixelImage {
            var p = frame.pixels
            for i in 0..<count where (i % width) >= hairFrom - 1 && (i % width) < hairFrom + 11 { for c in 0..<3 { p[3 * i + c] = value } }
            return PixelImage(width: width, height: height, channels: 3, pixels: p)
        }
        let skin = [Float](repeating: 0, count: count)
        let plate = VideoBackgroundPlate()
        let frame1 = photo(hairFrom: 10)
        var out1 = filled(frame1, hairFrom: 10, value: 200)
        plate.stabilise(&out1, frame: frame1, hair: hair1, removal: HairPlate.removal(hair1, photo: frame1, faces: []), skin: skin)
        XCTAssertEqual(out1.pixels[3 * (5 * width + 15)], 200, "the first fill stands")
        // Frame 2 again with hair at 10–19 (as frame 1) but a re-made fill of 100: held near the first, not jumping.
        var again = filled(frame1, hairFrom: 10, value: 100)
        plate.stabilise(&again, frame: frame1, hair: hair1, removal: HairPlate.removal(hair1, photo: frame1, faces: []), skin: skin)
        XCTAssertEqual(Int(again.pixels[3 * (5 * width + 15)]), 175, accuracy: 1, "a quarter of the way to the new fill")
        // Frame 3: the hair moved on; then the plate fills 10–19 again (say a parse that lags): the real background
        // seen in frame 3 is used, not a fill.
        let frame3 = photo(hairFrom: 25)
        var out3 = filled(frame3, hairFrom: 25, value: 90)
        plate.stabilise(&out3, frame: frame3, hair: hair2, removal: HairPlate.removal(hair2, photo: frame3, faces: []), skin: skin)
        XCTAssertEqual(out3.pixels[3 * (5 * width + 15)], background(15), "visible background passes untouched")
        var out4 = filled(photo(hairFrom: 10), hairFrom: 10, value: 90)
        plate.stabilise(&out4, frame: photo(hairFrom: 10), hair: hair1, removal: HairPlate.removal(hair1, photo: photo(hairFrom: 10), faces: []), skin: skin)
        XCTAssertEqual(out4.pixels[3 * (5 * width + 15)], background(15), "where the clip showed the background, the fill is that background")
    }

    /// A head moving across the hair it replaced leaves no line of skin behind: the frame's skin is softened a
    /// pixel over the background fill beside it, and a kept fill begun there held that skin tone where the head's
    /// edge had been, one line per frame (rings behind the head on Megamind.avi). On the code before, the fill
    /// left of the head read 90–130 in the last frame, rising toward the head, where every frame's own fill is 90.
    func testAHeadMovingOverItsFillLeavesNoRingsOfSkin() {
        let width = 48, height = 12, count = width * height
        let plate = VideoBackgroundPlate()
        var last = PixelImage(width: width, height: height, channels: 3), lastFrom = 0
        for from in 10..<18 {
            // Hair over columns from..<from+20 (removed); the head's skin over its right half; the wall elsewhere.
            var classes = [UInt8](repeating: OwnHair.background, count: count), matte = [Float](repeating: 0, count: count)
            var removal = [Float](repeating: 0, count: count), skin = removal
            var photo = [UInt8](repeating: 60, count: count * 3), fill = photo
            for y in 0..<height {
                for x in from..<(from + 20) {
                    let i = y * width + x
                    matte[i] = 1
                    classes[i] = OwnHair.hair
                    removal[i] = 1
                    for c in 0..<3 { photo[3 * i + c] = 20 }
                    let value: UInt8 = x >= from + 10 ? 220 : x == from + 9 ? 160 : 90
                    if x >= from + 10 { skin[i] = 1 }
                    for c in 0..<3 { fill[3 * i + c] = value }
                }
            }
            let hair = OwnHair(width: width, height: height, crop: (0, 0, 40), classes: classes, matte: matte)
            var out = PixelImage(width: width, height: height, channels: 3, pixels: fill)
            plate.stabilise(&out, frame: PixelImage(width: width, height: height, channels: 3, pixels: photo), hair: hair, removal: removal, skin: skin)
            last = out
            lastFrom = from
        }
        // The background fill left of the head in the last frame, clear of its softened edge.
        let y = height / 2
        let values = (lastFrom..<(lastFrom + 8)).map { Int(last.pixels[3 * (y * width + $0)]) }
        XCTAssertTrue(values.allSatisfy { abs($0 - 90) <= 2 }, "the fill beside the head holds no skin tone: \(values)")
    }

    func testTheLightEasesAcrossAShotAndStartsAfreshOnTheNext() {
        var filter = ShotLight()
        let dim = Lighting(exposure: 0.5), bright = Lighting(exposure: 1.5)
        XCTAssertEqual(filter.next(dim, shot: 1, fallback: Lighting()).exposure, 0.5, "a shot starts from its first reading")
        // Readings flickering between two lights: the light drawn moves a fifth of the way each frame.
        var drawn: [Float] = []
        for k in 0..<20 { drawn.append(filter.next(k % 2 == 0 ? bright : dim, shot: 1, fallback: Lighting()).exposure) }
        XCTAssertEqual(drawn[0], 0.7, accuracy: 1e-5)
        let swings = zip(drawn.dropFirst(), drawn).map { abs($0 - $1) }
        XCTAssertLessThan(swings.suffix(10).max()!, 0.25, "the readings swing by 1.0; the light drawn by a fifth of that: \(drawn)")
        XCTAssertEqual(filter.next(nil, shot: 1, fallback: Lighting()).exposure, drawn.last!, "no reading keeps the last light")
        XCTAssertEqual(filter.next(bright, shot: 2, fallback: Lighting()).exposure, 1.5, "a new shot starts afresh")
        let turned = filter.next(Lighting(keyDirection: Vec3(1, 0, 0)), shot: 2, fallback: Lighting())
        XCTAssertEqual(length(turned.keyDirection), 1, accuracy: 1e-5, "directions stay unit length")
    }

    func testTheBoundedQueueKeepsOrderHoldsAtCapacityAndCarriesAFailure() throws {
        let queue = BoundedQueue<Int>(capacity: 2)
        let producer = BackgroundWork(name: "test.producer") { () -> Int in
            var put = 0
            for k in 0..<50 where queue.put(k) { put += 1 }
            queue.close(throwing: CoifError.internalError("done with a failure"))
            return put
        }
        var taken: [Int] = []
        do {
            while let k = try queue.take() { taken.append(k) }
            XCTFail("the failure is thrown after the values")
        } catch {
            XCTAssertTrue("\(error)".contains("done with a failure"))
        }
        XCTAssertEqual(taken, Array(0..<50))
        XCTAssertEqual(try producer.wait(), 50)
        let cancelled = BoundedQueue<Int>(capacity: 1)
        cancelled.cancel()
        XCTAssertFalse(cancelled.put(1), "a cancelled queue refuses")
        XCTAssertNil(try cancelled.take())
    }
}

final class VideoToolsTests: XCTestCase {
    func testATurntableTurnsOnceFromTheFrontViewThroughTheSideAndBack() throws {
        let dir = try Fixtures.temporaryDirectory()
        for view in ["front", "left", "back"] {
            let run = try Fixtures.runCoif(["preview", "pixie", "--size", "128", "--view", view, "-o", dir + "/\(view).png"])
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let run = try Fixtures.runCoif(["preview", "pixie", "--size", "128", "--turntable", "8", "-o", dir + "/views"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(Fixtures.listing(dir + "/views"), (0..<8).map { String(format: "view-%03d.png", $0) })
        for (view, k) in [("front", 0), ("left", 2), ("back", 4)] {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/\(view).png")),
                           try Data(contentsOf: URL(fileURLWithPath: dir + String(format: "/views/view-%03d.png", k))),
                           "view \(k) of 8 is the \(view) view")
        }
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/views/view-001.png")),
                          try Data(contentsOf: URL(fileURLWithPath: dir + "/views/view-002.png")))
        let video = try Fixtures.runCoif(["preview", "bob", "--size", "96", "--turntable", "12", "-o", dir + "/spin.mp4"])
        XCTAssertEqual(video.status, 0, video.stderr)
        let probe = try Fixtures.runShell("ffprobe -v error -count_frames -show_entries stream=codec_name,width,height,nb_read_frames -of csv=p=0 '\(dir)/spin.mp4'")
        XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "h264,96,96,12")
    }

    func testATimingChartDrawsEveryFrameAndRefusesOtherFiles() throws {
        let dir = try Fixtures.temporaryDirectory()
        let stages = Stage.allCases.map { $0.rawValue + "_ms" }.joined(separator: ",")
        var csv = "frame,time_s,state,keyframe,\(stages),sum_ms\n"
        for k in 0..<30 {
            let cells = Stage.allCases.map { $0 == .render ? String(10 + k) : ($0 == .parse && k % 10 == 0 ? "400" : "") }
            csv += "\(k),\(Double(k) / 25),\(k % 10 == 0 ? "detected" : "tracked"),\(k % 10 == 0 ? 1 : 0),\(cells.joined(separator: ",")),0\n"
        }
        try csv.write(toFile: dir + "/t.csv", atomically: true, encoding: .utf8)
        let svg = try Fixtures.runCoif(["timing-chart", dir + "/t.csv", "-o", dir + "/t.svg"])
        XCTAssertEqual(svg.status, 0, svg.stderr)
        let text = try String(contentsOfFile: dir + "/t.svg", encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("<svg"))
        XCTAssertEqual(text.components(separatedBy: "fill=\"#1b9e77\"").count - 1, 3, "three detected frames marked")
        XCTAssertTrue(text.contains("render 24.5 ms"), "the legend gives each stage's mean")
        XCTAssertTrue(text.contains("parse 40.0 ms"))
        XCTAssertFalse(text.contains("decode"), "a stage that never ran is left out")
        let png = try Fixtures.runCoif(["timing-chart", dir + "/t.csv", "-o", dir + "/t.png", "--width", "600", "--height", "300"])
        XCTAssertEqual(png.status, 0, png.stderr)
        let image = try PNGFile.read(path: dir + "/t.png", channels: 3)
        XCTAssertEqual(image.width, 600)
        XCTAssertGreaterThan(Set(stride(from: 0, to: image.pixels.count, by: 3).map { image.pixels[$0] }).count, 4, "bars and text drawn")
        try "frame,state,render_ms\n0,tracked,-5\n".write(toFile: dir + "/negative.csv", atomically: true, encoding: .utf8)
        XCTAssertEqual(try Fixtures.runCoif(["timing-chart", dir + "/negative.csv", "-o", dir + "/n.png"]).status, 22, "a negative time is refused")
        try "a,b\n1,2\n".write(toFile: dir + "/bad.csv", atomically: true, encoding: .utf8)
        let bad = try Fixtures.runCoif(["timing-chart", dir + "/bad.csv", "-o", dir + "/bad.svg"])
        XCTAssertEqual(bad.status, 22)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/bad.svg"))
    }
}

final class VideoFarmTests: XCTestCase {
    /// A real single-node Slurm (scripts/slurm-check.sh) runs a 3-task array of `coif video --segment auto`
    /// (the example sbatch's command); the parts, joined, are the whole clip's frames once each and match a
    /// whole render.
    func testASlurmArrayRendersAClipsSegmentsThatJoinIntoTheWhole() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        let clip = dir + "/clip.mp4"
        let make = try Fixtures.runShell("ffmpeg -nostdin -v error -y -loop 1 -framerate 25 -i '\(photo)' -vf \"crop=384:384:'40+2*n':'10+n',format=yuv420p\" -frames:v 15 -c:v libx264 -crf 12 -threads 1 '\(clip)'")
        XCTAssertEqual(make.status, 0, make.stderr)
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let task = "exec '\(Fixtures.coifBinary)' video '\(clip)' --segment auto --style pixie --crf 10 -o '\(out)/part-{segment}.mp4' --summary '\(out)/part-{segment}.json' --progress lines"
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/slurm-check.sh").path
        let run = try Fixtures.runShell("COIF_SLURM_TASK=\"\(task.replacingOccurrences(of: "\"", with: "\\\""))\" COIF_SLURM_ARRAY=0-2 '\(script)' '\(Fixtures.coifBinary)' none '\(out)' '\(dir)/slurm' 2>&1")
        if run.status == 77 {
            let reason = run.stdout.split(separator: "\n").last(where: { $0.contains("skipping") }) ?? "Slurm cannot start here"
            print("VideoFarmTests: \(reason)")
            throw XCTSkip(String(reason))
        }
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertEqual(Fixtures.listing(out), ["part-0.json", "part-0.mp4", "part-1.json", "part-1.mp4", "part-2.json", "part-2.mp4"])
        let parts = (0..<3).map { out + "/part-\($0).mp4" }
        let joined = dir + "/joined.mp4", whole = dir + "/whole.mp4"
        XCTAssertEqual(try Fixtures.runCoif(["video-join"] + parts + ["-o", joined]).status, 0)
        XCTAssertEqual(try Fixtures.runCoif(["video", clip, "--style", "pixie", "--crf", "10", "-o", whole, "--progress", "none"]).status, 0)
        let a = try VideoReader(path: joined), b = try VideoReader(path: whole)
        var count = 0
        while let x = try a.next() {
            let y = try XCTUnwrap(try b.next())
            var squared = 0.0
            for i in 0..<x.image.pixels.count { let d = Double(x.image.pixels[i]) - Double(y.image.pixels[i]); squared += d * d }
            let psnr = 10 * log10(255 * 255 / max(squared / Double(x.image.pixels.count), 1e-9))
            XCTAssertGreaterThan(psnr, 40, "frame \(count)")
            count += 1
        }
        XCTAssertEqual(count, 15, "every frame once")
        XCTAssertNil(try b.next())
    }

    func testSegmentsSplitTheFramesInBlocksAndRefuseNonsense() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        let clip = dir + "/clip.mp4"
        XCTAssertEqual(try Fixtures.runShell("ffmpeg -nostdin -v error -y -loop 1 -framerate 25 -i '\(photo)' -vf \"crop=256:256:130:40,format=yuv420p\" -frames:v 7 -c:v libx264 '\(clip)'").status, 0)
        // 7 frames in 3 segments: 0–1, 2–3, 4–6 (⌊k·7/3⌋), from Kubernetes' index as from --segment.
        for (k, expected) in [(0, 2), (1, 2), (2, 3)] {
            let run = try Fixtures.runCoif(["video", clip, "--segment", "auto", "-o", dir + "/p{segment}.mp4", "--timing", dir + "/p{segment}.csv",
                                            "--style", "pixie", "--progress", "none"],
                                           environment: ["JOB_COMPLETION_INDEX": "\(k)", "COIF_SHARD_COUNT": "3"])
            XCTAssertEqual(run.status, 0, run.stderr)
            let rows = try String(contentsOfFile: dir + "/p\(k).csv", encoding: .utf8).split(separator: "\n").dropFirst()
            XCTAssertEqual(rows.count, expected)
            XCTAssertEqual(Int(rows.first!.split(separator: ",")[0]), [0, 2, 4][k])
        }
        for (arguments, needle) in [(["--segment", "3/3"], "I/N"), (["--segment", "auto"], "Slurm"), (["--segment", "0/9"], "empty"),
                                    (["--segment", "0/2", "--frames", "0-1"], "one of")] {
            let run = try Fixtures.runCoif(["video", clip, "-o", dir + "/x.mp4"] + arguments)
            XCTAssertEqual(run.status, 22, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(needle), "\(arguments): \(run.stderr)")
        }
    }
}
