// VideoIOTests: clips in and out through ffmpeg (CoifMedia/Video.swift), the groundwork of `coif video`: a
// real clip decodes to exactly its frames, upright, indexed and timed; frames written back give a real H.264
// MP4 of the same count, size and rate with the input's audio; a clip that is no video, a cut clip and an
// abandoned write each end cleanly.
import CoifCore
import CoifMedia
import Foundation
import XCTest

final class VideoIOTests: XCTestCase {
    static let megamind = "/usr/share/doc/opencv-doc/examples/data/Megamind.avi"

    func requireMegamind() throws -> String {
        guard FileManager.default.fileExists(atPath: Self.megamind) else {
            print("VideoIOTests: skipping, \(Self.megamind) is missing (Debian opencv-doc; `make test` installs it)")
            throw XCTSkip("Megamind.avi missing")
        }
        return Self.megamind
    }

    /// ffprobe's own answer for a stream entry of `path`'s first video (or audio) stream.
    func probe(_ path: String, _ entries: String, stream: String = "v:0", count: Bool = false) throws -> String {
        let run = try Fixtures.runShell("ffprobe -v error \(count ? "-count_frames" : "") -select_streams \(stream) -show_entries stream=\(entries) -of default=noprint_wrappers=1:nokey=1 '\(path)'")
        return run.stdout.split(separator: "\n").joined(separator: ",")
    }

    func testAClipDecodesToExactlyItsFramesIndexedAndTimed() throws {
        let clip = try requireMegamind()
        let info = try VideoProbe.probe(path: clip)
        XCTAssertEqual(info.width, 720)
        XCTAssertEqual(info.height, 528)
        XCTAssertEqual(info.frameRate.numerator, 2997)
        XCTAssertEqual(info.frameRate.denominator, 125)
        let reader = try VideoReader(path: clip)
        var count = 0, last: Frame?
        var sums: [Int] = []
        while let frame = try reader.next() {
            XCTAssertEqual(frame.index, count)
            XCTAssertEqual(frame.timestamp ?? -1, Double(count) * 125 / 2997, accuracy: 1e-9)
            XCTAssertEqual(frame.image.width, 720)
            if count % 50 == 0 { sums.append(frame.image.pixels.reduce(0) { $0 + Int($1) }) }
            last = frame
            count += 1
        }
        XCTAssertEqual(count, Int(try probe(clip, "nb_read_frames", count: true)), "every frame, as ffprobe counts them")
        XCTAssertEqual(last?.source, "\(clip) frame \(count - 1)")
        XCTAssertGreaterThan(Set(sums).count, 3, "the frames are the clip's, not one repeated")
    }

    func testFramesWrittenBackAreARealMP4WithTheInputsRateAndAudio() throws {
        let clip = try requireMegamind()
        let dir = try Fixtures.temporaryDirectory()
        let out = dir + "/round.mp4"
        let reader = try VideoReader(path: clip)
        let writer = try VideoWriter(path: out, width: reader.info.width, height: reader.info.height,
                                     frameRate: reader.info.frameRate, audioFrom: clip)
        var written = 0
        while written < 60, let frame = try reader.next() {
            try writer.append(frame.image)
            written += 1
        }
        reader.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing at the output before finish()")
        try writer.finish()
        XCTAssertEqual(try probe(out, "codec_name,width,height,pix_fmt,r_frame_rate"), "h264,720,528,yuv420p,2997/125")
        XCTAssertEqual(Int(try probe(out, "nb_read_frames", count: true)), 60)
        XCTAssertEqual(try probe(out, "codec_type", stream: "a:0"), "audio", "the input's audio, copied")
        XCTAssertEqual(Fixtures.listing(dir), ["round.mp4"], "no temporary left")
        // The first frame survives the encode (CRF 18): close to the decoded input.
        let back = try VideoReader(path: out)
        let first = try XCTUnwrap(try back.next())
        let source = try XCTUnwrap(try VideoReader(path: clip).next())
        var squared = 0.0
        for i in 0..<first.image.pixels.count { let d = Double(first.image.pixels[i]) - Double(source.image.pixels[i]); squared += d * d }
        let psnr = 10 * log10(255 * 255 / (squared / Double(first.image.pixels.count)))
        XCTAssertGreaterThan(psnr, 35, "PSNR \(psnr) dB")
    }

    func testBadClipsAndAbandonedWritesEndCleanly() throws {
        let dir = try Fixtures.temporaryDirectory()
        try "not a video\n".write(toFile: dir + "/notes.mp4", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try VideoProbe.probe(path: dir + "/notes.mp4")) { XCTAssertEqual(($0 as? CoifError)?.exitCode, 11, "\($0)") }
        XCTAssertThrowsError(try VideoProbe.probe(path: dir + "/missing.mp4")) { XCTAssertEqual(($0 as? CoifError)?.exitCode, 10, "\($0)") }
        // A still image is no clip either: ffprobe reads it as one frame of "video" at no usable rate, or refuses.
        let clip = try requireMegamind()
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: clip))
        try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: dir + "/cut.avi"))
        let cut = try VideoReader(path: dir + "/cut.avi")
        var frames = 0
        do { while try cut.next() != nil { frames += 1 } } catch let error as CoifError {
            XCTAssertEqual(error.exitCode, 12, "\(error)")
        }
        XCTAssertLessThan(frames, 270, "a third of the file holds fewer frames than the clip")
        // An abandoned write leaves neither the output nor its temporary.
        let writer = try VideoWriter(path: dir + "/gone.mp4", width: 64, height: 48, frameRate: (25, 1))
        try writer.append(PixelImage(width: 64, height: 48, channels: 3, fill: 128))
        writer.cancel()
        XCTAssertEqual(Fixtures.listing(dir).filter { $0.contains("gone") }, [])
        XCTAssertThrowsError(try VideoWriter(path: dir + "/dot.mp4", width: 1, height: 48, frameRate: (25, 1)), "under 2 pixels wide")
    }
}
