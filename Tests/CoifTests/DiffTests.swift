// DiffTests: `coif diff` and CoifDiff on real renders and real files: what counts as a difference, where
// it is, anti-aliasing, the figures against closed forms and published data, and bad input.
import CoifCore
import CoifDiff
import CoifMedia
import CoifPipeline
import CoifRender
import Foundation
import XCTest

final class DiffTests: XCTestCase {
    func json(_ run: (status: Int32, stdout: String, stderr: String)) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stderr)
    }

    func testIdenticalFilesHaveNoDifferences() throws {
        let photo = try Fixtures.requireAstronaut()
        let run = try Fixtures.runCoif(["diff", photo, photo, "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let figures = try json(run)
        XCTAssertEqual(figures["differingPixels"] as? Int, 0)
        XCTAssertEqual(figures["comparedPixels"] as? Int, 512 * 512)
        XCTAssertEqual(figures["psnrDb"] as? String, "inf")
        XCTAssertEqual(figures["ssim"] as? Double, 1)
        XCTAssertEqual(figures["deltaE00Max"] as? Double, 0)
        XCTAssertTrue(figures["bounds"] is NSNull)
    }

    /// Two colours of one render: every difference lies inside the hair matte; `--mask` with the matte
    /// sees them all, with its inverse none.
    func testRecolourDiffersOnlyInsideTheMatte() throws {
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let analysis = try engine.analyse(photoPath: try Fixtures.requireAstronaut(), timing: &timing)
        let auburn = try engine.render(analysis: analysis, style: nil, color: try HairColor.parse("auburn"), seed: 1, timing: &timing)
        let composite = auburn.images.composite, matte = auburn.images.matte
        let platinum = try engine.render(analysis: analysis, style: nil, color: try HairColor.parse("platinum"), seed: 1, timing: &timing).images.composite
        let dir = try Fixtures.temporaryDirectory()
        var inverse = matte
        for i in inverse.pixels.indices { inverse.pixels[i] = matte.pixels[i] == 0 ? 255 : 0 }
        for (name, image) in [("a", composite), ("b", platinum), ("matte", matte), ("inverse", inverse)] {
            try AtomicFile.write(try PNGFile.encode(image), to: "\(dir)/\(name).png")
        }

        // In process: every differing cell is a hair pixel.
        let (difference, map) = try ImageDiff.compare(DiffImage(composite), DiffImage(platinum), options: DiffOptions(keepMap: true))
        let cells = try XCTUnwrap(map).cells
        var hair = 0
        for p in cells.indices {
            if matte.pixels[p] != 0 { hair += 1 }
            if cells[p] >= DifferenceMap.antialiased { XCTAssertNotEqual(matte.pixels[p], 0, "pixel \(p % 512),\(p / 512) outside the matte differs") }
        }
        XCTAssertGreaterThan(difference.differingPixels, hair * 9 / 10)

        let whole = try Fixtures.runCoif(["diff", "\(dir)/a.png", "\(dir)/b.png", "--json"])
        XCTAssertEqual(whole.status, 1, "a recolour must fail a zero-tolerance diff")
        XCTAssertEqual(try json(whole)["differingPixels"] as? Int, difference.differingPixels)
        let inside = try Fixtures.runCoif(["diff", "\(dir)/a.png", "\(dir)/b.png", "--json", "--mask", "\(dir)/matte.png"])
        XCTAssertEqual(inside.status, 1)
        let insideFigures = try json(inside)
        XCTAssertEqual(insideFigures["comparedPixels"] as? Int, hair)
        XCTAssertEqual(insideFigures["differingPixels"] as? Int, difference.differingPixels)
        let outside = try Fixtures.runCoif(["diff", "\(dir)/a.png", "\(dir)/b.png", "--json", "--mask", "\(dir)/inverse.png"])
        XCTAssertEqual(outside.status, 0, outside.stdout)
        XCTAssertEqual(try json(outside)["differingPixels"] as? Int, 0)
        XCTAssertEqual(try json(outside)["comparedPixels"] as? Int, 512 * 512 - hair)
    }

    /// A disc with anti-aliased edges, centred at (cx, cy), coverage from 16×16 supersamples; plus an
    /// optional hard-edged square of another colour (a real change).
    func disc(cx: Double, cy: Double, square: Bool = false) -> PixelImage {
        var image = PixelImage(width: 96, height: 96, channels: 3, fill: 240)
        for y in 0..<96 {
            for x in 0..<96 {
                var inside = 0
                for sy in 0..<16 {
                    for sx in 0..<16 {
                        let dx = Double(x) + (Double(sx) + 0.5) / 16 - cx, dy = Double(y) + (Double(sy) + 0.5) / 16 - cy
                        if dx * dx + dy * dy <= 28 * 28 { inside += 1 }
                    }
                }
                let v = UInt8((240.0 - (240.0 - 30.0) * Double(inside) / 256).rounded())
                for c in 0..<3 { image.pixels[(y * 96 + x) * 3 + c] = v }
            }
        }
        if square {
            for y in 4..<10 { for x in 4..<10 { image.pixels[(y * 96 + x) * 3] = 200; image.pixels[(y * 96 + x) * 3 + 1] = 20 } }
        }
        return image
    }

    func testSubPixelShiftOfAnEdgeIsAntiAliasing() throws {
        let a = DiffImage(disc(cx: 48, cy: 48)), b = DiffImage(disc(cx: 48.3, cy: 48.2))
        let counted = try ImageDiff.compare(a, b, options: DiffOptions()).difference
        XCTAssertGreaterThan(counted.differingPixels, 50, "the shifted edge changes pixels")
        XCTAssertEqual(counted.antialiasedPixels, counted.differingPixels, "every changed pixel is an edge pixel")
        let ignored = try ImageDiff.compare(a, b, options: DiffOptions(ignoreAntialiasing: true)).difference
        XCTAssertEqual(ignored.differingPixels, 0)
        XCTAssertNil(ignored.bounds)

        // A real change beside the edge is still counted.
        let changed = DiffImage(disc(cx: 48.3, cy: 48.2, square: true))
        let real = try ImageDiff.compare(a, changed, options: DiffOptions(ignoreAntialiasing: true)).difference
        XCTAssertEqual(real.differingPixels, 36, "the 6×6 square is not anti-aliasing")
        XCTAssertEqual(real.bounds, PixelBox(minX: 4, minY: 4, maxX: 9, maxY: 9))
    }

    /// Uniform integer noise e in [−k, k] on every channel of a real photo whose range was first squeezed
    /// into [k, 255 − k] (so nothing clips). Closed forms: E|e| = k(k+1)/(2k+1), E[e²] = k(k+1)/3, so
    /// PSNR = 10·log10(255² / E[e²]). Over 512·512·3 samples the sample means sit within ~0.003 (|e|) and
    /// ~0.1% (e²) of these (1σ), so the tolerances below are > 5σ.
    func testNoiseFiguresMatchTheClosedForm() throws {
        let photo = try PNGFile.read(path: try Fixtures.requireAstronaut(), channels: 3)
        let k = 8
        var clean = photo, noisy = photo
        var random = SeededRandom(seed: 2024)
        for i in photo.pixels.indices {
            let v = k + Int(photo.pixels[i]) * (255 - 2 * k) / 255
            clean.pixels[i] = UInt8(v)
            noisy.pixels[i] = UInt8(v + Int(random.next() % UInt64(2 * k + 1)) - k)
        }
        let d = try ImageDiff.compare(DiffImage(clean), DiffImage(noisy), options: DiffOptions()).difference
        let meanAbs = Double(k * (k + 1)) / Double(2 * k + 1)
        let mse = Double(k * (k + 1)) / 3
        XCTAssertEqual(d.meanAbsoluteError, meanAbs, accuracy: 0.015)
        XCTAssertEqual(d.psnr, 10 * log10(255 * 255 / mse), accuracy: 0.03)
        XCTAssertEqual(d.maxChannelError, Double(k))
        // A pixel is unchanged only when all three draws are 0: probability 1/17³.
        XCTAssertEqual(d.differingFraction, 1 - 1 / pow(Double(2 * k + 1), 3), accuracy: 0.001)
        let ssim = try XCTUnwrap(d.ssim)
        XCTAssertLessThan(ssim, 0.98)
        XCTAssertGreaterThan(ssim, 0.3)
        let same = try ImageDiff.compare(DiffImage(clean), DiffImage(clean), options: DiffOptions()).difference
        XCTAssertEqual(same.ssim, 1)
        XCTAssertEqual(same.psnr, .infinity)
    }

    /// Sharma, Wu & Dalal (2005), Table 1: pairs and their ΔE00, to the table's 4 decimals.
    func testCIEDE2000MatchesSharmasPublishedPairs() {
        let pairs: [(Double, Double, Double, Double, Double, Double, Double)] = [
            (50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425),
            (50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615),
            (50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000),
            (50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669),
            (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792),
            (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195),
            (50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045),
            (50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461),
            (50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065),
            (50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492),
            (50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030),
            (50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000),
            (60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644),
            (22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373),
            (90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381),
            (2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082),
        ]
        for (l1, a1, b1, l2, a2, b2, expected) in pairs {
            let p = LabColor(l: l1, a: a1, b: b1), q = LabColor(l: l2, a: a2, b: b2)
            XCTAssertEqual(CIEDE2000.difference(p, q), expected, accuracy: 1e-4, "\(p) vs \(q)")
            XCTAssertEqual(CIEDE2000.difference(q, p), expected, accuracy: 1e-4, "symmetric: \(q) vs \(p)")
        }
        // sRGB white is L* 100, a* = b* = 0 (D65).
        let white = LabColor(linearR: 1, g: 1, b: 1)
        XCTAssertEqual(white.l, 100, accuracy: 1e-3)
        XCTAssertEqual(white.a, 0, accuracy: 1e-3)
        XCTAssertEqual(white.b, 0, accuracy: 1e-3)
    }

    /// The comparison's bulk ΔE00 path (no trigonometry per pixel) agrees with the reference formula:
    /// on Sharma's pairs, on random pairs over the whole CIELAB range, near-antipodal hues and neutrals.
    func testFastCIEDE2000AgreesWithTheReference() {
        var random = SeededRandom(seed: 7)
        func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * Double(random.next() % 1_000_000) / 1_000_000 }
        var pairs: [(LabColor, LabColor)] = [
            (LabColor(l: 50, a: 0, b: 0), LabColor(l: 50, a: -1, b: 2)),
            (LabColor(l: 50, a: 2.5, b: 0), LabColor(l: 50, a: 0, b: -2.5)),
            (LabColor(l: 50, a: 2.5, b: 0), LabColor(l: 50, a: -2.5, b: 0)),     // exactly antipodal
            (LabColor(l: 50, a: 2.49, b: -0.001), LabColor(l: 50, a: -2.49, b: 0.0009)),
            (LabColor(l: 40, a: 0, b: 0), LabColor(l: 60, a: 0, b: 0)),
        ]
        for _ in 0..<20_000 {
            let p = LabColor(l: uniform(0, 100), a: uniform(-128, 127), b: uniform(-128, 127))
            let spread = pairs.count % 2 == 0 ? 3.0 : 150.0
            pairs.append((p, LabColor(l: p.l + uniform(-spread, spread), a: p.a + uniform(-spread, spread), b: p.b + uniform(-spread, spread))))
        }
        for (p, q) in pairs {
            let exact = CIEDE2000.difference(p, q)
            XCTAssertEqual(CIEDE2000.fastDifference(p, q), exact, accuracy: 1e-7 * max(exact, 1), "\(p) vs \(q)")
        }
    }

    /// 16-bit PNGs are compared at 16 bits and reported on the 8-bit scale (difference / 257).
    func testSixteenBitDifferencesAreReportedOnTheEightBitScale() throws {
        let dir = try Fixtures.temporaryDirectory()
        var samples = [UInt16](repeating: 0, count: 64 * 64 * 3)
        for i in samples.indices { samples[i] = UInt16((i * 977) % 65536) }
        var changed = samples
        changed[3 * (10 * 64 + 20) + 1] &+= 257 * 40    // one pixel, green, 40 steps
        changed[3 * (30 * 64 + 5)] &+= 100               // another, under half an 8-bit step
        try AtomicFile.write(try PNGFile.encode16(samples: samples, width: 64, height: 64, channels: 3), to: dir + "/a.png")
        try AtomicFile.write(try PNGFile.encode16(samples: changed, width: 64, height: 64, channels: 3), to: dir + "/b.png")
        let run = try Fixtures.runCoif(["diff", dir + "/a.png", dir + "/b.png", "--json", "--threshold", "1"])
        let figures = try json(run)
        XCTAssertEqual(figures["bitDepth"] as? Int, 16)
        XCTAssertEqual(figures["differingPixels"] as? Int, 1, run.stdout)
        XCTAssertEqual(try XCTUnwrap(figures["maxChannelError"] as? Double), 40, accuracy: 1e-9)
        XCTAssertEqual(run.status, 1)
        let allowed = try Fixtures.runCoif(["diff", dir + "/a.png", dir + "/b.png", "--threshold", "1", "--max-differing-pixels", "1"])
        XCTAssertEqual(allowed.status, 0, allowed.stdout + allowed.stderr)
    }

    /// Missing (10), not a PNG (11), truncated (12), size mismatch (14): one line on stderr naming the file,
    /// its exit code, and no heatmap left behind.
    func testBadInputsGiveTheirExitCodesAndLeaveNoHeatmap() throws {
        let photo = try Fixtures.requireAstronaut()
        let dir = try Fixtures.temporaryDirectory()
        let inputs = dir + "/in"
        try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
        try "not a picture\n".write(toFile: inputs + "/notes.png", atomically: true, encoding: .utf8)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: photo))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: inputs + "/cut.png"))
        try AtomicFile.write(try PNGFile.encode(PixelImage(width: 100, height: 80, channels: 3)), to: inputs + "/small.png")
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let cases: [([String], Int32, String)] = [
            ([photo, inputs + "/nope.png"], 10, "nope.png"),
            ([inputs + "/notes.png", photo], 11, "notes.png"),
            ([photo, inputs + "/cut.png"], 12, "cut.png"),
            ([photo, inputs + "/small.png"], 14, "small.png"),
            ([photo, photo, "--mask", inputs + "/small.png"], 14, "mask"),
            ([photo, photo, "--max-differing-pixels", "12%%"], 22, "--max-differing-pixels"),
        ]
        for (arguments, code, mentions) in cases {
            let run = try Fixtures.runCoif(["diff"] + arguments + ["--heatmap", out + "/heat.png"])
            XCTAssertEqual(run.status, code, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains(mentions), "'\(run.stderr)' should name \(mentions)")
            XCTAssertEqual(Fixtures.listing(out), [], "\(arguments) left files behind")
        }
        // And the heatmap is written when the inputs are good, even though they differ.
        let run = try Fixtures.runCoif(["diff", photo, inputs + "/small.png", "--heatmap", out + "/heat.png"])
        XCTAssertEqual(run.status, 14)
        let good = try Fixtures.runCoif(["diff", photo, photo, "--heatmap", out + "/heat.png"])
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertEqual(Fixtures.listing(out), ["heat.png"])
        let heat = try PNGFile.read(path: out + "/heat.png", channels: 3)
        XCTAssertEqual(heat.width, 512)
        XCTAssertGreaterThan(heat.height, 512, "the legend strip is below the image")
    }
}
