// TryOnTests: the still try-on through the real pipeline (dlib, OpenCV, Assimp, EGL/GLES, libpng) on
// astronaut.png: where the hair lands, what a recolor touches, byte-for-byte determinism, the golden.
import CoifCore
import CoifEval
import CoifDiff
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation
import Logging
import XCTest

final class TryOnTests: XCTestCase {
    /// The demo's still, rendered once for the tests that only look at it.
    nonisolated(unsafe) static var demo: TryOnResult?

    func demoResult() throws -> TryOnResult {
        if let demo = Self.demo { return demo }
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let analysis = try engine.analyse(photoPath: try Fixtures.requireAstronaut(), timing: &timing)
        let result = try engine.render(analysis: analysis, style: nil, color: try HairColor.parse("auburn"), seed: 1, timing: &timing)
        Self.demo = result
        return result
    }

    func testHairCoversForeheadAndTemplesButNotEyesNoseOrMouth() throws {
        let result = try demoResult()
        let matte = result.images.matte
        let l = result.analysis.chosen.landmarks
        XCTAssertEqual(l.count, 68)
        let eyeDistance = l[45].x - l[36].x
        let browTop = (17...26).map { l[$0].y }.min()!

        // Forehead: a band above the brows, between the brows' outer ends. A fringe may leave a gap.
        let forehead = meanMatte(matte, x0: l[17].x, y0: browTop - 0.7 * eyeDistance, x1: l[26].x, y1: browTop - 0.35 * eyeDistance)
        XCTAssertGreaterThan(forehead, 0.5, "hair should cover most of the upper forehead")
        // Temples: beside the outer brow ends, above the eye line.
        let temple = 0.25 * eyeDistance
        let leftTemple = meanMatte(matte, x0: l[0].x - temple, y0: browTop - temple, x1: l[0].x + temple * 0.5, y1: browTop + temple * 0.5)
        let rightTemple = meanMatte(matte, x0: l[16].x - temple * 0.5, y0: browTop - temple, x1: l[16].x + temple, y1: browTop + temple * 0.5)
        XCTAssertGreaterThan(leftTemple, 0.3, "hair should reach the temple on the image's left")
        XCTAssertGreaterThan(rightTemple, 0.3, "hair should reach the temple on the image's right")
        // Higher up: the top of the head, as far as it shows (how far depends on the head's pitch).
        let top = meanMatte(matte, x0: l[19].x, y0: browTop - 0.95 * eyeDistance, x1: l[24].x, y1: browTop - 0.75 * eyeDistance)
        XCTAssertGreaterThan(top, 0.5, "hair should cover the top of the head")

        // Eyes, nose and mouth stay clear: no more than 5% coverage in a small window round each point.
        let radius = max(0.04 * eyeDistance, 2)
        for (name, range) in [("eye", 36...47), ("nose", 28...35), ("mouth", 48...67)] {
            for i in range {
                let coverage = meanMatte(matte, x0: l[i].x - radius, y0: l[i].y - radius, x1: l[i].x + radius, y1: l[i].y + radius)
                XCTAssertLessThan(coverage, 0.05, "hair covers the \(name) at landmark \(i)")
            }
        }
    }

    func testChangingOnlyTheColourChangesOnlyHairPixels() throws {
        let engine = try Fixtures.sharedEngine()
        let base = try demoResult()
        var timing = FrameTiming()
        let other = try engine.render(analysis: base.analysis, style: nil, color: try HairColor.parse("platinum"), seed: 1, timing: &timing)
        XCTAssertEqual(base.images.matte, other.images.matte, "the matte depends on the groom, not its colour")
        let a = base.images.composite, b = other.images.composite, matte = base.images.matte
        var changedInside = 0, hairPixels = 0
        for p in 0..<(a.width * a.height) {
            let same = a.pixels[p * 3] == b.pixels[p * 3] && a.pixels[p * 3 + 1] == b.pixels[p * 3 + 1] && a.pixels[p * 3 + 2] == b.pixels[p * 3 + 2]
            if matte.pixels[p] == 0 {
                XCTAssertTrue(same, "pixel \(p % a.width),\(p / a.width) outside the matte changed")
                if !same { return }
            } else {
                hairPixels += 1
                if !same { changedInside += 1 }
            }
        }
        XCTAssertGreaterThan(hairPixels, 5_000)
        XCTAssertGreaterThan(Double(changedInside) / Double(hairPixels), 0.9, "auburn → platinum should change nearly every hair pixel")
    }

    /// The hair's mean luminance over fully covered pixels, and their mean departure from the mean of the
    /// (2·radius+1)² window around them (all of it hair): the hair's broad shading and highlight hardly move it;
    /// streaks and strands of their own tone do.
    private func hairTexture(_ look: HairLook, seed: UInt64, radius: Int, levelOfDetail: LevelOfDetail? = nil) throws -> (mean: Double, deviation: Double) {
        let engine = try Fixtures.sharedEngine()
        let base = try demoResult()
        var job = TryOnJob(input: .frame(base.analysis.frame), look: look)
        job.seed = seed
        if let levelOfDetail { job.levelOfDetail = levelOfDetail }
        var timing = FrameTiming()
        let result = try engine.render([base.analysis], job: job, timing: &timing)
        let image = result.images.composite, matte = result.images.matte, w = image.width, h = image.height
        var luminance = [Double](repeating: 0, count: w * h)
        for p in 0..<(w * h) {
            luminance[p] = 0.2126 * Double(image.pixels[p * 3]) + 0.7152 * Double(image.pixels[p * 3 + 1])
                + 0.0722 * Double(image.pixels[p * 3 + 2])
        }
        let side = Double((2 * radius + 1) * (2 * radius + 1))
        var total = 0.0, departure = 0.0, count = 0
        for y in radius..<(h - radius) {
            for x in radius..<(w - radius) where matte.pixels[y * w + x] == 255 {
                var sum = 0.0, inside = true
                for dy in -radius...radius {
                    for dx in -radius...radius {
                        let q = (y + dy) * w + x + dx
                        if matte.pixels[q] != 255 { inside = false }
                        sum += luminance[q]
                    }
                }
                guard inside else { continue }
                total += luminance[y * w + x]
                departure += abs(luminance[y * w + x] - sum / side)
                count += 1
            }
        }
        XCTAssertGreaterThan(count, 1_500)
        return (total / Double(count), departure / Double(count))
    }

    /// The strands of one patch of scalp share a tone (HairShading.clumpVariation), so the hair shows streaks
    /// lighter and darker than their neighbours instead of averaging to one flat tone within each pixel;
    /// symmetric about 1, so its mean brightness stays where the colour put it. Streaks are a few pixels
    /// wide: measured against the 7×7 window.
    func testClumpsRunAsStreaksOfTheirOwnToneAroundTheSameMean() throws {
        func texture(clumpVariation: Float, seed: UInt64) throws -> (mean: Double, deviation: Double) {
            var look = HairLook(color: try HairColor.parse("auburn"))
            look.shading.clumpVariation = clumpVariation
            // The clumps alone: each strand's own light (the next test) would dilute their share.
            look.shading.strandLightVariation = 0
            look.shading.alongLightVariation = 0
            return try hairTexture(look, seed: seed, radius: 3)
        }
        // Over three seeds: which clumps of the seeded tone field land in view (and whether light ones lie
        // beside dark ones) varies from one strand layout to the next (a 1° slide of the bob moved one
        // seed's figure from +30% to +14%); the three together measure the clumps, not one draw.
        var flat = (mean: 0.0, deviation: 0.0), clumped = (mean: 0.0, deviation: 0.0)
        for seed: UInt64 in 1...3 {
            let f = try texture(clumpVariation: 0, seed: seed)
            let c = try texture(clumpVariation: HairShading.defaultClumpVariation, seed: seed)
            flat = (flat.mean + f.mean / 3, flat.deviation + f.deviation / 3)
            clumped = (clumped.mean + c.mean / 3, clumped.deviation + c.deviation / 3)
        }
        print(String(format: "TryOnTests: hair luminance mean %.1f → %.1f, local departure %.2f → %.2f (clump variation 0 → %.1f)",
                     flat.mean, clumped.mean, flat.deviation, clumped.deviation, HairShading.defaultClumpVariation))
        // 1.08, not 1.15: since f3ae531 a clump turns the colourless R highlight (its angle moves the
        // highlight along the strand) instead of scaling it, so on auburn its share of the streaks is smaller
        // (4.46 → 4.95 over the three seeds, +11%). With no clump variation at all the two are equal.
        XCTAssertGreaterThan(clumped.deviation, flat.deviation * 1.08, "clumps should add tonal variation")
        XCTAssertEqual(clumped.mean, flat.mean, accuracy: flat.mean * 0.06, "and keep the mean")
    }

    /// Within a clump each strand catches its own light, swinging along its length
    /// (HairShading.strandLightVariation, alongLightVariation): strands separate at the scale of a pixel or
    /// two (each pixel against its 3×3 window), around the same mean. Light hair, whose light scatters on
    /// through other fibres, separates less: platinum's gain is smaller than dark brown's.
    func testStrandsSeparateByTheirOwnLightLessSoOnLightHair() throws {
        func gain(_ color: String) throws -> (ratio: Double, mean: Double, meanBefore: Double) {
            var plain = HairLook(color: try HairColor.parse(color))
            plain.shading.strandLightVariation = 0
            plain.shading.alongLightVariation = 0
            let before = try hairTexture(plain, seed: 1, radius: 1)
            let after = try hairTexture(HairLook(color: try HairColor.parse(color)), seed: 1, radius: 1)
            print(String(format: "TryOnTests: %@ hair, departure from the 3×3 mean %.2f → %.2f, mean %.1f → %.1f", color,
                         before.deviation, after.deviation, before.mean, after.mean))
            return (after.deviation / before.deviation, after.mean, before.mean)
        }
        let dark = try gain("dark-brown"), light = try gain("platinum")
        XCTAssertGreaterThan(dark.ratio, 1.08, "dark hair's strands should separate")
        XCTAssertEqual(dark.mean, dark.meanBefore, accuracy: dark.meanBefore * 0.06, "around the same mean")
        XCTAssertLessThan(light.ratio - 1, 0.6 * (dark.ratio - 1), "light hair separates less than dark")
        XCTAssertEqual(light.mean, light.meanBefore, accuracy: light.meanBefore * 0.06)
    }

    /// A ribbon drawn wider than a fibre (few strands at a large width scale, as a large face gets) shows the
    /// fibres it stands for: each its own share of the light, darker at its edges, so a lock reads as hairs
    /// side by side, not a rope. 300 strands at 40× the catalog's width on astronaut.png: dark brown's
    /// departure from its 3×3 mean must grow by a tenth or more, around the same mean (within 6%); without
    /// the fibres (`fibreVariation` 0) the ribbons are one shade across.
    func testAWideRibbonShowsTheFibresItStandsFor() throws {
        let wide = LevelOfDetail(strandCount: 300, pointsPerStrand: 12, widthScale: 40)
        var plain = HairLook(color: try HairColor.parse("dark-brown"))
        plain.shading.fibreVariation = 0
        let before = try hairTexture(plain, seed: 1, radius: 1, levelOfDetail: wide)
        let after = try hairTexture(HairLook(color: try HairColor.parse("dark-brown")), seed: 1, radius: 1, levelOfDetail: wide)
        print(String(format: "TryOnTests: wide ribbons, departure from the 3×3 mean %.2f → %.2f, mean %.1f → %.1f",
                     before.deviation, after.deviation, before.mean, after.mean))
        XCTAssertGreaterThan(after.deviation / before.deviation, 1.1, "a wide ribbon shows its fibres")
        XCTAssertEqual(after.mean, before.mean, accuracy: before.mean * 0.06, "around the same mean")
    }

    func testSameInputsGiveByteIdenticalPNGs() throws {
        let engine = try Fixtures.sharedEngine()
        let directory = try Fixtures.temporaryDirectory()
        var request = TryOnJob(photoPath: try Fixtures.requireAstronaut(), color: try HairColor.parse("#6b3e26"),
                                   outputPath: directory + "/a.png")
        request.outputs.layersDirectory = directory
        try engine.run(request)
        let firstHair = try Data(contentsOf: URL(fileURLWithPath: directory + "/hair.png"))
        // Render something else in between, so no cached state can make the second run pass.
        var other = request
        other.outputs.composite = directory + "/other.png"
        other.outputs.layersDirectory = nil
        other.look = HairLook(color: try HairColor.parse("blonde"))
        other.seed = 99
        try engine.run(other)
        request.outputs.composite = directory + "/b.png"
        try engine.run(request)
        let a = try Data(contentsOf: URL(fileURLWithPath: directory + "/a.png"))
        let b = try Data(contentsOf: URL(fileURLWithPath: directory + "/b.png"))
        XCTAssertEqual(a, b, "two renders with the same inputs must give the same PNG bytes")
        XCTAssertEqual(firstHair, try Data(contentsOf: URL(fileURLWithPath: directory + "/hair.png")))
        let changed = try Data(contentsOf: URL(fileURLWithPath: directory + "/other.png"))
        XCTAssertNotEqual(a, changed)
    }

    /// `coif render`'s path (vision beside the GPU start) against an engine's: the same bytes, for one face
    /// and for every face; and a photo with no face still fails with its own error.
    func testRunOnceGivesTheBytesOfAnEngine() throws {
        let engine = try Fixtures.sharedEngine()
        let directory = try Fixtures.temporaryDirectory()
        for face in [FaceChoice.largest, .all] {
            var request = TryOnJob(photoPath: try Fixtures.requireAstronaut(), color: try HairColor.parse("auburn"),
                                       outputPath: directory + "/engine.png")
            request.face = face
            try engine.run(request)
            request.outputs.composite = directory + "/once.png"
            let outcome = try TryOnEngine.runOnce(request, logger: Logger(label: "coif.tests"))
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: directory + "/engine.png")),
                           try Data(contentsOf: URL(fileURLWithPath: directory + "/once.png")), "\(face)")
            XCTAssertGreaterThan(outcome.engineMs, 0)
            XCTAssertGreaterThan(outcome.visionMs, 0)
            XCTAssertGreaterThanOrEqual(outcome.result.timing.totalMs, max(outcome.engineMs, outcome.visionMs))
        }
        // A real PNG with nothing face-like in it (a smooth gradient), made here so the case always runs.
        var sky = PixelImage(width: 320, height: 240, channels: 3)
        for y in 0..<240 { for x in 0..<320 { for c in 0..<3 { sky.pixels[(y * 320 + x) * 3 + c] = UInt8((x + y + c * 40) % 256) } } }
        let faceless = directory + "/sky.png"
        try AtomicFile.write(try PNGFile.encode(sky), to: faceless)
        let request = TryOnJob(photoPath: faceless, color: try HairColor.parse("auburn"), outputPath: directory + "/sky-out.png")
        XCTAssertThrowsError(try TryOnEngine.runOnce(request, logger: Logger(label: "coif.tests"))) { error in
            guard case CoifError.noFace = error else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/sky-out.png"))
    }

    /// Only the hair's crop of the photo is rendered. Rendering the whole photo instead, for every catalog
    /// style, must put no hair outside that crop (else the crop would cut hair off, or its blur be clipped),
    /// and the two sharp composites may differ only by the rounding of the shifted projection: a few
    /// samples at strand edges.
    func testHairCropHoldsAllTheHairOfEveryStyle() throws {
        let engine = try Fixtures.sharedEngine()
        defer { engine.cropsToHair = true }
        var timing = FrameTiming()
        let analysis = try engine.analyse(photoPath: try Fixtures.requireAstronaut(), timing: &timing)
        let image = analysis.frame.image
        for style in engine.styles.names {
            let region = try engine.hairRegion(analysis: analysis, style: style)
            XCTAssertLessThan(region.width * region.height, image.width * image.height / 2, "\(style): the crop is a crop")
            // With the photo's finish (grain and the layer's blur, as a job renders by default) and without.
            var job = TryOnJob(input: .frame(analysis.frame), style: style, look: HairLook(color: try HairColor.parse("auburn")))
            func render(crop: Bool, finish: Bool) throws -> TryOnResult {
                engine.cropsToHair = crop
                job.matchesPhotoFinish = finish
                return try engine.render([analysis], job: job, timing: &timing)
            }
            let whole = try render(crop: false, finish: true), cropped = try render(crop: true, finish: true)
            let wholeSharp = try render(crop: false, finish: false), croppedSharp = try render(crop: true, finish: false)
            var hairOutside = 0, differingOutside = 0, differingSharp = 0, differingBeyondRounding = 0
            let hairPixels = wholeSharp.images.matte.pixels.reduce(0) { $0 + ($1 > 0 ? 1 : 0) }
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let inside = x >= region.x && x < region.x + region.width && y >= region.y && y < region.y + region.height
                    if !inside && whole.images.matte.pixels[y * image.width + x] > 0 { hairOutside += 1 }
                    let i = (y * image.width + x) * 3
                    if !inside && whole.images.composite.pixels[i..<(i + 3)] != cropped.images.composite.pixels[i..<(i + 3)] {
                        differingOutside += 1
                    }
                    let step = (0..<3).map { abs(Int(wholeSharp.images.composite.pixels[i + $0]) - Int(croppedSharp.images.composite.pixels[i + $0])) }.max()!
                    if step > 0 { differingSharp += 1 }
                    if step > 2 { differingBeyondRounding += 1 }
                }
            }
            XCTAssertEqual(hairOutside, 0, "\(style): hair (blurred) outside the crop \(region)")
            XCTAssertEqual(differingOutside, 0, "\(style)")
            // Inside the crop the sharp picture is the whole frame's up to rounding: strand edges where the
            // rasteriser rounds moved window coordinates differently (a strand's dither comes from the photo
            // pixel and a flat per-strand number; 0-22 pixels a style by more than 2 levels), and 1-2 levels
            // where the filled skin's shading is interpolated over the head (23-69 pixels in all a style). A
            // shifted crop or a dither keyed to the target differs on a third of the hair. (The finish's blur
            // spreads each such pixel over its kernel, so this is measured sharp.)
            XCTAssertLessThan(Double(differingBeyondRounding) / Double(max(hairPixels, 1)), 0.01,
                              "\(style): \(differingBeyondRounding) of \(hairPixels) hair pixels differ by more than 2 levels")
            XCTAssertLessThan(differingSharp, image.width * image.height / 1000, "\(style): \(differingSharp) pixels differ")
        }
    }

    func testSameInputsGiveByteIdenticalPNGsAcrossProcesses() throws {
        let photo = try Fixtures.requireAstronaut()
        let directory = try Fixtures.temporaryDirectory()
        for name in ["one", "two"] {
            let run = try Fixtures.runCoif(["render", photo, "--color", "blonde", "--seed", "7", "-o", "\(directory)/\(name).png"])
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let one = try Data(contentsOf: URL(fileURLWithPath: directory + "/one.png"))
        let two = try Data(contentsOf: URL(fileURLWithPath: directory + "/two.png"))
        XCTAssertEqual(one, two)
    }

    /// The same bytes on one core as on all of them (#29, section 3): OpenCV's dnn split a layer's work by its
    /// thread count, and a face the mesh fits (astronaut rolled 40°) rendered differently under `taskset -c 0`
    /// (landmarks in hundreds of numbers). Nothing but the result is printed on one core either (TBB's
    /// warning about its workers stays out of stderr).
    func testTheCoreCountDoesNotChangeTheBytes() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") else { throw XCTSkip("taskset (util-linux) is not installed") }
        let directory = try Fixtures.temporaryDirectory()
        let photo = try Frame.read(path: try Fixtures.requireAstronaut()).image
        let rolled = directory + "/rolled.png"
        try AtomicFile.write(try PNGFile.encode(RobustnessProbe.rotate(photo, degreesClockwise: 40, about: Vec2(225, 130))), to: rolled)
        for (name, pinned) in [("one", true), ("all", false)] {
            let arguments = ["render", rolled, "--style", "afro", "-o", "\(directory)/\(name).png"]
            let run = try pinned ? Fixtures.runShell("exec /usr/bin/taskset -c 0 '\(Fixtures.coifBinary)' " + arguments.map { "'\($0)'" }.joined(separator: " "))
                                 : Fixtures.runCoif(arguments)
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(run.stderr, "", "nothing on stderr")
            let landmarks = ["landmarks", rolled, "--json"]
            let points = try pinned ? Fixtures.runShell("exec /usr/bin/taskset -c 0 '\(Fixtures.coifBinary)' " + landmarks.map { "'\($0)'" }.joined(separator: " "))
                                    : Fixtures.runCoif(landmarks)
            XCTAssertEqual(points.status, 0, points.stderr)
            try points.stdout.write(toFile: "\(directory)/\(name).json", atomically: true, encoding: .utf8)
        }
        XCTAssertTrue(try String(contentsOfFile: directory + "/one.json", encoding: .utf8).contains("\"mesh\""), "the mesh fits the rolled face")
        XCTAssertEqual(FileManager.default.contents(atPath: directory + "/one.json"), FileManager.default.contents(atPath: directory + "/all.json"))
        XCTAssertEqual(FileManager.default.contents(atPath: directory + "/one.png"), FileManager.default.contents(atPath: directory + "/all.png"))
    }

    /// The demo render against its committed golden (Tests/Goldens/astronaut-default-auburn.png).
    /// Tolerance: a pixel differs when a channel is off by more than 4/255; at most 0.5% of the pixels may
    /// differ and the mean error must stay under 0.25/255. On one machine the bytes are identical (the
    /// tests above prove it); the slack is for another Mesa/LLVM build, whose rasteriser may round strand
    /// edges differently: large errors on a few edge pixels, which the 0.5% allows. Changes a user would
    /// see fail it (measured against this golden): auburn → brown differs on 2.8% of the pixels (mean
    /// 0.33), another seed on 2.4% (0.33), a 1° change of field of view on 0.9% (0.12), the switch to
    /// per-vertex shading on 0.7% (0.07). A 1/255 change of the colour's blue passes (0%, mean 0.006).
    /// COIF_RECORD_GOLDENS=1 rewrites the golden (say why in the commit).
    func testDemoRenderMatchesItsGolden() throws {
        let result = try demoResult()
        let golden = Fixtures.packageRoot.appendingPathComponent("Tests/Goldens/astronaut-default-auburn.png").path
        if ProcessInfo.processInfo.environment["COIF_RECORD_GOLDENS"] == "1" {
            try AtomicFile.write(try PNGFile.encode(result.images.composite, compression: .small), to: golden)
            // A golden compared with itself proves nothing: a recording run is not a pass.
            throw XCTSkip("recorded \(golden); not verified in this run")
        }
        let reference = try PNGFile.read(path: golden, channels: 3)
        let difference = try ImageDiff.compare(reference, result.images.composite, threshold: 4)
        XCTAssertLessThanOrEqual(difference.differingFraction, 0.005,
                                 "\(difference.differingPixels) pixels differ from the golden (max error \(difference.maxChannelError))")
        XCTAssertLessThan(difference.meanAbsoluteError, 0.25)
    }

    func testTimingRecordsEveryStageAndTheContext() throws {
        let engine = try Fixtures.sharedEngine()
        let directory = try Fixtures.temporaryDirectory()
        var request = TryOnJob(photoPath: try Fixtures.requireAstronaut(), color: try HairColor.parse("black"),
                                   outputPath: directory + "/t.png")
        request.outputs.timingPath = directory + "/t.json"
        let result = try engine.run(request)
        for stage in Stage.still {
            XCTAssertNotNil(result.timing[stage], "stage \(stage) not timed")
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/t.json"))) as! [String: Any]
        let stages = json["stagesMs"] as! [String: Double]
        XCTAssertEqual(Set(stages.keys), Set(Stage.still.map(\.rawValue)))
        XCTAssertEqual(json["imageWidth"] as? Int, 512)
        XCTAssertEqual(json["strandCount"] as? Int, result.timing.strandCount)
        XCTAssertGreaterThan(result.timing.segmentCount, 1000)
        XCTAssertFalse((json["renderer"] as? String ?? "").isEmpty)
    }
}
