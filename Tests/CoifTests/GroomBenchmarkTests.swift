// GroomBenchmarkTests: `coif groom bench`'s figures are the real ones: counts follow the groom and the
// request, GPU bytes are what the buffers hold, and every timing is a measured, ordered summary.
import CoifCore
import CoifEval
@testable import CoifGroom
import CoifGPU
import CoifPipeline
import Foundation
import Logging
import XCTest

final class GroomBenchmarkTests: XCTestCase {
    func engine() throws -> PreviewEngine {
        do { return try PreviewEngine(logger: Logger(label: "coif.tests")) } catch CoifError.gpuUnavailable(let reason) {
            print("GroomBenchmarkTests: skipping, no EGL context: \(reason)")
            throw XCTSkip(reason)
        }
    }

    func expectedStrandBytes(strands: Int, points: Int) -> Int {
        let rows = (strands * points + DataTexture.rowLength - 1) / DataTexture.rowLength
        return DataTexture.rowLength * rows * 16 + strands * (points - 1) * 6 * 4
    }

    func testFiguresFollowTheGroomAndTheBuffers() throws {
        let engine = try engine()
        let (shared, results) = try GroomBenchmark.run(engine: engine, grooms: ["mohawk", "bob"], iterations: 3,
                                                       faceWidthPx: 300, strands: 4000)
        XCTAssertEqual(results.map(\.groom), ["mohawk", "bob"])
        for r in results {
            let entry = try engine.style(r.groom).entry
            XCTAssertEqual(r.guides, entry.guides, r.groom)
            XCTAssertEqual(r.pointsPerGuide, entry.pointsPerGuide, r.groom)
            XCTAssertEqual(r.strands, 4000, r.groom)
            XCTAssertEqual(r.pointsPerStrand, entry.pointsPerGuide, r.groom)
            XCTAssertEqual(r.segments, 4000 * (entry.pointsPerGuide - 1), r.groom)
            XCTAssertEqual(r.strandBytes, expectedStrandBytes(strands: 4000, points: entry.pointsPerGuide), r.groom)
            XCTAssertGreaterThan(r.underLayerBytes, 0, r.groom)
            XCTAssertLessThanOrEqual(r.underLayerBytes, shared.occluderBytes, "\(r.groom): under-layer is part of the head")
            for summary in [r.interpolateMs, r.uploadMs, r.readyMs] {
                XCTAssertEqual(summary.count, 3, r.groom)
                XCTAssertGreaterThan(summary.p50Ms, 0, r.groom)
                XCTAssertGreaterThanOrEqual(summary.p95Ms, summary.p50Ms, r.groom)
            }
            XCTAssertGreaterThan(r.loadColdMs, 0, r.groom)
        }
        // The mohawk's strip covers less scalp than the bob.
        XCTAssertLessThan(results[0].underLayerBytes, results[1].underLayerBytes)
        XCTAssertEqual(shared.targetBytes, 512 * 512 * (4 * 12 + 8))
        XCTAssertGreaterThan(shared.occluderBytes, 0)
    }

    /// The level of detail is used when no strand count is given: a curl keeps more points than a bob.
    func testLevelOfDetailDecidesByDefault() throws {
        let engine = try engine()
        let (_, results) = try GroomBenchmark.run(engine: engine, grooms: ["bob", "curly"], iterations: 1,
                                                  faceWidthPx: 300, strands: nil)
        XCTAssertEqual(results.count, 2)
        XCTAssertLessThanOrEqual(results[0].segments, LevelOfDetail.segmentBudget + results[0].pointsPerStrand)
        XCTAssertGreaterThan(results[1].pointsPerStrand, results[0].pointsPerStrand)
    }

    /// Ratboy (TressFX v4, 2226 guides × 32 points) imports, fits and interpolates.
    func testRatboyFromTheTestData() throws {
        let path = Fixtures.testdata.appendingPathComponent("hair3d/tressfx_ratboy/Ratboy_mohawk.tfx").path
        guard FileManager.default.fileExists(atPath: path) else {
            print("GroomBenchmarkTests: skipping Ratboy, not found at \(path) (set COIF_TESTDATA)")
            throw XCTSkip("Ratboy not found at \(path)")
        }
        let engine = try engine()
        let (_, results) = try GroomBenchmark.run(engine: engine, grooms: [path], iterations: 2, faceWidthPx: 300, strands: 20_000)
        let r = try XCTUnwrap(results.first)
        XCTAssertEqual(r.guides, 2226)
        XCTAssertEqual(r.pointsPerGuide, 32)
        XCTAssertEqual(r.strands, 20_000)
        XCTAssertEqual(r.strandBytes, expectedStrandBytes(strands: 20_000, points: 32))
        print("GroomBenchmarkTests: Ratboy 20000 strands ready in \(fixed(r.readyMs.p50Ms, 1)) ms (interpolate \(fixed(r.interpolateMs.p50Ms, 1)), upload \(fixed(r.uploadMs.p50Ms, 1)))")
    }
}
