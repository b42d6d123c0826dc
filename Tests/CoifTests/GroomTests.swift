// GroomTests: the committed head and hairstyles load through real Assimp, sit on the head and stay out
// of it; the generator is deterministic and reproduces the committed Meshes/; children are deterministic
// and outside the head; damaged files fail as CoifError.assetFailed.
import CoifCore
@testable import CoifGroom
import Foundation
import XCTest

final class GroomTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let meshes = root.appendingPathComponent("Meshes")

    func text(_ relative: String) throws -> String {
        try String(contentsOf: Self.meshes.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The built-in styles, from the committed presets file.
    func presets(shape: HeadShape) throws -> [StyleParameters] {
        try StyleParameters.presets(json: text("style-presets.json"), shape: shape)
    }

    func loadHead() throws -> HeadModel {
        try HeadModel.load(objText: text("head.obj"), landmarksJSON: text("head-landmarks68.json"), name: "head.obj")
    }

    /// The AFLW landmark JSON, or an XCTSkip that says why not.
    func aflwJSON() throws -> String {
        let path = Fixtures.testdata.appendingPathComponent("headpose_aflw2000_3d/DERIVED_pose_landmarks.json").path
        guard FileManager.default.fileExists(atPath: path) else {
            print("GroomTests: skipping, test data not found at \(path) (set COIF_TESTDATA)")
            throw XCTSkip("test data not found at \(path) (set COIF_TESTDATA)")
        }
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    func testHeadLoadsWithLandmarksAndScalp() throws {
        let head = try loadHead()
        XCTAssertEqual(head.landmarks68.count, 68)
        XCTAssertGreaterThan(head.indices.count / 3, 3000)
        XCTAssertLessThanOrEqual(head.indices.count / 3, 6000)
        XCTAssertFalse(head.scalpTriangles.isEmpty)
        XCTAssertEqual(head.scalpTriangles.count % 3, 0)
        // Outer eye corners 90 mm apart; the nose tip in front of them; subject's left eye at +x.
        XCTAssertEqual(length(head.landmarks68[45] - head.landmarks68[36]), 90, accuracy: 0.01)
        XCTAssertGreaterThan(head.landmarks68[30].z, head.landmarks68[36].z)
        XCTAssertGreaterThan(head.landmarks68[45].x, 0)
        // The mesh is the distance field's zero set; a point far above is outside, the centre inside.
        for v in head.vertices { XCTAssertLessThan(abs(head.signedDistance(v)), 1.0) }
        XCTAssertLessThan(head.signedDistance(.zero), -50)
        XCTAssertGreaterThan(head.signedDistance(Vec3(0, 300, 0)), 100)
        XCTAssertEqual(length(head.surfaceNormal(Vec3(0, 200, 0)) - Vec3(0, 1, 0)), 0, accuracy: 0.05)
    }

    func testEveryCatalogStyleLoadsOnTheHead() throws {
        let head = try loadHead()
        let catalog = try StyleCatalog.parse(json: text("catalog.json"))
        XCTAssertEqual(catalog.defaultStyle, "bob")
        XCTAssertEqual(catalog.styles.first?.name, "bob")
        for name in ["bob", "long-straight", "pixie", "buzz-cut", "ponytail", "bun", "mohawk", "afro"] {
            XCTAssertNotNil(catalog.entry(named: name), name)
        }
        XCTAssertGreaterThanOrEqual(catalog.styles.count, 12)
        for entry in catalog.styles {
            let groom = try Groom.load(objText: text(entry.file), name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                       rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
            XCTAssertEqual(groom.guides.strandCount, entry.guides, entry.name)
            XCTAssertEqual(groom.guides.pointsPerStrand, entry.pointsPerGuide, entry.name)
            XCTAssert((250...600).contains(entry.guides), "\(entry.name): \(entry.guides) guides")
            // Curls get up to 97 points a guide (8 a turn); the committed files stay under 1 MB each.
            XCTAssertLessThanOrEqual(entry.pointsPerGuide, 97, entry.name)
            XCTAssertLessThanOrEqual(try Data(contentsOf: Self.meshes.appendingPathComponent(entry.file)).count, 1_000_000, entry.name)
            var worstRoot: Float = 0, deepest: Float = .infinity
            for i in 0..<groom.guides.strandCount {
                let strand = groom.guides.strand(i)
                worstRoot = max(worstRoot, abs(head.signedDistance(strand.first!)))
                for p in strand { deepest = min(deepest, head.signedDistance(p)) }
            }
            XCTAssertLessThanOrEqual(worstRoot, 2, "\(entry.name): a root is off the scalp")
            XCTAssertGreaterThanOrEqual(deepest, -0.5, "\(entry.name): a guide point is inside the head")
        }
    }

    func testBobLeavesTheFaceClear() throws {
        let head = try loadHead()
        let entry = try XCTUnwrap(StyleCatalog.parse(json: text("catalog.json")).entry(named: "bob"))
        let groom = try Groom.load(objText: text(entry.file), name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                   rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
        let l = head.landmarks68
        let browTop = (17...26).map { l[$0].y }.max()!
        let eyeHalfWidth = max(abs(l[36].x), abs(l[45].x))
        // In front of the head's centre, nothing between the outer eye corners below the brows + 7 mm.
        for p in groom.guides.positions where p.z > 0 && abs(p.x) < eyeHalfWidth && p.y > l[8].y {
            XCTAssertGreaterThanOrEqual(p.y, browTop + 7, "bob covers the face at \(p)")
        }
    }

    func testGeneratorIsDeterministicAndMatchesCommittedMeshes() throws {
        let json = try aflwJSON()
        // One generation per run (the generator is slow in debug builds): the committed files were written
        // by another process, so byte equality with them is also the run-to-run determinism check.
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("coif-groom-a-\(getpid())")
        defer { try? FileManager.default.removeItem(at: tmp) }
        let start = monotonicMs()
        let files = try MeshGeneration.generate(into: tmp.path, aflwLandmarksJSON: json, presetsJSON: text("style-presets.json"))
        print("GroomTests: generated \(files.count) files in \(fixed(monotonicMs() - start, 0)) ms")
        XCTAssertEqual(files.count, 4 + (try presets(shape: try loadHead().shape)).count)
        XCTAssertGreaterThanOrEqual(files.count, 15)
        for path in files {
            let relative = String(path.dropFirst(tmp.path.count + 1))
            let fresh = try Data(contentsOf: URL(fileURLWithPath: path))
            let committed = try Data(contentsOf: Self.meshes.appendingPathComponent(relative))
            XCTAssertEqual(fresh, committed, "Meshes/\(relative) is stale: run scripts/generate-meshes.sh")
        }
        XCTAssertLessThanOrEqual(try Data(contentsOf: tmp.appendingPathComponent("head.obj")).count, 400_000)
        for (image, rms) in try MeshGeneration.landmarkResidualsMm(aflwLandmarksJSON: json) {
            print("GroomTests: Procrustes RMS residual \(image): \(fixed(rms, 2)) mm")
            XCTAssertLessThan(rms, 8, image)
        }
    }

    /// Same parameters, same guides, in one process (one style: the full set is checked above).
    func testOneStyleGrowsIdenticallyTwice() throws {
        let head = try HeadGenerator.generate(aflwLandmarksJSON: try aflwJSON())
        var params = try presets(shape: head.shape).first { $0.name == "ponytail" }!
        params.targetGuides = 120
        let a = StyleGenerator.objText(StyleGenerator.generate(params, mesh: head.mesh, shape: head.shape))
        let b = StyleGenerator.objText(StyleGenerator.generate(params, mesh: head.mesh, shape: head.shape))
        XCTAssertEqual(a, b)
        params.seed &+= 1
        XCTAssertNotEqual(a, StyleGenerator.objText(StyleGenerator.generate(params, mesh: head.mesh, shape: head.shape)))
    }

    /// Children of every style keep off the face: no strand segment passes in front of it (a child blended
    /// from guides on both sides of the face used to zigzag across it at low point counts).
    func testNoChildSegmentCrossesTheFace() throws {
        let head = try loadHead()
        let catalog = try StyleCatalog.parse(json: text("catalog.json"))
        let interpolation = ChildInterpolation(childCount: 2000, pointsPerStrand: 8, seed: 3)
        for entry in catalog.styles {
            let groom = try Groom.load(objText: text(entry.file), name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                       rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
            let all = interpolation.apply(guides: groom.guides, head: head)
            var crossings = 0
            for i in groom.guides.strandCount..<all.strandCount {
                let strand = Array(all.strand(i))
                for k in 1..<strand.count where strand[k] != strand[k - 1] {
                    let middle = (strand[k] + strand[k - 1]) * 0.5
                    if StyleGenerator.inFaceBox(middle, shape: head.shape, clearance: interpolation.faceClearanceMm) { crossings += 1 }
                }
            }
            XCTAssertEqual(crossings, 0, "\(entry.name): \(crossings) child segments cross the face")
        }
    }

    /// A curl is drawn with at least 8 points a turn (4 a turn drew ringlets as zig-zags), and no guide
    /// segment passes in front of the face.
    func testGuidesFollowTheirCurlsAndKeepOffTheFace() throws {
        let head = try loadHead()
        let catalog = try StyleCatalog.parse(json: text("catalog.json"))
        var curled = 0
        for params in try presets(shape: head.shape) {
            let entry = try XCTUnwrap(catalog.entry(named: params.name), params.name)
            let groom = try Groom.load(objText: text(entry.file), name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                       rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
            if params.curlRadiusMm >= 1 && params.lengthMm > 0 {
                let turns = params.lengthMm / params.curlPeriodMm
                XCTAssertGreaterThanOrEqual(Float(entry.pointsPerGuide - 1), min(8 * turns, 96), "\(params.name): too few points a turn")
                if turns > 3 { curled += 1 }
            }
            var crossings = 0
            for i in 0..<groom.guides.strandCount {
                let strand = Array(groom.guides.strand(i))
                for k in 1..<strand.count where strand[k] != strand[k - 1] {
                    let middle = (strand[k] + strand[k - 1]) * 0.5
                    if StyleGenerator.inFaceBox(middle, shape: head.shape, clearance: params.fringeClearanceMm) { crossings += 1 }
                }
            }
            XCTAssertEqual(crossings, 0, "\(params.name): \(crossings) guide segments cross the face")
        }
        XCTAssertGreaterThanOrEqual(curled, 3, "curly, afro and long-wavy have several turns a strand")
    }

    /// A style without a fringe never hangs hair over the forehead: no guide point of a fringeless style lies
    /// in front of the forehead between the face's sides, within 10 mm above the fringe line. (Before the
    /// front hair was combed aside, long-straight's and the lob's front guides fell over the forehead and
    /// were cut there: a row of blunt ends above the brows, copied by every child blended from them.)
    func testFringelessStylesFrameTheFaceInsteadOfHangingOverTheForehead() throws {
        let head = try loadHead()
        let shape = head.shape
        let catalog = try StyleCatalog.parse(json: text("catalog.json"))
        let fringeLine = shape.browTopY
        var checked = 0
        for params in try presets(shape: shape) where params.fringeDepthMm == 0 && params.gatherDirection == nil {
            let entry = try XCTUnwrap(catalog.entry(named: params.name), params.name)
            let groom = try Groom.load(objText: text(entry.file), name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                       rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
            var hanging = 0
            for i in 0..<groom.guides.strandCount {
                hanging += groom.guides.strand(i).filter { p in
                    let line = fringeLine + params.fringeClearanceMm
                    return abs(p.x) < shape.faceHalfWidth - 5 && p.y > line && p.y < line + 10 && p.z > shape.craniumCentre.z + 40
                }.count
            }
            XCTAssertEqual(hanging, 0, "\(params.name): \(hanging) guide points hang over the forehead")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 6, "long-straight, long-wavy, the lob, curly, the afro and the buzz-cut have no fringe")
    }

    /// Across a centre part the guides comb apart; a child there follows one side instead of their average,
    /// which would hang straight down over the forehead and be cut off at the brows.
    func testChildrenAtAPartFollowOneSide() throws {
        let head = try loadHead()
        let entry = try XCTUnwrap(StyleCatalog.parse(json: text("catalog.json")).entry(named: "long-straight"))
        let groom = try Groom.load(objText: text(entry.file), name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                   rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
        let all = ChildInterpolation(childCount: 6000, pointsPerStrand: 16, seed: 5).apply(guides: groom.guides, head: head)
        var atPart = 0, cutShort = 0
        for i in groom.guides.strandCount..<all.strandCount {
            let strand = Array(all.strand(i))
            guard abs(strand[0].x) < 8, strand[0].z > 0, strand[0].y > head.shape.browTopY + 30 else { continue }
            atPart += 1
            if strand[strand.count - 1] == strand[strand.count - 2] { cutShort += 1 }
        }
        print("GroomTests: \(cutShort) of \(atPart) children at the part were cut off at the face")
        // Blending across the part cut 37% of them (53 of 145); following one side, 15% (children that
        // skirt the fringe line a few mm below their guide still are).
        XCTAssertGreaterThan(atPart, 50)
        XCTAssertLessThanOrEqual(Double(cutShort), 0.25 * Double(atPart))
    }

    func testChildInterpolationIsDeterministicAndOutsideTheHead() throws {
        let head = try loadHead()
        let entry = try XCTUnwrap(StyleCatalog.parse(json: text("catalog.json")).entry(named: "bob"))
        let groom = try Groom.load(objText: text(entry.file), name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                   rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
        let interpolation = ChildInterpolation(childCount: 6000, pointsPerStrand: 16, seed: 42, clump: 0.3, noiseMm: 1.5)
        let first = interpolation.apply(guides: groom.guides, head: head)
        let start = monotonicMs()
        let second = interpolation.apply(guides: groom.guides, head: head)
        print("GroomTests: 6000 children × 16 points in \(fixed(monotonicMs() - start, 2)) ms")
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.strandCount, groom.guides.strandCount + 6000)
        XCTAssertEqual(first.pointsPerStrand, 16)
        // Order independence: fewer children are a prefix of more children.
        let fewer = ChildInterpolation(childCount: 100, pointsPerStrand: 16, seed: 42, clump: 0.3, noiseMm: 1.5)
            .apply(guides: groom.guides, head: head)
        XCTAssertEqual(Array(fewer.positions), Array(first.positions.prefix(fewer.positions.count)))
        let other = ChildInterpolation(childCount: 6000, pointsPerStrand: 16, seed: 43, clump: 0.3, noiseMm: 1.5)
            .apply(guides: groom.guides, head: head)
        XCTAssertNotEqual(first, other)
        var deepest: Float = .infinity
        for p in first.positions { deepest = min(deepest, head.signedDistance(p)) }
        XCTAssertGreaterThanOrEqual(deepest, -0.5)
    }

    /// Flyaways: about the number asked for leave their path and end standing off the hair, farther from the
    /// head than where they left their lock, free for about their free length; they are flagged for the
    /// renderer (drawn a strand wide), and every other child is byte for byte the child it was without them.
    func testFlyawaysStandOffTheHairAndLeaveTheOtherStrandsAlone() throws {
        let head = try loadHead()
        let entry = try XCTUnwrap(StyleCatalog.parse(json: text("catalog.json")).entry(named: "bob"))
        let groom = try Groom.load(objText: text(entry.file), name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                   rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
        var plain = ChildInterpolation.standard(childCount: 3000, pointsPerStrand: 16, seed: 4)
        let flyaways = try XCTUnwrap(plain.flyaways, "the standard children have flyaways")
        plain.flyaways = nil
        let with = ChildInterpolation.standard(childCount: 3000, pointsPerStrand: 16, seed: 4).apply(guides: groom.guides, head: head)
        let without = plain.apply(guides: groom.guides, head: head)
        XCTAssertEqual(with.flyaways.count, with.strandCount)
        XCTAssertTrue(without.flyaways.isEmpty)
        let flagged = (0..<with.strandCount).filter { with.isFlyaway($0) }
        XCTAssertTrue(flagged.allSatisfy { $0 >= groom.guides.strandCount }, "guides never fly away")
        XCTAssertGreaterThan(flagged.count, flyaways.count / 2)
        XCTAssertLessThan(flagged.count, flyaways.count * 2)
        var standOff: [Float] = [], freeLengths: [Float] = []
        for i in 0..<with.strandCount {
            let a = Array(with.strand(i)), b = Array(without.strand(i))
            guard with.isFlyaway(i) else {
                XCTAssertEqual(a, b, "strand \(i) is not a flyaway and changed")
                continue
            }
            // Its end: the last point before those collapsed onto it; where it left: the first that moved.
            var end = a.count - 1
            while end > 0 && a[end] == a[end - 1] { end -= 1 }
            guard let left = (0...end).first(where: { a[$0] != b[$0] }), end < b.count else { continue }
            standOff.append(head.signedDistance(a[end]) - head.signedDistance(a[left - 1]))
            freeLengths.append(zip(a[(left - 1)..<end], a[left...end]).reduce(0) { $0 + length($1.1 - $1.0) })
        }
        standOff.sort()
        let median = standOff[standOff.count / 2]
        let outward = standOff.filter { $0 > 0 }.count
        print("GroomTests: \(flagged.count) flyaways of 3000 children; their ends \(fixed(median, 1)) mm farther from the head than where they left their locks (median), \(outward) of \(standOff.count) farther; free length up to \(fixed(freeLengths.max() ?? 0, 1)) mm")
        XCTAssertGreaterThan(median, 3, "a flyaway ends standing off the hair")
        XCTAssertGreaterThan(Double(outward), 0.75 * Double(standOff.count))
        // Its bend (up to 0.6 of the free length off the straight line) and sag lengthen the arc a little.
        XCTAssertLessThanOrEqual(freeLengths.max() ?? 0, flyaways.freeMm * 1.5, "a flyaway is free for its free length, then ends")
    }

    /// A coiled style (the afro's catalog entry carries its coil) winds every child around the path it takes
    /// without the coil, each out of step with its neighbours: past the fade-in, a child's points stray from
    /// the uncoiled child by about the coil's radius (never past its 1.3x jitter, plus the head's push-out),
    /// and the directions they stray in are spread round the circle, not shared.
    func testStrandCoilWindsEachChildOutOfStep() throws {
        let head = try loadHead()
        let entry = try XCTUnwrap(StyleCatalog.parse(json: text("catalog.json")).entry(named: "afro"))
        let coil = try XCTUnwrap(entry.strandCoil, "the afro's catalog entry names its coil")
        XCTAssertNil(try XCTUnwrap(StyleCatalog.parse(json: text("catalog.json")).entry(named: "bob")).strandCoil)
        let groom = try Groom.load(objText: text(entry.file), name: entry.file, pointsPerStrand: entry.pointsPerGuide,
                                   rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
        let children = 400, points = 60
        var plain = ChildInterpolation.standard(childCount: children, pointsPerStrand: points, seed: 9)
        plain.flyaways = nil   // a flyaway leaves its path: compare the coil alone
        var coiled = plain
        coiled.coil = coil
        plain.faceClearanceMm = -1000   // no face box: compare the paths themselves
        coiled.faceClearanceMm = -1000
        let a = plain.apply(guides: groom.guides, head: head), b = coiled.apply(guides: groom.guides, head: head)
        XCTAssertEqual(b, coiled.apply(guides: groom.guides, head: head), "deterministic")
        let first = groom.guides.strandCount
        var strays: [Float] = [], angles: [Float] = []
        for child in first..<(first + children) {
            let lo = child * points
            for j in (points / 3)..<points {
                let offset = b.positions[lo + j] - a.positions[lo + j]
                strays.append(length(offset))
            }
            // The direction child strays in at its middle point, about the strand's own tangent.
            let j = points / 2
            let tangent = normalize(a.positions[lo + j + 1] - a.positions[lo + j - 1])
            let offset = b.positions[lo + j] - a.positions[lo + j]
            var reference = cross(tangent, Vec3(0, 1, 0))
            if length(reference) < 0.1 { reference = cross(tangent, Vec3(1, 0, 0)) }
            reference = normalize(reference)
            angles.append(atan2(dot(offset, cross(tangent, reference)), dot(offset, reference)))
        }
        let mean = strays.reduce(0, +) / Float(strays.count)
        print(String(format: "GroomTests: strand coil %.1f mm: children stray %.2f mm on average", coil.radiusMm, mean))
        XCTAssertGreaterThan(mean, 0.6 * coil.radiusMm)
        XCTAssertLessThan(mean, 1.3 * coil.radiusMm)
        // Out of step: the mean direction of the strays (a unit vector per child) is short.
        let c = angles.map { cosf($0) }.reduce(0, +) / Float(angles.count), s = angles.map { sinf($0) }.reduce(0, +) / Float(angles.count)
        XCTAssertLessThan((c * c + s * s).squareRoot(), 0.3)
    }

    func testDamagedFilesFailAsAssetFailed() throws {
        let style = try text("styles/bob.obj")
        // Cut inside the vertex list: no polylines remain.
        let truncated = String(style.prefix(style.utf8.count / 3))
        for (label, body) in [("truncated", truncated), ("garbage", "\u{1}\u{2} not an obj at all {{{"), ("empty", "")] {
            XCTAssertThrowsError(try Groom.load(objText: body, name: label, pointsPerStrand: 16, rootWidthMm: 0.3,
                                                tipWidthMm: 0.1), label) { error in
                guard case CoifError.assetFailed(let path, _)? = error as? CoifError else {
                    return XCTFail("\(label): expected assetFailed, got \(error)")
                }
                XCTAssertEqual(path, label)
            }
        }
        let head = try text("head.obj")
        XCTAssertThrowsError(try HeadModel.load(objText: String(head.prefix(head.utf8.count / 2)),
                                                landmarksJSON: text("head-landmarks68.json"), name: "head.obj")) { error in
            guard case CoifError.assetFailed? = error as? CoifError else { return XCTFail("got \(error)") }
        }
        XCTAssertThrowsError(try StyleCatalog.parse(json: "{\"default\": 3")) { error in
            guard case CoifError.assetFailed? = error as? CoifError else { return XCTFail("got \(error)") }
        }
    }

    /// A preset keeps the Swift defaults for what it leaves out; its hem is relative to the chin.
    func testPresetsFillDefaultsAndPlaceTheHemByTheChin() throws {
        let shape = try loadHead().shape
        let json = """
            {"styles": [{"name": "plain", "description": "d", "tags": [], "lengthMm": 100, "minLengthMm": 50,
                         "hemFrontAboveChinMm": -20, "partX": 5, "seed": "0x1F", "gatherDirection": [0, 1, 0]},
                        {"name": "numbered", "description": "d", "tags": ["t"], "lengthMm": 10, "minLengthMm": 5, "seed": 7}]}
            """
        let styles = try StyleParameters.presets(json: json, shape: shape)
        let defaults = StyleParameters(name: "plain", description: "d", tags: [], lengthMm: 100, minLengthMm: 50)
        XCTAssertEqual(styles.map(\.name), ["plain", "numbered"])
        XCTAssertEqual(styles[0].hemYFront, shape.chinY - 20)
        XCTAssertNil(styles[0].hemYBack)
        XCTAssertEqual(styles[0].partX, 5)
        XCTAssertEqual(styles[0].seed, 0x1F)
        XCTAssertEqual(styles[0].gatherDirection, Vec3(0, 1, 0))
        XCTAssertEqual(styles[0].segments, defaults.segments)
        XCTAssertEqual(styles[0].gravityPerMm, defaults.gravityPerMm)
        XCTAssertEqual(styles[0].texture, defaults.texture)
        XCTAssertNil(styles[1].partX)
        XCTAssertEqual(styles[1].seed, 7)
        // The committed presets: the catalog's styles, in its order.
        let catalog = try StyleCatalog.parse(json: text("catalog.json"))
        XCTAssertEqual(try presets(shape: shape).map(\.name), catalog.styles.map(\.name))
    }

    /// A malformed presets file fails as assetFailed, naming the file and where in it.
    func testMalformedPresetsFailAsAssetFailed() throws {
        let shape = try loadHead().shape
        let head = #""name": "x", "description": "d", "tags": [], "lengthMm": 100, "minLengthMm": 50"#
        let cases: [(String, String, String)] = [
            ("not JSON", "{\"styles\": [", "not valid JSON"),
            ("no styles", #"{"styles": []}"#, "no styles"),
            ("missing field", #"{"styles": [{"name": "x", "description": "d", "tags": [], "lengthMm": 100}]}"#, "minLengthMm"),
            ("unknown field", #"{"styles": [{"# + head + #", "gravityPerMM": 0.1}]}"#, "styles[0].gravityPerMM"),
            ("wrong type", #"{"styles": [{"# + head + #", "segments": "many"}]}"#, "styles[0].segments"),
            ("bad seed", #"{"styles": [{"# + head + #", "seed": "B0B"}]}"#, "styles[0].seed"),
            ("bad direction", #"{"styles": [{"# + head + #", "gatherDirection": [0, 1]}]}"#, "gatherDirection"),
            ("twice", #"{"styles": [{"# + head + #"}, {"# + head + #"}]}"#, "styles[1].name"),
            ("bad name", #"{"styles": [{"# + head.replacingOccurrences(of: #""x""#, with: #""../x""#) + #"}]}"#, "styles[0].name"),
        ]
        for (label, json, mention) in cases {
            XCTAssertThrowsError(try StyleParameters.presets(json: json, shape: shape, path: "p.json"), label) { error in
                guard case CoifError.assetFailed(let path, let reason)? = error as? CoifError else {
                    return XCTFail("\(label): expected assetFailed, got \(error)")
                }
                XCTAssertEqual(path, "p.json", label)
                XCTAssertTrue(reason.contains(mention), "\(label): \(reason)")
            }
        }
    }

    /// The under-layer ends just behind the outermost roots and fills a part between them: none of its
    /// triangles reaches out over the forehead in front of the roots (where, drawn with one corner
    /// uncovered, their zig-zag edge was a row of dark teeth on every style), a 14-mm part is covered, and
    /// the layer's outline is transparent where its inside is opaque.
    func testTheUnderLayerEndsAtTheRootsAndFillsAPart() throws {
        let head = try loadHead()
        let scalp = Set(head.scalpTriangles.map { Int($0) }).sorted()
        let front = scalp.map { head.vertices[$0].z }.max()!
        // A root on every scalp vertex from 40 mm behind the scalp's front, none within 7 mm of the midline.
        let roots = scalp.map { head.vertices[$0] }.filter { $0.z < front - 40 && abs($0.x) > 7 }
        let guides = StrandSet(pointsPerStrand: 2, positions: roots.flatMap { [$0, $0 + head.surfaceNormal($0) * 10] })
        let layer = Groom(name: "test", guides: guides, rootWidthMm: 0.1, tipWidthMm: 0.1)
            .underLayer(head: head, radiusMm: Groom.underLayerRadiusMm)
        let corners = Set(layer.triangles.map { Int($0) })
        XCTAssertFalse(corners.isEmpty)
        let frontmostRoot = roots.map(\.z).max()!
        for c in corners where head.vertices[c].z > frontmostRoot {
            let nearest = roots.map { length($0 - head.vertices[c]) }.min()!
            XCTAssertLessThanOrEqual(nearest, Groom.underLayerRadiusMm, "corner \(c) reaches \(nearest) mm beyond the roots")
        }
        let layerFront = corners.map { head.vertices[$0].z }.max()!
        XCTAssertGreaterThan(layerFront, frontmostRoot - 10, "the layer reaches the roots' front row")
        // The part on top of the head, well inside the hair.
        let top = roots.map(\.y).max()!
        let onThePart = corners.filter { let p = head.vertices[$0]; return abs(p.x) < 2 && p.z < frontmostRoot - 20 && p.y > top - 25 }
        XCTAssertGreaterThan(onThePart.count, 3, "the part is covered")
        let covers = corners.map { layer.edgeCover[$0] }
        XCTAssertTrue(covers.contains(0), "the outline is transparent")
        XCTAssertTrue(covers.contains(1), "the inside is opaque")
        XCTAssertTrue(onThePart.allSatisfy { layer.edgeCover[$0] == 1 }, "a filled part is inside the layer, not its edge")
    }
}
