// FramePipelineTests: the still path cut into stages that can be called on their own. An in-memory frame
// driven through analyse → scene → layers → composite, or through analyse → parse → plate → render, gives the
// bytes `coif render` writes for the same image; a job is validated in the library, the same for every caller; styles come from the built-in
// catalog, user catalog directories or groom files, wherever a style is named.
import CoifCore
@testable import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation
import XCTest

final class FramePipelineTests: XCTestCase {
    /// A frame made in memory (the decoder's pixels copied into a new image, no path attached) goes through
    /// the stages one by one, and its composite, encoded as `coif render` encodes, is the file `coif render`
    /// writes for the photo, byte for byte.
    func testInMemoryFrameThroughTheStagesGivesTheBytesCoifRenderWrites() throws {
        let photo = try Fixtures.requireAstronaut()
        let dir = try Fixtures.temporaryDirectory()
        let run = try Fixtures.runCoif(["render", photo, "--color", "copper", "--style", "lob", "-o", dir + "/cli.png"])
        XCTAssertEqual(run.status, 0, run.stderr)

        let decoded = try Frame.read(path: photo).image
        let copy = PixelImage(width: decoded.width, height: decoded.height, channels: 3, pixels: Array(decoded.pixels))
        let frame = Frame(image: copy, source: "in-memory astronaut")
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let analyses = try engine.analyse(frame, faces: .largest, timing: &timing)
        XCTAssertNil(timing[.decode], "nothing was decoded")
        let job = TryOnJob(input: .frame(frame), style: "lob", look: HairLook(color: try HairColor.parse("copper")))
        let result = try engine.render(analyses, job: job, timing: &timing)
        let png = try PNGFile.encode(result.images.composite, compression: .fast)
        XCTAssertEqual(png, [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/cli.png"))))
        // The own hair's stages called one by one (parse, then plate, seed 1 as the job's), then the render of
        // their analyses: the same bytes again.
        let parsed = try engine.ownHairStage().parse(analyses, timing: &timing)
        let plated = try engine.plateStage.fill(parsed, seed: job.seed, timing: &timing)
        XCTAssertNotNil(plated[0].plate)
        XCTAssertNotNil(plated[0].light, "the plate read the face's light")
        let staged = try engine.render(plated, job: job, timing: &timing)
        XCTAssertEqual(try PNGFile.encode(staged.images.composite, compression: .fast), png)
        // And the whole job from the frame writes the same file.
        var whole = job
        whole.outputs.composite = dir + "/job.png"
        try engine.run(whole)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/job.png")), try Data(contentsOf: URL(fileURLWithPath: dir + "/cli.png")))
    }

    /// Held steady across the frames of a shot: a pinned level of detail, and a render target that is not
    /// re-allocated when the next crop is smaller. The pixels are those of a fresh target.
    func testLevelOfDetailAndRenderTargetHeldAcrossFrames() throws {
        let engine = try Fixtures.sharedEngine()
        defer { engine.holdsRenderTarget = false }
        var timing = FrameTiming()
        let analysis = try engine.analyse(photoPath: try Fixtures.requireAstronaut(), timing: &timing)
        let color = try HairColor.parse("black")
        func render(_ style: String) throws -> TryOnResult {
            var t = FrameTiming()
            return try engine.render(analysis: analysis, style: style, color: color, seed: 1, timing: &t)
        }
        engine.holdsRenderTarget = false
        let small = try render("buzz-cut").images.composite
        let smallBytes = engine.renderer.targetBytes
        _ = try render("long-wavy")
        let largeBytes = engine.renderer.targetBytes
        XCTAssertGreaterThan(largeBytes, smallBytes, "long hair needs the larger crop")
        engine.holdsRenderTarget = true
        _ = try render("long-wavy")
        let held = try render("buzz-cut").images.composite
        XCTAssertEqual(engine.renderer.targetBytes, largeBytes, "the smaller frame drew into the held target")
        XCTAssertEqual(held, small, "same pixels as a target of the frame's own size")
        // A pinned level of detail is used as it is, whatever the face's size.
        var job = TryOnJob(input: .frame(analysis.frame), style: "bob", look: HairLook(color: color))
        job.levelOfDetail = LevelOfDetail(strandCount: 1234, pointsPerStrand: 12, widthScale: 1.5)
        var t = FrameTiming()
        let pinned = try engine.render([analysis], job: job, timing: &t)
        XCTAssertEqual(pinned.levelOfDetail, job.levelOfDetail)
        XCTAssertEqual(pinned.timing.strandCount, 1234)
        XCTAssertEqual(pinned.timing.segmentCount, 1234 * 11)
    }

    /// The render stage holds a shot's level of detail from its first frame: a frame of the shot whose face is
    /// half as wide draws the first frame's strands, and the same frame opening a new shot draws what a still of
    /// it draws (a still is a one-frame shot), bytes and all.
    func testARenderStageHoldsItsShotFromTheFirstFrameAndANewShotIsAStill() throws {
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let full = try engine.analyse(photoPath: try Fixtures.requireAstronaut(), timing: &timing)
        let image = full.frame.image
        var small = PixelImage(width: image.width / 2, height: image.height / 2, channels: 3,
                               pixels: [UInt8](repeating: 0, count: image.width / 2 * image.height / 2 * 3))
        small.blitDownsampled(image, x: 0, y: 0, width: small.width, height: small.height)
        let half = try XCTUnwrap(try engine.analyse(Frame(image: small, source: "half astronaut"), timing: &timing).first)
        var job = TryOnJob(input: .frame(full.frame), style: "bob", look: HairLook(color: try HairColor.parse("auburn")))
        job.removesOwnHair = false
        let stage = RenderStage(engine: engine, style: try engine.style(named: "bob"), job: job)
        let first = try stage.process([full], shot: 1, timing: &timing)
        let held = try stage.process([half], shot: 1, timing: &timing)
        XCTAssertEqual(held.levelOfDetail, first.levelOfDetail, "the shot's strands, not the smaller face's")
        let opened = try stage.process([half], shot: 2, timing: &timing)
        XCTAssertLessThan(opened.levelOfDetail.strandCount, first.levelOfDetail.strandCount, "a face half as wide needs fewer strands")
        var stillJob = job
        stillJob.input = .frame(half.frame)
        let still = try engine.render([half], job: stillJob, timing: &timing)
        XCTAssertEqual(opened.levelOfDetail, still.levelOfDetail)
        XCTAssertEqual(opened.images.composite, still.images.composite, "a new shot's first frame is the still of that frame")
    }

    func assertInvalidOption(_ job: TryOnJob, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let styles = try Fixtures.sharedEngine().styles
        XCTAssertThrowsError(try job.validate(styles: styles), file: file, line: line) { error in
            guard case CoifError.invalidOption(let got, _)? = error as? CoifError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertTrue(got.contains(name), "\(got) should name \(name)", file: file, line: line)
        }
    }

    /// A library caller gets the CLI's checks: no `detail: 100`, no `fovDegrees: 0`, no output that is an
    /// input or another output.
    func testJobValidationIsTheSameForEveryCaller() throws {
        let photo = try Fixtures.requireAstronaut()
        let dir = try Fixtures.temporaryDirectory()
        let good = TryOnJob(photoPath: photo, color: try HairColor.parse("auburn"), outputPath: dir + "/out.png")
        XCTAssertEqual(try good.validate(styles: try Fixtures.sharedEngine().styles).name, "bob")
        var job = good; job.detail = 100
        try assertInvalidOption(job, "--detail")
        job = good; job.fieldOfViewDegrees = 0
        try assertInvalidOption(job, "--fov-degrees")
        job = good; job.strands = 0
        try assertInvalidOption(job, "--strands")
        job = good; job.face = .index(-1)
        try assertInvalidOption(job, "--face")
        job = good; job.outputs.composite = photo
        try assertInvalidOption(job, photo)
        job = good; job.outputs.composite = dir + "/./layers/hair.png"; job.outputs.layersDirectory = dir + "/layers"
        try FileManager.default.createDirectory(atPath: dir + "/layers", withIntermediateDirectories: true)
        try assertInvalidOption(job, "hair.png")
        job = good; job.style = "no-such-style"
        XCTAssertThrowsError(try job.validate(styles: try Fixtures.sharedEngine().styles)) { error in
            guard case CoifError.unknownStyle? = error as? CoifError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(Fixtures.listing(dir), ["layers"], "validation writes nothing")
        // The CLI says the same: exit 22, one line, nothing rendered or written.
        let run = try Fixtures.runCoif(["render", photo, "-o", dir + "/layers/hair.png", "--layers", dir + "/layers"])
        XCTAssertEqual(run.status, 22, run.stderr)
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        XCTAssertEqual(Fixtures.listing(dir + "/layers"), [])
        // A golden case with a bad flag fails by the same rule, naming the case.
        try #"[{"name": "bad", "photo": "\#(photo)", "color": "auburn", "flags": {"detail": 100}}]"#
            .write(toFile: dir + "/cases.json", atomically: true, encoding: .utf8)
        let golden = try Fixtures.runCoif(["golden", "verify", dir + "/cases.json", "--dir", dir + "/g"])
        XCTAssertEqual(golden.status, 22, golden.stderr)
        XCTAssertTrue(golden.stderr.contains("bad: --detail"), golden.stderr)
    }

    /// Every import format as `--style FILE`: OBJ curves, glTF LINE_STRIP, USC-HairSalon .data and OBJ hair
    /// cards, all made here from real geometry; TressFX .tfx from the shared test data when present.
    func testStyleFileOfEveryFormatRendersOnAPhoto() throws {
        let photo = try Fixtures.requireAstronaut()
        let dir = try Fixtures.temporaryDirectory()
        // Guides of a built-in style, written back out in each format (a groom made elsewhere would be in
        // its own frame and size: the fit takes care of that, as `groom import` does).
        let engine = try Fixtures.sharedEngine()
        let guides = try engine.styles.groom(try engine.styles.resolve("lob")).guides
        let strands = (0..<guides.strandCount).map { Array(guides.strand($0)) }
        var obj = ""
        for s in strands { for p in s { obj += "v \(p.x) \(p.y) \(p.z)\n" } }
        var next = 1
        for s in strands { obj += "l " + (next..<(next + s.count)).map(String.init).joined(separator: " ") + "\n"; next += s.count }
        try obj.write(toFile: dir + "/curves.obj", atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: dir + "/groom.data", contents: Data(GroomImport.uscDataBytes(strands)))
        try gltfLineStrips(Array(strands.prefix(60))).write(toFile: dir + "/strands.gltf", atomically: true, encoding: .utf8)
        try HairCardTests.objText(HairCardTests.hairCards(), layout: .rootAtV0, scalp: false)
            .write(toFile: dir + "/cards.obj", atomically: true, encoding: .utf8)
        var files = ["curves.obj", "groom.data", "strands.gltf", "cards.obj"].map { dir + "/" + $0 }
        let sintel = Fixtures.testdata.appendingPathComponent("hair3d/tressfx_sintel/GEO-sintel_hair_emit.001-sintel_hair.tfx").path
        if FileManager.default.fileExists(atPath: sintel) {
            files.append(sintel)
        } else {
            print("FramePipelineTests: no .tfx case: \(sintel) missing (COIF_TESTDATA)")
        }
        for file in files {
            let name = (file as NSString).lastPathComponent
            let out = dir + "/out-\(name).png", layers = dir + "/layers-\(name)"
            try FileManager.default.createDirectory(atPath: layers, withIntermediateDirectories: true)
            let run = try Fixtures.runCoif(["render", photo, "--style", file, "--strands", "3000", "-o", out, "--layers", layers])
            XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
            let matte = try PNGFile.read(path: layers + "/matte.png", channels: 1)
            let covered = matte.pixels.filter { $0 >= 128 }.count
            XCTAssertGreaterThan(covered, 2000, "\(name): hair drawn on the photo")
        }
        // A file that is no groom: exit 50, one line naming it, nothing written.
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }).write(to: URL(fileURLWithPath: dir + "/noise.tfx"))
        let before = Fixtures.listing(dir)
        let bad = try Fixtures.runCoif(["render", photo, "--style", dir + "/noise.tfx", "-o", dir + "/bad.png"])
        XCTAssertEqual(bad.status, 50, bad.stderr)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("noise.tfx"), bad.stderr)
        XCTAssertEqual(Fixtures.listing(dir), before)
    }

    /// `groom import --out DIR` makes a new user catalog; `--styles DIR` and COIF_STYLES use it at once in
    /// render, preview, sheet, styles and golden; a user style named like a built-in one wins, and `coif
    /// styles` says so.
    func testUserCatalogDirectoryWorksWithoutARebuild() throws {
        let photo = try Fixtures.requireAstronaut()
        let dir = try Fixtures.temporaryDirectory()
        let engine = try Fixtures.sharedEngine()
        let guides = try engine.styles.groom(try engine.styles.resolve("afro")).guides
        _ = FileManager.default.createFile(atPath: dir + "/afro.data",
                                       contents: Data(GroomImport.uscDataBytes((0..<guides.strandCount).map { Array(guides.strand($0)) })))
        let catalog = dir + "/my-styles"
        for name in ["puff", "bob"] {
            let run = try Fixtures.runCoif(["groom", "import", dir + "/afro.data", "-o", name, "--out", catalog])
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: catalog + "/catalog.json"))
        let styles = try Fixtures.runCoif(["styles", "--styles", catalog])
        XCTAssertEqual(styles.status, 0, styles.stderr)
        let lines = styles.stdout.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("puff (user: \(catalog))") }, styles.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("bob (default; user: \(catalog), replaces the built-in style)") }, styles.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("pixie (built-in)") }, styles.stdout)
        XCTAssertEqual(lines.count, 16, "15 built-in styles, bob replaced, puff added")

        // The user's bob wins over the built-in bob: a different picture than without the catalog.
        let ours = try Fixtures.runCoif(["render", photo, "--styles", catalog, "--style", "bob", "-o", dir + "/ours.png"])
        XCTAssertEqual(ours.status, 0, ours.stderr)
        let builtIn = try Fixtures.runCoif(["render", photo, "--style", "bob", "-o", dir + "/builtin.png"])
        XCTAssertEqual(builtIn.status, 0, builtIn.stderr)
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/ours.png")),
                          try Data(contentsOf: URL(fileURLWithPath: dir + "/builtin.png")))
        // COIF_STYLES does what --styles does.
        let viaEnvironment = try Fixtures.runCoif(["render", photo, "--style", "puff", "-o", dir + "/env.png"],
                                                  environment: ["COIF_STYLES": catalog])
        XCTAssertEqual(viaEnvironment.status, 0, viaEnvironment.stderr)
        let viaFlag = try Fixtures.runCoif(["render", photo, "--styles", catalog, "--style", "puff", "-o", dir + "/flag.png"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/env.png")), try Data(contentsOf: URL(fileURLWithPath: dir + "/flag.png")))
        XCTAssertEqual(viaFlag.status, 0)
        // Preview and sheet take it too; without the catalog the name is unknown (exit 20).
        XCTAssertEqual(try Fixtures.runCoif(["preview", "puff", "--styles", catalog, "--size", "128", "-o", dir + "/p.png"]).status, 0)
        XCTAssertEqual(try Fixtures.runCoif(["sheet", photo, "--styles", catalog, "--style", "puff,bob", "--tile", "64", "-o", dir + "/s.png"]).status, 0)
        let unknown = try Fixtures.runCoif(["render", photo, "--style", "puff", "-o", dir + "/unknown.png"])
        XCTAssertEqual(unknown.status, 20, unknown.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/unknown.png"))
        // A directory with no catalog: exit 10, naming it.
        let empty = try Fixtures.runCoif(["styles", "--styles", dir + "/nowhere"])
        XCTAssertEqual(empty.status, 10, empty.stderr)
        XCTAssertTrue(empty.stderr.contains("nowhere/catalog.json"), empty.stderr)
    }

    /// glTF 2.0 with one LINE_STRIP primitive per strand and the points in one embedded buffer.
    func gltfLineStrips(_ strands: [[Vec3]]) -> String {
        var floats: [Float] = []
        var accessors: [String] = []
        for s in strands {
            let lo = s.reduce(s[0], pointwiseMin), hi = s.reduce(s[0], pointwiseMax)
            accessors.append("{\"bufferView\": 0, \"byteOffset\": \(floats.count * 4), \"componentType\": 5126, \"count\": \(s.count), \"type\": \"VEC3\", \"min\": [\(lo.x), \(lo.y), \(lo.z)], \"max\": [\(hi.x), \(hi.y), \(hi.z)]}")
            for p in s { floats += [p.x, p.y, p.z] }
        }
        let buffer = floats.withUnsafeBufferPointer { Data(buffer: $0) }.base64EncodedString()
        let primitives = strands.indices.map { "{\"attributes\": {\"POSITION\": \($0)}, \"mode\": 3}" }.joined(separator: ",")
        return """
        {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
         "meshes": [{"primitives": [\(primitives)]}],
         "buffers": [{"byteLength": \(floats.count * 4), "uri": "data:application/octet-stream;base64,\(buffer)"}],
         "bufferViews": [{"buffer": 0, "byteLength": \(floats.count * 4)}], "accessors": [\(accessors.joined(separator: ","))]}
        """
    }
}
