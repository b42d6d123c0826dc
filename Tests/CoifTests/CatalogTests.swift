// CatalogTests: the style catalog as a user sees it: every style loads through real Assimp with the
// counts its entry states, roots on the scalp, stays out of the head and off the face; styles are
// visibly distinct on a real photo (pairwise silhouette IoU of their mattes); preview and sheet render.
import CoifCore
@testable import CoifGroom
import CoifPipeline
import CoifRender
import CoifVision
import Foundation
import Logging
import XCTest

final class CatalogTests: XCTestCase {
    static let meshes = Fixtures.packageRoot.appendingPathComponent("Meshes")

    func text(_ relative: String) throws -> String {
        try String(contentsOf: Self.meshes.appendingPathComponent(relative), encoding: .utf8)
    }

    func testEveryStyleHasCatalogFactsAndKeepsTheFaceClear() throws {
        let head = try HeadModel.load(objText: text("head.obj"), landmarksJSON: text("head-landmarks68.json"), name: "head.obj")
        let catalog = try StyleCatalog.parse(json: text("catalog.json"))
        XCTAssertGreaterThanOrEqual(catalog.styles.count, 12)
        XCTAssertEqual(Set(catalog.styles.map(\.name)).count, catalog.styles.count, "duplicate names")
        let shapes: Set<String> = ["oval", "round", "square", "heart", "long", "diamond"]
        let l = head.landmarks68
        // Eyes (36–47, with the brows' lower edge), nose (27–35) and mouth (48–67) as boxes in x–y, 4 mm margin.
        func box(_ r: ClosedRange<Int>) -> (lo: SIMD2<Float>, hi: SIMD2<Float>) {
            let pts = r.map { SIMD2(l[$0].x, l[$0].y) }
            return (pts.reduce(pts[0], pointwiseMin) - 4, pts.reduce(pts[0], pointwiseMax) + 4)
        }
        let features = [("eyes", box(36...47)), ("nose", box(27...35)), ("mouth", box(48...67))]
        for entry in catalog.styles {
            XCTAssertFalse(entry.description.isEmpty, entry.name)
            XCTAssert(["short", "medium", "long"].contains(entry.length ?? ""), "\(entry.name): length")
            XCTAssertNotNil(entry.texture, entry.name)
            XCTAssertFalse((entry.faceShapes ?? []).isEmpty, entry.name)
            XCTAssert(Set(entry.faceShapes ?? []).isSubset(of: shapes), entry.name)
            let groom = try Groom.load(objText: text(entry.file), name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                       rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
            XCTAssertEqual(groom.guides.strandCount, entry.guides, entry.name)
            var worstRoot: Float = 0
            for i in 0..<groom.guides.strandCount {
                worstRoot = max(worstRoot, abs(head.signedDistance(groom.guides.strand(i).first!)))
            }
            XCTAssertLessThan(worstRoot, 2, "\(entry.name): a root is off the scalp")
            // Nothing in front of the face over the eyes, nose or mouth.
            var covered: [String] = []
            for p in groom.guides.positions where p.z > 0 {
                for (feature, b) in features where p.x > b.lo.x && p.x < b.hi.x && p.y > b.lo.y && p.y < b.hi.y {
                    covered.append("\(feature) at \(p)")
                }
            }
            XCTAssert(covered.isEmpty, "\(entry.name) covers the face: \(covered.prefix(3))")
        }
    }

    /// Each style's matte on the astronaut: pairwise silhouette IoU stays below `bound`.
    func testStylesAreDistinctOnAPhoto() throws {
        let photo = try Fixtures.requireAstronaut()
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        let analysis = try engine.analyse(photoPath: photo, timing: &timing)
        let color = try HairColor.parse("dark-brown")
        var silhouettes: [(String, [Bool])] = []
        for entry in engine.styles.listing.map(\.style.entry) {
            var t = FrameTiming()
            // The style's own silhouette: rendered over the photo as it is, without the cropped scalp hair
            // every style lays over the same photo's scalp when the own hair is removed (ScalpHair).
            var job = TryOnJob(input: .frame(analysis.frame), style: entry.name, look: HairLook(color: color))
            job.seed = 1
            job.detail = 0.3
            job.removesOwnHair = false
            let result = try engine.render([analysis], job: job, timing: &t)
            let mask = result.images.matte.pixels.map { $0 >= 128 }
            XCTAssertGreaterThan(mask.filter { $0 }.count, 500, "\(entry.name): almost no hair drawn")
            silhouettes.append((entry.name, mask))
        }
        let bound = 0.9
        var worst = (0.0, "", "")
        for i in silhouettes.indices {
            for j in silhouettes.indices where j > i {
                var inter = 0, union = 0
                for (a, b) in zip(silhouettes[i].1, silhouettes[j].1) { if a && b { inter += 1 }; if a || b { union += 1 } }
                let iou = Double(inter) / Double(max(union, 1))
                if iou > worst.0 { worst = (iou, silhouettes[i].0, silhouettes[j].0) }
                XCTAssertLessThan(iou, bound, "\(silhouettes[i].0) and \(silhouettes[j].0) look the same (IoU \(iou))")
            }
        }
        print("CatalogTests: most similar pair \(worst.1) / \(worst.2), silhouette IoU \(fixed(worst.0, 3)) (bound \(bound))")
    }

    func testPreviewDrawsHeadAndHair() throws {
        let engine: PreviewEngine
        do { engine = try PreviewEngine(logger: Logger(label: "coif.tests")) } catch CoifError.gpuUnavailable(let reason) {
            print("CatalogTests: skipping preview, no EGL context: \(reason)")
            throw XCTSkip(reason)
        }
        let groom = try engine.style("ponytail")
        var timing = FrameTiming()
        let front = try engine.render(groom, view: .front, sizePx: 128, color: try HairColor.parse("black"), timing: &timing)
        let back = try engine.render(groom, view: .back, sizePx: 128, color: try HairColor.parse("black"), timing: &timing)
        func count(_ image: PixelImage, _ test: (UInt8, UInt8, UInt8) -> Bool) -> Int {
            stride(from: 0, to: image.pixels.count, by: 3).filter { test(image.pixels[$0], image.pixels[$0 + 1], image.pixels[$0 + 2]) }.count
        }
        // Skin-grey head in front, dark hair mostly seen from the back (a pulled-back style).
        let skinFront = count(front) { r, g, b in r > 120 && r < 225 && abs(Int(r) - Int(b)) < 60 && r != 232 }
        let darkFront = count(front) { r, _, _ in r < 60 }, darkBack = count(back) { r, _, _ in r < 60 }
        XCTAssertGreaterThan(skinFront, 1500)
        XCTAssertGreaterThan(darkBack, darkFront)
        XCTAssertThrowsError(try engine.style("no-such-style")) { error in
            guard case CoifError.unknownStyle? = error as? CoifError else { return XCTFail("got \(error)") }
        }
    }
}
