// ImportTests: the groom importers read the real third-party files with the MANIFEST's counts, reject
// truncated copies as CoifError.assetFailed naming the file, and fitted grooms never enter Coif's head.
import CoifCore
@testable import CoifGroom
import CoifPipeline
import Foundation
import XCTest

final class ImportTests: XCTestCase {
    static let meshes = Fixtures.packageRoot.appendingPathComponent("Meshes")
    var hair3d: URL { Fixtures.testdata.appendingPathComponent("hair3d") }

    func require(_ relative: String) throws -> String {
        let path = hair3d.appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: path) else {
            print("ImportTests: skipping, \(path) not found (set COIF_TESTDATA)")
            throw XCTSkip("\(path) not found")
        }
        return path
    }

    func coifHead() throws -> HeadModel {
        func text(_ f: String) throws -> String { try String(contentsOf: Self.meshes.appendingPathComponent(f), encoding: .utf8) }
        return try HeadModel.load(objText: text("head.obj"), landmarksJSON: text("head-landmarks68.json"), name: "head.obj")
    }

    func assertAssetFailed(_ path: String, _ body: () throws -> Any, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), path, file: file, line: line) { error in
            guard case CoifError.assetFailed(let named, _)? = error as? CoifError else {
                return XCTFail("\(path): expected assetFailed, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(named, path, file: file, line: line)
        }
    }

    /// Copies of `source` cut at several offsets (inside the header, inside positions, near the end).
    func truncatedCopies(_ source: String, ext: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let dir = try Fixtures.temporaryDirectory("import-trunc-\(ext)")
        return [3, 100, 159, 161, data.count / 3, data.count / 2 + 7, data.count - 1].map { cut in
            let path = dir + "/cut\(cut).\(ext)"
            FileManager.default.createFile(atPath: path, contents: data.prefix(cut))
            return path
        }
    }

    func testTressFXReadsTheManifestCountsAndRejectsTruncation() throws {
        for (file, strands) in [("tressfx_sintel/GEO-sintel_hair_emit.001-sintel_hair.tfx", 228), ("tressfx_ratboy/Ratboy_mohawk.tfx", 2226)] {
            let path = try require(file)
            let groom = try GroomImport.readTFX(path: path)
            XCTAssertEqual(groom.strands.count, strands, file)
            XCTAssert(groom.strands.allSatisfy { $0.count == 32 }, file)
            for cut in try truncatedCopies(path, ext: "tfx") { assertAssetFailed(cut) { try GroomImport.readTFX(path: cut) } }
        }
    }

    func testUSCDataAndAssimpCurvesRoundTripSintel() throws {
        let sintel = try GroomImport.readTFX(path: try require("tressfx_sintel/GEO-sintel_hair_emit.001-sintel_hair.tfx")).strands
        let dir = try Fixtures.temporaryDirectory()
        // USC-HairSalon .data, with a bare 1-point strand that must be skipped.
        let dataPath = dir + "/sintel.data"
        FileManager.default.createFile(atPath: dataPath, contents: Data(GroomImport.uscDataBytes(sintel + [[Vec3(0, 0, 0)]])))
        let usc = try GroomImport.readUSCData(path: dataPath)
        XCTAssertEqual(usc.strands, sintel)
        for cut in try truncatedCopies(dataPath, ext: "data") { assertAssetFailed(cut) { try GroomImport.readUSCData(path: cut) } }
        // OBJ polylines through Assimp.
        var obj = ""
        for s in sintel { for p in s { obj += "v \(p.x) \(p.y) \(p.z)\n" } }
        for i in 0..<sintel.count { obj += "l " + (1...32).map { String(i * 32 + $0) }.joined(separator: " ") + "\n" }
        try obj.write(toFile: dir + "/sintel.obj", atomically: true, encoding: .utf8)
        let fromObj = try GroomImport.read(path: dir + "/sintel.obj")
        XCTAssertEqual(fromObj.strands.count, 228)
        XCTAssert(fromObj.strands.allSatisfy { $0.count == 32 })
        // glTF LINE_STRIP (mode 3), one primitive per strand, one embedded buffer.
        var floats: [Float] = []
        for s in sintel.prefix(10) { for p in s { floats += [p.x, p.y, p.z] } }
        let buffer = floats.withUnsafeBufferPointer { Data(buffer: $0) }.base64EncodedString()
        let primitives = (0..<10).map { "{\"attributes\": {\"POSITION\": \($0)}, \"mode\": 3}" }.joined(separator: ",")
        let accessors = (0..<10).map { i -> String in
            let s = sintel[i]
            let lo = s.reduce(s[0], pointwiseMin), hi = s.reduce(s[0], pointwiseMax)
            return "{\"bufferView\": 0, \"byteOffset\": \(i * 32 * 12), \"componentType\": 5126, \"count\": 32, \"type\": \"VEC3\", \"min\": [\(lo.x), \(lo.y), \(lo.z)], \"max\": [\(hi.x), \(hi.y), \(hi.z)]}"
        }.joined(separator: ",")
        let gltf = """
        {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
         "meshes": [{"primitives": [\(primitives)]}],
         "buffers": [{"byteLength": \(floats.count * 4), "uri": "data:application/octet-stream;base64,\(buffer)"}],
         "bufferViews": [{"buffer": 0, "byteLength": \(floats.count * 4)}], "accessors": [\(accessors)]}
        """
        try gltf.write(toFile: dir + "/strands.gltf", atomically: true, encoding: .utf8)
        let fromGLTF = try GroomImport.read(path: dir + "/strands.gltf")
        XCTAssertEqual(fromGLTF.strands.count, 10)
        XCTAssert(fromGLTF.strands.allSatisfy { $0.count == 32 }, "\(fromGLTF.strands.map(\.count))")
        try "v 1 2 3\nv garbage\nl 1 7\n".write(toFile: dir + "/bad.obj", atomically: true, encoding: .utf8)
        assertAssetFailed(dir + "/bad.obj") { try GroomImport.read(path: dir + "/bad.obj") }
    }

    /// Fitted grooms: every vertex outside Coif's head, roots on the scalp, nothing over the face.
    func testFittedGroomsStayOutsideTheHead() throws {
        let head = try coifHead()
        let sintelHair = try require("tressfx_sintel/GEO-sintel_hair_emit.001-sintel_hair.tfx")
        let cases: [(String, String?)] = [(sintelHair, try require("tressfx_sintel/sintel.obj")),
                                          (try require("tressfx_ratboy/Ratboy_mohawk.tfx"), nil)]
        for (path, headPath) in cases {
            let start = monotonicMs()
            let placed = try GroomImport.load(path: path, headPath: headPath, head: head)
            let loadMs = monotonicMs() - start
            var deepest: Float = .infinity, worstRoot: Float = 0
            for i in 0..<placed.strands.strandCount {
                let s = placed.strands.strand(i)
                worstRoot = max(worstRoot, abs(head.signedDistance(s.first!)))
                for p in s { deepest = min(deepest, head.signedDistance(p)) }
            }
            let name = (path as NSString).lastPathComponent
            print("ImportTests: \(name): scale \(fixed(placed.fit.scale, 2)), turned \(placed.fit.turned), source head \(placed.fit.usedSourceHead), read+fit \(fixed(loadMs, 1)) ms, deepest \(fixed(deepest, 2)) mm")
            XCTAssertGreaterThanOrEqual(deepest, 0, "\(name): a vertex is inside the head")
            XCTAssertLessThan(worstRoot, 1, "\(name): a root is off the scalp")
            XCTAssertEqual(placed.fit.usedSourceHead, headPath != nil)
            // Plausible size: the groom's root spread is head-sized (100–250 mm).
            let roots = (0..<placed.strands.strandCount).map { placed.strands.positions[$0 * placed.strands.pointsPerStrand] }
            let spread = roots.reduce(roots[0], pointwiseMax) - roots.reduce(roots[0], pointwiseMin)
            XCTAssert((60...260).contains(spread.y) || (60...260).contains(spread.z), "\(name): root spread \(spread)")
            // Children from it stay outside too (the LOD path a still takes); time it.
            let t0 = monotonicMs()
            let all = ChildInterpolation(childCount: 1000, pointsPerStrand: 16, seed: 1).apply(guides: placed.strands, head: head)
            print("ImportTests: \(name): \(placed.strands.strandCount) guides + 1000 children × 16 in \(fixed(monotonicMs() - t0, 1)) ms")
            XCTAssertGreaterThanOrEqual(all.positions.map(head.signedDistance).min()!, -0.5)
        }
    }

    /// A groom exported Z-up (either way) or upside down lands exactly where its Y-up original does: the
    /// up axis is read from the roots' cap, not assumed.
    func testUpAxisIsFoundFromTheScalp() throws {
        let head = try coifHead()
        let sintel = try GroomImport.readTFX(path: try require("tressfx_sintel/GEO-sintel_hair_emit.001-sintel_hair.tfx")).strands
        let original = GroomImport.fit(sintel, sourceHead: nil, to: head)
        XCTAssertEqual(original.quarterTurnsAboutX, 0, "Sintel is +y up")
        for k in 1...3 {
            // The file as a tool whose up axis is another would write it: k quarter turns the other way.
            let exported = sintel.map { $0.map { GroomFit.quarterTurnAboutX($0, 4 - k) } }
            let fit = GroomImport.fit(exported, sourceHead: nil, to: head)
            XCTAssertEqual(fit.quarterTurnsAboutX, k)
            var worst: Float = 0
            for (a, b) in zip(sintel.joined(), exported.joined()) { worst = max(worst, length(original.apply(a) - fit.apply(b))) }
            XCTAssertLessThan(worst, 0.01, "\(k) quarter turns: placed \(worst) mm away from the Y-up original")
        }
    }

    /// Ratboy's mohawk is stored −z up with no head mesh: fitted, its roots run front to back over the
    /// top of Coif's head along the mid-line, and its spikes stand up.
    func testRatboysMohawkStandsOnTheCrown() throws {
        let head = try coifHead()
        let placed = try GroomImport.load(path: try require("tressfx_ratboy/Ratboy_mohawk.tfx"), headPath: nil, head: head)
        XCTAssertEqual(placed.fit.quarterTurnsAboutX, 1, "the file is -z up")
        let centre = head.shape.craniumCentre
        let n = placed.strands.pointsPerStrand
        var up = Vec3.zero, rise: Float = 0
        var rootsLow = Vec3(repeating: .infinity), rootsHigh = Vec3(repeating: -.infinity)
        for i in 0..<placed.strands.strandCount {
            let root = placed.strands.positions[i * n], tip = placed.strands.positions[i * n + n - 1]
            up += normalize(root - centre)
            rise += tip.y - root.y
            rootsLow = pointwiseMin(rootsLow, root)
            rootsHigh = pointwiseMax(rootsHigh, root)
        }
        up = normalize(up)
        rise /= Float(placed.strands.strandCount)
        let spread = rootsHigh - rootsLow
        print("ImportTests: Ratboy: mean root direction \(up), tips \(fixed(rise, 1)) mm above roots, root spread \(spread)")
        XCTAssertGreaterThan(up.y, cos(Float.pi / 6), "the roots' mean direction from the cranium centre is within 30° of up")
        XCTAssertGreaterThan(rise, 10, "spikes stand up from their roots")
        XCTAssertLessThan(spread.x, 0.5 * spread.z, "a mohawk: a strip along the mid-line, longer front to back than wide")
    }

    func testImportWritesTheStyleAndCatalogEntry() throws {
        let hair = try require("tressfx_sintel/GEO-sintel_hair_emit.001-sintel_hair.tfx")
        let dir = try Fixtures.temporaryDirectory()
        try FileManager.default.copyItem(atPath: Self.meshes.appendingPathComponent("catalog.json").path, toPath: dir + "/catalog.json")
        let entry = try GroomImport.importStyle(path: hair, headPath: try require("tressfx_sintel/sintel.obj"), name: "sintel",
                                                meshesDirectory: dir, head: try coifHead()).entry
        let catalog = try StyleCatalog.parse(json: String(contentsOfFile: dir + "/catalog.json", encoding: .utf8))
        XCTAssertEqual(catalog.entry(named: "sintel"), entry)
        XCTAssertEqual(catalog.styles.count, try StyleCatalog.parse(json: String(contentsOf: Self.meshes.appendingPathComponent("catalog.json"), encoding: .utf8)).styles.count + 1)
        let groom = try Groom.load(objText: String(contentsOfFile: dir + "/" + entry.file, encoding: .utf8), name: entry.file,
                                   pointsPerStrand: entry.pointsPerGuide, rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
        XCTAssertEqual(groom.guides.strandCount, 228)
        XCTAssertEqual(entry.pointsPerGuide, 32)
        // Importing again replaces the entry rather than adding a second.
        try GroomImport.importStyle(path: hair, headPath: nil, name: "sintel", meshesDirectory: dir, head: try coifHead())
        XCTAssertEqual(try StyleCatalog.parse(json: String(contentsOfFile: dir + "/catalog.json", encoding: .utf8)).styles.filter { $0.name == "sintel" }.count, 1)
    }
}
