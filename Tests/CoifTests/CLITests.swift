// CLITests: the `coif` executable as a user meets it. Each bad input gives one line on stderr naming the
// input and the problem, its documented exit code (README, "Exit codes"), and leaves no file behind.
import CoifCore
import CoifGroom
import CoifMedia
import Foundation
import XCTest

final class CLITests: XCTestCase {
    /// Runs `coif render` expecting failure; checks code, a single stderr line naming `mentions`, and an
    /// output directory left exactly as it was.
    func assertRenderFails(_ arguments: [String], code: Int32, mentions: String, watching directory: String,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        let before = Fixtures.listing(directory)
        let run = try Fixtures.runCoif(["render"] + arguments)
        XCTAssertEqual(run.status, code, "stderr: \(run.stderr)", file: file, line: line)
        let lines = run.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "expected one line, got: \(run.stderr)", file: file, line: line)
        XCTAssertTrue(run.stderr.contains(mentions), "'\(run.stderr)' should name \(mentions)", file: file, line: line)
        XCTAssertFalse(run.stderr.contains("Fatal error") || run.stderr.contains("Stack dump"), file: file, line: line)
        XCTAssertEqual(Fixtures.listing(directory), before, "files were left behind", file: file, line: line)
    }

    func testMissingPhoto() throws {
        let dir = try Fixtures.temporaryDirectory()
        try assertRenderFails(["\(dir)/nope.jpg", "-o", "\(dir)/out.png"], code: 10, mentions: "nope.jpg", watching: dir)
    }

    func testFileThatIsNotAnImage() throws {
        let dir = try Fixtures.temporaryDirectory()
        let text = dir + "/notes.jpg"
        try "this is not a picture\n".write(toFile: text, atomically: true, encoding: .utf8)
        try assertRenderFails([text, "-o", "\(dir)/out.png"], code: 11, mentions: "notes.jpg", watching: dir)
    }

    func testTruncatedJPEG() throws {
        let source = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
        guard let bytes = FileManager.default.contents(atPath: source) else {
            throw XCTSkip("\(source) missing (Debian opencv-doc)")
        }
        let dir = try Fixtures.temporaryDirectory()
        let truncated = dir + "/cut.jpg"
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        try assertRenderFails([truncated, "-o", "\(dir)/out.png"], code: 12, mentions: "cut.jpg", watching: dir)
    }

    func testImageWithNoFace() throws {
        let dir = try Fixtures.temporaryDirectory()
        // A smooth gradient: a real PNG with nothing face-like in it.
        var image = PixelImage(width: 320, height: 240, channels: 3)
        for y in 0..<240 { for x in 0..<320 { for c in 0..<3 { image.pixels[(y * 320 + x) * 3 + c] = UInt8((x + y + c * 40) % 256) } } }
        let path = dir + "/sky.png"
        try AtomicFile.write(try PNGFile.encode(image), to: path)
        try assertRenderFails([path, "-o", "\(dir)/out.png"], code: 13, mentions: "sky.png: no face", watching: dir)
    }

    func testUnknownStyle() throws {
        let dir = try Fixtures.temporaryDirectory()
        try assertRenderFails([try Fixtures.requireAstronaut(), "--style", "mullet-9000", "-o", "\(dir)/out.png"],
                              code: 20, mentions: "mullet-9000", watching: dir)
    }

    func testMalformedColour() throws {
        let dir = try Fixtures.temporaryDirectory()
        for spec in ["#12345", "chartreuse-ish", "#ggg000"] {
            try assertRenderFails([try Fixtures.requireAstronaut(), "--color", spec, "-o", "\(dir)/out.png"],
                                  code: 21, mentions: spec, watching: dir)
        }
    }

    func testOutputDirectoryThatDoesNotExist() throws {
        let dir = try Fixtures.temporaryDirectory()
        try assertRenderFails([try Fixtures.requireAstronaut(), "-o", "\(dir)/missing/out.png"],
                              code: 30, mentions: "missing/out.png", watching: dir)
    }

    func testOutputDirectoryThatIsAFile() throws {
        let dir = try Fixtures.temporaryDirectory()
        try "x".write(toFile: dir + "/plain", atomically: true, encoding: .utf8)
        try assertRenderFails([try Fixtures.requireAstronaut(), "-o", "\(dir)/plain/out.png"],
                              code: 30, mentions: "plain/out.png", watching: dir)
    }

    func testOutputDirectoryThatIsNotWritable() throws {
        guard getuid() != 0 else {
            print("CLITests: skipping the permission case: running as root, which may write anywhere (the missing-directory and file-as-directory cases still run)")
            throw XCTSkip("root ignores directory permissions")
        }
        let dir = try Fixtures.temporaryDirectory()
        let locked = dir + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o555])
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked) }
        try assertRenderFails([try Fixtures.requireAstronaut(), "-o", "\(locked)/out.png"], code: 30, mentions: "locked/out.png", watching: locked)
    }

    func testImpossibleFieldOfViewIsRejectedByEveryCommandThatTakesIt() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        try assertRenderFails([photo, "--fov-degrees", "0", "-o", "\(dir)/out.png"], code: 22, mentions: "--fov-degrees", watching: dir)
        for arguments in [["landmarks", photo, "--fov-degrees", "180"], ["eval", "pose", dir, "--fov-degrees", "200"]] {
            let run = try Fixtures.runCoif(arguments)
            XCTAssertEqual(run.status, 22, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("--fov-degrees"), run.stderr)
        }
    }

    /// The evaluations' own option values: out of range is exit 22 with one line naming the option.
    func testEvaluationOptionsOutOfRangeAreExit22() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        for (arguments, option) in [(["eval", "reads-as-hair", photo, "--seeds", "0"], "--seeds"),
                                    (["eval", "pose", dir, "--mesh-switch-yaw", "95"], "--mesh-switch-yaw")] {
            let run = try Fixtures.runCoif(arguments)
            XCTAssertEqual(run.status, 22, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(option), run.stderr)
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        }
    }

    /// `--strands N` draws exactly N strands (guides plus children); a count out of range is refused by every
    /// command that takes it.
    func testStrandsFlagSetsTheCountAndRejectsNonsense() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        let run = try Fixtures.runCoif(["render", photo, "--strands", "7000", "-o", "\(dir)/out.png"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains(" 7000 strands"), run.stdout)
        let preview = try Fixtures.runCoif(["preview", "bob", "--strands", "9000", "--size", "64", "-o", "\(dir)/bob.png"])
        XCTAssertEqual(preview.status, 0, preview.stderr)
        XCTAssertTrue(preview.stdout.contains(" 9000 strands"), preview.stdout)
        try assertRenderFails([photo, "--strands", "0", "-o", "\(dir)/bad.png"], code: 22, mentions: "--strands", watching: dir)
        for arguments in [["preview", "bob", "--strands=-3", "-o", "\(dir)/bad.png"], ["groom", "bench", "bob", "--strands", "600000"]] {
            let bad = try Fixtures.runCoif(arguments)
            XCTAssertEqual(bad.status, 22, "\(arguments): \(bad.stderr)")
            XCTAssertTrue(bad.stderr.contains("--strands"), bad.stderr)
        }
    }

    /// `--flat-clumps` shades every clump alike: the same coverage, other hair pixels.
    func testFlatClumpsChangesTheHairsToneAndNotItsCoverage() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        for (name, flags) in [("toned", [String]()), ("flat", ["--flat-clumps"])] {
            let run = try Fixtures.runCoif(["render", photo, "-o", "\(dir)/\(name).png", "--layers", "\(dir)/\(name)"] + flags)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        XCTAssertEqual(try PNGFile.read(path: dir + "/toned/matte.png", channels: 1), try PNGFile.read(path: dir + "/flat/matte.png", channels: 1))
        let toned = try PNGFile.read(path: dir + "/toned/hair.png", channels: 4), flat = try PNGFile.read(path: dir + "/flat/hair.png", channels: 4)
        let changed = (0..<(toned.width * toned.height)).filter { p in
            toned.pixels[p * 4 + 3] > 0 && (0..<3).contains { toned.pixels[p * 4 + $0] != flat.pixels[p * 4 + $0] }
        }.count
        let covered = (0..<(toned.width * toned.height)).filter { toned.pixels[$0 * 4 + 3] > 0 }.count
        XCTAssertGreaterThan(Double(changed) / Double(covered), 0.3, "\(changed) of \(covered) hair pixels changed")
    }

    func testRenderWritesCompositeLayersAndTiming() throws {
        let dir = try Fixtures.temporaryDirectory()
        let run = try Fixtures.runCoif(["render", try Fixtures.requireAstronaut(), "--color", "#6b3e26", "-o", "\(dir)/out.png",
                                        "--layers", dir, "--timing", "\(dir)/timing.json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(Fixtures.listing(dir), ["filled.png", "hair.png", "matte.png", "out.png", "own-hair-matte.png", "timing.json"])
        let hair = try PNGFile.read(path: dir + "/hair.png", channels: 4)
        let matte = try PNGFile.read(path: dir + "/matte.png", channels: 1)
        XCTAssertEqual(hair.width, 512)
        // hair.png's alpha is the matte.
        for p in stride(from: 0, to: matte.pixels.count, by: 97) { XCTAssertEqual(hair.pixels[p * 4 + 3], matte.pixels[p]) }
    }

    func testStylesListsTheCatalog() throws {
        let run = try Fixtures.runCoif(["styles", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let catalog = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        let styles = catalog["styles"] as! [[String: Any]]
        // Exactly the built-in catalog, in its order, each marked built-in; the default named.
        let builtIn = try StyleCatalog.parse(json: String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Meshes/catalog.json"), encoding: .utf8))
        XCTAssertEqual(styles.map { $0["name"] as? String }, builtIn.styles.map(\.name))
        XCTAssertEqual(Set(styles.map { $0["origin"] as? String }), ["built-in"])
        XCTAssertEqual(catalog["default"] as? String, builtIn.defaultStyle)
        XCTAssertEqual(styles.filter { $0["isDefault"] as? Bool == true }.map { $0["name"] as? String }, [builtIn.defaultStyle])
    }

    func testLandmarksReportsPoseForAFrontalFace() throws {
        let run = try Fixtures.runCoif(["landmarks", try Fixtures.requireAstronaut(), "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let record = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        let faces = record["faces"] as! [[String: Any]]
        XCTAssertEqual(faces.count, 1)
        XCTAssertEqual((faces[0]["landmarks"] as! [[Double]]).count, 68)
        let pose = faces[0]["pose"] as! [String: Any]
        // astronaut.png: a near-frontal portrait, head turned slightly; in front of the camera.
        XCTAssertLessThan(abs(pose["yawDegrees"] as! Double), 30)
        XCTAssertLessThan(abs(pose["rollDegrees"] as! Double), 20)
        XCTAssertGreaterThan((pose["tvec"] as! [Double])[2], 200)
    }

    /// A strip longer than the detection scale (its short side would shrink to nothing): no face, exit 13,
    /// one line; before, a precondition in the downscale crashed the process (SIGILL).
    func testSliverImageHasNoFaceInsteadOfACrash() throws {
        let dir = try Fixtures.temporaryDirectory()
        for (w, h) in [(1, 2049), (2049, 1), (2, 4097)] {
            let path = dir + "/sliver-\(w)x\(h).png"
            try AtomicFile.write(try PNGFile.encode(PixelImage(width: w, height: h, channels: 3, fill: 128)), to: path)
            try assertRenderFails([path, "-o", "\(dir)/out.png"], code: 13, mentions: "sliver-\(w)x\(h).png: no face", watching: dir)
        }
    }

    /// A legal but extreme camera finds no pose: a documented exit 13, not an internal error. At 2° solvePnP
    /// finds nothing in front of the camera; at 179° it found a pose no camera gives (yaw 77°, roll −62° for a
    /// frontal face, #29), which reprojects the landmarks over 5% of the face's width off. 120° still renders.
    func testExtremeFieldOfViewIsNoPoseNotAnInternalError() throws {
        let dir = try Fixtures.temporaryDirectory()
        try assertRenderFails([try Fixtures.requireAstronaut(), "--fov-degrees", "2", "-o", "\(dir)/out.png"],
                              code: 13, mentions: "no head pose fits the face", watching: dir)
        try assertRenderFails([try Fixtures.requireAstronaut(), "--fov-degrees", "178.999", "-o", "\(dir)/out.png"],
                              code: 13, mentions: "reprojects the landmarks", watching: dir)
        XCTAssertEqual(try Fixtures.runCoif(["render", try Fixtures.requireAstronaut(), "--fov-degrees", "120", "-o", "\(dir)/wide.png"]).status, 0)
    }

    /// Argument-parser errors are one `coif:` line: exit 22 for a value an option cannot take (`--strands abc`,
    /// `--seed -1`, which the parser reads as an option of its own: the value is named, not called missing),
    /// 64 for the command line's shape (an unknown flag, a missing argument, an option with no value); a
    /// control character in a path is escaped. The codes come from the parser's error kinds (`ParserFailure`):
    /// a library whose kinds change fails here.
    func testUsageErrorsAndOddPathsAreOneLine() throws {
        let dir = try Fixtures.temporaryDirectory()
        for (arguments, code, mentions) in [(["--strands", "abc"], Int32(22), "'abc'"), (["--seed", "-1"], 22, "--seed: '-1'"),
                                            (["--seed=-1"], 22, "'-1'"), (["--detail", "-0.5"], 22, "--detail: '-0.5'"),
                                            (["--no-such-flag"], 64, "--no-such-flag"), ([], 64, "--output"), (["--seed"], 64, "--seed")] {
            let run = try Fixtures.runCoif(["render", try Fixtures.requireAstronaut()] + arguments + (arguments.isEmpty ? [] : ["-o", dir + "/o.png"]))
            XCTAssertEqual(run.status, code, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            XCTAssertTrue(run.stderr.hasPrefix("coif: ") && run.stderr.contains(mentions), "\(arguments): \(run.stderr)")
            if code == 22 { XCTAssertFalse(run.stderr.contains("Missing value"), "\(arguments): \(run.stderr)") }
        }
        // A command's validate() keeps Coif's own error and code (the parser would make any of them a usage
        // error), and runs before any input is opened.
        for (arguments, mentions) in [(["batch", dir + "/none.json", "--out", dir + "/o", "--shard", "-1/2"], "--shard"),
                                      (["batch", dir + "/none.json", "--out", dir + "/o", "--workers", "0"], "--workers"),
                                      (["video", dir + "/none.mp4", "-o", dir + "/o.mp4", "--start", "-1"], "--start"),
                                      (["video", dir + "/none.mp4", "-o", dir + "/o.mp4", "--crf", "99"], "--crf"),
                                      (["video", dir + "/none.mp4", "-o", dir + "/o.mp4", "--progress", "fancy"], "--progress"),
                                      (["batch", dir + "/none.json", "--out", dir + "/o", "--progress", "fancy"], "--progress")] {
            let run = try Fixtures.runCoif(arguments)
            XCTAssertEqual(run.status, 22, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            XCTAssertTrue(run.stderr.hasPrefix("coif: \(mentions):"), "\(arguments): \(run.stderr)")
        }
        try assertRenderFails(["\(dir)/new\nline.jpg", "-o", "\(dir)/out.png"], code: 10, mentions: "new\\nline.jpg", watching: dir)
        // Values of Coif's own types keep their documented codes.
        try assertRenderFails([try Fixtures.requireAstronaut(), "--face", "left", "-o", "\(dir)/out.png"], code: 22, mentions: "--face", watching: dir)
        try assertRenderFails([try Fixtures.requireAstronaut(), "--png-compression", "max", "-o", "\(dir)/out.png"],
                              code: 22, mentions: "--png-compression", watching: dir)
    }

    /// `-o` naming a FIFO writes into it (a reader gets the PNG) and leaves it a FIFO; the input itself as
    /// the output is refused before anything is rendered.
    func testOutputIntoAFIFOAndNeverOverTheInput() throws {
        let dir = try Fixtures.temporaryDirectory()
        let fifo = dir + "/pipe.png"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let reader = try Fixtures.startShell("cat '\(fifo)' > '\(dir)/received'")
        let run = try Fixtures.runCoif(["render", try Fixtures.requireAstronaut(), "-o", fifo])
        reader.waitUntilExit()
        XCTAssertEqual(run.status, 0, run.stderr)
        var info = stat()
        XCTAssertEqual(stat(fifo, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO, "still a FIFO")
        let received = try PNGFile.read(path: dir + "/received", channels: 3)
        XCTAssertEqual(received.width, 512)
        try FileManager.default.removeItem(atPath: fifo)
        try FileManager.default.removeItem(atPath: dir + "/received")
        try FileManager.default.copyItem(atPath: try Fixtures.requireAstronaut(), toPath: dir + "/in.png")
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png"))
        try assertRenderFails([dir + "/in.png", "-o", dir + "/in.png"], code: 22, mentions: "it is an input", watching: dir)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png")), before)
    }
}
