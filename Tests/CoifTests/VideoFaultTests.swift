// VideoFaultTests: the video commands under faults: a clip cut after its index, outputs that must fail
// together, a timing CSV with hostile column names, a signal mid-write. Each test builds its own input.
import CoifCore
import CoifMedia
import CoifPipeline
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

final class VideoFaultTests: XCTestCase {
    /// A clip of `frames` frames made from the astronaut (a face to track), H.264 in MP4 with its index at
    /// the front (`+faststart`), so a file cut short still probes as whole.
    func makeClip(_ path: String, frames: Int, size: Int = 256) throws {
        let photo = try Fixtures.requireAstronaut()
        let run = try Fixtures.runShell("ffmpeg -nostdin -v error -y -loop 1 -framerate 25 -i '\(photo)' -vf \"scale=\(size):\(size),crop=\(size - 16):\(size - 16):'mod(n,16)':8,format=yuv420p\" -frames:v \(frames) -c:v libx264 -crf 30 -g 10 -threads 1 -movflags +faststart '\(path)'")
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    /// Copies the first `bytes` of `source` to `path`: a clip cut after its index.
    func cut(_ source: String, to path: String, keeping fraction: Double) throws {
        let data = try XCTUnwrap(FileManager.default.contents(atPath: source))
        try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: path))
    }

    /// A clip whose frames run out before its declared count (cut after its `+faststart` index: ffprobe
    /// reads it as whole, ffmpeg decodes what is there, logs "partial file" and exits 0) is exit 12, with
    /// nothing written, in `video`, `video-join` (which had dropped every segment after the cut one) and the
    /// reader every command shares. Before, `coif video` exited 0 with part of the clip.
    func testACutClipIsExit12NotAShorterClip() throws {
        let dir = try Fixtures.temporaryDirectory()
        try makeClip(dir + "/whole.mp4", frames: 40)
        try cut(dir + "/whole.mp4", to: dir + "/cut.mp4", keeping: 0.6)
        XCTAssertEqual(try VideoProbe.probe(path: dir + "/cut.mp4").frameCount, 40, "the cut clip declares every frame")

        let reader = try VideoReader(path: dir + "/cut.mp4")
        var decoded = 0
        XCTAssertThrowsError(try { while try reader.next() != nil { decoded += 1 } }()) { error in
            XCTAssertEqual((error as? CoifError)?.exitCode, 12, "\(error)")
        }
        XCTAssertLessThan(decoded, 40)
        let whole = try VideoReader(path: dir + "/whole.mp4")
        var all = 0
        while try whole.next() != nil { all += 1 }
        XCTAssertEqual(all, 40, "a whole clip reads to its end with no error")

        let video = try Fixtures.runCoif(["video", dir + "/cut.mp4", "-o", dir + "/out.mp4", "--progress", "none"])
        XCTAssertEqual(video.status, 12, video.stderr)
        XCTAssertEqual(video.stderr.split(separator: "\n").count, 1, video.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.mp4"))

        let join = try Fixtures.runCoif(["video-join", dir + "/cut.mp4", dir + "/whole.mp4", "-o", dir + "/joined.mp4"])
        XCTAssertEqual(join.status, 12, join.stderr)
        XCTAssertTrue(join.stderr.contains("cut.mp4"), "names the damaged segment: \(join.stderr)")
        let joinWhole = try Fixtures.runCoif(["video-join", dir + "/whole.mp4", dir + "/whole.mp4", "-o", dir + "/joined.mp4"])
        XCTAssertEqual(joinWhole.status, 0, joinWhole.stderr)
        XCTAssertEqual(Fixtures.listing(dir), ["cut.mp4", "joined.mp4", "whole.mp4"])

        // Off a terminal, a farm's agent reads Open Job Description's lines on standard output.
        let farm = try Fixtures.runCoif(["video", dir + "/whole.mp4", "-o", dir + "/farm.mp4", "--frames", "0-3", "--progress", "lines", "--strands", "300"])
        XCTAssertEqual(farm.status, 0, farm.stderr)
        let progress = farm.stdout.split(separator: "\n").filter { $0.hasPrefix("openjd_progress: ") }.map { Double($0.dropFirst(17))! }
        XCTAssertEqual(progress, [25, 50, 75, 100], farm.stdout)
        XCTAssertTrue(farm.stdout.contains("openjd_status: loading models") && farm.stdout.contains("openjd_status: wrote \(dir)/farm.mp4"), farm.stdout)
        // A negative start is refused with its reason (22, naming --start), not as a "Missing value".
        let negative = try Fixtures.runCoif(["video", dir + "/whole.mp4", "-o", dir + "/n.mp4", "--start", "-1"])
        XCTAssertEqual(negative.status, 22, negative.stderr)
        XCTAssertTrue(negative.stderr.contains("--start") && !negative.stderr.contains("Missing"), negative.stderr)
    }

    /// `timing-chart` writes the CSV's column names into the SVG as text: escaped, so a name with markup
    /// stays text and one with `&` leaves the SVG well-formed. A clip given as the CSV is named as no CSV,
    /// not as a missing file.
    func testTimingChartEscapesColumnNames() throws {
        let dir = try Fixtures.temporaryDirectory()
        let csv = "frame,state,keyframe,<script>alert(1)</script>_ms,a&b_ms,sum_ms\n0,detected,1,5.0,2.0,7.0\n1,tracked,0,4.0,1.0,5.0\n"
        try csv.write(toFile: dir + "/t.csv", atomically: false, encoding: .utf8)
        let run = try Fixtures.runCoif(["timing-chart", dir + "/t.csv", "-o", dir + "/chart.svg"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let svg = try String(contentsOfFile: dir + "/chart.svg", encoding: .utf8)
        XCTAssertFalse(svg.contains("<script>"), "markup from the CSV stays text")
        XCTAssertTrue(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertTrue(svg.contains("a&amp;b"))
        let parser = XMLParser(data: Data(svg.utf8))
        XCTAssertTrue(parser.parse(), "the SVG is well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")

        var notText = Data("....ftypisom".utf8)
        notText.append(contentsOf: [0xFF, 0xFE, 0x00, 0x80, 0xC3])
        try notText.write(to: URL(fileURLWithPath: dir + "/clip.mp4"))
        let clip = try Fixtures.runCoif(["timing-chart", dir + "/clip.mp4", "-o", dir + "/c.svg"])
        XCTAssertEqual(clip.status, 22, clip.stderr)
        XCTAssertTrue(clip.stderr.contains("not a `coif video --timing` CSV"), clip.stderr)
    }

    /// `preview --turntable N -o spin.mp4` stopped by SIGTERM leaves neither its MP4's temporary nor
    /// ffmpeg's log, kills its ffmpeg, and exits 143 with one line: the one signal handler every command
    /// shares. Before, only `coif video` cleaned up.
    func testASignalMidWriteLeavesNothingAndExits143() throws {
        let dir = try Fixtures.temporaryDirectory()
        let process = try Fixtures.startShell("exec '\(Fixtures.coifBinary)' preview pixie --turntable 600 --size 256 -o '\(dir)/spin.mp4' 2>'\(dir).stderr'")
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline && !Fixtures.listing(dir).contains(where: { $0.hasPrefix(".spin.mp4.tmp") }) { usleep(50_000) }
        XCTAssertTrue(Fixtures.listing(dir).contains(where: { $0.hasPrefix(".spin.mp4.tmp") }), "the turntable never started writing")
        let logsBefore = Set(Fixtures.listing(NSTemporaryDirectory()).filter { $0.hasPrefix("coif-ffmpeg-\(process.processIdentifier)-") })
        XCTAssertFalse(logsBefore.isEmpty, "ffmpeg's log exists while it runs")
        usleep(300_000)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 143)
        let stderr = try String(contentsOfFile: dir + ".stderr", encoding: .utf8)
        XCTAssertEqual(stderr.split(separator: "\n").count, 1, stderr)
        XCTAssertTrue(stderr.contains("SIGTERM"), stderr)
        XCTAssertEqual(Fixtures.listing(dir), [], "no MP4 and no temporary")
        XCTAssertEqual(Fixtures.listing(NSTemporaryDirectory()).filter { $0.hasPrefix("coif-ffmpeg-\(process.processIdentifier)-") }, [],
                       "ffmpeg's log removed")
        let orphans = try Fixtures.runShell("pgrep -f '\(dir)/[.]spin[.]mp4[.]tmp' || true")
        XCTAssertEqual(orphans.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "", "ffmpeg is not left running")
    }

    /// `coif video`'s outputs fail together: when the timing CSV cannot be written at the end, the MP4 is not
    /// renamed in either (before, it stayed while the command exited 30). The CSV's folder is taken away
    /// while the clip renders, so its write fails after every frame is encoded.
    func testVideoOutputsFailTogether() throws {
        let dir = try Fixtures.temporaryDirectory()
        try makeClip(dir + "/clip.mp4", frames: 30)
        try FileManager.default.createDirectory(atPath: dir + "/timing", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let process = try Fixtures.startShell("exec '\(Fixtures.coifBinary)' video '\(dir)/clip.mp4' -o '\(dir)/out/v.mp4' --timing '\(dir)/timing/t.csv' --progress none 2>'\(dir)/stderr'")
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline && !Fixtures.listing(dir + "/out").contains(where: { $0.hasPrefix(".v.mp4.tmp") }) { usleep(20_000) }
        XCTAssertEqual(rename(dir + "/timing", dir + "/gone"), 0)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 30, (try? String(contentsOfFile: dir + "/stderr", encoding: .utf8)) ?? "")
        XCTAssertEqual(Fixtures.listing(dir + "/out"), [], "no MP4 without its timing, and no temporary")
    }
}
