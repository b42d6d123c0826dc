// OwnHairTests: the person's own hair, with the real face-parsing network (installed by `make models`) on
// real photos: a soft matte, recolouring that touches nothing else, removal under a try-on that the network
// itself no longer calls hair, a bald head with next to no hair, and a missing or damaged model reported as
// exit 50 with nothing written.
import CoifCore
import CoifEval
import CoifMedia
import CoifPipeline
import CoifRender
import CVision
import CoifVision
import Foundation
import XCTest

final class OwnHairTests: XCTestCase {
    /// The network, or a failure saying how to install it (`make test` installs it first).
    static func requireModel() throws -> String {
        let path = FaceParser.defaultModelPath
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("the face-parsing model is not installed at \(path): run `make models`")
            throw XCTSkip("no face-parsing model")
        }
        return path
    }

    func astronautHair() throws -> (Frame, PhotoAnalysis) {
        _ = try Self.requireModel()
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let frame = try Frame.read(path: try Fixtures.requireAstronaut())
        let analyses = try Fixtures.ownHairRemoved(frame, engine: engine, timing: &timing)
        XCTAssertNotNil(timing[.parse])
        XCTAssertNotNil(timing[.plate])
        return (frame, analyses[0])
    }

    /// The matte covers her hair (above the brows, around the face), not her face, and fades over a band
    /// of pixels instead of stepping.
    func testMatteCoversTheHairWithASoftEdge() throws {
        let (frame, analysis) = try astronautHair()
        let hair = try XCTUnwrap(analysis.ownHair)
        let w = frame.image.width
        let marks = analysis.chosen.landmarks
        // The forehead's top is hair (her fringe); the nose tip and chin are not.
        let browTop = min(marks[19].y, marks[24].y)
        let above = Int(browTop - 0.9 * (marks[8].y - browTop) * 0.5)
        XCTAssertGreaterThan(hair.matte[max(above, 0) * w + Int(marks[27].x)], 0.5, "hair above the forehead")
        XCTAssertLessThan(hair.matte[Int(marks[30].y) * w + Int(marks[30].x)], 0.05, "the nose is not hair")
        XCTAssertLessThan(hair.matte[Int(marks[8].y - 3) * w + Int(marks[8].x)], 0.05, "the chin is not hair")
        let full = hair.matte.filter { $0 >= 0.95 }.count, soft = hair.matte.filter { $0 > 0.05 && $0 < 0.95 }.count
        XCTAssertGreaterThan(full, 5_000, "her hair is ~9k pixels at full strength")
        XCTAssertGreaterThan(soft, full / 50, "a soft band along the edge (\(soft) soft, \(full) full)")
    }

    /// Recolouring moves the hair's hue toward the target and leaves every pixel outside the matte as it was,
    /// byte for byte, through the CLI's file too.
    func testRecolorChangesOnlyTheHairAndMovesItsHue() throws {
        let (frame, analysis) = try astronautHair()
        let hair = try XCTUnwrap(analysis.ownHair)
        let target = try HairColor.parse("#2060c0")  // a blue no hair has: the hue must move
        let out = try HairRecolor.apply(frame.image, matte: hair.matte, targetLinear: target.linear, strength: 1)
        var outsideChanged = 0, insideBlueGain = 0.0, inside = 0
        for i in 0..<hair.matte.count {
            let p = i * 3
            let before = frame.image.pixels[p..<(p + 3)], after = out.pixels[p..<(p + 3)]
            if hair.matte[i] == 0 {
                if before != after { outsideChanged += 1 }
            } else if hair.matte[i] >= 0.9 {
                insideBlueGain += Double(after[after.startIndex + 2]) - Double(after[after.startIndex]) -
                    (Double(before[before.startIndex + 2]) - Double(before[before.startIndex]))
                inside += 1
            }
        }
        XCTAssertEqual(outsideChanged, 0, "pixels outside the matte keep their bytes")
        XCTAssertGreaterThan(inside, 5_000)
        XCTAssertGreaterThan(insideBlueGain / Double(inside), 40, "blue − red rises in the hair")

        let dir = try Fixtures.temporaryDirectory()
        let run = try Fixtures.runCoif(["recolor", try Fixtures.requireAstronaut(), "--color", "#2060c0", "-o", dir + "/blue.png"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("ΔE00"), run.stdout)
        XCTAssertEqual(try PNGFile.read(path: dir + "/blue.png", channels: 3), out)
        // A strength outside 0–1 is refused before any work.
        let bad = try Fixtures.runCoif(["recolor", try Fixtures.requireAstronaut(), "--color", "red", "--strength", "2", "-o", dir + "/x.png"])
        XCTAssertEqual(bad.status, 22, bad.stderr)
    }

    /// Under a short style the network, run on the output, no longer calls her uncovered hair hair: with
    /// the own hair kept it does on ~97% of it; removed, on a tenth of that or less.
    func testRemovalTakesTheUncoveredHairAwayAsTheNetworkSeesIt() throws {
        _ = try Self.requireModel()
        let rows = try OwnHairEvaluation.run(engine: try Fixtures.sharedEngine(), photos: [try Fixtures.requireAstronaut()],
                                             styles: ["pixie", "buzz-cut"], color: try HairColor.parse("auburn"))
        for row in rows {
            print(String(format: "OwnHairTests: %@ %@: hair/hat kept %.1f%%, removed %.1f%%", row.photo, row.style,
                         100 * row.labelledHairKept, 100 * row.labelledHairRemoved))
            XCTAssertGreaterThan(row.uncoveredPixels, 2000, row.style)
            XCTAssertGreaterThan(row.labelledHairKept, 0.8, "\(row.style): the old behaviour shows her hair")
            XCTAssertLessThan(row.labelledHairRemoved, row.labelledHairKept / 10, "\(row.style): removal cuts it tenfold")
        }
    }

    /// The plate, the layers and the bytes: the same twice; --keep-own-hair draws over the photo as before
    /// and does not parse; --layers writes the own-hair matte and the filled photo.
    func testPlateIsDeterministicAndLayersAreWritten() throws {
        let (_, first) = try astronautHair()
        let (_, second) = try astronautHair()
        XCTAssertEqual(first.plate, second.plate)
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        // The layers directory does not exist yet: --layers makes it.
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/layers"))
        let run = try Fixtures.runCoif(["render", photo, "--style", "pixie", "-o", dir + "/out.png", "--layers", dir + "/layers",
                                        "--timing", dir + "/t.json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(Fixtures.listing(dir + "/layers"), ["filled.png", "hair.png", "matte.png", "own-hair-matte.png"])
        XCTAssertEqual(try PNGFile.read(path: dir + "/layers/filled.png", channels: 3), first.plate)
        let timing = try String(contentsOfFile: dir + "/t.json", encoding: .utf8)
        XCTAssertTrue(timing.contains("\"parse\"") && timing.contains("\"plate\""), timing)
        let kept = try Fixtures.runCoif(["render", photo, "--style", "pixie", "--keep-own-hair", "-o", dir + "/kept.png", "--timing", dir + "/k.json"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertFalse(try String(contentsOfFile: dir + "/k.json", encoding: .utf8).contains("\"parse\""))
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/kept.png")), try Data(contentsOf: URL(fileURLWithPath: dir + "/out.png")))
    }

    /// Where dark hair meets fair skin, the removal follows the photo's own edge, not the grown ring: the
    /// network's matte ramps over 16 px round a sharp edge and the removal grows it by 15 px, which blurred a
    /// cheek framed by long hair into the background laid beside it (deepface img11). The skin two pixels in
    /// is kept whole (the grown ring removed it to 15 px in), the hair two pixels out is removed, the pixel that
    /// is half of each (mixed in linear light) is half removed and shows the skin unmixed from it. Where hair
    /// and skin are alike in tone (fair hair on fair skin) the colour cannot tell, and the grown ring stands.
    func testTheRemovalFollowsThePhotosEdgeWhereHairMeetsSkin() throws {
        let side = 200, edge = 100
        func photo(hair: [Float], skin: [Float]) -> (PixelImage, [Float]) {
            var pixels = [UInt8](repeating: 0, count: side * side * 3)
            for y in 0..<side {
                for x in 0..<side {
                    let share: Float = x < edge ? 1 : (x == edge ? 0.5 : 0)
                    for c in 0..<3 {
                        let linear = share * srgbToLinear(hair[c] / 255) + (1 - share) * srgbToLinear(skin[c] / 255)
                        pixels[3 * (y * side + x) + c] = UInt8((linearToSrgb(linear) * 255).rounded())
                    }
                }
            }
            return (PixelImage(width: side, height: side, channels: 3, pixels: pixels), skin)
        }
        // The parse's classes stop 4 px off the edge (as its 512-px crop, resampled, does); its matte ramps from
        // 1 at 12 px out to 0 at 4 px in.
        let classes = (0..<(side * side)).map { $0 % side < edge + 4 ? OwnHair.hair : OwnHair.skin }
        let matte = (0..<(side * side)).map { min(max(Float(edge + 4 - $0 % side) / 16, 0), 1) }
        let hair = OwnHair(width: side, height: side, crop: (0, 0, 600), classes: classes, matte: matte)
        let row = side / 2 * side

        let (dark, skin) = photo(hair: [30, 22, 18], skin: [205, 165, 145])
        let grown = HairPlate.removal(hair, photo: PixelImage(width: side, height: side, channels: 3), faces: [])
        XCTAssertGreaterThan(grown[row + edge + 12], 0.4, "alone, the ring grows the matte 15 px into the skin")
        let removal = HairPlate.removal(hair, photo: dark, faces: [])
        for x in (edge + 2)..<(edge + 24) { XCTAssertLessThan(removal[row + x], 0.05, "skin \(x - edge) px in is kept") }
        for x in (edge - 12)...(edge - 2) { XCTAssertGreaterThan(removal[row + x], 0.95, "hair \(edge - x) px out is removed") }
        XCTAssertEqual(removal[row + edge], 0.5, accuracy: 0.15, "the edge's pixel is half hair")
        var unmixed = dark.pixels, again = grown
        let status = dark.pixels.withUnsafeBufferPointer { rgb in
            unmixed.withUnsafeMutableBufferPointer { out in
                cv_removal_at_skin(rgb.baseAddress, Int32(side), Int32(side), classes, matte, nil, 0, 15, &again, out.baseAddress)
            }
        }
        XCTAssertEqual(status, 0)
        for c in 0..<3 { XCTAssertEqual(Float(unmixed[3 * (row + edge) + c]), skin[c], accuracy: 6, "the skin shows through the edge's pixel") }

        let (fair, _) = photo(hair: [225, 200, 160], skin: [215, 180, 160])
        let alike = HairPlate.removal(hair, photo: fair, faces: [])
        XCTAssertEqual(alike, grown, "hair the skin's tone keeps the grown ring")
    }

    /// A photo past 1280 px (the astronaut ×4, 2048²) is filled at 1280 and resized back: the same fill as
    /// at the photo's own 512 (within 12 of 255 on average over what was removed, sampled every fourth
    /// pixel), nothing changed two pixels or more from the removal (every other pixel checked), and the same
    /// bytes twice.
    func testALargePhotosPlateIsMadeSmallAndMatchesTheSmallOne() throws {
        _ = try Self.requireModel()
        let engine = try Fixtures.sharedEngine()
        let (_, small) = try astronautHair()
        let photo = try Frame.read(path: try Fixtures.requireAstronaut()).image
        var big = PixelImage(width: 2048, height: 2048, channels: 3)
        for y in 0..<2048 {
            for x in 0..<2048 {
                for c in 0..<3 { big.pixels[(y * 2048 + x) * 3 + c] = photo.pixels[((y / 4) * 512 + x / 4) * 3 + c] }
            }
        }
        func plate() throws -> PhotoAnalysis {
            var timing = FrameTiming()
            let frame = Frame(image: big, source: "astronaut-x4")
            return try Fixtures.ownHairRemoved(frame, engine: engine, timing: &timing)[0]
        }
        let first = try plate(), second = try plate()
        let bigPlate = try XCTUnwrap(first.plate), smallPlate = try XCTUnwrap(small.plate)
        XCTAssertEqual(bigPlate, second.plate, "the same bytes twice")
        let removal = HairPlate.removal(try XCTUnwrap(first.ownHair), photo: big, faces: [first.person].compactMap { $0 }),
            smallRemoval = HairPlate.removal(try XCTUnwrap(small.ownHair), photo: photo, faces: [small.person].compactMap { $0 })
        var untouchedChanged = 0, compared = 0, difference = 0.0
        for y in stride(from: 2, to: 2046, by: 2) {
            for x in stride(from: 2, to: 2046, by: 2) {
                let i = y * 2048 + x
                if removal[i] == 0,
                   (-2...2).allSatisfy({ dy in (-2...2).allSatisfy { dx in removal[i + dy * 2048 + dx] == 0 } }),
                   (0..<3).contains(where: { bigPlate.pixels[3 * i + $0] != big.pixels[3 * i + $0] }) {
                    untouchedChanged += 1
                }
                // Sampled where both removed all of a pixel: at the small photo's pixel centres.
                guard x % 4 == 2, y % 4 == 2 else { continue }
                let j = (y / 4) * 512 + x / 4
                guard removal[i] >= 1, smallRemoval[j] >= 1 else { continue }
                for c in 0..<3 { difference += abs(Double(bigPlate.pixels[3 * i + c]) - Double(smallPlate.pixels[3 * j + c])) }
                compared += 3
            }
        }
        XCTAssertEqual(untouchedChanged, 0, "pixels away from the removal keep their bytes")
        XCTAssertGreaterThan(compared, 3 * 2000, "the two removals overlap")
        let mean = difference / Double(max(compared, 1))
        print(String(format: "OwnHairTests: 2048² plate against the 512² one: mean difference %.1f of 255 over %d samples", mean, compared / 3))
        XCTAssertLessThan(mean, 12, "the large photo's fill is the small one's")
    }

    /// A bald head has next to no hair (the shared test data's bald_guys.jpg, a collage: its eight largest
    /// faces). A crop 2.6 times a face reaches its neighbours' beards and brows, so each face may show a
    /// little; the typical one none.
    func testABaldHeadHasAlmostNoHair() throws {
        _ = try Self.requireModel()
        let path = try Fixtures.requireTestdata("landmarks68/dlib_faces/bald_guys.jpg", for: "OwnHairTests")
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let frame = try Frame.read(path: path)
        let faces = try engine.analyse(frame, faces: .all, timing: &timing)
        XCTAssertGreaterThanOrEqual(faces.count, 8)
        let parser = try engine.faceParser()
        var shares: [Double] = []
        for face in faces.prefix(8) {
            let hair = try parser.parse(frame, box: face.chosen.box)
            let box = face.chosen.box
            // Over the head's box grown to the crop: the share of pixels that are hair.
            let crop = FaceParser.crop(for: box)
            var total = 0, hairy = 0
            for y in max(0, Int(crop.y))..<min(frame.image.height, Int(crop.y + crop.side)) {
                for x in max(0, Int(crop.x))..<min(frame.image.width, Int(crop.x + crop.side)) {
                    total += 1
                    if hair.matte[y * frame.image.width + x] >= 0.5 { hairy += 1 }
                }
            }
            let share = Double(hairy) / Double(max(total, 1))
            print(String(format: "OwnHairTests: bald face at (%.0f, %.0f): %.2f%% of its crop is hair", box.left, box.top, 100 * share))
            // Under 10%: one of the eight (353, 1266) is a crew cut, not bald: its hair at the temples is 8.6%
            // of its crop. Which eight are first depends on the poses' reprojection (`FaceAnalyzer.kept`).
            XCTAssertLessThan(share, 0.10)
            shares.append(share)
        }
        XCTAssertLessThan(shares.sorted()[shares.count / 2], 0.01, "the typical bald head: under 1% hair")
    }

    /// No model, a truncated one, or one OpenCV cannot read: exit 50, one line naming the file and how to
    /// install it, and no output; --keep-own-hair needs no model.
    func testMissingOrDamagedModelIsExit50AndWritesNothing() throws {
        let model = try Self.requireModel()
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        try FileManager.default.createDirectory(atPath: dir + "/none", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/cut", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/noise", withIntermediateDirectories: true)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: model))
        let sidecar = try String(contentsOfFile: model + ".sha256", encoding: .utf8)
        try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: dir + "/cut/" + FaceParser.modelFile(size: FaceParser.defaultInputSize())))
        try sidecar.write(toFile: dir + "/cut/" + FaceParser.modelFile(size: FaceParser.defaultInputSize()) + ".sha256", atomically: true, encoding: .utf8)
        try Data((0..<bytes.count).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: dir + "/noise/" + FaceParser.modelFile(size: FaceParser.defaultInputSize())))
        try sidecar.write(toFile: dir + "/noise/" + FaceParser.modelFile(size: FaceParser.defaultInputSize()) + ".sha256", atomically: true, encoding: .utf8)
        // The face mesh's models are in place in each folder: this test is about the parsing model.
        for variant in ["none", "cut", "noise"] {
            for file in [FaceMesh.landmarkModelFile, FaceMesh.detectorModelFile].flatMap({ [$0, $0 + ".sha256"] }) {
                try FileManager.default.createSymbolicLink(atPath: dir + "/" + variant + "/" + file, withDestinationPath: ModelCache.path(file))
            }
        }
        for variant in ["none", "cut", "noise"] {
            for command in [["render", photo, "-o", dir + "/out.png"], ["recolor", photo, "--color", "red", "-o", dir + "/out.png"]] {
                let run = try Fixtures.runCoif(command, environment: ["COIF_MODELS": dir + "/" + variant])
                XCTAssertEqual(run.status, 50, "\(variant) \(command[0]): \(run.stderr)")
                XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
                XCTAssertTrue(run.stderr.contains(FaceParser.modelFile(size: FaceParser.defaultInputSize())) && run.stderr.contains("make models"), run.stderr)
                XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.png"), "\(variant): no output")
            }
        }
        let kept = try Fixtures.runCoif(["render", photo, "--keep-own-hair", "-o", dir + "/kept.png"], environment: ["COIF_MODELS": dir + "/none"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
    }

    /// What a crop below the face calls hair is judged by the colour of the hair the face's crop sees: a
    /// region in colours that hair never takes (a beige sweater beside dark brown hair) is not hair; the
    /// hair's own colours, and single odd pixels among them (a highlight), are. Under 200 confident hair
    /// pixels there is no model, and nothing is judged not hair.
    func testTheLowerCropsHairIsJudgedByTheHairsColour() {
        let side = 120
        var rgb = [UInt8](repeating: 0, count: side * side * 3), model = [Float](repeating: 0, count: side * side)
        var judge = [UInt8](repeating: 0, count: side * side)
        var generator = SeededRandom(seed: 7)
        for y in 0..<side {
            for x in 0..<side {
                let i = y * side + x
                let beige = y >= side / 2 && (x < side / 2 || (x % 7 == 0 && y % 7 == 0))
                let base: [Int] = beige ? [215, 190, 170] : [41, 36, 31]
                for c in 0..<3 { rgb[3 * i + c] = UInt8(max(0, min(255, base[c] + Int.random(in: -10...10, using: &generator)))) }
                if y < side / 2 { model[i] = 1 } else { judge[i] = 255 }
            }
        }
        var plausible = [UInt8](repeating: 0, count: side * side)
        XCTAssertEqual(cv_hair_colour_plausible(rgb, Int32(side), Int32(side), model, judge, 3, &plausible), 0)
        var sweaterKept = 0, sweater = 0, hairKept = 0, hair = 0
        for y in (side / 2 + 4)..<side {
            for x in 0..<side where x < side / 2 - 4 || x >= side / 2 + 4 {
                if x < side / 2 { sweater += 1; if plausible[y * side + x] != 0 { sweaterKept += 1 } }
                else { hair += 1; if plausible[y * side + x] != 0 { hairKept += 1 } }
            }
        }
        XCTAssertEqual(sweaterKept, 0, "the sweater is not hair (\(sweaterKept) of \(sweater) kept)")
        XCTAssertEqual(hairKept, hair, "the hair and its odd pixels stay hair")
        XCTAssertTrue((0..<(side / 2 * side)).allSatisfy { plausible[$0] == 255 }, "what is not judged is left")
        // A model of under 200 pixels says nothing.
        var few = [Float](repeating: 0, count: side * side)
        for i in 0..<150 { few[i] = 1 }
        XCTAssertEqual(cv_hair_colour_plausible(rgb, Int32(side), Int32(side), few, judge, 3, &plausible), 0)
        XCTAssertTrue(plausible.allSatisfy { $0 == 255 })
    }

    /// Long hair followed past the face's crop joins the lower crop's without a cut across the first crop's
    /// last row (the shared test data's deepface img11: hair to the elbows). The seam a plain switch there
    /// leaves is measured too, so the test can see one.
    func testLongHairFollowedPastTheCropHasNoSeam() throws {
        _ = try Self.requireModel()
        let path = try Fixtures.requireTestdata("portraits/deepface_img11.jpg", for: "OwnHairTests")
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let frame = try Frame.read(path: path)
        let face = try XCTUnwrap(try engine.analyse(frame, faces: .largest, timing: &timing).first)
        let parser = try engine.faceParser()
        let followed = try parser.parseFollowingHair(frame, box: face.chosen.box)
        let first = try parser.parse(frame, box: face.chosen.box)
        var below = face.chosen.box
        below.top += 0.75 * first.crop.side
        below.bottom += 0.75 * first.crop.side
        let second = try parser.parse(frame, box: below)
        let width = frame.image.width, last = Int((first.crop.y + first.crop.side).rounded(.down)) - 1
        XCTAssertLessThan(last + 1, frame.image.height, "the photo goes on below the face's crop")
        var switched = first.matte
        for i in switched.indices where first.classes[i] == OwnHair.unknown && second.classes[i] != OwnHair.unknown { switched[i] = second.matte[i] }
        // The mean step across a row boundary (y → y+1).
        func step(_ matte: [Float], _ y: Int) -> Float {
            (0..<width).reduce(0) { $0 + abs(matte[(y + 1) * width + $1] - matte[y * width + $1]) } / Float(width)
        }
        func usual(_ matte: [Float]) -> Float { ((last - 12)..<(last - 4)).map { step(matte, $0) }.reduce(0, +) / 8 }
        print(String(format: "OwnHairTests: step at the crop's last row %.4f (a plain switch %.4f; rows above %.4f)",
                     step(followed.matte, last), step(switched, last), usual(followed.matte)))
        XCTAssertGreaterThan(step(switched, last), 3 * usual(switched), "a plain switch leaves a seam here")
        XCTAssertLessThan(step(followed.matte, last), 2 * usual(followed.matte) + 0.002, "no seam")
    }

    /// Hair that runs past the top of the face's crop (an updo on a frame of Debian's Megamind.avi, reaching
    /// well above the brows) is followed in a crop round the whole head: the matte goes on above the face's crop,
    /// and there is no seam across its first row, which the face's crop alone leaves (a straight cut across the
    /// head that the plate showed as a flat edge with the updo's top standing above it).
    func testHairAboveTheCropIsFollowedWithoutACut() throws {
        _ = try Self.requireModel()
        let clip = VideoIOTests.megamind
        guard FileManager.default.fileExists(atPath: clip) else {
            print("OwnHairTests: skipping, \(clip) is missing (Debian opencv-doc; `make test` installs it)")
            throw XCTSkip("Megamind.avi missing")
        }
        let reader = try VideoReader(path: clip)
        var frame: Frame?
        while let next = try reader.next() {
            if next.index == 12 { frame = next; break }
        }
        let photo = try XCTUnwrap(frame)
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let face = try XCTUnwrap(try engine.analyse(photo, faces: .largest, timing: &timing).first)
        let parser = try engine.faceParser()
        let first = try parser.parse(photo, box: face.chosen.box)
        let followed = try parser.parseFollowingHair(photo, box: face.chosen.box)
        // The face's crop's matte starts at the row its top edge falls in.
        let width = photo.image.width, top = Int(first.crop.y.rounded(.down))
        let x0 = max(0, Int(first.crop.x.rounded(.up))), x1 = min(width, Int((first.crop.x + first.crop.side).rounded(.down)))
        XCTAssertGreaterThan(top, 10, "the photo goes on above the face's crop")
        func hair(_ matte: [Float], _ y: Int) -> Int { (x0..<x1).filter { matte[y * width + $0] >= 0.5 }.count }
        XCTAssertGreaterThan(Float(hair(first.matte, top)), 0.2 * Float(x1 - x0), "the updo reaches the crop's top row")
        let above = (max(0, top - 10)..<top).reduce(0) { $0 + hair(followed.matte, $1) }
        XCTAssertGreaterThan(above, 10 * Int(0.2 * Float(x1 - x0)), "the hair goes on above the face's crop")
        // The mean step across a row boundary (y → y+1), over the crop's columns.
        func step(_ matte: [Float], _ y: Int) -> Float {
            (x0..<x1).reduce(0) { $0 + abs(matte[(y + 1) * width + $1] - matte[y * width + $1]) } / Float(x1 - x0)
        }
        // The crop round the head taken where the face's crop did not reach, with no cross-fade.
        let side = FaceParser.aroundTheHeadScale * first.crop.side
        let wider = try parser.parse(photo, crop: (first.crop.x + 0.5 * (first.crop.side - side), first.crop.y + first.crop.side - side, side))
        var switched = first.matte
        for i in switched.indices where first.classes[i] == OwnHair.unknown && wider.classes[i] != OwnHair.unknown { switched[i] = wider.matte[i] }
        let usual = ((top + 4)..<(top + 12)).map { step(followed.matte, $0) }.reduce(0, +) / 8
        print(String(format: "OwnHairTests: step across the crop's first row %.4f (a plain switch %.4f; rows below %.4f)",
                     step(followed.matte, top - 1), step(switched, top - 1), usual))
        XCTAssertGreaterThan(step(switched, top - 1), 3 * usual, "a plain switch leaves a seam here")
        XCTAssertLessThan(step(followed.matte, top - 1), 2 * usual + 0.002, "no seam")
    }
}
