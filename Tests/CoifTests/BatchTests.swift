// BatchTests: `coif batch` as a render farm uses it. Shards split a job whole and disjoint whatever the
// scheduler's numbering; a second run renders nothing and a changed colour renders only its items; a
// SIGKILLed run, run again, finishes with every output whole and no done item rendered twice; two
// processes on one shard both finish; a bad job file is refused before anything renders; a failing item is
// recorded and the job goes on; an item's PNG is the bytes `coif render` writes for it.
import CoifCore
import CoifFarm
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import Foundation
import XCTest

final class BatchTests: XCTestCase {
    // MARK: - Shards

    func testShardsCoverTheJobWithoutOverlapForEveryCount() throws {
        for total in [0, 1, 5, 13, 100] {
            for count in 1...7 {
                var seen: [Int] = []
                for index in 0..<count { seen += Array(BatchShard(index: index, count: count).range(of: total)) }
                XCTAssertEqual(seen, Array(0..<total), "\(total) items in \(count) shards")
            }
        }
    }

    func testSlurmArraysShardByPositionDenseOrSparse() throws {
        for count in 1...7 {
            for (first, step) in [(0, 1), (1, 2), (5, 3)] {
                let ids = (0..<count).map { first + $0 * step }
                var indices: [Int] = []
                for id in ids {
                    var environment = ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_COUNT": "\(count)",
                                       "SLURM_ARRAY_TASK_MIN": "\(ids.first!)", "SLURM_ARRAY_TASK_MAX": "\(ids.last!)"]
                    // Slurm sets the step for a stepped range (1-7:2); for a comma list (1,3,5,7) Slurm 22.05
                    // exports STEP 1, and another scheduler may export none.
                    switch id % 3 {
                    case 0: environment["SLURM_ARRAY_TASK_STEP"] = "\(step)"
                    case 1: environment["SLURM_ARRAY_TASK_STEP"] = "1"
                    default: break
                    }
                    let shard = try XCTUnwrap(try BatchShard.fromEnvironment(environment))
                    XCTAssertEqual(shard.count, count)
                    indices.append(shard.index)
                }
                XCTAssertEqual(indices, Array(0..<count), "IDs \(ids)")
            }
        }
        // IDs 0, 1, 5: no position can be computed from the environment; refused, naming --shard.
        XCTAssertThrowsError(try BatchShard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "3",
                                                             "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "5"])) { error in
            XCTAssertTrue("\(error)".contains("--shard"), "\(error)")
        }
        let kubernetes = try XCTUnwrap(try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "2", "COIF_SHARD_COUNT": "4"]))
        XCTAssertEqual(kubernetes, BatchShard(index: 2, count: 4))
        XCTAssertThrowsError(try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"]))
        XCTAssertNil(try BatchShard.fromEnvironment([:]))
        XCTAssertEqual(try BatchShard.parse("3/8"), BatchShard(index: 3, count: 8))
        for bad in ["8/8", "-1/4", "1", "a/b", "0/0"] { XCTAssertThrowsError(try BatchShard.parse(bad), bad) }
    }

    func testTheItemOrderDoesNotDependOnTheJobFilesKeyOrder() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        let a = dir + "/a.json", b = dir + "/b.json"
        try ##"{"photos": ["\##(photo)"], "styles": ["bob", "pixie"], "colors": ["auburn", "#6b3e26"], "output": "{style}-{color}.png", "settings": {"seed": 2, "keepOwnHair": true}}"##
            .write(toFile: a, atomically: true, encoding: .utf8)
        try ##"{"settings": {"keepOwnHair": true, "seed": 2}, "output": "{style}-{color}.png", "colors": ["auburn", "#6b3e26"], "styles": ["bob", "pixie"], "photos": ["\##(photo)"]}"##
            .write(toFile: b, atomically: true, encoding: .utf8)
        let load = { (path: String) in
            try BatchJob.load(path: path, outputDirectory: dir + "/out", build: "test") { try StyleLibrary.standard(userDirectories: $0) }
        }
        let first = try load(a), second = try load(b)
        XCTAssertEqual(first.items.map(\.output), second.items.map(\.output))
        XCTAssertEqual(first.items.map(\.inputHash), second.items.map(\.inputHash))
        XCTAssertEqual(first.items.map { ($0.output as NSString).lastPathComponent },
                       ["bob-auburn.png", "bob-6b3e26.png", "pixie-auburn.png", "pixie-6b3e26.png"])
        XCTAssertEqual(Set(first.items.map(\.inputHash)).count, 4)
    }

    /// Another seed on the same photo fills a new plate from the same parse: the network does not run again
    /// (what golden suites, sheets and batch groups with several seeds on one photo pay). The parse and the
    /// plate are the photo's (AnalysedPhoto), not the engine's: rendering the bare analysis again parses again.
    func testAnotherSeedOnOnePhotoDoesNotParseItAgain() throws {
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let analysis = try engine.analyse(photoPath: try Fixtures.requireAstronaut(), timing: &timing)
        let photo = AnalysedPhoto([analysis])
        func job(seed: UInt64) throws -> TryOnJob {
            var job = TryOnJob(input: .frame(analysis.frame), style: "pixie", look: HairLook(color: try HairColor.parse("auburn")))
            job.seed = seed
            job.strands = 300
            return job
        }
        var first = FrameTiming(), second = FrameTiming(), again = FrameTiming()
        let a = try photo.render(try job(seed: 11), engine: engine, timing: &first)
        let b = try photo.render(try job(seed: 12), engine: engine, timing: &second)
        XCTAssertNotNil(first[.parse])
        XCTAssertNil(second[.parse], "seed 12 parsed the photo again")
        XCTAssertNotNil(second[.plate], "seed 12 needs its own plate")
        XCTAssertNotEqual(a.plate?.pixels, b.plate?.pixels, "the plate's fill depends on the seed")
        // And the plate of seed 11, made again from the kept parse, is the same bytes.
        _ = try photo.render(try job(seed: 99), engine: engine, timing: &again)
        var back = FrameTiming()
        let c = try photo.render(try job(seed: 11), engine: engine, timing: &back)
        XCTAssertNil(back[.parse])
        XCTAssertEqual(c.images.composite.pixels, a.images.composite.pixels)
        // The engine keeps no photo between stills: the bare analysis is parsed for each render, to the same bytes.
        var bare = FrameTiming()
        let d = try engine.render([analysis], job: try job(seed: 11), timing: &bare)
        XCTAssertNotNil(bare[.parse], "the engine kept a parse from an earlier still")
        XCTAssertEqual(d.images.composite.pixels, a.images.composite.pixels)
    }

    // MARK: - Refusals

    func testBadJobFilesAreRefusedBeforeAnythingRenders() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let cases: [(name: String, json: String, mentions: String)] = [
            ("malformed", ##"{"photos": ["\##(photo)"], "output": "x.png""##, "not valid JSON"),
            ("unknown-key", ##"{"photos": ["\##(photo)"], "output": "x.png", "colours": ["red"]}"##, "unknown key \"colours\""),
            ("unknown-setting", ##"{"photos": ["\##(photo)"], "output": "x.png", "settings": {"noShadow": true}}"##, "unknown key \"noShadow\""),
            ("unknown-style", ##"{"photos": ["\##(photo)"], "styles": ["mullet-9000"], "output": "{style}.png"}"##, "mullet-9000"),
            ("missing-photo", ##"{"photos": ["nowhere.jpg"], "output": "{photo}.png"}"##, "nowhere.jpg: no such file"),
            ("bad-colour", ##"{"photos": ["\##(photo)"], "colors": ["#12345"], "output": "{color}.png"}"##, "#12345"),
            ("bad-detail", ##"{"photos": ["\##(photo)"], "output": "x.png", "settings": {"detail": 9}}"##, "--detail"),
            ("collision", ##"{"photos": ["\##(photo)"], "styles": ["bob", "pixie"], "output": "{photo}.png"}"##, "both write"),
            ("outside", ##"{"photos": ["\##(photo)"], "output": "../{photo}.png"}"##, "outside the output folder"),
            ("placeholder", ##"{"photos": ["\##(photo)"], "output": "{hairstyle}.png"}"##, "unknown placeholder {hairstyle}"),
            ("input", ##"{"items": [{"photo": "\##(photo)", "output": "../input.json"}]}"##, "outside the output folder"),
            ("empty", ##"{}"##, "no items"),
            ("long-name", ##"{"photos": ["\##(photo)"], "output": "\##(String(repeating: "a", count: 240)).png"}"##, "must fit in 255"),
            ("empty-list", ##"{"photos": ["\##(photo)"], "colors": [], "output": "{color}.png"}"##, "\"colors\" is empty"),
            // 1,500 photos × 1,500 colours: refused from the lists' lengths, before 2.25 million items are made.
            ("too-many", ##"{"photos": [\##((0..<1500).map { "\"p\($0).jpg\"" }.joined(separator: ","))], "colors": [\##((0..<1500).map { "\"#\(String(format: "%06x", $0))\"" }.joined(separator: ","))], "output": "{photo}-{color}.png"}"##, "2250000 items, over 2000000"),
        ]
        for c in cases {
            let job = dir + "/\(c.name).json"
            try c.json.write(toFile: job, atomically: true, encoding: .utf8)
            let run = try Fixtures.runCoif(["batch", job, "--out", dir + "/out"])
            XCTAssertEqual(run.status, 23, "\(c.name): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "\(c.name): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(c.mentions) && run.stderr.contains(job), "\(c.name): \(run.stderr)")
            XCTAssertEqual(Fixtures.listing(dir + "/out"), [], "\(c.name) wrote into the output folder")
        }
        // An output inside --out that is one of the inputs (the photo itself).
        let copy = dir + "/out/photo.png"
        try FileManager.default.copyItem(atPath: photo, toPath: copy)
        try ##"{"items": [{"photo": "out/photo.png", "output": "photo.png"}]}"##.write(toFile: dir + "/self.json", atomically: true, encoding: .utf8)
        let run = try Fixtures.runCoif(["batch", dir + "/self.json", "--out", dir + "/out"])
        XCTAssertEqual(run.status, 23, run.stderr)
        XCTAssertTrue(run.stderr.contains("it is an input"), run.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: copy), FileManager.default.contents(atPath: photo))

        // A FIFO (or a device) as a photo: refused, not read forever.
        XCTAssertEqual(mkfifo(dir + "/pipe.png", 0o644), 0)
        try ##"{"photos": ["pipe.png"], "output": "{photo}.png"}"##.write(toFile: dir + "/fifo.json", atomically: true, encoding: .utf8)
        let fifo = try Fixtures.runCoif(["batch", dir + "/fifo.json", "--out", dir + "/out"])
        XCTAssertEqual(fifo.status, 23, fifo.stderr)
        XCTAssertTrue(fifo.stderr.contains("not a regular file"), fifo.stderr)
        // An item's sidecar over an input (a photo named like it).
        try FileManager.default.copyItem(atPath: photo, toPath: dir + "/out/face.png.coif")
        try ##"{"items": [{"photo": "out/face.png.coif", "output": "face.png"}]}"##.write(toFile: dir + "/side.json", atomically: true, encoding: .utf8)
        let side = try Fixtures.runCoif(["batch", dir + "/side.json", "--out", dir + "/out"])
        XCTAssertEqual(side.status, 23, side.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/out/face.png.coif"), FileManager.default.contents(atPath: photo))

        // The results file is an output too: not an item's file, not an input (the job file itself).
        try ##"{"photos": ["\##(photo)"], "output": "results.jsonl"}"##.write(toFile: dir + "/over.json", atomically: true, encoding: .utf8)
        let over = try Fixtures.runCoif(["batch", dir + "/over.json", "--out", dir + "/out"])
        XCTAssertEqual(over.status, 23, over.stderr)
        XCTAssertTrue(over.stderr.contains("results file"), over.stderr)
        let jobBytes = FileManager.default.contents(atPath: dir + "/self.json")
        let onJob = try Fixtures.runCoif(["batch", dir + "/self.json", "--out", dir + "/elsewhere", "--results", dir + "/self.json"])
        XCTAssertEqual(onJob.status, 23, onJob.stderr)
        XCTAssertTrue(onJob.stderr.contains("it is an input"), onJob.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/self.json"), jobBytes)
    }

    // MARK: - Runs

    /// A job over the astronaut and messi5 (Debian's photos): `styles` × `colors`.
    func writeJob(_ dir: String, styles: [String], colors: [String], settings: String = ##"{"keepOwnHair": true, "strands": 400}"##) throws -> String {
        let photo = try Fixtures.requireAstronaut()
        let messi = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
        guard FileManager.default.fileExists(atPath: messi) else { throw XCTSkip("\(messi) missing (Debian opencv-doc)") }
        let list = { (values: [String]) in values.map { "\"\($0)\"" }.joined(separator: ", ") }
        let job = dir + "/job.json"
        try ##"{"photos": ["\##(photo)", "\##(messi)"], "styles": [\##(list(styles))], "colors": [\##(list(colors))], "output": "{photo}/{style}-{color}.png", "settings": \##(settings)}"##
            .write(toFile: job, atomically: true, encoding: .utf8)
        return job
    }

    func results(_ path: String) throws -> [BatchItemResult] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(BatchItemResult.self, from: Data($0.utf8)) }
    }

    /// Every output of the job decodes as a whole PNG with its sidecar, and no temporary file is left.
    func assertComplete(_ out: String, expected: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let files = FileManager.default.enumerator(atPath: out)!.compactMap { $0 as? String }
        let pngs = files.filter { $0.hasSuffix(".png") }
        XCTAssertEqual(pngs.count, expected, "\(files)", file: file, line: line)
        for png in pngs {
            let image = try PNGFile.read(path: out + "/" + png)
            XCTAssertGreaterThan(image.width, 0, file: file, line: line)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + png + ".coif"), "\(png) has no sidecar", file: file, line: line)
        }
        XCTAssertEqual(files.filter { ($0 as NSString).lastPathComponent.hasPrefix(".") }, [], "temporary files left", file: file, line: line)
    }

    func testASecondRunRendersNothingAndAChangedColourRendersOnlyItsItems() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir + "/out"
        let job = try writeJob(dir, styles: ["bob", "pixie"], colors: ["auburn", "#6b3e26"])
        let first = try Fixtures.runCoif(["batch", job, "--out", out])
        XCTAssertEqual(first.status, 0, first.stderr)
        try assertComplete(out, expected: 8)
        XCTAssertEqual(try results(out + "/results.jsonl").filter { $0.status == .rendered }.count, 8)

        let again = try Fixtures.runCoif(["batch", job, "--out", out, "--results", dir + "/again.jsonl"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let second = try results(dir + "/again.jsonl")
        XCTAssertEqual(second.filter { $0.status == .rendered }.count, 0)
        XCTAssertEqual(second.filter { $0.status == .done }.count, 8)

        // One colour changed: its four items render, the other four stay as they are.
        let changed = try writeJob(dir, styles: ["bob", "pixie"], colors: ["auburn", "#6b3e27"])
        let bobAuburn = try XCTUnwrap(FileManager.default.contents(atPath: out + "/astronaut/bob-auburn.png"))
        let third = try Fixtures.runCoif(["batch", changed, "--out", out, "--results", dir + "/third.jsonl"])
        XCTAssertEqual(third.status, 0, third.stderr)
        let rendered = try results(dir + "/third.jsonl").filter { $0.status == .rendered }
        XCTAssertEqual(rendered.count, 4)
        XCTAssertEqual(Set(rendered.map(\.color)), ["#6b3e27"])
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/astronaut/bob-auburn.png"), bobAuburn)
        // A PNG its sidecar does not describe (another process's, a kill between the two renames) is not done.
        let other = try XCTUnwrap(FileManager.default.contents(atPath: out + "/astronaut/pixie-auburn.png"))
        try other.write(to: URL(fileURLWithPath: out + "/astronaut/bob-auburn.png"))
        let mended = try Fixtures.runCoif(["batch", changed, "--out", out, "--results", dir + "/mended.jsonl"])
        XCTAssertEqual(mended.status, 0, mended.stderr)
        XCTAssertEqual(try results(dir + "/mended.jsonl").filter { $0.status == .rendered }.map { ($0.output as NSString).lastPathComponent }, ["bob-auburn.png"])
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/astronaut/bob-auburn.png"), bobAuburn)
        // --force renders every item again, to the same bytes.
        let forced = try Fixtures.runCoif(["batch", changed, "--out", out, "--force", "--results", dir + "/forced.jsonl"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(try results(dir + "/forced.jsonl").filter { $0.status == .rendered }.count, 8)
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/astronaut/bob-auburn.png"), bobAuburn)
    }

    func testAnItemIsTheBytesCoifRenderWritesForIt() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir + "/out"
        // With the own hair removed (the parse kept per photo, the plate per seed), two seeds on one photo.
        let job = try writeJob(dir, styles: ["pixie"], colors: ["auburn"], settings: ##"{"strands": 400}"##)
        var text = try String(contentsOfFile: job, encoding: .utf8)
        text = text.replacingOccurrences(of: ##""output": "{photo}/{style}-{color}.png""##,
                                         with: ##""output": "{photo}/{style}-{color}-{variant}.png", "variants": [{"name": "s1"}, {"name": "s7", "settings": {"seed": 7}}]"##)
        try text.write(toFile: job, atomically: true, encoding: .utf8)
        let run = try Fixtures.runCoif(["batch", job, "--out", out])
        XCTAssertEqual(run.status, 0, run.stderr)
        for (variant, seed) in [("s1", "1"), ("s7", "7")] {
            let single = dir + "/single-\(variant).png"
            let render = try Fixtures.runCoif(["render", try Fixtures.requireAstronaut(), "--style", "pixie", "--color", "auburn",
                                               "--strands", "400", "--seed", seed, "-o", single])
            XCTAssertEqual(render.status, 0, render.stderr)
            XCTAssertEqual(FileManager.default.contents(atPath: single), FileManager.default.contents(atPath: out + "/astronaut/pixie-auburn-\(variant).png"),
                           "variant \(variant)")
        }
        XCTAssertTrue(run.stdout.contains("2 photos analysed"), run.stdout)
    }

    func testAKilledRunFinishesWhenRunAgainWithoutRenderingDoneItemsTwice() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir + "/out"
        let job = try writeJob(dir, styles: ["bob", "pixie", "long-wavy", "buzz-cut"], colors: ["auburn", "black"])
        let process = try Fixtures.startShell("exec '\(Fixtures.coifBinary)' batch '\(job)' --out '\(out)' > /dev/null 2>&1")
        // SIGKILL once three items are rendered: mid-job, most likely mid-item.
        let deadline = Date().addingTimeInterval(300)
        var renderedBeforeKill = 0
        while Date() < deadline {
            renderedBeforeKill = ((try? results(out + "/results.jsonl")) ?? []).filter { $0.status == .rendered }.count
            if renderedBeforeKill >= 3 || !process.isRunning { break }
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let doneBeforeKill = try results(out + "/results.jsonl").filter { $0.status == .rendered }.count
        XCTAssertGreaterThanOrEqual(doneBeforeKill, 3)
        XCTAssertLessThan(doneBeforeKill, 16, "the run ended before the kill; the test proves nothing")
        let again = try Fixtures.runCoif(["batch", job, "--out", out, "--results", dir + "/again.jsonl"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let second = try results(dir + "/again.jsonl")
        // Every item recorded as rendered before the kill is done now (one whose sidecar was renamed in just
        // before the kill, unrecorded, is done too); the rest render, and nothing twice.
        let done = second.filter { $0.status == .done }.count
        XCTAssertGreaterThanOrEqual(done, doneBeforeKill)
        XCTAssertLessThanOrEqual(done, doneBeforeKill + 3, "at most the items in flight (rendering, writing, queued)")
        XCTAssertEqual(second.filter { $0.status == .rendered }.count, 16 - done)
        try assertComplete(out, expected: 16)
    }

    func testTwoProcessesOnOneShardBothFinishWithWholeOutputs() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir + "/out"
        let job = try writeJob(dir, styles: ["bob", "pixie"], colors: ["auburn", "black"])
        let script = "'\(Fixtures.coifBinary)' batch '\(job)' --out '\(out)' --shard 0/1 > /dev/null 2>&1"
        let a = try Fixtures.startShell(script), b = try Fixtures.startShell(script)
        a.waitUntilExit()
        b.waitUntilExit()
        XCTAssertEqual(a.terminationStatus, 0)
        XCTAssertEqual(b.terminationStatus, 0)
        try assertComplete(out, expected: 8)
        let lines = try results(out + "/results.jsonl")
        XCTAssertEqual(lines.count, 16, "both processes record every item")
        XCTAssertEqual(Set(lines.map(\.pid)).count, 2)
    }

    /// A real single-node Slurm (scripts/slurm-check.sh: Debian's munged, slurmctld and slurmd, started for
    /// the test and stopped after) runs a sparse 4-task array, IDs 1, 3, 5 and 7, of one batch job: every item
    /// appears exactly once, rendered by the shard its block belongs to.
    func testASparseSlurmArrayRendersEveryItemExactlyOnce() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir + "/out"
        let job = try writeJob(dir, styles: ["bob", "pixie"], colors: ["auburn", "black"], settings: ##"{"keepOwnHair": true, "strands": 300}"##)
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/slurm-check.sh").path
        let run = try Fixtures.runShell("'\(script)' '\(Fixtures.coifBinary)' '\(job)' '\(out)' '\(dir)/slurm' 2>&1")
        if run.status == 77 {
            let reason = run.stdout.split(separator: "\n").last(where: { $0.contains("skipping") }) ?? "Slurm cannot start here"
            print("BatchTests: \(reason)")
            throw XCTSkip(String(reason))
        }
        XCTAssertEqual(run.status, 0, run.stdout)
        let files = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("results-") }.sorted()
        XCTAssertEqual(files, (0..<4).map { "results-\($0)-of-4.jsonl" })
        let lines = try files.flatMap { try results(out + "/" + $0) }
        XCTAssertEqual(lines.map(\.index).sorted(), Array(0..<8), "every item once")
        XCTAssertTrue(lines.allSatisfy { $0.status == .rendered })
        for line in lines { XCTAssertEqual(line.shard, "\(line.index / 2)/4", "item \(line.index)") }
        try assertComplete(out, expected: 8)
    }

    func testAFailingItemIsRecordedAndTheJobGoesOn() throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir + "/out"
        var sky = PixelImage(width: 320, height: 240, channels: 3)
        for y in 0..<240 { for x in 0..<320 { for c in 0..<3 { sky.pixels[(y * 320 + x) * 3 + c] = UInt8((x + y + c * 40) % 256) } } }
        try AtomicFile.write(try PNGFile.encode(sky), to: dir + "/sky.png")
        try "not a picture\n".write(toFile: dir + "/notes.jpg", atomically: true, encoding: .utf8)
        let photo = try Fixtures.requireAstronaut()
        try ##"{"photos": ["sky.png", "notes.jpg", "\##(photo)"], "styles": ["bob"], "output": "{photo}.png", "settings": {"keepOwnHair": true, "strands": 300}}"##
            .write(toFile: dir + "/job.json", atomically: true, encoding: .utf8)
        let run = try Fixtures.runCoif(["batch", dir + "/job.json", "--out", out])
        XCTAssertEqual(run.status, 3, run.stderr)
        let lines = try results(out + "/results.jsonl")
        let byPhoto = Dictionary(uniqueKeysWithValues: lines.map { (($0.photo as NSString).lastPathComponent, $0) })
        XCTAssertEqual(byPhoto["sky.png"]?.status, .failed)
        XCTAssertEqual(byPhoto["sky.png"]?.exitCode, 13)
        XCTAssertEqual(byPhoto["notes.jpg"]?.exitCode, 11)
        XCTAssertEqual(byPhoto["astronaut.png"]?.status, .rendered)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/astronaut.png"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/sky.png"))

        // --resume does not try the failed items again; they stay failed (exit 3).
        let resumed = try Fixtures.runCoif(["batch", dir + "/job.json", "--out", out, "--resume", "--results", out + "/results.jsonl"])
        XCTAssertEqual(resumed.status, 3, resumed.stderr)
        XCTAssertTrue(resumed.stdout.contains("0 photos analysed"), resumed.stdout)

        // The report: totals, the failures' reasons, a thumbnail.
        let report = try Fixtures.runCoif(["batch-report", out + "/results.jsonl", "-o", dir + "/report.html"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let html = try String(contentsOfFile: dir + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("no face found"), "the failure's reason")
        XCTAssertTrue(html.contains("not an image"))
        XCTAssertEqual(html.components(separatedBy: "data:image/png;base64,").count - 1, 1, "one thumbnail: the rendered item")
        XCTAssertTrue(html.contains("<td class=\"n\">3</td><td class=\"n\">1</td>"), "3 items, 1 done")
        XCTAssertTrue(html.contains("<td class=\"n\">2</td><td class=\"n\">0</td></tr>"), "2 failed, 0 stopped")
    }
}
