// BatchFaultTests: `coif batch` under the faults a farm node meets: two workers ending together at the
// process's exit, file names that differ only in Unicode normalisation, FIFOs where files should be, a full
// disk that cuts a results line, an output folder that cannot be made, a folder where an item's PNG goes.
// Each test builds its own input.
import CSystem
import CoifCore
import CoifFarm
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifReports
import Foundation
import Logging
import XCTest

final class BatchFaultTests: XCTestCase {
    /// Lines glibc's heap checks and the kernel's signals print when a process's heap is corrupted.
    static let heapReports = ["double free", "corrupted", "malloc", "free():", "invalid pointer", "invalid size",
                              "Segmentation fault", "Aborted", "fatal error"]

    /// Two workers, each with its own GPU context and analysis thread, end while the main thread exits:
    /// every thread is joined and every context destroyed on its own thread first. Before the joins, one run
    /// in eight under `ulimit -v 4000000` died at exit with glibc's `double free or corruption` (134) or
    /// SIGSEGV in llvmpipe's teardown; glibc's strict heap checks (MALLOC_CHECK_=3, perturbed frees) turn a
    /// freed-twice or written-after-free chunk into an abort. Three runs of a two-photo job.
    func testTwoWorkersExitCleanlyWithNoHeapReport() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        let messi = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
        guard FileManager.default.fileExists(atPath: messi) else { throw XCTSkip("\(messi) missing (Debian opencv-doc)") }
        try ##"{"photos": ["\##(photo)", "\##(messi)"], "styles": ["pixie"], "colors": ["auburn", "#6b3e26"], "output": "{photo}/{style}-{color}.png", "settings": {"keepOwnHair": true, "strands": 300}}"##
            .write(toFile: dir + "/job.json", atomically: true, encoding: .utf8)
        for run in 1...3 {
            let out = dir + "/out\(run)"
            let result = try Fixtures.runShell("ulimit -v 4000000; MALLOC_CHECK_=3 MALLOC_PERTURB_=\(run * 67) exec '\(Fixtures.coifBinary)' batch '\(dir)/job.json' --out '\(out)' --workers 2")
            XCTAssertEqual(result.status, 0, "run \(run): \(result.stderr)")
            for report in Self.heapReports { XCTAssertFalse(result.stderr.contains(report), "run \(run): \(result.stderr)") }
            XCTAssertTrue(result.stdout.contains("4 rendered") && result.stdout.contains("2 photos analysed"), result.stdout)
        }
    }

    /// A cross product is not expanded into memory: a job of 100,000 items (2 photos × 10 styles × 10 colours
    /// × 500 variants, a 20 KB file) holds no more heap than one of 200 once loaded, and its items, made on
    /// demand, are the same at the same index on every load (what shards and `--resume` rely on). Expanded up
    /// front, the items held 35 MB here once loaded (~2 KB each at the load's peak), and the 2,000,000 items
    /// the limit allows aborted a 4 GB node.
    func testAJobOfManyItemsIsNotHeldInMemory() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        try FileManager.default.copyItem(atPath: photo, toPath: dir + "/second.png")
        let styles = ["bob", "pixie", "lob", "quiff", "curly", "afro", "bun", "mohawk", "short-crop", "side-part"]
        let colors = ["auburn", "black", "blonde", "dark-brown", "#aa5533", "#123456", "#884422", "#ddbb88", "#332211", "#996633"]
        func write(variants: Int) throws -> String {
            let job = dir + "/job-\(variants).json"
            let list = (0..<variants).map { ##"{"name": "v\##($0)", "settings": {"seed": \##($0 + 1)}}"## }.joined(separator: ",")
            try ##"{"photos": ["\##(photo)", "second.png"], "styles": [\##(styles.map { "\"\($0)\"" }.joined(separator: ","))], "colors": [\##(colors.map { "\"\($0)\"" }.joined(separator: ","))], "variants": [\##(list)], "output": "{photo}/{style}-{color}-{variant}.png"}"##
                .write(toFile: job, atomically: true, encoding: .utf8)
            return job
        }
        func load(_ job: String) throws -> BatchJob {
            try BatchJob.load(path: job, outputDirectory: dir + "/out", build: "test") { try StyleLibrary.standard(userDirectories: $0) }
        }
        // The heap in use once a job is loaded and held (glibc's count of allocated bytes).
        func heldBytes(_ job: String) throws -> (BatchJob, Int) {
            let before = coif_heap_bytes_in_use()
            let loaded = try load(job)
            return (loaded, Int(coif_heap_bytes_in_use()) - Int(before))
        }
        let (small, smallBytes) = try heldBytes(try write(variants: 1))
        XCTAssertEqual(small.items.count, 200)
        let big = try write(variants: 500)
        let (job, bigBytes) = try heldBytes(big)
        XCTAssertEqual(job.items.count, 100_000)
        print("heap held: \(smallBytes) bytes for 200 items, \(bigBytes) bytes for 100,000")
        XCTAssertLessThan(bigBytes - smallBytes, 8 << 20, "the job's memory grows with its items: \(smallBytes) B for 200, \(bigBytes) B for 100,000")

        // The order: photos, then styles, colours, variants; the last item is the last of each list.
        let last = job.items[99_999]
        XCTAssertEqual(last.index, 99_999)
        XCTAssertTrue(last.output.hasSuffix("/out/second/side-part-996633-v499.png"), last.output)
        XCTAssertEqual(last.settings.seed, 500)
        XCTAssertEqual(job.items[501].output, dir + "/out/astronaut/bob-black-v1.png")
        // Another load (another process, another shard) makes the same items.
        let again = try load(big)
        for index in [0, 1, 499, 500, 49_999, 50_000, 99_999] {
            XCTAssertEqual(again.items[index].output, job.items[index].output)
            XCTAssertEqual(again.items[index].inputHash, job.items[index].inputHash)
        }
        XCTAssertEqual(Set([0, 1, 500].map { job.items[$0].inputHash }).count, 3)
        // The second photo is a copy: the same bytes are the same inputs (a moved photo is the same item).
        XCTAssertEqual(job.items[50_000].inputHash, job.items[0].inputHash)
        XCTAssertNotEqual(job.items[50_000].output, job.items[0].output)
        // A shard of it is a range of indices, not a copy of items.
        var options = BatchOptions(resultsPath: dir + "/results.jsonl")
        options.shard = BatchShard(index: 3, count: 8)
        let runner = BatchRunner(job: job, options: options, logger: Logger(label: "test")) { try Fixtures.sharedEngine() }
        XCTAssertEqual(runner.shardItems.first?.index, 37_500)
        XCTAssertEqual(runner.shardItems.count, 12_500)
    }

    /// The thread of a BackgroundWork has ended when `wait()` returns (its captures released on it), and
    /// one never waited for is joined when its owner goes: nothing it ran outlives it.
    func testBackgroundWorkJoinsItsThreadBeforeHandingItsResultOver() throws {
        final class Flag: @unchecked Sendable {
            private let lock = NSLock()
            private var raised = false
            func raise() { lock.withLock { raised = true } }
            var isRaised: Bool { lock.withLock { raised } }
        }
        final class Tracked: @unchecked Sendable {
            let released: Flag
            init(_ released: Flag) { self.released = released }
            deinit { released.raise() }
        }
        let released = Flag()
        var captured: Tracked? = Tracked(released)
        let work = BackgroundWork(name: "coif.test") { [captured] in
            usleep(50_000)
            return captured.map { _ in 42 } ?? 0
        }
        captured = nil
        XCTAssertEqual(try work.wait(), 42)
        XCTAssertTrue(released.isRaised, "the work's capture outlived the wait")

        let finished = Flag()
        do {
            let unwaited = BackgroundWork(name: "coif.test-unwaited") { () -> Int in
                usleep(100_000)
                finished.raise()
                return 1
            }
            _ = unwaited
        }
        XCTAssertTrue(finished.isRaised, "the owner went while its thread still ran")
    }

    // MARK: - Helpers

    func results(_ path: String) throws -> [BatchItemResult] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(BatchItemResult.self, from: Data($0.utf8)) }
    }

    /// A photo with no face: its item fails fast (exit 13) without a render.
    func writeSky(_ path: String) throws {
        var sky = PixelImage(width: 160, height: 120, channels: 3)
        for y in 0..<120 { for x in 0..<160 { for c in 0..<3 { sky.pixels[(y * 160 + x) * 3 + c] = UInt8((x + y + c * 40) % 256) } } }
        try AtomicFile.write(try PNGFile.encode(sky), to: path)
    }

    // MARK: - Paths as bytes

    /// "café.png" as NFC (é is U+00E9) and as NFD (e + U+0301) are two files on Linux, with two photos in
    /// them. Swift's String equality folds them: the job had analysed "1 photo" and given both items the first
    /// photo's pixels and input hash (`{index}`), or refused `{photo}` as two items writing one file.
    func testPhotosWhoseNamesDifferOnlyInNormalisationAreTwoPhotos() throws {
        let dir = try Fixtures.temporaryDirectory()
        let nfc = "caf\u{E9}.png", nfd = "cafe\u{301}.png"
        XCTAssertEqual(nfc, nfd, "Swift folds them; the file system does not")
        XCTAssertNotEqual(Array(nfc.utf8), Array(nfd.utf8))
        let astronaut = try PNGFile.read(path: try Fixtures.requireAstronaut(), channels: 3)
        try AtomicFile.write(try PNGFile.encode(astronaut), to: dir + "/" + nfc)
        try AtomicFile.write(try PNGFile.encode(astronaut.scaled(by: 0.75)), to: dir + "/" + nfd)
        XCTAssertEqual(Fixtures.listing(dir).count, 2)
        for template in ["{index}.png", "{photo}.png"] {
            let job = dir + "/job.json"
            try ##"{"photos": ["\##(nfc)", "\##(nfd)"], "styles": ["pixie"], "output": "\##(template)", "settings": {"keepOwnHair": true, "strands": 300}}"##
                .write(toFile: job, atomically: false, encoding: .utf8)
            let loaded = try BatchJob.load(path: job, outputDirectory: dir + "/out", build: "test") { try StyleLibrary.standard(userDirectories: $0) }
            XCTAssertEqual(loaded.items.count, 2)
            XCTAssertNotEqual(Array(loaded.items[0].photo.utf8), Array(loaded.items[1].photo.utf8), template)
            XCTAssertNotEqual(loaded.items[0].inputHash, loaded.items[1].inputHash, "\(template): two photos, two hashes")
            XCTAssertNotEqual(Array(loaded.items[0].output.utf8), Array(loaded.items[1].output.utf8), template)
        }
        let out = dir + "/out"
        let run = try Fixtures.runCoif(["batch", dir + "/job.json", "--out", out])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("2 photos analysed"), run.stdout)
        let outputs = Fixtures.listing(out).filter { $0.hasSuffix(".png") }
        XCTAssertEqual(outputs.count, 2, "\(Fixtures.listing(out))")
        guard outputs.count == 2 else { return }
        let first = try PNGFile.read(path: out + "/" + outputs[0]), second = try PNGFile.read(path: out + "/" + outputs[1])
        XCTAssertNotEqual(first.width, second.width, "each item has its own photo's pixels")
    }

    // MARK: - FIFOs

    /// A FIFO is refused before it is opened (opening one blocks until a writer comes): as the job file
    /// (exit 23), and where a done item's PNG was (its sidecar kept), as that item's failure (exit 3), in
    /// `--dry-run` too. Each run is bounded by `timeout`: before, each hung.
    func testFIFOsAreRefusedWithoutHanging() throws {
        let dir = try Fixtures.temporaryDirectory()
        let coif = Fixtures.coifBinary
        XCTAssertEqual(mkfifo(dir + "/j.json", 0o644), 0)
        let job = try Fixtures.runShell("timeout 60 '\(coif)' batch '\(dir)/j.json' --out '\(dir)/o'")
        XCTAssertEqual(job.status, 23, job.stderr)
        XCTAssertEqual(job.stderr.split(separator: "\n").count, 1, job.stderr)
        XCTAssertTrue(job.stderr.contains("not a regular file"), job.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/o"), "a refused job leaves no output folder")

        try writeSky(dir + "/sky.png")
        let photo = try Fixtures.requireAstronaut()
        try ##"{"photos": ["\##(photo)", "sky.png"], "styles": ["pixie"], "output": "{photo}.png", "settings": {"keepOwnHair": true, "strands": 300}}"##
            .write(toFile: dir + "/job.json", atomically: false, encoding: .utf8)
        let out = dir + "/out"
        let first = try Fixtures.runCoif(["batch", dir + "/job.json", "--out", out])
        XCTAssertEqual(first.status, 3, first.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/astronaut.png.coif"))
        try FileManager.default.removeItem(atPath: out + "/astronaut.png")
        XCTAssertEqual(mkfifo(out + "/astronaut.png", 0o644), 0)
        let dry = try Fixtures.runShell("timeout 60 '\(coif)' batch '\(dir)/job.json' --out '\(out)' --dry-run")
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("0 already done, 2 to render"), dry.stdout)
        let again = try Fixtures.runShell("timeout 120 '\(coif)' batch '\(dir)/job.json' --out '\(out)' --results '\(dir)/again.jsonl'")
        XCTAssertEqual(again.status, 3, again.stderr)
        let lines = try results(dir + "/again.jsonl")
        let astronaut = try XCTUnwrap(lines.first { $0.photo.hasSuffix("astronaut.png") })
        XCTAssertEqual(astronaut.status, .failed)
        XCTAssertEqual(astronaut.exitCode, 30)
        XCTAssertTrue(astronaut.reason?.contains("FIFO") == true, astronaut.reason ?? "")
    }

    /// `coif video`, `video-join` and `eval jitter` refuse a FIFO clip (exit 11) before ffprobe opens it: it
    /// had hung inside ffprobe, which was left running after Coif was stopped.
    func testVideoCommandsRefuseAFIFOClip() throws {
        let dir = try Fixtures.temporaryDirectory()
        XCTAssertEqual(mkfifo(dir + "/clip.mp4", 0o644), 0)
        let coif = Fixtures.coifBinary
        for command in ["video '\(dir)/clip.mp4' -o '\(dir)/out.mp4' --progress none",
                        "video-join '\(dir)/clip.mp4' '\(dir)/clip.mp4' -o '\(dir)/joined.mp4'",
                        "eval jitter '\(dir)/clip.mp4'"] {
            let run = try Fixtures.runShell("timeout 60 '\(coif)' \(command)")
            XCTAssertEqual(run.status, 11, "\(command): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("not a regular file"), run.stderr)
        }
        XCTAssertEqual(Fixtures.listing(dir), ["clip.mp4"])
    }

    // MARK: - Results file

    /// A line of results.jsonl cut by a full disk (or a kill mid-append) is ended by the next run, whose
    /// records start on lines of their own, and its item (which has no record) runs again; `batch-report`
    /// reports the damaged line and reads the rest. Before, the next `--resume` appended after the partial
    /// line and `batch-report` refused the whole file (exit 12).
    func testACutResultsLineIsEndedByTheNextRunAndReportedNotFatal() throws {
        let dir = try Fixtures.temporaryDirectory()
        try writeSky(dir + "/sky.png")
        try ##"{"photos": ["sky.png"], "styles": ["pixie"], "output": "{photo}.png", "settings": {"keepOwnHair": true}}"##
            .write(toFile: dir + "/job.json", atomically: false, encoding: .utf8)
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let cut = ##"{"color":"dark-brown","exitCode":13,"host":"h","index":0,"inputHash":"ab"##
        try cut.write(toFile: out + "/results.jsonl", atomically: false, encoding: .utf8)
        let run = try Fixtures.runCoif(["batch", dir + "/job.json", "--out", out, "--resume"])
        XCTAssertEqual(run.status, 3, run.stderr)
        let text = try String(contentsOfFile: out + "/results.jsonl", encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, text)
        guard lines.count == 2 else { return }
        XCTAssertEqual(lines[0], cut, "the cut line is ended, not written into")
        let record = try JSONDecoder().decode(BatchItemResult.self, from: Data(lines[1].utf8))
        XCTAssertEqual(record.status, .failed)
        XCTAssertEqual(record.exitCode, 13)
        XCTAssertFalse(record.reason?.contains("earlier run") == true, "the item without a record ran again")

        let report = try Fixtures.runCoif(["batch-report", out + "/results.jsonl", "-o", dir + "/report.html"])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stdout.contains("1 damaged line(s) skipped: \(out)/results.jsonl:1"), report.stdout)
        let html = try String(contentsOfFile: dir + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("1 damaged line(s) skipped"))
        XCTAssertTrue(html.contains("no face found"), "the readable line is read")
    }

    /// The batch report's stage figures are DurationSummary's, as `coif bench` and `coif video --summary` print
    /// them: over ten renders of 1…10 ms the median is 5 (nearest rank), where the report's own percentile
    /// (the value at the rounded index) said 6.
    func testTheBatchReportSummarisesTimesAsTheBenchDoes() throws {
        let dir = try Fixtures.temporaryDirectory()
        let lines = (1...10).map { i in
            #"{"index":\#(i),"status":"rendered","output":"o\#(i).png","photo":"p.png","style":"bob","color":"auburn","inputHash":"h","shard":"0/1","ms":\#(i),"host":"h","pid":1}"#
        }
        try AtomicFile.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: dir + "/results.jsonl")
        let report = try BatchReport(resultsFiles: [dir + "/results.jsonl"])
        let item = try XCTUnwrap(report.stageSummary.first { $0.stage == "item (render + write)" })
        XCTAssertEqual(item.figures, DurationSummary((1...10).map(Double.init)))
        XCTAssertEqual(item.figures.p50Ms, 5)
        XCTAssertEqual(item.figures.count, 10)
    }

    /// `batch-report -o` onto a PNG it reads for a thumbnail is exit 22, the PNG untouched (it had been
    /// overwritten, exit 0); a results "file" that is a device is named as one, not as missing.
    func testBatchReportRefusesToWriteOverAThumbnailItReads() throws {
        let dir = try Fixtures.temporaryDirectory()
        try writeSky(dir + "/item.png")
        let png = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/item.png"))
        let line = ##"{"color":"auburn","host":"h","index":0,"inputHash":"x","output":"\##(dir)/item.png","photo":"p.png","pid":1,"shard":"0/1","status":"done","style":"bob"}"##
        try (line + "\n").write(toFile: dir + "/results.jsonl", atomically: false, encoding: .utf8)
        let run = try Fixtures.runCoif(["batch-report", dir + "/results.jsonl", "-o", dir + "/item.png"])
        XCTAssertEqual(run.status, 22, run.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/item.png"), png)
        let ok = try Fixtures.runCoif(["batch-report", dir + "/results.jsonl", "-o", dir + "/report.html"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let device = try Fixtures.runShell("timeout 30 '\(Fixtures.coifBinary)' batch-report /dev/zero -o '\(dir)/z.html'")
        XCTAssertEqual(device.status, 22, device.stderr)
        XCTAssertTrue(device.stderr.contains("not a regular file"), device.stderr)
    }

    // MARK: - Output folder

    /// `--out` that cannot be made (a path under a file, an existing file) is exit 30 with one line
    /// `coif: <path>: <problem>`, not exit 1 and Foundation's `NSCocoaErrorDomain Code=642`.
    func testAnOutputFolderThatCannotBeMadeIsExit30InOneLine() throws {
        let dir = try Fixtures.temporaryDirectory()
        try writeSky(dir + "/sky.png")
        try ##"{"photos": ["sky.png"], "styles": ["pixie"], "output": "{photo}.png"}"##.write(toFile: dir + "/job.json", atomically: false, encoding: .utf8)
        try "x".write(toFile: dir + "/file", atomically: false, encoding: .utf8)
        for out in [dir + "/file/sub", dir + "/file"] {
            let run = try Fixtures.runCoif(["batch", dir + "/job.json", "--out", out])
            XCTAssertEqual(run.status, 30, "\(out): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            XCTAssertTrue(run.stderr.hasPrefix("coif: \(out)"), run.stderr)
            XCTAssertFalse(run.stderr.contains("NSCocoaErrorDomain"), run.stderr)
        }
        // A negative shard is refused with its reason (22, naming --shard), not as a "Missing value".
        let negative = try Fixtures.runCoif(["batch", dir + "/job.json", "--out", dir + "/o", "--shard", "-1/2"])
        XCTAssertEqual(negative.status, 22, negative.stderr)
        XCTAssertTrue(negative.stderr.contains("--shard") && negative.stderr.contains("0 ≤ I < N"), negative.stderr)
        // A refused job leaves no folder behind.
        try ##"{"photos": ["missing.png"], "output": "{photo}.png"}"##.write(toFile: dir + "/bad.json", atomically: false, encoding: .utf8)
        let refused = try Fixtures.runCoif(["batch", dir + "/bad.json", "--out", dir + "/new/out"])
        XCTAssertEqual(refused.status, 23, refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/new"))
    }

    /// A folder standing where one item's PNG goes is that item's failure (recorded, exit 3) and the other
    /// items render; it had stopped the whole shard (exit 30) on every run. A symbolic link inside `--out`
    /// to a folder outside it fails its item too, with nothing written outside. Off a terminal the shard's
    /// progress is Open Job Description's lines on standard output.
    func testAFolderAtAnItemsOutputFailsThatItemOnly() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        try ##"{"photos": ["\##(photo)"], "styles": ["pixie"], "colors": ["auburn", "black", "copper"], "output": "{color}/{style}.png", "settings": {"keepOwnHair": true, "strands": 300}}"##
            .write(toFile: dir + "/job.json", atomically: false, encoding: .utf8)
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out + "/auburn/pixie.png", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out + "/copper", withDestinationPath: dir + "/elsewhere")
        let run = try Fixtures.runCoif(["batch", dir + "/job.json", "--out", out])
        XCTAssertEqual(run.status, 3, run.stderr)
        let lines = try results(out + "/results.jsonl")
        XCTAssertEqual(lines.first { $0.color == "auburn" }?.status, .failed)
        XCTAssertEqual(lines.first { $0.color == "auburn" }?.exitCode, 30)
        XCTAssertEqual(lines.first { $0.color == "copper" }?.status, .failed)
        XCTAssertTrue(lines.first { $0.color == "copper" }?.reason?.contains("outside the output folder") == true, "\(lines)")
        XCTAssertEqual(Fixtures.listing(dir + "/elsewhere"), [], "nothing written outside --out")
        XCTAssertEqual(lines.first { $0.color == "black" }?.status, .rendered)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/black/pixie.png"))

        let progress = run.stdout.split(separator: "\n").filter { $0.hasPrefix("openjd_progress: ") }.map { Double($0.dropFirst(17))! }
        XCTAssertEqual(progress, [33.3, 66.6, 100], run.stdout)
        XCTAssertTrue(run.stdout.contains("openjd_status: rendering shard 0/1: 3 items"), run.stdout)
        XCTAssertTrue(run.stdout.contains("openjd_status: shard 0/1 finished: 1 rendered, 0 already done, 2 failed"), run.stdout)
    }

    /// A key given twice in one object of the job is refused (exit 23), as an unknown key is: JSONDecoder
    /// keeps the last and the first was silently ignored.
    func testADuplicatedJobKeyIsRefused() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        for (json, key) in [(##"{"photos": ["\##(photo)"], "output": "a.png", "output": "b.png"}"##, "output"),
                            (##"{"photos": ["\##(photo)"], "output": "a.png", "settings": {"seed": 1, "se\u0065d": 2}}"##, "seed")] {
            try json.write(toFile: dir + "/job.json", atomically: false, encoding: .utf8)
            XCTAssertThrowsError(try BatchJob.load(path: dir + "/job.json", outputDirectory: dir + "/out", build: "t") { try StyleLibrary.standard(userDirectories: $0) }) { error in
                XCTAssertEqual((error as? CoifError)?.exitCode, 23)
                XCTAssertTrue("\(error)".contains("\"\(key)\" appears twice"), "\(error)")
            }
        }
        // The same key in two objects is no duplicate.
        try ##"{"photos": ["\##(photo)"], "output": "{variant}.png", "variants": [{"name": "a", "settings": {"seed": 1}}, {"name": "b", "settings": {"seed": 2}}]}"##
            .write(toFile: dir + "/job.json", atomically: false, encoding: .utf8)
        XCTAssertEqual(try BatchJob.load(path: dir + "/job.json", outputDirectory: dir + "/out", build: "t") { try StyleLibrary.standard(userDirectories: $0) }.items.count, 2)
    }
}
