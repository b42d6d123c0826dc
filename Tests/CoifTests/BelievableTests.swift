// BelievableTests: the plate continues what was behind the removed hair, never paints over the face's
// features, and the judge of the whole head (`coif eval believable`) measures what it says.
import CoifCore
import CoifEval
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation
import XCTest

final class BelievableTests: XCTestCase {
    /// A synthetic photo: an sRGB gradient (red across, green down) with a disk of "hair" in its middle and no
    /// head. The fill must continue the gradient across the disk, not leave a flat or glowing patch.
    func testFillContinuesTheBackgroundGradient() throws {
        let side = 256, radius: Float = 48
        var pixels = [UInt8](repeating: 0, count: side * side * 3)
        var classes = [UInt8](repeating: OwnHair.background, count: side * side)
        var matte = [Float](repeating: 0, count: side * side)
        func truth(_ x: Int, _ y: Int) -> [Float] { [40 + 160 * Float(x) / 255, 70 + 90 * Float(y) / 255, 120] }
        for y in 0..<side {
            for x in 0..<side {
                let i = y * side + x
                let inside = hypotf(Float(x) - 128, Float(y) - 128) < radius
                // The hair: dark brown, which must not leak into the fill.
                let value: [Float] = inside ? [60, 40, 30] : truth(x, y)
                for c in 0..<3 { pixels[3 * i + c] = UInt8(value[c].rounded()) }
                if inside { classes[i] = OwnHair.hair; matte[i] = 1 }
            }
        }
        let image = PixelImage(width: side, height: side, channels: 3, pixels: pixels)
        let hair = OwnHair(width: side, height: side, crop: (0, 0, Float(side)), classes: classes, matte: matte)
        let plate = try HairPlate.fill(Frame(image: image, source: "gradient"), hair: hair, heads: [], seed: 1).image
        var sum: Float = 0, worst: Float = 0, count = 0
        for y in 0..<side {
            for x in 0..<side where hypotf(Float(x) - 128, Float(y) - 128) < radius {
                let i = y * side + x
                let t = truth(x, y)
                let error = (0..<3).map { abs(Float(plate.pixels[3 * i + $0]) - t[$0]) }.max()!
                sum += error
                worst = max(worst, error)
                count += 1
            }
        }
        // Measured: mean 2.6, worst 9.1 of 255 (pull-push bends a ramp slightly toward its rim's mean);
        // the hair's colour would be off by 60–130.
        XCTAssertLessThan(sum / Float(count), 5, "the fill's mean error against the gradient")
        XCTAssertLessThan(worst, 16, "the fill's worst error against the gradient")
    }

    /// A synthetic photo of `side`² whose pixel (x, y) is `background(x, y)` (sRGB bytes) with class
    /// `classOf(x, y)`, and a disk of dark hair of `radius` in its middle; no head. Returns the plate.
    private func plateOverSynthetic(side: Int = 256, radius: Float = 48, background: (Int, Int) -> [Float],
                                    classOf: (Int, Int) -> UInt8 = { _, _ in OwnHair.background }) throws -> (plate: PixelImage, photo: PixelImage, disk: [UInt8]) {
        var pixels = [UInt8](repeating: 0, count: side * side * 3)
        var classes = [UInt8](repeating: OwnHair.background, count: side * side)
        var matte = [Float](repeating: 0, count: side * side)
        var disk = [UInt8](repeating: 0, count: side * side)
        let centre = Float(side) / 2
        for y in 0..<side {
            for x in 0..<side {
                let i = y * side + x
                let inside = hypotf(Float(x) - centre, Float(y) - centre) < radius
                let value: [Float] = inside ? [60, 40, 30] : background(x, y)
                for c in 0..<3 { pixels[3 * i + c] = UInt8(min(max(value[c], 0), 255).rounded()) }
                if inside { classes[i] = OwnHair.hair; matte[i] = 1; disk[i] = 1 } else { classes[i] = classOf(x, y) }
            }
        }
        let image = PixelImage(width: side, height: side, channels: 3, pixels: pixels)
        let hair = OwnHair(width: side, height: side, crop: (0, 0, Float(side)), classes: classes, matte: matte)
        return (try HairPlate.fill(Frame(image: image, source: "synthetic"), hair: hair, heads: [], seed: 1).image, image, disk)
    }

    /// Behind the hair, a textured background (seeded noise, ±40 of 255 around mid grey): the fill carries
    /// that texture, borrowed from the background around it, instead of a smooth patch (the judge's texture
    /// 0.5–1.6, and no halo).
    func testFillCarriesTheBackgroundsTexture() throws {
        // Measured: texture 1.12, halo 0.6 (tiles of the noise itself, blended keeping their variance); with
        // the tiles' plain feathered average, 0.89; the smooth fill alone, with its grain capped at 3%, 0.13.
        try checkNoiseBackdropFill(side: 256, radius: 48, ringPx: (9, 35, 10), leastTexture: 0.95)
    }

    /// The same noise backdrop on a photo of 2560² (past the 1280 px the plate is made at): the fill keeps the
    /// backdrop's pixel-fine texture, the same tiles pasted again from the photo's finest band at its own size
    /// (measured 1.00; made at 1280 and only resized back, 0.70 here and 0.08–0.3 on the shared portraits
    /// past 1280 px).
    func testALargePhotosFillKeepsItsFinestTexture() throws {
        try checkNoiseBackdropFill(side: 2560, radius: 480, ringPx: (18, 70, 20), leastTexture: 0.85)
    }

    /// A `side`² backdrop of seeded noise (±40 of 255 around a grey-green) with a disk of hair of `radius`: the
    /// plate's fill there has at least `leastTexture` (and at most 1.6) of the backdrop's texture and a halo
    /// under 4, judged over the ring `ringPx` (inner, outer, σ) around it.
    private func checkNoiseBackdropFill(side: Int, radius: Float, ringPx: (inner: Int, outer: Int, sigma: Float),
                                        leastTexture: Double) throws {
        var random = SeededRandom(seed: 7, stream: 0)
        let noise = (0..<(side * side)).map { _ in (random.unitFloat() - 0.5) * 80 }
        let (plate, _, disk) = try plateOverSynthetic(side: side, radius: radius, background: { x, y in
            let n = noise[y * side + x]
            return [120 + n, 130 + n, 110 + n]
        })
        let outside = disk.map { UInt8($0 == 0 ? 1 : 0) }
        let figures = try FillJudge.measure(plate, fill: disk, removed: disk, source: outside, innerPx: ringPx.inner,
                                            outerPx: ringPx.outer, sigmaPx: ringPx.sigma)
        print(String(format: "BelievableTests: textured fill at %d²: texture %.2f, halo %.1f", side, figures.texture, figures.halo))
        XCTAssertGreaterThan(figures.texture, leastTexture, "the fill's texture against the background's")
        XCTAssertLessThan(figures.texture, 1.6, "the fill's texture against the background's")
        XCTAssertLessThan(figures.halo, 4, "the fill's colour against the background's")
    }

    /// Texture is judged above the grain no one sees. A white wall and a fill with ±1 level of grain read as the
    /// same texture: the ratio of two near-zero energies read 15 on ctrlhair 04716's white studio wall, where
    /// neither shows any. A fill with visible grain on that wall still reads busy, and a smooth fill on a grainy
    /// wall a smear.
    func testTextureIsJudgedAboveTheGrainNoOneSees() throws {
        let side = 128
        let disk = (0..<(side * side)).map { i -> UInt8 in
            let x = i % side - side / 2, y = i / side - side / 2
            return x * x + y * y < 30 * 30 ? 255 : 0
        }
        let outside = disk.map { $0 == 0 ? UInt8(1) : 0 }
        var random = SeededRandom(seed: 3, stream: 0)
        // The wall's grain rounds to a level either way on one pixel in six; the fill's on one in two.
        let trace = (0..<(side * side)).map { _ in (random.unitFloat() - 0.5) * 1.2 }
        let faint = (0..<(side * side)).map { _ in (random.unitFloat() - 0.5) * 2 }
        let strong = (0..<(side * side)).map { _ in (random.unitFloat() - 0.5) * 40 }
        func texture(wall: [Float]?, fill: [Float]?) throws -> Double {
            var pixels = [UInt8](repeating: 0, count: 3 * side * side)
            for i in 0..<(side * side) {
                let grain = (disk[i] != 0 ? fill : wall)?[i] ?? 0
                for c in 0..<3 { pixels[3 * i + c] = UInt8(min(max(200 + grain, 0), 255).rounded()) }
            }
            let image = PixelImage(width: side, height: side, channels: 3, pixels: pixels)
            return try FillJudge.measure(image, fill: disk, removed: disk, source: outside, innerPx: 2, outerPx: 20, sigmaPx: 4).texture
        }
        let unseen = try texture(wall: trace, fill: faint), busy = try texture(wall: nil, fill: strong)
        let smear = try texture(wall: strong, fill: nil)
        print(String(format: "BelievableTests: texture on a flat wall, faint grain %.2f, strong grain %.2f; smooth on grain %.2f",
                     unseen, busy, smear))
        // Measured 1.17; without the unseen grain's energy added, 3.10.
        XCTAssertLessThan(unseen, 1.6, "grain no one sees is no texture")
        XCTAssertGreaterThan(busy, 1.6, "visible grain on a flat wall")
        XCTAssertLessThan(smear, 0.5, "a smooth fill on a grainy wall")
    }

    /// The fill's settings (background, clothes) combine by their pixels: the halo's mean and the texture's
    /// geometric mean; a setting with no ring is not judged, and one whose ring reaches none of it has no halo
    /// (it once counted as a halo of 0 over all its pixels, lowering deepface img11's).
    func testTheSettingsJudgementsCombineByTheirPixels() {
        let background = FillJudge.Figures(halo: 2, texture: 0.5, fillPixels: 300, ringPixels: 50)
        let clothes = FillJudge.Figures(halo: 6, texture: 2, fillPixels: 100, ringPixels: 20)
        let unringed = FillJudge.Figures(halo: 0, texture: 0, fillPixels: 900, ringPixels: 0)
        let farRing = FillJudge.Figures(halo: 0, texture: 1, fillPixels: 500, ringPixels: 40, haloPixels: 0)
        let combined = JudgedSetting.combined([background, clothes, unringed, farRing])
        XCTAssertEqual(combined.halo ?? 0, 3, accuracy: 1e-9)
        XCTAssertEqual(combined.texture ?? 0, exp((300 * log(0.5) + 100 * log(2)) / 900), accuracy: 1e-9)
        XCTAssertNil(JudgedSetting.combined([unringed]).halo)
        XCTAssertNil(JudgedSetting.combined([farRing]).halo)
    }

    /// The halo is measured only where the ring reaches: a fill far from every ring pixel reports none measured.
    func testAFillTheRingDoesNotReachHasNoHalo() throws {
        let side = 96
        let image = PixelImage(width: side, height: side, channels: 3, pixels: [UInt8](repeating: 128, count: 3 * side * side))
        var fill = [UInt8](repeating: 0, count: side * side), source = fill
        for y in 40..<56 { for x in 4..<20 { fill[y * side + x] = 255 } }
        for y in 40..<56 { for x in 80..<92 { source[y * side + x] = 1 } }
        let far = try FillJudge.measure(image, fill: fill, removed: fill, source: source, innerPx: 2, outerPx: 70, sigmaPx: 3)
        XCTAssertGreaterThan(far.ringPixels, 0)
        XCTAssertEqual(far.haloPixels, 0, "a ring 60 px away, averaged over 3 px, reaches none of the fill")
        for y in 40..<56 { for x in 20..<32 { source[y * side + x] = 1 } }
        let near = try FillJudge.measure(image, fill: fill, removed: fill, source: source, innerPx: 2, outerPx: 70, sigmaPx: 3)
        XCTAssertGreaterThan(near.haloPixels, 0)
    }

    /// Behind the hair, a blue wall above a red top (the line between them through the hair's middle): each
    /// continues as itself, blue above the line and red below, not one purple blend of the two.
    func testFillContinuesEachRegionAsItself() throws {
        let blue: [Float] = [40, 70, 170], red: [Float] = [170, 40, 40]
        let (plate, _, disk) = try plateOverSynthetic(background: { _, y in y < 128 ? blue : red },
                                                      classOf: { _, y in y < 128 ? OwnHair.background : OwnHair.cloth })
        var worst: [Float] = [0, 0]
        for y in 0..<256 where abs(y - 128) > 12 {
            for x in 0..<256 where disk[y * 256 + x] != 0 {
                let i = y * 256 + x, truth = y < 128 ? blue : red
                let error = (0..<3).map { abs(Float(plate.pixels[3 * i + $0]) - truth[$0]) }.max()!
                worst[y < 128 ? 0 : 1] = max(worst[y < 128 ? 0 : 1], error)
            }
        }
        print(String(format: "BelievableTests: wall over top: worst error %.0f above, %.0f below", worst[0], worst[1]))
        // One membrane over both gave a purple band (errors of ~65 beside the line).
        XCTAssertLessThan(worst[0], 30, "the wall continues above the line")
        XCTAssertLessThan(worst[1], 30, "the top continues below the line")
    }

    /// The slide brings a style's front down the forehead by its whole tilt, keeps the crown where it was,
    /// and keeps a fringe's tips near the brows they were grown to.
    func testScalpSlideBringsTheFrontDownAndKeepsCrownAndFringe() throws {
        let head = try Fixtures.sharedEngine().head
        let shape = head.shape, c = shape.craniumCentre, r = shape.craniumRadii
        func surface(y: Float) -> Vec3 { Vec3(0, y, c.z + r.z * HeadShape.craniumRing(y: y - c.y, radii: r)) }
        let front = surface(y: shape.hairlineY(azimuth: 0))
        let crown = Vec3(0, c.y + r.y, c.z)
        // A strand combed up and back from the front, one standing on the crown, and a fringe from the
        // front down to just above the brows.
        let up = [front, front + Vec3(0, 10, -5), front + Vec3(0, 18, -14)]
        let top = [crown, crown + Vec3(0, 8, 0), crown + Vec3(0, 14, -4)]
        let fringeTip = Vec3(0, shape.browY + 4, front.z + 6)
        let fringe = [front, (front + fringeTip) / 2 + Vec3(0, 0, 4), fringeTip]
        let strands = StrandSet(pointsPerStrand: 3, positions: up + top + fringe)
        let slide = ScalpSlide(tilt: 10 * .pi / 180, front: front)
        let slid = slide.apply(to: strands, shape: shape)
        let moved = slid.positions[0]
        XCTAssertEqual(moved, slide.movedFront(shape: shape), "the front root lands where the fit expects")
        XCTAssertLessThan(moved.y, front.y - 10, "the front comes down the forehead (10° of a ~90 mm cranium)")
        for i in 3..<6 { XCTAssertEqual(slid.positions[i], strands.positions[i], "the crown stays") }
        XCTAssertLessThan(slid.positions[6].y, front.y - 10, "the fringe's root comes down with the front")
        XCTAssertLessThan(length(slid.positions[8] - fringeTip), 3, "the fringe's tip stays near the brows")
        XCTAssertEqual(ScalpSlide(tilt: 0, front: front).apply(to: strands, shape: shape), strands, "no slide moves nothing")
    }

    /// On portraits whose hairline is lower than Coif's, the fit slides each short style until its front
    /// lands at the person's hairline (within 2 px), where it had started well above it. On
    /// `deep3dfacerecon_015316` (a fringe low over the brows: the facial thirds' hairline) the buzz-cut needs
    /// about 15°, past the 12° the slide once stopped at, which left a tall bare forehead.
    func testHairlineFitPutsTheFrontAtThePersonsHairline() throws {
        _ = try OwnHairTests.requireModel()
        let portraits = try Fixtures.requireTestdata("portraits", for: "BelievableTests")
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        for (photo, names) in [("deepface_img11.jpg", ["buzz-cut", "pixie", "bob"]), ("deep3dfacerecon_015316.jpg", ["buzz-cut", "bob"])] {
            let analysis = try engine.removeOwnHair([try engine.analyse(photoPath: "\(portraits)/\(photo)", timing: &timing)],
                                                    seed: 1, timing: &timing)[0]
            let person = try XCTUnwrap(analysis.person, "the plate keeps the person's head")
            for name in names {
                let style = try engine.styles.resolve(name)
                let front = try XCTUnwrap(try engine.styles.frontHairline(style))
                let slide = HairlineFit.fit(front: front, person: person, analysis: analysis, head: engine.head)
                func height(_ p: Vec3) throws -> Float {
                    person.local(try XCTUnwrap(analysis.camera.projectInFront(analysis.headToCamera.transformPoint(p)))).up
                }
                let before = try height(front), after = try height(slide.movedFront(shape: engine.head.shape))
                print(String(format: "BelievableTests: %@: front %.0f px above the brows -> %.0f (hairline %.0f), tilt %.2f°", name,
                             before, after, person.hairlineHeight, slide.tilt * 180 / .pi))
                XCTAssertGreaterThan(before, person.hairlineHeight + 10, "\(name) started above the person's hairline")
                XCTAssertLessThan(slide.tilt, HairlineFit.maxTilt, "\(name): within the slide's reach")
                XCTAssertEqual(after, person.hairlineHeight, accuracy: 2, "\(photo) \(name): its front at the person's hairline")
            }
        }
    }

    /// A buzz cut on a small face is stubble, not specks: its 8 mm strands get strands in proportion to how
    /// little of the head each covers (LevelOfDetail.coverageLengthMm), so no drawn ribbon stands for so many
    /// fibres that it glints as one. On camera.png's cameraman (a 48-px face) the bob's density drew 691
    /// strands 2.4 px wide, and the solid hair's 99th percentile of luminance was 4.0 times its median (grey
    /// dots over the crown); now 8,571 strands and 2.4.
    func testABuzzCutOnASmallFaceIsStubbleNotSpecks() throws {
        let path = try Fixtures.requireCamera()
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let analysis = try engine.analyse(photoPath: path, timing: &timing)
        let result = try engine.render(analysis: analysis, style: "buzz-cut", color: try HairColor.parse("auburn"), seed: 1, timing: &timing)
        let hair = result.images.hair
        var luminances: [Double] = []
        for i in 0..<(hair.width * hair.height) where hair.pixels[4 * i + 3] == 255 {
            luminances.append(0.2126 * Double(hair.pixels[4 * i]) + 0.7152 * Double(hair.pixels[4 * i + 1]) + 0.0722 * Double(hair.pixels[4 * i + 2]))
        }
        luminances.sort()
        XCTAssertGreaterThan(luminances.count, 2000, "the cut covers his crown")
        let median = luminances[luminances.count / 2], p99 = luminances[luminances.count * 99 / 100]
        print(String(format: "BelievableTests: buzz cut on camera.png: %d strands; solid hair luminance median %.1f, p99 %.1f (%.2fx)",
                     result.levelOfDetail.strandCount, median, p99, p99 / median))
        XCTAssertLessThan(p99 / median, 3.2, "no grey specks over the crown")
    }

    /// A clipper cut's strands lie within a few millimetres of the scalp, so the under-layer sits lower than
    /// they do and the crown shows them: the buzz-cut's fully covered hair has at least 1.5 times the fine
    /// texture (mean |Laplacian| of its luminance over its mean) it has with the layer at 2.5 mm, where the
    /// layer hid most strands and the cut read as a smooth one-tone skullcap. Over the crown only: between
    /// the brows' outer ends and above the forehead, where the strands are; the close crop drawn over the
    /// temples and sideburns (the plate's scalp hair) is no strand of the cut and lies the same under both.
    func testBuzzCutShowsItsStrandsOverTheCrown() throws {
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let analysis = try engine.analyse(photoPath: try Fixtures.requireAstronaut(), timing: &timing)
        let marks = analysis.chosen.landmarks
        let browTop = min(marks[19].y, marks[24].y)
        let crownBottom = Int(browTop - 0.4 * (marks[8].y - browTop)), crownX = Int(marks[17].x)...Int(marks[26].x)
        func crownTexture() throws -> Double {
            let images = try engine.render(analysis: analysis, style: "buzz-cut", color: try HairColor.parse("dark-brown"), seed: 1,
                                           timing: &timing).images
            let hair = images.hair, matte = images.matte, w = hair.width, h = hair.height
            func luminance(_ i: Int) -> Double {
                0.2126 * Double(hair.pixels[4 * i]) + 0.7152 * Double(hair.pixels[4 * i + 1]) + 0.0722 * Double(hair.pixels[4 * i + 2])
            }
            var energy = 0.0, level = 0.0, count = 0
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    guard y < crownBottom, crownX.contains(x), [i, i - 1, i + 1, i - w, i + w].allSatisfy({ matte.pixels[$0] == 255 }) else { continue }
                    energy += abs(4 * luminance(i) - luminance(i - 1) - luminance(i + 1) - luminance(i - w) - luminance(i + w))
                    level += luminance(i)
                    count += 1
                }
            }
            XCTAssertGreaterThan(count, 500, "the buzz-cut covers the crown")
            return energy / max(level, 1)
        }
        let standard = engine.renderer.shellOffsetMm
        let shown = try crownTexture()
        engine.renderer.shellOffsetMm = 2.5
        defer { engine.renderer.shellOffsetMm = standard }
        let hidden = try crownTexture()
        print(String(format: "BelievableTests: buzz-cut crown texture %.4f with the under-layer at %.1f mm, %.4f at 2.5 mm",
                     shown, standard, hidden))
        XCTAssertGreaterThan(shown, 1.5 * hidden, "the crown shows the cut's strands")
    }

    /// A portrait of the shared test data (skipped without it), analysed, and with its own hair removed (seed 1).
    private func portraitPlate(_ name: String) throws -> (analysis: PhotoAnalysis, removed: PhotoAnalysis) {
        _ = try OwnHairTests.requireModel()
        let portraits = try Fixtures.requireTestdata("portraits", for: "BelievableTests")
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let analysis = try engine.analyse(photoPath: "\(portraits)/\(name)", timing: &timing)
        return (analysis, try engine.removeOwnHair([analysis], seed: 1, timing: &timing)[0])
    }

    /// In a couple's photo the plate removes only the chosen person's hair: the parse's crop around her face
    /// takes in her partner's hair too, which stays his (each hair pixel belongs to the nearer face).
    func testPlateLeavesAnotherPersonsHair() throws {
        let (analysis, removed) = try portraitPlate("deepface_couple.jpg")
        let other = try XCTUnwrap(analysis.faceBoxes.first { FaceAnalyzer.overlap($0, analysis.chosen.box) < 0.5 }, "two faces")
        let own = try XCTUnwrap(removed.ownHair), plate = try XCTUnwrap(removed.plate), photo = analysis.frame.image
        // His hair: above and beside his face box, where the parse of her crop saw hair.
        let h = other.bottom - other.top, w = other.right - other.left
        var hair = 0, changed = 0
        for y in max(0, Int(other.top - 0.6 * h))..<Int(other.top + 0.2 * h) {
            for x in max(0, Int(other.left - 0.1 * w))..<min(photo.width, Int(other.right + 0.1 * w)) where own.matte[y * photo.width + x] >= 0.5 {
                hair += 1
                let i = 3 * (y * photo.width + x)
                if (0..<3).contains(where: { plate.pixels[i + $0] != photo.pixels[i + $0] }) { changed += 1 }
            }
        }
        print("BelievableTests: couple: \(changed) of \(hair) px of his hair (in her parse) changed by the plate")
        XCTAssertGreaterThan(hair, 2000, "her parse sees his hair")
        XCTAssertLessThan(Double(changed), 0.02 * Double(hair), "his hair stays")
    }

    /// Long curly hair to the bottom of a close crop over a white backdrop (`portraits/ctrlhair_…04716`): below
    /// the chin the body widens as shoulders do, so the bottom corners the hair covered become backdrop, not a
    /// band of her skin running the photo's width (what the plate drew before the shoulders' slope).
    func testBodyWidensAsShouldersNotAlongTheBottom() throws {
        let (analysis, removed) = try portraitPlate("ctrlhair_CelebaMask_HQ___04716.png")
        let own = try XCTUnwrap(removed.ownHair), plate = try XCTUnwrap(removed.plate), photo = analysis.frame.image
        let width = photo.width, height = photo.height
        // The photo's own backdrop and skin, as the parse labels them.
        func mean(_ take: (Int) -> Bool, in image: PixelImage) -> [Double] {
            var sum = [0.0, 0.0, 0.0], count = 0.0
            for i in 0..<(width * height) where take(i) {
                for c in 0..<3 { sum[c] += Double(image.pixels[3 * i + c]) }
                count += 1
            }
            return sum.map { $0 / max(count, 1) }
        }
        func distance(_ a: [Double], _ b: [Double]) -> Double { sqrt(zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)) }
        let backdrop = mean({ own.classes[$0] == OwnHair.background }, in: photo), skin = mean({ own.classes[$0] == OwnHair.skin }, in: photo)
        // Each bottom corner (a tenth of the width, the bottom twentieth) where the hair was.
        for right in [false, true] {
            let xs = right ? (width - width / 10)..<width : 0..<(width / 10)
            let corner = mean({ i in
                let x = i % width, y = i / width
                return xs.contains(x) && y >= height - height / 20 && own.matte[i] >= 0.5
            }, in: plate)
            print(String(format: "BelievableTests: bottom %@ corner %.0f from the backdrop, %.0f from her skin", right ? "right" : "left",
                         distance(corner, backdrop), distance(corner, skin)))
            XCTAssertLessThan(distance(corner, backdrop), distance(corner, skin) / 2, "the \(right ? "right" : "left") corner is backdrop, not skin")
        }
    }

    /// Long hair hung beside a girl's neck over a wall (`portraits/insightface_2963`): just below the chin and
    /// beside the neck on her left (the photo's right), where the shoulders have not begun, the plate is the
    /// wall, not her skin (it was a beige slab when the body widened from the chin itself).
    func testBesideTheNeckBelowTheChinIsBackground() throws {
        let (analysis, removed) = try portraitPlate("insightface_2963.jpg")
        let own = try XCTUnwrap(removed.ownHair), plate = try XCTUnwrap(removed.plate), photo = analysis.frame.image
        let person = try XCTUnwrap(removed.person)
        let width = photo.width, chin = person.local(person.jaw[8])
        func mean(_ take: (Int) -> Bool, in image: PixelImage) -> [Double] {
            var sum = [0.0, 0.0, 0.0], count = 0.0
            for i in 0..<(width * photo.height) where take(i) {
                for c in 0..<3 { sum[c] += Double(image.pixels[3 * i + c]) }
                count += 1
            }
            return sum.map { $0 / max(count, 1) } + [count]
        }
        func distance(_ a: [Double], _ b: [Double]) -> Double {
            var sum = 0.0
            for c in 0..<3 { sum += (a[c] - b[c]) * (a[c] - b[c]) }
            return sum.squareRoot()
        }
        // Rows from the chin to half the middle third below it; across, in half-widths of the face beside its middle.
        func band(_ i: Int, _ from: Float, _ to: Float) -> Bool {
            let p = person.local(Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5))
            let below = chin.up - p.up, out = (p.across - chin.across) / person.halfWidth
            return below > 0 && below < 0.5 * person.middleThird && out > from && out < to
        }
        let wall = mean({ own.classes[$0] == OwnHair.background }, in: photo)
        let skin = mean({ own.classes[$0] == OwnHair.skin || own.classes[$0] == OwnHair.neck }, in: photo)
        let beside = mean({ own.matte[$0] >= 0.5 && band($0, 0.9, 1.2) }, in: plate)
        print(String(format: "BelievableTests: beside the neck below the chin (%.0f px): %.0f from the wall, %.0f from her skin",
                     beside[3], distance(beside, wall), distance(beside, skin)))
        XCTAssertGreaterThan(beside[3], 500, "her hair hung beside her neck")
        XCTAssertLessThan(distance(beside, wall), distance(beside, skin), "beside her neck is the wall")
    }

    /// A heavy fringe over the brows (`portraits/barbershop_16`, `ctrlhair …08125`): the plate takes the fringe
    /// away over the brows too (it kept it in the brows' windows: orange streaks and dark smudges, eye make-up
    /// gone wrong) and draws brows back there, darker than the forehead it filled above them; the eyes' own
    /// windows keep their bytes.
    func testAFringeOverTheBrowsGivesWayToDrawnBrows() throws {
        for name in ["barbershop_16.png", "ctrlhair_CelebaMask_HQ___08125.png"] {
            let (analysis, removed) = try portraitPlate(name)
            let own = try XCTUnwrap(removed.ownHair), plate = try XCTUnwrap(removed.plate), photo = analysis.frame.image
            let person = try XCTUnwrap(removed.person), width = photo.width
            let eyes = HeadSilhouette.mask(width: width, height: photo.height, triangles: person.eyeTriangles)
            func luminance(_ image: PixelImage, _ i: Int) -> Double {
                0.2126 * Double(image.pixels[3 * i]) + 0.7152 * Double(image.pixels[3 * i + 1]) + 0.0722 * Double(image.pixels[3 * i + 2])
            }
            // Within 0.04 of the face's half-width of a brow's points (the middle three), and a band of forehead
            // half the middle third above the brows.
            let brows = person.features[0...1].flatMap { $0[1...3] }
            var fringe = 0, changed = 0, browLevel = 0.0, foreheadLevel = 0.0, foreheadCount = 0
            for i in 0..<(width * photo.height) {
                let p = Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5)
                let near = brows.contains { (($0 - p) * ($0 - p)).sum().squareRoot() < 0.04 * person.halfWidth }
                if near && own.matte[i] >= 0.8 && eyes[i] == 0 {
                    fringe += 1
                    if (0..<3).contains(where: { plate.pixels[3 * i + $0] != photo.pixels[3 * i + $0] }) { changed += 1 }
                    browLevel += luminance(plate, i)
                }
                let up = person.local(p).up, across = abs(person.local(p).across)
                if up > 0.4 * person.middleThird, up < 0.9 * person.middleThird, across < 0.5 * person.halfWidth {
                    foreheadLevel += luminance(plate, i)
                    foreheadCount += 1
                }
            }
            print(String(format: "BelievableTests: %@: %d fringe px over the brows, %d changed; brow %.0f, forehead %.0f", name, fringe, changed,
                         browLevel / Double(max(fringe, 1)), foreheadLevel / Double(max(foreheadCount, 1))))
            XCTAssertGreaterThan(fringe, 20, "\(name): the fringe lies over the brows")
            XCTAssertGreaterThan(Double(changed), 0.9 * Double(fringe), "\(name): the fringe over the brows is taken away")
            XCTAssertLessThan(browLevel / Double(fringe), 0.85 * foreheadLevel / Double(foreheadCount), "\(name): brows drawn there")
            // The eyes' windows are kept: the landmarks' eye centres keep their bytes.
            let centres = Landmarks68.eyeCentres(analysis.chosen.landmarks)
            for eye in [centres.left, centres.right] {
                let i = Int(eye.y.rounded()) * width + Int(eye.x.rounded())
                XCTAssertEqual(Array(plate.pixels[3 * i..<3 * i + 3]), Array(photo.pixels[3 * i..<3 * i + 3]), "\(name): an eye kept")
            }
        }
    }

    /// Where the plate fills skin a fringe hid (barbershop_16's forehead), the skin carries the mottling the
    /// face's visible skin has, not a smooth wash with white grain: the energy of luma's band between 3×3 and
    /// 9×9 box means (texture of ~2–8 px, above the grain's pixel scale) over the filled forehead is at least
    /// 0.04 of that over the visible skin, whose own freckles and contours the band also holds (measured 0.07;
    /// with the grain alone, 0.02).
    func testFilledSkinCarriesTheFacesOwnTexture() throws {
        let (_, removed) = try portraitPlate("barbershop_16.png")
        let own = try XCTUnwrap(removed.ownHair), plate = try XCTUnwrap(removed.plate)
        let person = try XCTUnwrap(removed.person), width = plate.width, height = plate.height
        // Luma's summed-area table, for box means.
        var table = [Double](repeating: 0, count: (width + 1) * (height + 1))
        for y in 0..<height {
            var row = 0.0
            for x in 0..<width {
                let i = 3 * (y * width + x)
                row += 0.2126 * Double(plate.pixels[i]) + 0.7152 * Double(plate.pixels[i + 1]) + 0.0722 * Double(plate.pixels[i + 2])
                table[(y + 1) * (width + 1) + x + 1] = table[y * (width + 1) + x + 1] + row
            }
        }
        func mean(_ x: Int, _ y: Int, _ r: Int) -> Double {
            let x0 = x - r, y0 = y - r, x1 = x + r + 1, y1 = y + r + 1, w = width + 1
            return (table[y1 * w + x1] - table[y0 * w + x1] - table[y1 * w + x0] + table[y0 * w + x0]) / Double((2 * r + 1) * (2 * r + 1))
        }
        var forehead = (sum: 0.0, count: 0), skin = (sum: 0.0, count: 0)
        for y in 4..<(height - 4) {
            for x in 4..<(width - 4) {
                let i = y * width + x
                let local = person.local(Vec2(Float(x) + 0.5, Float(y) + 0.5))
                let band = mean(x, y, 1) - mean(x, y, 4)
                if own.matte[i] >= 0.95, local.up > 0.4 * person.middleThird, local.up < 0.9 * person.middleThird,
                   abs(local.across) < 0.4 * person.halfWidth {
                    forehead.sum += band * band
                    forehead.count += 1
                } else if own.matte[i] == 0, own.classes[i] == OwnHair.skin {
                    skin.sum += band * band
                    skin.count += 1
                }
            }
        }
        XCTAssertGreaterThan(forehead.count, 1000, "the fringe hid the forehead")
        XCTAssertGreaterThan(skin.count, 1000, "the face's skin shows")
        let ratio = (forehead.sum / Double(forehead.count)) / (skin.sum / Double(skin.count))
        print(String(format: "BelievableTests: filled forehead's texture %.2f of the visible skin's (%d and %d px)", ratio, forehead.count, skin.count))
        XCTAssertGreaterThan(ratio, 0.04, "the filled skin's texture against the face's own")
        XCTAssertLessThan(ratio, 2.5, "the filled skin's texture against the face's own")
    }

    /// On a real photo the plate never changes a pixel the parse labels brow, eye, glasses, ear, earring, nose
    /// or mouth, and it keeps the landmarks' eyes and brows even where the removal reaches them.
    func testPlateNeverPaintsOverTheFacesFeatures() throws {
        _ = try OwnHairTests.requireModel()
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        for photo in [try Fixtures.requireAstronaut(), "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"] {
            let frame = try Frame.read(path: photo)
            let analysis = try Fixtures.ownHairRemoved(frame, engine: engine, timing: &timing)[0]
            let hair = try XCTUnwrap(analysis.ownHair), plate = try XCTUnwrap(analysis.plate)
            var features = 0, changed = 0
            for i in 0..<hair.classes.count where HairPlate.protectedClasses.contains(hair.classes[i]) {
                features += 1
                if (0..<3).contains(where: { plate.pixels[3 * i + $0] != frame.image.pixels[3 * i + $0] }) { changed += 1 }
            }
            XCTAssertGreaterThan(features, 100, "\(photo): the parse finds the face's features")
            XCTAssertEqual(changed, 0, "\(photo): feature pixels the plate changed")
            // The landmarks' eye centres keep their bytes too.
            let eyes = Landmarks68.eyeCentres(analysis.chosen.landmarks)
            for eye in [eyes.left, eyes.right] {
                let i = Int(eye.y.rounded()) * frame.image.width + Int(eye.x.rounded())
                XCTAssertEqual(Array(plate.pixels[3 * i..<3 * i + 3]), Array(frame.image.pixels[3 * i..<3 * i + 3]))
            }
        }
    }

    /// The face's frame follows its roll: a face turned a quarter in the image has its hairline beside it, not
    /// above it.
    func testPersonHeadFollowsTheFacesRoll() throws {
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let frame = try Frame.read(path: try Fixtures.requireAstronaut())
        let points = try engine.analyse(frame, faces: .largest, timing: &timing)[0].chosen.landmarks
        let upright = try XCTUnwrap(PersonHead(landmarks: points))
        XCTAssertLessThan(upright.up.y, -0.9, "an upright face's up is the image's up")
        XCTAssertGreaterThan(upright.hairlineHeight, 0.9 * upright.middleThird)
        // Rotated 90° clockwise as seen (x, y) → (−y, x): up becomes the image's +x.
        let turned = try XCTUnwrap(PersonHead(landmarks: points.map { Vec2(-$0.y, $0.x) }))
        XCTAssertGreaterThan(turned.up.x, 0.9)
        XCTAssertEqual(turned.hairlineHeight, upright.hairlineHeight, accuracy: 0.01 * upright.hairlineHeight)
        // The forehead mask holds the point a hairline's height straight above the brows, and not twice that.
        let mask = upright.faceMask(width: frame.image.width, height: frame.image.height)
        func inside(_ p: Vec2) -> Bool { mask[Int(p.y) * frame.image.width + Int(p.x)] != 0 }
        XCTAssertTrue(inside(upright.image(across: 0, up: 0.9 * upright.hairlineHeight)))
        XCTAssertFalse(inside(upright.image(across: 0, up: 1.3 * upright.hairlineHeight)))
    }

    /// `coif eval believable --json`: every figure present and in range, a summary per style.
    func testEvalBelievableReportsEveryFigure() throws {
        _ = try OwnHairTests.requireModel()
        let run = try Fixtures.runCoif(["eval", "believable", try Fixtures.requireAstronaut(), "--style", "bob", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let rows = try XCTUnwrap(json["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 1)
        let row = rows[0]
        for key in ["scalpBared", "readsAsHair", "ownHairLeft"] {
            let value = try XCTUnwrap(row[key] as? Double, key)
            XCTAssertTrue((0...1).contains(value), "\(key) \(value)")
        }
        XCTAssertGreaterThan(try XCTUnwrap(row["readsAsHair"] as? Double), 0.5, "the bob reads as hair on astronaut")
        XCTAssertGreaterThan(try XCTUnwrap(row["faceSkinPixels"] as? Int), 1000)
        XCTAssertEqual((json["styles"] as? [[String: Any]])?.count, 1)
        // The table and its summary as text: every row's figures and the summary's face widened.
        let text = try Fixtures.runCoif(["eval", "believable", try Fixtures.requireAstronaut(), "--style", "bob"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("widened"), text.stdout)
        XCTAssertTrue(text.stdout.contains("face widened median"), text.stdout)
        // A style that does not exist is refused before any work, as for render.
        let bad = try Fixtures.runCoif(["eval", "believable", try Fixtures.requireAstronaut(), "--style", "no-such-style"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("no-such-style"), bad.stderr)
    }
}

final class BelievableHeadTests: XCTestCase {
    /// The person's hairline comes from the own hair where it shows, and from the facial thirds where a fringe
    /// hides it or no hair is found.
    func testHairlineIsThePersonsOwnUnlessAFringeHidesIt() throws {
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let frame = try Frame.read(path: try Fixtures.requireAstronaut())
        let head = try XCTUnwrap(PersonHead(landmarks: try engine.analyse(frame, faces: .largest, timing: &timing)[0].chosen.landmarks))
        let width = frame.image.width, height = frame.image.height
        func matte(hairAbove share: Float) -> [Float] {
            (0..<(width * height)).map { i in
                let p = Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5)
                return head.local(p).up >= share * head.middleThird ? 1 : 0
            }
        }
        let prior = head.hairlineHeight
        XCTAssertEqual(prior, PersonHead.upperThirdRatio * head.middleThird, accuracy: 1e-3)
        // Hair from 0.8 middle thirds up: the hairline is there (within the walk's pixel).
        let own = head.fittingHairline(matte: matte(hairAbove: 0.8), width: width, height: height)
        XCTAssertEqual(own.hairlineHeight, 0.8 * head.middleThird, accuracy: 2)
        // A fringe down to the brows hides the hairline: the prior.
        XCTAssertEqual(head.fittingHairline(matte: matte(hairAbove: 0.1), width: width, height: height).hairlineHeight, prior)
        // Hair only far above the thirds' hairline (a receding one): never a forehead taller than the prior.
        XCTAssertEqual(head.fittingHairline(matte: matte(hairAbove: 1.25), width: width, height: height).hairlineHeight, prior)
        // No hair: the prior.
        XCTAssertEqual(head.fittingHairline(matte: [Float](repeating: 0, count: width * height), width: width, height: height).hairlineHeight, prior)
    }

    /// The plate's forehead follows the person's own hairline column by column: where hair comes down beside
    /// it at the temples, the forehead ends there (the scalp's cropped hair begins), not at the facial thirds'
    /// half-ellipse; a fringe keeps the half-ellipse.
    func testForeheadFollowsTheOwnHairlineAtTheTemples() throws {
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let frame = try Frame.read(path: try Fixtures.requireAstronaut())
        let head = try XCTUnwrap(PersonHead(landmarks: try engine.analyse(frame, faces: .largest, timing: &timing)[0].chosen.landmarks))
        let width = frame.image.width, height = frame.image.height
        let a = PersonHead.foreheadWidthRatio * head.halfWidth, m = head.middleThird
        // Hair from 0.8 middle thirds up over the middle, and from 0.1 up beyond 0.7 of the forehead's half-width.
        let temples = (0..<(width * height)).map { i -> Float in
            let q = head.local(Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5))
            return q.up >= 0.8 * m || (q.up >= 0.1 * m && abs(q.across) >= 0.7 * a) ? 1 : 0
        }
        let own = head.fittingHairline(matte: temples, width: width, height: height)
        let profile = try XCTUnwrap(own.foreheadProfile)
        let columns = PersonHead.profileColumns
        for (k, c) in columns.enumerated() {
            if abs(c) >= 0.8 && abs(c) < 1 {
                XCTAssertEqual(profile[k], 0.1 * m, accuracy: 2, "temple column \(c)")
            } else if abs(c) <= 0.5 {
                XCTAssertEqual(profile[k], min(0.8 * m, own.hairlineHeight * (1 - c * c).squareRoot()), accuracy: 2, "column \(c)")
            }
        }
        // A temple point the half-ellipse calls forehead is scalp now.
        let temple = head.image(across: 0.85 * a, up: 0.3 * m)
        let x = Int(temple.x), y = Int(temple.y)
        XCTAssertNotEqual(head.fittingHairline(matte: [Float](repeating: 0, count: width * height), width: width, height: height)
            .faceMask(width: width, height: height, margin: 0)[y * width + x], 0, "the prior's forehead reaches the temple")
        XCTAssertEqual(own.faceMask(width: width, height: height, margin: 0)[y * width + x], 0, "the temple's own hair starts below it")
        // A fringe down to the brows: no profile, the half-ellipse.
        let fringe = (0..<(width * height)).map { i -> Float in
            head.local(Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5)).up >= 0.1 * m ? 1 : 0
        }
        XCTAssertNil(head.fittingHairline(matte: fringe, width: width, height: height).foreheadProfile)
    }

    /// Only what would show is removed: the own hair comes back under the new hair's dense middle, never along
    /// its edge or outside it.
    func testCoveredOwnHairComesBackOnlyUnderDenseHair() {
        let side = 64
        let plate = PixelImage(width: side, height: side, channels: 3, pixels: [UInt8](repeating: 10, count: side * side * 3))
        let photo = PixelImage(width: side, height: side, channels: 3, pixels: [UInt8](repeating: 200, count: side * side * 3))
        // The layer covers a 32-px square in the middle of a 48-px region at (8, 8).
        let rect = PixelRect(x: 8, y: 8, width: 48, height: 48)
        var layer = HairLayer(width: 48, height: 48)
        for y in 8..<40 { for x in 8..<40 { layer.rgba[(y * 48 + x) * 4 + 3] = 1 } }
        var scratch: [Float] = []
        let out = CoveredOwnHair.restore(plate: plate, photo: photo, layer: layer, at: rect, sigmaPx: 2, scratch: &scratch)
        func value(_ x: Int, _ y: Int) -> UInt8 { out.pixels[(y * side + x) * 3] }
        XCTAssertEqual(value(32, 32), 200, "the middle of the dense hair keeps the own hair")
        XCTAssertEqual(value(8 + 8, 32), 10, "the new hair's edge shows the fill")
        XCTAssertEqual(value(2, 2), 10, "outside the region the plate is untouched")
        XCTAssertEqual(value(8 + 3, 32), 10, "outside the new hair the fill shows")
    }

    /// The cropped scalp hair is drawn, in the hair layer, at full density under a style over a full head and
    /// as stubble under one with shaved sides (the mohawk).
    func testScalpHairIsACropAndStubbleUnderShavedSides() throws {
        _ = try OwnHairTests.requireModel()
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let frame = try Frame.read(path: try Fixtures.requireAstronaut())
        let analyses = try Fixtures.ownHairRemoved(frame, engine: engine, timing: &timing)
        let scalp = try XCTUnwrap(analyses[0].scalpHair)
        XCTAssertGreaterThan(scalp.weights.filter { $0 > 0.9 }.count, 500, "her hair-bearing scalp is found")
        func mattes(_ style: String) throws -> (removed: [UInt8], kept: [UInt8]) {
            var job = TryOnJob(input: .frame(frame), style: style, look: HairLook(color: try HairColor.parse("auburn")))
            let removed = try engine.render(analyses, job: job, timing: &timing).images.matte.pixels
            job.removesOwnHair = false
            return (removed, try engine.render(analyses, job: job, timing: &timing).images.matte.pixels)
        }
        for (style, full) in [("pixie", true), ("mohawk", false)] {
            let (removed, kept) = try mattes(style)
            // Scalp the style's own strands leave bare: what the matte holds there is the crop.
            let bare = scalp.weights.indices.filter { scalp.weights[$0] > 0.5 && kept[$0] == 0 }
            XCTAssertGreaterThan(bare.count, 50, "\(style): some scalp is left to the crop")
            let mean = Float(bare.reduce(0) { $0 + Int(removed[$1]) }) / Float(bare.count) / 255
            let weight = bare.reduce(Float(0)) { $0 + scalp.weights[$1] } / Float(bare.count)
            print(String(format: "BelievableTests: %@: %d px of scalp left to the crop, weight %.3f, matte %.3f", style, bare.count, weight, mean))
            XCTAssertEqual(mean, weight * (full ? 1 : ScalpHair.stubbleDensity), accuracy: 0.02,
                           full ? "\(style): the crop covers the scalp" : "\(style): stubble over the shaved sides")
        }
    }

    /// The cropped hair's stubble is streaked along the way short hair lies: over the temples of a synthetic
    /// frontal head, neighbouring pixels along that direction agree (correlation over 0.7, and falling with the
    /// distance: no lattice), two pixels 2 px apart across it do not (under 0.5). The streaks sampled at seven
    /// points 2.5 px apart gave 0.14 at 1 px and 0.66 at 2.5 px: the noise came back as a lattice repeating along
    /// the hair, a woven net over the temples.
    func testScalpStubbleIsStreakedAlongTheHairNotALattice() throws {
        let side = 512, head = try Fixtures.sharedEngine().head
        let nose = Vec2(256, 330), pxPerMm: Float = 1.7
        let landmarks = head.landmarks68.map { Vec2(nose.x + pxPerMm * $0.x, nose.y - pxPerMm * ($0.y - head.landmarks68[30].y)) }
        let person = try XCTUnwrap(PersonHead(landmarks: landmarks))
        let image = PixelImage(width: side, height: side, channels: 3, pixels: [UInt8](repeating: 90, count: side * side * 3))
        // Both temples: from the brows to a middle third above them, 0.5–0.95 of the face's half-width out.
        var scalp = [Float](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let d = Vec2(Float(x) + 0.5, Float(y) + 0.5) - person.browCentre
                let up = -d.y, out = abs(d.x)
                if up > 0, up < person.middleThird, out > 0.5 * person.halfWidth, out < 0.95 * person.halfWidth { scalp[y * side + x] = 1 }
            }
        }
        let texture = HairPlate.scalpTexture(image, scalp: scalp, heads: [person], seed: 7)
        let crown = person.browCentre + person.up * (1.2 * person.middleThird)
        var along: [(Float, Float)] = [], across: [(Float, Float)] = [], comb: [(Float, Float)] = []
        func value(_ p: Vec2) -> Float? {
            let x = Int(p.x.rounded(.down)), y = Int(p.y.rounded(.down))
            guard x >= 0, y >= 0, x < side, y < side, scalp[y * side + x] > 0 else { return nil }
            return texture[y * side + x]
        }
        for i in scalp.indices where scalp[i] > 0 && i % 3 == 0 {
            let p = Vec2(Float(i % side) + 0.5, Float(i / side) + 0.5)
            let d = (p - crown) / ((p - crown) * (p - crown)).sum().squareRoot(), n = Vec2(-d.y, d.x)
            guard let here = value(p) else { continue }
            if let next = value(p + 1 * d) { along.append((here, next)) }
            if let next = value(p + 2.5 * d) { comb.append((here, next)) }
            if let next = value(p + 2 * n) { across.append((here, next)) }
        }
        func correlation(_ pairs: [(Float, Float)]) -> Float {
            let n = Float(pairs.count)
            let ma = pairs.reduce(0) { $0 + $1.0 } / n, mb = pairs.reduce(0) { $0 + $1.1 } / n
            var ab: Float = 0, aa: Float = 0, bb: Float = 0
            for (a, b) in pairs { ab += (a - ma) * (b - mb); aa += (a - ma) * (a - ma); bb += (b - mb) * (b - mb) }
            return ab / (aa * bb).squareRoot()
        }
        let alongCorrelation = correlation(along), acrossCorrelation = correlation(across)
        print(String(format: "BelievableTests: stubble 1 px along the hair %.2f, 2.5 px %.2f, across it 2 px %.2f (%d pairs)", alongCorrelation, correlation(comb), acrossCorrelation, along.count))
        XCTAssertGreaterThan(along.count, 2000)
        XCTAssertGreaterThan(alongCorrelation, 0.7, "streaks run along the hair")
        XCTAssertGreaterThan(alongCorrelation, correlation(comb), "smeared, not a lattice along the hair")
        XCTAssertLessThan(acrossCorrelation, 0.5, "and are fine across it")
        let spread = texture.indices.filter { scalp[$0] > 0 }.map { texture[$0] }
        XCTAssertGreaterThan(spread.max()! - spread.min()!, 0.5, "the stubble has light and dark streaks")
    }

    /// The hair's shadow and occlusion fall on the person's skin only. astronaut.png in the bob, own hair
    /// removed: wherever the new hair does not cover (matte 0) and the pixel is neither the parse's skin nor
    /// skin the plate filled, the composite is the plate's bytes. Drawn on Coif's head mesh alone, the shadow
    /// darkened the background the mesh's silhouette covered beside her cheeks (127 such pixels here), and
    /// on insightface 1423 a rectangle of the wall beside her neck.
    func testTheHairsShadowFallsOnlyOnSkin() throws {
        _ = try OwnHairTests.requireModel()
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let frame = try Frame.read(path: try Fixtures.requireAstronaut())
        let analyses = try Fixtures.ownHairRemoved(frame, engine: engine, timing: &timing)
        let analysis = analyses[0]
        let plate = try XCTUnwrap(analysis.plate), hair = try XCTUnwrap(analysis.ownHair)
        let filled = analysis.filledSkin ?? []
        let job = TryOnJob(input: .frame(frame), style: "bob", look: HairLook(color: try HairColor.parse("auburn")))
        let images = try engine.render(analyses, job: job, timing: &timing).images
        var offSkin = 0, darkened = 0, onSkinShaded = 0
        for i in 0..<(plate.width * plate.height) where images.matte.pixels[i] == 0 {
            let skin = OwnHair.isSkin(hair.classes[i]) || (!filled.isEmpty && filled[i] > 0)
            let changed = (0..<3).contains { images.composite.pixels[3 * i + $0] != plate.pixels[3 * i + $0] }
            if skin {
                if changed { onSkinShaded += 1 }
            } else {
                offSkin += 1
                if changed { darkened += 1 }
            }
        }
        print("BelievableTests: \(darkened) of \(offSkin) uncovered pixels off the skin changed; \(onSkinShaded) skin pixels shaded")
        XCTAssertGreaterThan(offSkin, 10_000)
        XCTAssertEqual(darkened, 0, "no shadow off the skin")
        XCTAssertGreaterThan(onSkinShaded, 200, "the hair still shades the skin beside and under it")
    }

    /// New skin is skin the try-on painted: a pixel left with the photo's bytes (or within `changedLevels` of
    /// them in every channel) is not counted as widening the face, whatever the output's parse calls it.
    func testAPixelLeftAsThePhotosIsNoNewSkin() {
        let photo = PixelImage(width: 4, height: 1, channels: 3, pixels: [100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100])
        let output = PixelImage(width: 4, height: 1, channels: 3, pixels: [100, 100, 100, 102, 98, 100, 100, 103, 100, 40, 180, 90])
        XCTAssertEqual((0..<4).map { BelievableEvaluation.changed(output, from: photo, at: $0) }, [false, false, true, true])
    }

    /// Scalp bared under 3% of the face's skin where the plate and the crop should hold it
    /// (docs/measurements.md's tables have where they do not): bob and long-wavy on two shared portraits, and
    /// the bob on astronaut. Judged by JudgeRegions (the landmarks alone, not the plate's own face): the pixie
    /// on these two reads 3.0% and 5.6% (its short sides bare the temples beyond the brows' ends), printed,
    /// not held.
    func testScalpBaredUnderThreePercent() throws {
        _ = try OwnHairTests.requireModel()
        let portraits = try Fixtures.requireTestdata("portraits", for: "BelievableTests")
        let engine = try Fixtures.sharedEngine()
        var rows = try BelievableEvaluation.run(engine: engine, photos: ["\(portraits)/u2net_img_1588.png", "\(portraits)/deepface_img11.jpg"],
                                                styles: ["bob", "pixie", "long-wavy"], color: try HairColor.parse("auburn"))
        rows += try BelievableEvaluation.run(engine: engine, photos: [try Fixtures.requireAstronaut()], styles: ["bob"],
                                             color: try HairColor.parse("auburn"))
        XCTAssertEqual(rows.count, 7)
        for row in rows {
            print(String(format: "BelievableTests: %@ %@ scalp bared %.1f%%", row.photo, row.style, 100 * row.scalpBared))
            if row.style != "pixie" { XCTAssertLessThan(row.scalpBared, 0.03, "\(row.photo) \(row.style)") }
            XCTAssertGreaterThan(row.faceSkinPixels, 1000)
            XCTAssertLessThanOrEqual(row.faceWidened, try XCTUnwrap(row.faceWidenedAnyPixel), "new skin is skin the try-on painted")
        }
    }
}
