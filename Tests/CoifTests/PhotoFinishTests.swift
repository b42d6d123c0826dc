// PhotoFinishTests: the grain and softness read off a real face (astronaut.png) follow what is done to the
// photo (a known Gaussian blur, known Gaussian noise); the layer's blur keeps its light; the grain is
// seeded, zero-mean at the asked spread, and touches nothing the hair does not cover; a strand whose points
// coincide shades no NaN.
import CoifAssets
import CoifCore
@testable import CoifPipeline
@testable import CoifRender
import CoifGroom
import XCTest

final class PhotoFinishTests: XCTestCase {
    /// `frame` with every channel blurred by a Gaussian of `sigma` px, or with seeded Gaussian noise of
    /// `noise` 8-bit units added to luminance.
    private func altered(_ frame: Frame, blur sigma: Float = 0, noise: Float = 0) -> Frame {
        var copy = frame
        let image = frame.image
        var values = image.pixels.map(Float.init)
        if sigma > 0 {
            var scratch = values
            let kernel = GaussianKernel(sigma: sigma)
            kernel.convolve(values, into: &scratch, width: image.width, height: image.height, channels: 3, horizontal: true)
            kernel.convolve(scratch, into: &values, width: image.width, height: image.height, channels: 3, horizontal: false)
        }
        if noise > 0 {
            let grain = Grain(sigma: noise, seed: 99)
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let n = noise * grain.normal(x: x, y: y)
                    for c in 0..<3 { values[(y * image.width + x) * 3 + c] += n }
                }
            }
        }
        copy.image.pixels = values.map { UInt8(min(max($0.rounded(), 0), 255)) }
        return copy
    }

    func testTheFinishFollowsThePhoto() throws {
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let analysis = try engine.analyse(photoPath: try Fixtures.requireAstronaut(), timing: &timing)
        let original = try XCTUnwrap(PhotoFinish.estimate(analysis))
        XCTAssertTrue((0.3...1.5).contains(original.blurSigmaPx), "\(original)")
        XCTAssertTrue((0.5...6).contains(original.noiseSigma), "\(original)")

        var blurred = analysis
        blurred.frame = altered(analysis.frame, blur: 2)
        let soft = try XCTUnwrap(PhotoFinish.estimate(blurred))
        let expectedBlur = (original.blurSigmaPx * original.blurSigmaPx + 4).squareRoot()
        XCTAssertEqual(soft.blurSigmaPx, expectedBlur, accuracy: 0.5, "\(original) → \(soft)")
        XCTAssertGreaterThan(soft.layerBlurSigmaPx, original.layerBlurSigmaPx + 1)

        var noisy = analysis
        noisy.frame = altered(analysis.frame, noise: 6)
        let grainy = try XCTUnwrap(PhotoFinish.estimate(noisy))
        let expectedNoise = (original.noiseSigma * original.noiseSigma + 36).squareRoot()
        XCTAssertEqual(grainy.noiseSigma, expectedNoise, accuracy: 1.2, "\(original) → \(grainy)")
    }

    /// A normalised kernel: blurring keeps the layer's light and coverage (away from its edges), and
    /// spreads a single pixel into a symmetric bell.
    func testTheLayerBlurKeepsItsLight() {
        var layer = HairLayer(width: 41, height: 41)
        let centre = (20 * 41 + 20) * 4
        layer.rgba[centre] = 1; layer.rgba[centre + 3] = 1
        var scratch: [Float] = []
        layer.blur(sigmaPx: 1.5, scratch: &scratch)
        let red = stride(from: 0, to: layer.rgba.count, by: 4).map { layer.rgba[$0] }
        XCTAssertEqual(red.reduce(0, +), 1, accuracy: 1e-4)
        XCTAssertEqual(stride(from: 3, to: layer.rgba.count, by: 4).map { layer.rgba[$0] }.reduce(0, +), 1, accuracy: 1e-4)
        XCTAssertEqual(red[20 * 41 + 18], red[20 * 41 + 22], accuracy: 1e-7)
        XCTAssertEqual(red[18 * 41 + 20], red[20 * 41 + 18], accuracy: 1e-7)
        XCTAssertLessThan(red[20 * 41 + 20], 0.1)
    }

    /// Grain: same seed, same numbers; another seed, others; mean 0 and the asked spread; and in a
    /// composite it changes only pixels the hair covers.
    func testGrainIsSeededZeroMeanAndOnlyOnTheHair() {
        let grain = Grain(sigma: 5, seed: 7)
        var sum: Double = 0, squares: Double = 0
        let n = 200 * 200
        for y in 0..<200 { for x in 0..<200 { let v = Double(grain.normal(x: x, y: y)); sum += v; squares += v * v } }
        XCTAssertEqual(sum / Double(n), 0, accuracy: 0.02)
        XCTAssertEqual((squares / Double(n)).squareRoot(), 1, accuracy: 0.03)
        XCTAssertEqual(grain.normal(x: 3, y: 4), Grain(sigma: 5, seed: 7).normal(x: 3, y: 4))
        XCTAssertNotEqual(grain.normal(x: 3, y: 4), Grain(sigma: 5, seed: 8).normal(x: 3, y: 4))

        let photo = PixelImage(width: 16, height: 16, channels: 3, pixels: [UInt8](repeating: 128, count: 16 * 16 * 3))
        var layer = HairLayer(width: 16, height: 16)
        for p in 0..<(16 * 8) { layer.rgba[p * 4 + 3] = 0.5; layer.rgba[p * 4] = 0.1 }  // the top half half-covered
        let clean = Compositor().composite(layer: layer, over: photo)
        let grainy = Compositor().composite(layer: layer, at: PixelRect(x: 0, y: 0, width: 16, height: 16), over: photo, grain: grain)
        XCTAssertEqual(Array(grainy.composite.pixels[(16 * 8 * 3)...]), Array(photo.pixels[(16 * 8 * 3)...]), "uncovered pixels keep their bytes")
        XCTAssertNotEqual(Array(grainy.composite.pixels[..<(16 * 8 * 3)]), Array(clean.composite.pixels[..<(16 * 8 * 3)]))
        XCTAssertEqual(grainy.matte.pixels, clean.matte.pixels)
        XCTAssertEqual(grainy.hair.pixels, clean.hair.pixels)
    }

    /// A strand whose points coincide has no direction; it is shaded as hanging down, not as NaN (a NaN
    /// pixel resolved black, and the photo finish's blur spread it into a black square).
    func testCoincidentStrandPointsShadeNoNaN() throws {
        let renderer = try HairRenderer(context: try RenderPassTests.makeContext(), shaderSource: { Assets.text("Shaders/" + $0) })
        let head = renderer.upload(head: HeadModel(vertices: [Vec3(-60, -60, 0), Vec3(60, -60, 0), Vec3(0, 70, 0)], indices: [0, 1, 2],
                                                   scalpTriangles: [], landmarks68: [Vec3](repeating: .zero, count: 68)))
        // A strand whose tip repeats its last point: the tip's corner has no direction of its own.
        let strands = renderer.upload(strands: StrandSet(pointsPerStrand: 3, positions: [
            Vec3(10, 30, 40), Vec3(10, 0, 40), Vec3(10, 0, 40),
        ]), seed: 1, coverWidthMm: nil)
        let camera = PinholeCamera(widthPx: 48, heightPx: 48, fx: 60, fy: 60, cx: 23.5, cy: 23.5)
        try renderer.draw(camera: camera, headToCamera: Mat4.rigid(rotationRowMajor: [1, 0, 0, 0, -1, 0, 0, 0, -1], translation: SIMD3(0, 0, 300)),
                          occluder: head, shell: nil, strands: strands, widths: StrandWidths(rootMm: 20, tipMm: 20),
                          shading: HairShading(color: try HairColor.parse("brown")), lighting: Lighting())
        var layer = HairLayer()
        try renderer.readBack(into: &layer)
        XCTAssertGreaterThan(stride(from: 3, to: layer.rgba.count, by: 4).filter { layer.rgba[$0] > 0 }.count, 10)
        XCTAssertFalse(layer.rgba.contains { !$0.isFinite }, "a NaN or infinity in the layer")
    }
}
