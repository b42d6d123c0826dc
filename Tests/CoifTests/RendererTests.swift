// RendererTests: the GL side on a real EGL context (llvmpipe here): the projection agrees with the
// pinhole model pose estimation uses, shader failures name their file and stage, colours parse, and the
// compositor keeps untouched pixels byte-identical.
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifPipeline
import CoifRender
import XCTest

final class RendererTests: XCTestCase {
    /// A strand's record carries its clump tone and its random number in one float; the shader's decoding
    /// (tone = floor(w·256)/255, random = fract(w·256)) gives both back: the tone to 1/255, the random
    /// number to 16 bits, and w stays below 1.
    func testAStrandsToneAndRandomNumberSurviveThePacking() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<10_000 {
            let random = rng.unitFloat(), tone = rng.unitFloat()
            let w = StrandGeometry.packedRecord(random: random, clumpTone: tone)
            XCTAssertLessThan(w, 1)
            XCTAssertGreaterThanOrEqual(w, 0)
            let scaled = w * 256
            XCTAssertEqual(scaled.rounded(.down) / 255, tone, accuracy: 1.5 / 255, "tone")
            let fraction = scaled - scaled.rounded(.down)
            // Rounding at the top of a level can carry into the next: the fraction then wraps to ~0.
            if random < 0.9999 { XCTAssertEqual(fraction, random, accuracy: 1.0 / 32_768, "random") }
        }
    }

    /// The clump-tone field is smooth within a cell, varies between cells, stays in [0, 1), and depends
    /// only on its seed.
    func testValueNoiseIsSmoothSeededAndSpread() {
        let noise = ValueNoise(seed: 3)
        var values: [Float] = []
        var rng = SeededRandom(seed: 11)
        for _ in 0..<2_000 {
            let p = Vec3(rng.uniform(-50, 50), rng.uniform(-50, 50), rng.uniform(-50, 50))
            let v = noise(p)
            XCTAssertGreaterThanOrEqual(v, 0)
            XCTAssertLessThan(v, 1)
            XCTAssertEqual(v, ValueNoise(seed: 3)(p), "same seed, same value")
            XCTAssertLessThan(abs(noise(p + Vec3(0.01, 0.01, 0.01)) - v), 0.05, "smooth")
            values.append(v)
        }
        let mean = values.reduce(0, +) / Float(values.count)
        let deviation = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(values.count)).squareRoot()
        XCTAssertGreaterThan(deviation, 0.1, "spread between cells")
        XCTAssertNotEqual(ValueNoise(seed: 4)(Vec3(0.5, 0.5, 0.5)), noise(Vec3(0.5, 0.5, 0.5)))
    }

    func testProjectionMatchesThePinholeModel() {
        let camera = PinholeCamera(widthPx: 640, heightPx: 480, fx: 700, fy: 690, cx: 330, cy: 235)
        let clipFromCamera = camera.viewToClip * PinholeCamera.cameraToView
        for p in [Vec3(0, 0, 600), Vec3(80, -40, 500), Vec3(-120, 90, 900)] {
            let clip = clipFromCamera * Vec4(p.x, p.y, p.z, 1)
            let ndc = Vec2(clip.x / clip.w, clip.y / clip.w)
            // NDC y grows downward (row 0 = the photo's top row); GL pixel centres sit at +0.5.
            let pixel = Vec2((ndc.x + 1) * 0.5 * 640 - 0.5, (ndc.y + 1) * 0.5 * 480 - 0.5)
            let expected = camera.project(p)
            XCTAssertEqual(pixel.x, expected.x, accuracy: 1e-3)
            XCTAssertEqual(pixel.y, expected.y, accuracy: 1e-3)
            XCTAssertTrue(abs(clip.z / clip.w) < 1, "point at \(p.z) mm must lie between the clip planes")
        }
    }

    func testEmbeddedShadersCompileAndBrokenOnesNameTheirFile() throws {
        let context: GPUContext
        do { context = try GPUContext() } catch {
            print("RendererTests: skipping, no EGL context can be made here: \(error)")
            throw XCTSkip("no EGL context: \(error)")
        }
        XCTAssertTrue(context.version.contains("OpenGL ES 3"), context.version)
        _ = try HairRenderer(context: context, shaderSource: { Assets.text("Shaders/" + $0) })
        let broken: (String) -> String? = { name in
            name == "strand.frag" ? "#version 320 es\nprecision highp float;\nout vec4 c;\nvoid main() { c = vec4(undefinedThing); }\n"
                                  : Assets.text("Shaders/" + name)
        }
        XCTAssertThrowsError(try HairRenderer(context: context, shaderSource: broken)) { error in
            guard case CoifError.shaderFailed(let file, let log) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(file, "strand.frag")
            XCTAssertTrue(log.contains("fragment"), log)
        }
        let missingInclude: (String) -> String? = { name in
            name == "hair_shading.glsl" ? nil : Assets.text("Shaders/" + name)
        }
        XCTAssertThrowsError(try HairRenderer(context: context, shaderSource: missingInclude)) { error in
            guard case CoifError.shaderFailed(let file, let log) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(file, "strand.vert", "the first stage that includes it")
            XCTAssertTrue(log.contains("hair_shading.glsl"), log)
        }
    }

    func testDroppingOneContextLeavesTheOthersWorking() throws {
        let keeper: GPUContext
        do { keeper = try GPUContext() } catch { throw XCTSkip("no EGL context: \(error)") }
        do {
            let transient = try GPUContext()
            try transient.makeCurrent()
        }
        // The transient context is gone; the keeper must still compile and draw.
        let renderer = try HairRenderer(context: keeper, shaderSource: { Assets.text("Shaders/" + $0) })
        // Another context is current while the keeper's renderer uploads: its GPU objects must still land
        // in the keeper's context (a GL name means nothing elsewhere) and the frame must draw.
        let other = try GPUContext()
        try other.makeCurrent()
        let head = HeadModel(vertices: [Vec3(-50, 0, 0), Vec3(50, 0, 0), Vec3(0, 80, 0)], indices: [0, 1, 2],
                             scalpTriangles: [], landmarks68: [Vec3](repeating: .zero, count: 68))
        let occluder = renderer.upload(head: head)
        let strands = renderer.upload(strands: StrandSet(pointsPerStrand: 2, positions: [Vec3(0, -40, 100), Vec3(0, 40, 100)]), seed: 1, coverWidthMm: nil)
        try other.makeCurrent()
        let camera = PinholeCamera(widthPx: 32, heightPx: 32, fx: 40, fy: 40, cx: 15.5, cy: 15.5)
        let frontal = Mat4.rigid(rotationRowMajor: [1, 0, 0, 0, -1, 0, 0, 0, -1], translation: SIMD3(0, 0, 300))
        try renderer.draw(camera: camera, headToCamera: frontal, occluder: occluder, shell: nil, strands: strands,
                          widths: StrandWidths(rootMm: 8, tipMm: 8), shading: HairShading(color: try HairColor.parse("black")),
                          lighting: Lighting())
        var layer = HairLayer()
        try renderer.readBack(into: &layer)
        let covered = stride(from: 3, to: layer.rgba.count, by: 4).filter { layer.rgba[$0] > 0.5 }.count
        XCTAssertGreaterThan(covered, 20, "a vertical strand 8 mm wide at 300 mm should cover a column of pixels")
    }

    func testHairColourParsing() throws {
        XCTAssertEqual(try HairColor.parse("#6b3e26").srgb, Vec3(0x6b, 0x3e, 0x26) / 255)
        XCTAssertEqual(try HairColor.parse("FFF").srgb, Vec3(1, 1, 1))
        XCTAssertEqual(try HairColor.parse("Auburn").name, "auburn")
        for preset in ["black", "dark-brown", "auburn", "blonde", "platinum", "red"] {
            XCTAssertNoThrow(try HairColor.parse(preset), preset)
        }
        for bad in ["", "#12", "#1234567", "#zzzzzz", "purple-ish"] {
            XCTAssertThrowsError(try HairColor.parse(bad)) { error in
                guard case CoifError.malformedColor(let spec, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(spec, bad)
            }
        }
    }

    func testCompositeIsLinearOverAndLeavesUncoveredPixelsAlone() {
        var photo = PixelImage(width: 2, height: 1, channels: 3)
        photo.pixels = [200, 100, 50, 10, 20, 30]
        var layer = HairLayer(width: 2, height: 1)
        // Pixel 0: half-covered by linear 0.2 grey (premultiplied 0.1). Pixel 1: no hair.
        layer.rgba = [0.1, 0.1, 0.1, 0.5, 0, 0, 0, 0]
        let images = Compositor().composite(layer: layer, over: photo)
        XCTAssertEqual(Array(images.composite.pixels[3...5]), [10, 20, 30])
        let expected = (0..<3).map { c -> UInt8 in
            let background = srgbToLinear(Float(photo.pixels[c]) / 255)
            return UInt8((linearToSrgb(0.1 + 0.5 * background) * 255).rounded())
        }
        XCTAssertEqual(Array(images.composite.pixels[0...2]), expected)
        XCTAssertEqual(images.matte.pixels, [128, 0])
        XCTAssertEqual(images.hair.pixels[3], 128)
    }
}

/// The compositor's table encoder must give the reference encoding's bytes for every input: checked at
/// and around each of the 255 steps (where a table would go wrong), on a dense stride through all of
/// [0, 1], and at the edges.
final class SRGBEncoderTests: XCTestCase {
    func testTableEncodingEqualsTheReferenceEverywhere() {
        let encoder = SRGBEncoder()
        var checked = 0
        for k in 1...255 {
            // The first Float at or above step k, found independently by walking down from k's midpoint.
            var x = srgbToLinear((Float(k) - 0.5) / 255)
            while SRGBEncoder.reference(x.nextDown) >= UInt8(k) { x = x.nextDown }
            while SRGBEncoder.reference(x) < UInt8(k) { x = x.nextUp }
            var probe = x
            for _ in 0..<32 { probe = probe.nextDown }
            for _ in 0..<64 {
                XCTAssertEqual(encoder.encode(probe), SRGBEncoder.reference(probe), "at \(probe) (step \(k))")
                probe = probe.nextUp
                checked += 1
            }
        }
        var bits = Float(0).bitPattern
        while bits <= Float(1).bitPattern {
            let x = Float(bitPattern: bits)
            if encoder.encode(x) != SRGBEncoder.reference(x) { XCTFail("at \(x)"); break }
            bits += 9_973
            checked += 1
        }
        for x: Float in [-1, -0, 0, .leastNonzeroMagnitude, 1, 1.5, .infinity, 0.0031308, 0.5] {
            XCTAssertEqual(encoder.encode(x), SRGBEncoder.reference(x), "at \(x)")
        }
        XCTAssertEqual(encoder.encode(.nan), 0)
        XCTAssertGreaterThan(checked, 100_000)
    }
}

final class LevelOfDetailTests: XCTestCase {
    func testDetailGrowsWithTheFaceAndStaysWithinBudget() {
        var previous = LevelOfDetail.choose(faceWidthPx: 40, guideCount: 450)
        for width in stride(from: 60.0, through: 3000, by: 20) {
            let lod = LevelOfDetail.choose(faceWidthPx: width, guideCount: 450)
            XCTAssertGreaterThanOrEqual(lod.segmentCount, previous.segmentCount, "detail shrank at \(width) px")
            XCTAssertLessThanOrEqual(lod.segmentCount, LevelOfDetail.segmentBudget + lod.pointsPerStrand, "over budget at \(width) px")
            XCTAssertGreaterThanOrEqual(lod.widthScale, 1, "strands never drawn thinner than the catalog says")
            previous = lod
        }
        // A 200-px face does not pay for a 2,000-px one.
        XCTAssertLessThan(LevelOfDetail.choose(faceWidthPx: 100, guideCount: 450).segmentCount,
                          LevelOfDetail.choose(faceWidthPx: 1000, guideCount: 450).segmentCount / 2)
        // Every guide is always drawn.
        XCTAssertGreaterThanOrEqual(LevelOfDetail.choose(faceWidthPx: 20, guideCount: 900).strandCount, 900)
    }

    /// A short style's strands each cover less of the head: it gets strands in proportion (a buzz cut's 8 mm
    /// against the bob's ~130 mm the density was set for), within the segment budget; a style as long as the
    /// bob or longer gets what it always did.
    func testShortStrandsGetMoreStrandsWithinTheBudget() {
        for width in [48.0, 100, 200] {
            let bob = LevelOfDetail.choose(faceWidthPx: width, guideCount: 450)
            let buzz = LevelOfDetail.choose(faceWidthPx: width, guideCount: 450, meanStrandLengthMm: 8)
            XCTAssertGreaterThanOrEqual(buzz.strandCount, bob.strandCount, "at \(width) px")
            if width < 60 { XCTAssertGreaterThan(buzz.strandCount, 4 * bob.strandCount, "at \(width) px, under the budget") }
            XCTAssertLessThanOrEqual(buzz.segmentCount, LevelOfDetail.segmentBudget + buzz.pointsPerStrand, "at \(width) px")
            XCTAssertEqual(LevelOfDetail.choose(faceWidthPx: width, guideCount: 450, meanStrandLengthMm: 360), bob)
        }
    }

    /// An asked-for strand count replaces the automatic one exactly (below the guides too, then at the
    /// guides-only width), never thinner than the catalog.
    func testAskedStrandCountReplacesTheAutomaticOne() {
        let automatic = LevelOfDetail.choose(faceWidthPx: 300, guideCount: 228)
        let asked = LevelOfDetail.choose(faceWidthPx: 300, guideCount: 228, strands: 40_000)
        XCTAssertEqual(asked.strandCount, 40_000)
        XCTAssertEqual(asked.pointsPerStrand, automatic.pointsPerStrand)
        XCTAssertEqual(asked.widthScale, 1)
        let belowGuides = LevelOfDetail.choose(faceWidthPx: 300, guideCount: 228, strands: 100)
        XCTAssertEqual(belowGuides.strandCount, 100)
        XCTAssertEqual(belowGuides.widthScale, LevelOfDetail.choose(faceWidthPx: 300, guideCount: 228, strands: 228).widthScale)
        let few = LevelOfDetail.choose(faceWidthPx: 300, guideCount: 228, strands: 2_400)
        XCTAssertEqual(few.strandCount, 2_400)
        XCTAssertGreaterThan(few.widthScale, 1, "fewer strands are drawn wider")
        XCTAssertThrowsError(try LevelOfDetail.checkStrands(0))
        XCTAssertThrowsError(try LevelOfDetail.checkStrands(LevelOfDetail.maxStrands + 1))
        XCTAssertNoThrow(try LevelOfDetail.checkStrands(nil))
    }

    /// A curl keeps the points that hold its shape within the tolerance, more than a bob needs; the size-based
    /// count alone would draw the curl as a zig-zag.
    func testCurlsKeepThePointsTheirShapeNeeds() throws {
        let catalog = try StyleCatalog.standard()
        func errors(_ name: String) throws -> [Float] {
            let entry = try XCTUnwrap(catalog.entry(named: name))
            let text = try XCTUnwrap(Assets.text("Meshes/" + entry.file))
            return try Groom.load(objText: text, name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                  rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm).guides.resamplingErrorsMm()
        }
        let curly = try errors("curly"), bob = try errors("bob")
        for width in [150.0, 300, 600] {
            let plain = LevelOfDetail.choose(faceWidthPx: width, guideCount: 450)
            let straight = LevelOfDetail.choose(faceWidthPx: width, guideCount: 450, resamplingErrorsMm: bob)
            let curled = LevelOfDetail.choose(faceWidthPx: width, guideCount: 450, resamplingErrorsMm: curly)
            XCTAssertGreaterThanOrEqual(straight.pointsPerStrand, plain.pointsPerStrand, "bob at \(width) px")
            XCTAssertGreaterThan(curled.pointsPerStrand, straight.pointsPerStrand, "curly at \(width) px")
            let toleranceMm = Float(LevelOfDetail.shapeTolerancePx * LevelOfDetail.faceWidthMm / width)
            XCTAssert(curly[curled.pointsPerStrand] <= toleranceMm || curled.pointsPerStrand == curly.count - 1,
                      "curly at \(width) px strays \(curly[curled.pointsPerStrand]) mm")
            XCTAssertGreaterThan(curly[plain.pointsPerStrand], toleranceMm, "the size-based count would zig-zag at \(width) px")
        }
    }
}
