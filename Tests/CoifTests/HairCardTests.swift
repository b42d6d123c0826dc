// HairCardTests: hair cards (textured strips of quads, one per lock) written as real OBJ and glTF files and
// read back through Assimp become one strand per card, root first, along the card's centre line, whichever
// end of the texture the roots are at, and without texture coordinates too; a scalp cap shipped with the
// cards is not taken for a card; corrupt card files fail as CoifError.assetFailed naming the file; and a
// card groom lands on Coif's head like any other import.
import CoifCore
@testable import CoifGroom
import CoifPipeline
import Foundation
import XCTest

final class HairCardTests: XCTestCase {
    /// One synthetic card: a strip hanging from a sphere of radius 90 mm, its rows across it (a pointed
    /// card ends in a single vertex) and the curve its centre is meant to follow (1 mm steps).
    struct TestCard {
        var rows: [[Vec3]]
        var curve: [Vec3]
        var root: Vec3 { curve[0] }
        var tip: Vec3 { curve[curve.count - 1] }
        var lengthMm: Float { zip(curve.dropFirst(), curve).reduce(0) { $0 + length($1.0 - $1.1) } }
    }

    enum TextureLayout { case rootAtV0, rootAtV1, none }

    static func fraction(_ x: Float) -> Float { x - x.rounded(.down) }

    /// 30 cards over the top of a sphere of radius 90 mm centred at the origin (+y up): roots from 12° to
    /// 70° off the crown all around, 80–200 mm long, 6–10 quads, 8 mm wide tapering to 4 mm, every third
    /// one pointed. Each leaves the scalp outward, bends down under gravity and slides over the sphere
    /// (crown cards wrap over the head before they hang), so it curves in its own meridian plane.
    static func hairCards(count: Int = 30) -> [TestCard] {
        (0..<count).map { i in
            let f = Float(i)
            return card(azimuth: f * 2.399963, polarDegrees: 12 + 58 * fraction(f * 0.618034),
                        lengthMm: 80 + 120 * fraction(f * 0.414214 + 0.3), quads: 6 + i % 5, pointed: i % 3 == 0)
        }
    }

    /// A groom where neither simple per-card root rule holds: 24 long cards (250–330 mm) that pull the
    /// centroid of everything far below the head, 6 crown cards (120 mm) that lie over the head to the
    /// side and end nearer that centroid than their roots are, and 6 spikes standing up from the crown,
    /// whose tips are their higher ends.
    static func mixedGroom() -> [TestCard] {
        var cards: [TestCard] = []
        for i in 0..<24 {
            let f = Float(i)
            cards.append(card(azimuth: f * 2.399963, polarDegrees: 30 + 40 * fraction(f * 0.618034),
                              lengthMm: 250 + 80 * fraction(f * 0.414214), quads: 10, pointed: i % 2 == 0))
        }
        for i in 0..<6 {
            cards.append(card(azimuth: Float(i) * 1.047 + 0.3, polarDegrees: 10, lengthMm: 120, quads: 8, pointed: false))
            cards.append(card(azimuth: Float(i) * 1.047, polarDegrees: 6 + 2 * Float(i), lengthMm: 60, quads: 6,
                              pointed: true, lift: 10, gravity: 0))
        }
        return cards
    }

    /// One card from its root at `polarDegrees` off the crown and `azimuth`: it leaves the scalp along
    /// down-the-head + `lift` × outward, bends down by `gravity` per mm, and slides over the sphere of
    /// radius 91.5 mm once 5 mm out; rows at equal arc length, 8 mm wide tapering to 4 mm.
    static func card(azimuth: Float, polarDegrees: Float, lengthMm: Float, quads: Int, pointed: Bool,
                     lift: Float = 0.35, gravity: Float = 0.015) -> TestCard {
        let polar = polarDegrees * .pi / 180
        let outward = Vec3(sin(polar) * cos(azimuth), cos(polar), sin(polar) * sin(azimuth))
        let down = Vec3(cos(polar) * cos(azimuth), -sin(polar), cos(polar) * sin(azimuth))
        let side = Vec3(-sin(azimuth), 0, cos(azimuth))
        var p = outward * 90, direction = normalize(down + outward * lift)
        var curve = [p], arc: [Float] = [0]
        while arc[arc.count - 1] < lengthMm {
            direction = normalize(direction + Vec3(0, -gravity, 0))
            var next = p + direction
            if arc.count > 5 && length(next) < 91.5 { next = normalize(next) * 91.5 }
            arc.append(arc[arc.count - 1] + length(next - p))
            curve.append(next)
            p = next
        }
        var rows: [[Vec3]] = []
        for k in 0...quads {
            // The curve's point at arc length k/quads of the whole.
            let s = arc[arc.count - 1] * Float(k) / Float(quads)
            var j = 1
            while j < arc.count - 1 && arc[j] < s { j += 1 }
            let w = (s - arc[j - 1]) / max(arc[j] - arc[j - 1], 1e-6)
            let centre = curve[j - 1] + (curve[j] - curve[j - 1]) * min(max(w, 0), 1)
            let halfWidth = 4 - 2 * Float(k) / Float(quads)
            rows.append(k == quads && pointed ? [centre] : [centre - side * halfWidth, centre + side * halfWidth])
        }
        return TestCard(rows: rows, curve: curve)
    }

    /// Texture coordinates of card `i`, row `k` of `rows`, corner `c`: u across (its own slot in an atlas),
    /// v along, from the root end given by `layout`.
    static func uv(card i: Int, row k: Int, of rows: Int, corner c: Int, cornerCount: Int, layout: TextureLayout) -> SIMD2<Float> {
        let slot = Float(i % 10) * 0.1
        let u = cornerCount == 1 ? slot + 0.04 : slot + 0.08 * Float(c)
        let v = Float(k) / Float(rows - 1)
        return SIMD2(u, layout == .rootAtV1 ? 1 - v : v)
    }

    /// OBJ text: each card as `v`/`vt` and quads (a triangle at a pointed tip); with `scalp`, a textured
    /// scalp cap (radius 88 mm, down to 80° off the crown) in its own group, which is not a card.
    static func objText(_ cards: [TestCard], layout: TextureLayout, scalp: Bool) -> String {
        var out = "# hair cards for HairCardTests\n"
        var next = 1
        for (i, card) in cards.enumerated() {
            out += "g card\(i)\n"
            var index: [[Int]] = []
            for (k, row) in card.rows.enumerated() {
                var rowIndex: [Int] = []
                for (c, p) in row.enumerated() {
                    out += "v \(p.x) \(p.y) \(p.z)\n"
                    if layout != .none {
                        let t = uv(card: i, row: k, of: card.rows.count, corner: c, cornerCount: row.count, layout: layout)
                        out += "vt \(t.x) \(t.y)\n"
                    }
                    rowIndex.append(next)
                    next += 1
                }
                index.append(rowIndex)
            }
            func corner(_ n: Int) -> String { layout == .none ? " \(n)" : " \(n)/\(n)" }
            for k in 0..<index.count - 1 {
                let face = index[k + 1].count == 1 ? [index[k][0], index[k][1], index[k + 1][0]]
                                                   : [index[k][0], index[k][1], index[k + 1][1], index[k + 1][0]]
                out += "f" + face.map(corner).joined() + "\n"
            }
        }
        if scalp {
            out += "g scalp\n"
            let rings = 8, sectors = 16
            let pole = next
            out += "v 0 88 0\n" + (layout == .none ? "" : "vt 0.5 1\n")
            next += 1
            for r in 1...rings {
                let polar = Float(r) / Float(rings) * 80 * .pi / 180
                for s in 0..<sectors {
                    let azimuth = Float(s) / Float(sectors) * 2 * .pi
                    out += "v \(88 * sin(polar) * cos(azimuth)) \(88 * cos(polar)) \(88 * sin(polar) * sin(azimuth))\n"
                    if layout != .none { out += "vt \(Float(s) / Float(sectors)) \(1 - Float(r) / Float(rings))\n" }
                    next += 1
                }
            }
            func at(_ r: Int, _ s: Int) -> Int { pole + 1 + (r - 1) * sectors + s % sectors }
            func corner(_ n: Int) -> String { layout == .none ? " \(n)" : " \(n)/\(n)" }
            for s in 0..<sectors { out += "f" + [pole, at(1, s), at(1, s + 1)].map(corner).joined() + "\n" }
            for r in 1..<rings {
                for s in 0..<sectors { out += "f" + [at(r, s), at(r + 1, s), at(r + 1, s + 1), at(r, s + 1)].map(corner).joined() + "\n" }
            }
        }
        return out
    }

    /// Distance from `p` to the polyline `curve`.
    static func distance(_ p: Vec3, toCurve curve: [Vec3]) -> Float {
        var nearest = Float.infinity
        for j in 1..<curve.count { nearest = min(nearest, distanceToSegment(p, curve[j - 1], curve[j])) }
        return nearest
    }

    /// Checks that `strands` are `cards`, one each (matched by nearest root, which must be a one-to-one
    /// match): root and tip within `endMm` of the card's, every point within `curveMm` of its centre curve,
    /// and length within 3% of the card's.
    func assertStrands(_ strands: [[Vec3]], follow cards: [TestCard], endMm: Float, curveMm: Float, _ label: String,
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(strands.count, cards.count, "\(label): strand count", file: file, line: line)
        var matched = Set<Int>()
        var worstRoot: Float = 0, worstTip: Float = 0, worstCurve: Float = 0
        for strand in strands {
            guard let first = strand.first, let last = strand.last, strand.count >= 2 else {
                return XCTFail("\(label): a strand of \(strand.count) points", file: file, line: line)
            }
            guard let c = cards.indices.min(by: { length(cards[$0].root - first) < length(cards[$1].root - first) }) else { return }
            XCTAssert(matched.insert(c).inserted, "\(label): two strands start at card \(c)", file: file, line: line)
            let card = cards[c]
            worstRoot = max(worstRoot, length(first - card.root))
            worstTip = max(worstTip, length(last - card.tip))
            for p in strand { worstCurve = max(worstCurve, Self.distance(p, toCurve: card.curve)) }
            let strandLength = zip(strand.dropFirst(), strand).reduce(Float(0)) { $0 + length($1.0 - $1.1) }
            XCTAssertEqual(strandLength, card.lengthMm, accuracy: 0.03 * card.lengthMm, "\(label): card \(c) length", file: file, line: line)
        }
        print("HairCardTests: \(label): \(strands.count) strands, worst root \(fixed(worstRoot, 2)) mm, "
              + "tip \(fixed(worstTip, 2)) mm, off the curve \(fixed(worstCurve, 2)) mm")
        XCTAssertLessThanOrEqual(worstRoot, endMm, "\(label): a root is off its card's root", file: file, line: line)
        XCTAssertLessThanOrEqual(worstTip, endMm, "\(label): a tip is off its card's tip", file: file, line: line)
        XCTAssertLessThanOrEqual(worstCurve, curveMm, "\(label): a centre line leaves its card's curve", file: file, line: line)
    }

    func assertAssetFailed(_ path: String, _ body: () throws -> Any, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), path, file: file, line: line) { error in
            guard case CoifError.assetFailed(let named, _)? = error as? CoifError else {
                return XCTFail("\(path): expected assetFailed, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(named, path, file: file, line: line)
        }
    }

    /// Writes `cards` as an OBJ file in a fresh temporary folder and imports it.
    static func importOBJ(_ cards: [TestCard], layout: TextureLayout, scalp: Bool, name: String) throws -> ImportedStrands {
        let path = try Fixtures.temporaryDirectory() + "/\(name).obj"
        try objText(cards, layout: layout, scalp: scalp).write(toFile: path, atomically: true, encoding: .utf8)
        return try GroomImport.read(path: path)
    }

    // MARK: Tests

    /// Textured OBJ cards, roots at v = 0 in one file and at v = 1 in another, with a scalp cap: one strand
    /// per card on its centre line, root first, and the cap left out.
    func testTexturedOBJCardsGiveOneStrandPerCardRootFirstEitherWayRound() throws {
        let cards = Self.hairCards()
        for layout in [TextureLayout.rootAtV0, .rootAtV1] {
            let imported = try Self.importOBJ(cards, layout: layout, scalp: true, name: "cards-\(layout)")
            XCTAssertEqual(imported.format, "assimp-cards")
            assertStrands(imported.strands, follow: cards, endMm: 0.5, curveMm: 1, "OBJ \(layout)")
        }
    }

    /// The same cards with no texture coordinates: ordered by their shape, roots chosen per card.
    func testUntexturedOBJCardsGiveTheSameStrands() throws {
        let cards = Self.hairCards()
        let imported = try Self.importOBJ(cards, layout: .none, scalp: true, name: "cards")
        XCTAssertEqual(imported.format, "assimp-cards")
        assertStrands(imported.strands, follow: cards, endMm: 1, curveMm: 1, "OBJ without UVs")
    }

    /// Untextured cards whose roots neither the higher end nor the end nearer the centroid of everything
    /// finds for every card (see mixedGroom): each root is still found.
    func testUntexturedCardsOfAMixedGroomFindEveryRoot() throws {
        let cards = Self.mixedGroom()
        // The premise: each simple rule alone gets some card wrong.
        let everything = cards.flatMap(\.curve).reduce(Vec3.zero, +) / Float(cards.flatMap(\.curve).count)
        XCTAssert(cards.contains { $0.tip.y > $0.root.y }, "no card's root is its lower end")
        XCTAssert(cards.contains { length($0.tip - everything) < length($0.root - everything) }, "no tip is nearer the centroid")
        let imported = try Self.importOBJ(cards, layout: .none, scalp: false, name: "mixed")
        assertStrands(imported.strands, follow: cards, endMm: 1, curveMm: 1, "mixed groom without UVs")
    }

    /// glTF text: `cards` as TRIANGLES in one embedded buffer, positions in metres under a node scaled
    /// ×1000, every quad with its own four vertices (as an exporter splitting at seams writes them), with
    /// TEXCOORD_0 (root at the image's bottom, v = 0 after Assimp's flip) when `textured`. No final newline.
    static func gltfText(_ cards: [TestCard], textured: Bool) -> String {
        var positions: [Float] = [], uvs: [Float] = [], indices: [UInt32] = []
        for (i, card) in cards.enumerated() {
            for k in 0..<card.rows.count - 1 {
                let corners = card.rows[k + 1].count == 1 ? [(k, 0), (k, 1), (k + 1, 0)] : [(k, 0), (k, 1), (k + 1, 1), (k + 1, 0)]
                let base = UInt32(positions.count / 3)
                for (row, c) in corners {
                    let p = card.rows[row][c] / 1000
                    positions += [p.x, p.y, p.z]
                    let t = uv(card: i, row: row, of: card.rows.count, corner: c, cornerCount: card.rows[row].count, layout: .rootAtV0)
                    uvs += [t.x, 1 - t.y]  // glTF's v runs down the image
                }
                indices += corners.count == 3 ? [base, base + 1, base + 2] : [base, base + 1, base + 2, base, base + 2, base + 3]
            }
        }
        let vertexCount = positions.count / 3
        var bytes = Data()
        positions.withUnsafeBufferPointer { bytes.append(Data(buffer: $0)) }
        uvs.withUnsafeBufferPointer { bytes.append(Data(buffer: $0)) }
        indices.withUnsafeBufferPointer { bytes.append(Data(buffer: $0)) }
        var low = Vec3(repeating: .infinity), high = Vec3(repeating: -.infinity)
        for v in 0..<vertexCount {
            let p = Vec3(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2])
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        let positionBytes = positions.count * 4, uvBytes = uvs.count * 4, indexBytes = indices.count * 4
        let attributes = textured ? "{\"POSITION\": 0, \"TEXCOORD_0\": 1}" : "{\"POSITION\": 0}"
        return """
        {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
         "nodes": [{"mesh": 0, "scale": [1000, 1000, 1000]}],
         "meshes": [{"primitives": [{"attributes": \(attributes), "indices": 2, "mode": 4}]}],
         "buffers": [{"byteLength": \(bytes.count), "uri": "data:application/octet-stream;base64,\(bytes.base64EncodedString())"}],
         "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": \(positionBytes)},
                         {"buffer": 0, "byteOffset": \(positionBytes), "byteLength": \(uvBytes)},
                         {"buffer": 0, "byteOffset": \(positionBytes + uvBytes), "byteLength": \(indexBytes), "target": 34963}],
         "accessors": [{"bufferView": 0, "componentType": 5126, "count": \(vertexCount), "type": "VEC3",
                        "min": [\(low.x), \(low.y), \(low.z)], "max": [\(high.x), \(high.y), \(high.z)]},
                       {"bufferView": 1, "componentType": 5126, "count": \(vertexCount), "type": "VEC2"},
                       {"bufferView": 2, "componentType": 5125, "count": \(indices.count), "type": "SCALAR"}]}
        """
    }

    /// glTF cards (see gltfText), textured and not: node transform applied, the split quads welded back
    /// into one card each, triangulated cards sliced like quads; the file cut short fails naming it.
    func testGLTFCardsWithSplitQuadsAndANodeScaleGiveTheSameStrands() throws {
        let cards = Self.hairCards()
        let dir = try Fixtures.temporaryDirectory()
        for textured in [true, false] {
            let path = dir + "/cards-\(textured ? "uv" : "plain").gltf"
            try Self.gltfText(cards, textured: textured).write(toFile: path, atomically: true, encoding: .utf8)
            let imported = try GroomImport.read(path: path)
            XCTAssertEqual(imported.format, "assimp-cards")
            assertStrands(imported.strands, follow: cards, endMm: textured ? 0.5 : 1, curveMm: 1, textured ? "glTF" : "glTF without UVs")
        }

        // The same file cut short anywhere (no trailing newline: every cut breaks the JSON) fails naming it.
        let text = Data(Self.gltfText(cards, textured: true).utf8)
        for cut in [10, text.count / 3, text.count / 2 + 7, text.count - 40, text.count - 1] {
            let cutPath = dir + "/cut\(cut).gltf"
            FileManager.default.createFile(atPath: cutPath, contents: text.prefix(cut))
            assertAssetFailed(cutPath) { try GroomImport.read(path: cutPath) }
        }
    }

    /// Corrupt card files fail as one CoifError.assetFailed naming the file: a face past the last vertex,
    /// an OBJ cut before its faces, a mesh with no strip-shaped part, and a file with no geometry.
    func testCorruptCardFilesFailNamingTheFile() throws {
        let dir = try Fixtures.temporaryDirectory()
        let good = Self.objText(Self.hairCards(count: 5), layout: .rootAtV0, scalp: false)
        var cases: [(String, String)] = []
        cases.append(("index.obj", good + "f 1/1 2/2 999/999\n"))
        let vertexBlock = good.components(separatedBy: "\n").filter { !$0.hasPrefix("f ") }.joined(separator: "\n")
        cases.append(("cut.obj", String(vertexBlock.prefix(vertexBlock.count * 2 / 3))))
        cases.append(("scalp.obj", Self.objText([], layout: .rootAtV0, scalp: true)))
        cases.append(("empty.gltf", ""))
        for (name, text) in cases {
            let path = dir + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            assertAssetFailed(path) { try GroomImport.read(path: path) }
        }
        // The good file itself reads (so the failures above are the corruption's).
        try good.write(toFile: dir + "/good.obj", atomically: true, encoding: .utf8)
        XCTAssertEqual(try GroomImport.read(path: dir + "/good.obj").strands.count, 5)
    }

    /// End to end: a card groom fitted to Coif's head has its roots on the scalp, hangs down from them, and
    /// never enters the head.
    func testCardGroomSitsOnCoifsHead() throws {
        let cards = Self.hairCards()
        let path = try Fixtures.temporaryDirectory() + "/cards.obj"
        try Self.objText(cards, layout: .rootAtV1, scalp: true).write(toFile: path, atomically: true, encoding: .utf8)
        let head = try HeadModel.standard()
        let placed = try GroomImport.load(path: path, headPath: nil, head: head)
        XCTAssertEqual(placed.format, "assimp-cards")
        XCTAssertEqual(placed.strands.strandCount, cards.count)
        var worstRoot: Float = 0, deepest = Float.infinity, hanging = 0
        for i in 0..<placed.strands.strandCount {
            let s = placed.strands.strand(i)
            guard let root = s.first, let tip = s.last else { continue }
            worstRoot = max(worstRoot, abs(head.signedDistance(root)))
            for p in s { deepest = min(deepest, head.signedDistance(p)) }
            if tip.y < root.y - 20 { hanging += 1 }
        }
        print("HairCardTests: on Coif's head: scale \(fixed(placed.fit.scale, 2)), roots within \(fixed(worstRoot, 2)) mm, "
              + "deepest \(fixed(deepest, 2)) mm, \(hanging) of \(cards.count) hang")
        XCTAssertLessThanOrEqual(worstRoot, 2, "a root is off the scalp")
        XCTAssertGreaterThanOrEqual(deepest, -0.5, "a point is inside the head")
        // Every card hangs from its root (a strand read tip first would stand up from the scalp).
        XCTAssertEqual(hanging, cards.count)
        // The roots' sphere (radius 90 mm) was fitted onto Coif's scalp: a head-sized scale.
        XCTAssert((0.7...1.4).contains(placed.fit.scale), "scale \(placed.fit.scale)")
    }
}
