// GroomLoading: the model types the renderer uses (StrandSet, HeadModel, StyleCatalog, Groom) and their
// loaders. Files arrive as text in memory (embedded in the binary) and go through Assimp's
// aiImportFileFromMemory with the "obj" hint; failures become CoifError.assetFailed naming the asset.
// All positions are head space: millimetres, +x subject's left, +y up, +z toward the camera.
import CAssimp
import CoifCore
import Foundation

/// Strands with the same number of points each, in head space (mm); strand i occupies points
/// [i*P, (i+1)*P), root first. A flat array, ready to upload as one vertex buffer.
public struct StrandSet: Sendable, Equatable {
    public var pointsPerStrand: Int
    public var positions: [Vec3]
    /// Per strand, whether it is a flyaway: one loose fibre standing off the hair (ChildInterpolation's
    /// `StrandFlyaways`), drawn a fibre wide where the others are widened into locks. Empty: none is.
    public var flyaways: [Bool]

    public init(pointsPerStrand: Int, positions: [Vec3], flyaways: [Bool] = []) {
        precondition(pointsPerStrand >= 2 && positions.count % pointsPerStrand == 0, "ragged StrandSet")
        precondition(flyaways.isEmpty || flyaways.count == positions.count / pointsPerStrand, "one flyaway flag a strand")
        self.pointsPerStrand = pointsPerStrand
        self.positions = positions
        self.flyaways = flyaways
    }

    /// Whether strand `i` is a flyaway.
    public func isFlyaway(_ i: Int) -> Bool { i < flyaways.count && flyaways[i] }

    public var strandCount: Int { positions.count / pointsPerStrand }
    public var segmentCount: Int { strandCount * (pointsPerStrand - 1) }

    /// Strand `i`'s points.
    public func strand(_ i: Int) -> ArraySlice<Vec3> { positions[(i * pointsPerStrand)..<((i + 1) * pointsPerStrand)] }

    /// Every strand resampled to `count` points at equal arc length (root and tip kept).
    public func resampled(to count: Int) -> StrandSet {
        if count == pointsPerStrand { return self }
        var out: [Vec3] = []
        out.reserveCapacity(strandCount * count)
        for i in 0..<strandCount { out += StyleGenerator.resample(Array(strand(i)), count: count) }
        return StrandSet(pointsPerStrand: count, positions: out, flyaways: flyaways)
    }

    /// The mean length of up to `sampleStrands` evenly spaced strands, mm (0 with none): how much of the
    /// head one strand covers, for the level of detail.
    public func meanLengthMm(sampleStrands: Int = 64) -> Float {
        guard strandCount > 0, pointsPerStrand > 1 else { return 0 }
        var total: Float = 0, count = 0
        for i in sampled(sampleStrands) {
            let points = strand(i)
            var previous = points.first!
            for p in points.dropFirst() {
                total += length(p - previous)
                previous = p
            }
            count += 1
        }
        return total / Float(count)
    }

    /// Up to `sampleStrands` evenly spaced strands' indices (a few more where the count does not divide).
    func sampled(_ sampleStrands: Int) -> StrideTo<Int> {
        stride(from: 0, to: strandCount, by: max(1, strandCount / max(sampleStrands, 1)))
    }

    /// How far resampling to fewer points moves these strands, in mm: element n (2 ≤ n ≤ pointsPerStrand)
    /// is the 95th percentile, over up to `sampleStrands` evenly spaced strands, of the largest distance
    /// from a strand's point to its n-point resampling (elements 0 and 1 are infinite). A curl needs many points where straight hair needs
    /// few: the level of detail reads this so that it never draws a ringlet as a zig-zag.
    public func resamplingErrorsMm(sampleStrands: Int = 64) -> [Float] {
        let m = pointsPerStrand
        var errors = [Float](repeating: .infinity, count: m + 1)
        guard strandCount > 0 else { return errors }
        let sampled = Array(self.sampled(sampleStrands))
        // Each sampled strand's points and the fraction of its length at each point, found once.
        var points: [[Vec3]] = [], fractions: [[Float]] = []
        for i in sampled {
            let strandPoints = Array(strand(i))
            var fraction = [Float](repeating: 0, count: m)
            for j in 1..<m { fraction[j] = fraction[j - 1] + length(strandPoints[j] - strandPoints[j - 1]) }
            let total = fraction[m - 1]
            if total > 0 { for j in 0..<m { fraction[j] /= total } }
            points.append(strandPoints)
            fractions.append(fraction)
        }
        var perStrand = [Float](repeating: 0, count: sampled.count)
        for n in 2...m {
            for k in sampled.indices {
                let coarse = StyleGenerator.resample(points[k], count: n)
                var worst: Float = 0
                for j in 0..<m {
                    // Distance to the nearest coarse segment around the same fraction of arc length: the
                    // shape's error, not the slip of a point along the strand (chords are shorter than arcs).
                    let a = min(Int(min(max(fractions[k][j], 0), 1) * Float(n - 1)), n - 2)
                    var nearest = Float.infinity
                    for c in max(a - 2, 0)...min(a + 2, n - 2) {
                        nearest = min(nearest, distanceToSegment(points[k][j], coarse[c], coarse[c + 1]))
                    }
                    worst = max(worst, nearest)
                }
                perStrand[k] = worst
            }
            perStrand.sort()
            errors[n] = perStrand[min(perStrand.count - 1, Int((0.95 * Float(perStrand.count)).rounded(.up)) - 1)]
        }
        return errors
    }
}

/// The one check of groom geometry, for every groom that reaches the renderer: an imported file before it
/// is fitted (and its fit after), a catalog or user style as loaded. What passes can be fitted, gridded and
/// resampled without a non-finite number anywhere; what fails is `assetFailed` (exit 50) naming the file,
/// before anything is written.
public enum GroomGeometry {
    /// Every point finite, and the roots spanning a surface: at least 3 roots not all on one line (so not
    /// one strand, not all points equal). `points` are all the strands' points, `roots` their first ones.
    public static func check<Points: Sequence<Vec3>>(points: Points, roots: [Vec3], name: String) throws {
        for p in points where !(p.x.isFinite && p.y.isFinite && p.z.isFinite) {
            throw CoifError.assetFailed(path: name, reason: "a point is not a finite number (\(p.x), \(p.y), \(p.z))")
        }
        guard roots.count >= 3 else {
            throw CoifError.assetFailed(path: name, reason: "\(roots.count) strand(s); a groom needs at least 3 whose roots outline a scalp")
        }
        // The widest triangle over roots[0], the root farthest from it, and the root farthest from that line.
        let a = roots[0]
        let b = roots.max { length($0 - a) < length($1 - a) }!
        let ab = b - a
        let area = roots.map { length(cross(ab, $0 - a)) }.max()!
        // Relative to the roots' extent (a millimetre groom and a metre one alike), with float headroom.
        guard dot(ab, ab) > 0, area > 1e-4 * dot(ab, ab), area.isFinite else {
            throw CoifError.assetFailed(path: name, reason: dot(ab, ab) > 0 ? "the strand roots lie on one line" : "every strand root is at the same point")
        }
    }

    /// `check` over a strand set (every point; each strand's first point as its root).
    public static func check(_ strands: StrandSet, name: String) throws {
        try check(points: strands.positions, roots: (0..<strands.strandCount).map { strands.positions[$0 * strands.pointsPerStrand] }, name: name)
    }
}

/// Coif's head occluder: a closed triangle mesh (scalp included), the scalp's triangles, and the 68
/// reference landmarks the pose solver uses. Its distance field is `HeadShape`, rebuilt from the
/// landmarks, which is exactly the surface the generator meshed (so a head mesh from elsewhere would
/// need its own field: this is not a general mesh distance).
public struct HeadModel: Sendable {
    public var vertices: [Vec3]
    /// Triangles (index triples) of the whole head, scalp included.
    public var indices: [UInt32]
    /// The scalp's triangles, a subset of `indices`, as a triangle list.
    public var scalpTriangles: [UInt32]
    public var landmarks68: [Vec3] { didSet { shape = HeadShape(landmarks: landmarks68) } }
    /// The analytic head the mesh was made from.
    public private(set) var shape: HeadShape

    public init(vertices: [Vec3], indices: [UInt32], scalpTriangles: [UInt32], landmarks68: [Vec3]) {
        self.vertices = vertices
        self.indices = indices
        self.scalpTriangles = scalpTriangles
        self.landmarks68 = landmarks68
        self.shape = HeadShape(landmarks: landmarks68)
    }

    /// Loads head.obj (groups `head` and `scalp`) and head-landmarks68.json from their text. Vertices that
    /// share a position are welded (Assimp's OBJ reader gives every face corner its own vertex).
    public static func load(objText: String, landmarksJSON: String, name: String) throws -> HeadModel {
        let landmarks = try HeadGenerator.parseLandmarksJSON(landmarksJSON, name: name)
        var vertices: [Vec3] = []
        var indices: [UInt32] = []
        var scalp: [UInt32] = []
        try AssimpScene.withScene(objText, name: name) { scene in
            var weld: [SIMD3<UInt32>: UInt32] = [:]
            for m in 0..<Int(scene.mNumMeshes) {
                guard let mesh = scene.mMeshes[m]?.pointee else { continue }
                let meshName = AssimpScene.string(mesh.mName)
                let isScalp = meshName == "scalp"
                for f in 0..<Int(mesh.mNumFaces) {
                    let face = mesh.mFaces[f]
                    guard face.mNumIndices == 3 else { continue }
                    for k in 0..<3 {
                        let v = mesh.mVertices[Int(face.mIndices[k])]
                        let p = Vec3(v.x, v.y, v.z)
                        let key = SIMD3<UInt32>(p.x.bitPattern, p.y.bitPattern, p.z.bitPattern)
                        let index: UInt32
                        if let existing = weld[key] { index = existing } else {
                            index = UInt32(vertices.count)
                            weld[key] = index
                            vertices.append(p)
                        }
                        indices.append(index)
                        if isScalp { scalp.append(index) }
                    }
                }
            }
        }
        guard !indices.isEmpty else { throw CoifError.assetFailed(path: name, reason: "no triangles") }
        guard !scalp.isEmpty else { throw CoifError.assetFailed(path: name, reason: "no 'scalp' group") }
        return HeadModel(vertices: vertices, indices: indices, scalpTriangles: scalp, landmarks68: landmarks)
    }

    /// Signed distance (mm) to the head: negative inside. Analytic, a few hundred flops.
    public func signedDistance(_ p: Vec3) -> Float { shape.signedDistance(p) }
    /// Outward unit normal of the distance field at `p`.
    public func surfaceNormal(_ p: Vec3) -> Vec3 { shape.surfaceNormal(p) }
}

/// One hairstyle in the catalog.
public struct StyleEntry: Sendable, Codable, Equatable {
    public var name: String
    /// Path relative to Meshes/ ("styles/bob.obj").
    public var file: String
    public var description: String
    public var tags: [String]
    /// "short", "medium" or "long" (nil in catalogs written before these fields).
    public var length: String?
    /// "straight", "wavy", "curly", "coily", "textured", "spiked".
    public var texture: String?
    /// Face shapes the cut suits: oval, round, square, heart, long, diamond.
    public var faceShapes: [String]?
    public var guides: Int
    public var pointsPerGuide: Int
    public var rootWidthMm: Float
    public var tipWidthMm: Float
    /// Each child strand's own coil (`StyleParameters.strandCoilRadiusMm`); nil in catalogs without it.
    public var strandCoilRadiusMm: Float?
    public var strandCoilPeriodMm: Float?

    public init(name: String, file: String, description: String, tags: [String], length: String? = nil,
                texture: String? = nil, faceShapes: [String]? = nil, guides: Int, pointsPerGuide: Int,
                rootWidthMm: Float, tipWidthMm: Float, strandCoilRadiusMm: Float? = nil, strandCoilPeriodMm: Float? = nil) {
        self.name = name
        self.file = file
        self.description = description
        self.tags = tags
        self.length = length
        self.texture = texture
        self.faceShapes = faceShapes
        self.guides = guides
        self.pointsPerGuide = pointsPerGuide
        self.rootWidthMm = rootWidthMm
        self.tipWidthMm = tipWidthMm
        self.strandCoilRadiusMm = strandCoilRadiusMm
        self.strandCoilPeriodMm = strandCoilPeriodMm
    }

    /// The coil every child strand of this style gets, if any.
    public var strandCoil: StrandCoil? {
        guard let radius = strandCoilRadiusMm, radius > 0, let period = strandCoilPeriodMm, period > 0 else { return nil }
        return StrandCoil(radiusMm: radius, periodMm: period)
    }
}

/// Meshes/catalog.json: the built-in styles and which one is the default.
public struct StyleCatalog: Sendable, Codable, Equatable {
    public var defaultStyle: String
    public var styles: [StyleEntry]

    public init(defaultStyle: String, styles: [StyleEntry]) {
        self.defaultStyle = defaultStyle
        self.styles = styles
    }

    enum CodingKeys: String, CodingKey {
        case defaultStyle = "default"
        case styles
    }

    /// The ranges a catalog entry's numbers must lie in (docs/hostile-input.md): a million guide strands, a
    /// thousand points each, widths up to 10 mm (a card), coils up to 100 mm.
    public static let guideRange = 1...1_000_000
    public static let pointsPerGuideRange = 2...1_000
    public static let maxWidthMm: Float = 10
    public static let maxCoilMm: Float = 100

    public static func parse(json: String) throws -> StyleCatalog {
        let catalog: StyleCatalog
        do { catalog = try JSONDecoder().decode(StyleCatalog.self, from: Data(json.utf8)) } catch {
            throw CoifError.assetFailed(path: "catalog.json", reason: "unreadable catalog: \(error)")
        }
        guard catalog.entry(named: catalog.defaultStyle) != nil else {
            throw CoifError.assetFailed(path: "catalog.json", reason: "default style '\(catalog.defaultStyle)' is not listed")
        }
        // A catalog's files stay inside its folder: a relative path with no `..` (symbolic links inside the
        // folder are followed; whoever owns the folder put them there). A `file` of ../../../../etc/passwd was
        // read.
        for entry in catalog.styles {
            let parts = entry.file.split(separator: "/", omittingEmptySubsequences: false)
            guard !entry.file.isEmpty, !entry.file.hasPrefix("/"), !parts.contains("..") else {
                throw CoifError.assetFailed(path: "catalog.json",
                                            reason: "style '\(entry.name)': file '\(entry.file)' must be a path inside the catalog's folder (relative, no '..')")
            }
            // Every number has a range (a pointsPerGuide of 10⁸ allocated 96 GB and aborted; 2⁶³−1 overflowed).
            func check(_ ok: Bool, _ what: String) throws {
                guard ok else { throw CoifError.assetFailed(path: "catalog.json", reason: "style '\(entry.name)': \(what)") }
            }
            try check(Self.guideRange.contains(entry.guides), "guides must be \(Self.guideRange.lowerBound)…\(Self.guideRange.upperBound), got \(entry.guides)")
            try check(Self.pointsPerGuideRange.contains(entry.pointsPerGuide),
                      "pointsPerGuide must be \(Self.pointsPerGuideRange.lowerBound)…\(Self.pointsPerGuideRange.upperBound), got \(entry.pointsPerGuide)")
            for (name, width) in [("rootWidthMm", entry.rootWidthMm), ("tipWidthMm", entry.tipWidthMm)] {
                try check(width > 0 && width <= Self.maxWidthMm, "\(name) must be over 0 and at most \(Self.maxWidthMm), got \(width)")
            }
            for (name, value) in [("strandCoilRadiusMm", entry.strandCoilRadiusMm), ("strandCoilPeriodMm", entry.strandCoilPeriodMm)] {
                guard let value else { continue }
                try check(value > 0 && value <= Self.maxCoilMm, "\(name) must be over 0 and at most \(Self.maxCoilMm), got \(value)")
            }
        }
        return catalog
    }

    public func entry(named name: String) -> StyleEntry? { styles.first { $0.name == name } }
}

/// A loaded hairstyle: its guide strands and rendered widths.
public struct Groom: Sendable {
    public var name: String
    public var guides: StrandSet
    public var rootWidthMm: Float
    public var tipWidthMm: Float
    /// The coil each child strand gets around its interpolated path (coily styles); nil: none.
    public var strandCoil: StrandCoil?

    public init(name: String, guides: StrandSet, rootWidthMm: Float, tipWidthMm: Float, strandCoil: StrandCoil? = nil) {
        self.name = name
        self.guides = guides
        self.rootWidthMm = rootWidthMm
        self.tipWidthMm = tipWidthMm
        self.strandCoil = strandCoil
    }

    /// Loads OBJ `l` polylines through Assimp from memory. Assimp 5.2 returns each polyline as separate
    /// 2-point line primitives in one mesh (every primitive with its own vertex copies): strands are
    /// rebuilt by chaining segments whose start equals the previous segment's end, in file order, which
    /// costs one pass instead of aiProcess_JoinIdenticalVertices' spatial sort. Every strand is then
    /// resampled to `pointsPerStrand` points by arc length.
    public static func load(objText: String, name: String, pointsPerStrand: Int, rootWidthMm: Float,
                            tipWidthMm: Float) throws -> Groom {
        guard pointsPerStrand >= 2 else {
            throw CoifError.invalidOption(name: "pointsPerStrand", reason: "must be at least 2, got \(pointsPerStrand)")
        }
        var positions: [Vec3] = []
        var strandCount = 0
        try AssimpScene.withScene(objText, name: name) { scene in
            let strands = try AssimpScene.lineStrands(scene, name: name)
            positions.reserveCapacity(strands.count * pointsPerStrand)
            for strand in strands {
                // A strand that already has the catalog's point count is taken as written: resampling by
                // arc length would cut the corners of tight curls into the head.
                positions += strand.count == pointsPerStrand ? strand : StyleGenerator.resample(strand, count: pointsPerStrand)
            }
            strandCount = strands.count
        }
        guard strandCount > 0 else { throw CoifError.assetFailed(path: name, reason: "no polyline strands (OBJ 'l' elements)") }
        let guides = StrandSet(pointsPerStrand: pointsPerStrand, positions: positions)
        try GroomGeometry.check(guides, name: name)
        return Groom(name: name, guides: guides, rootWidthMm: rootWidthMm, tipWidthMm: tipWidthMm)
    }
}

/// Assimp from memory, with the scene released on every path.
enum AssimpScene {
    /// The scene's line primitives (OBJ `l`, glTF LINES/LINE_STRIP) chained into strands: Assimp 5.2 hands
    /// a polyline over as separate two-point segments, and a segment that starts where the previous one
    /// ended continues its strand. Chaining in order is linear; JoinIdenticalVertices would cost ~430 ms.
    static func lineStrands(_ scene: aiScene, name: String) throws -> [[Vec3]] {
        var strands: [[Vec3]] = []
        var current: [Vec3] = []
        current.reserveCapacity(64)
        func flush() {
            if current.count >= 2 { strands.append(current) }
            current.removeAll(keepingCapacity: true)
        }
        for m in 0..<Int(scene.mNumMeshes) {
            guard let mesh = scene.mMeshes[m]?.pointee else { continue }
            for f in 0..<Int(mesh.mNumFaces) {
                let face = mesh.mFaces[f]
                guard face.mNumIndices >= 2 else { continue }
                for k in 0..<Int(face.mNumIndices) {
                    let index = Int(face.mIndices[k])
                    guard index < Int(mesh.mNumVertices) else {
                        throw CoifError.assetFailed(path: name, reason: "line index out of range")
                    }
                    let v = mesh.mVertices[index]
                    let p = Vec3(v.x, v.y, v.z)
                    if k == 0 {
                        if let last = current.last, last == p { continue }
                        flush()
                    }
                    current.append(p)
                }
            }
            flush()
        }
        return strands
    }

    static func withScene(_ text: String, name: String, flags: UInt32 = 0, _ body: (aiScene) throws -> Void) throws {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw CoifError.assetFailed(path: name, reason: "empty file") }
        bytes.append(0)
        let scene = bytes.withUnsafeBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) { ptr in
                aiImportFileFromMemory(ptr, UInt32(buf.count - 1), flags, "obj")
            }
        }
        guard let scene else {
            let reason = String(cString: aiGetErrorString())
            throw CoifError.assetFailed(path: name, reason: "Assimp: \(reason.isEmpty ? "unreadable OBJ" : reason)")
        }
        defer { aiReleaseImport(scene) }
        if scene.pointee.mFlags & UInt32(AI_SCENE_FLAGS_INCOMPLETE) != 0 && scene.pointee.mNumMeshes == 0 {
            throw CoifError.assetFailed(path: name, reason: "Assimp: incomplete scene with no meshes")
        }
        try body(scene.pointee)
    }

    static func string(_ s: aiString) -> String {
        withUnsafeBytes(of: s.data) { raw in
            let count = min(Int(s.length), raw.count)
            return String(decoding: raw.prefix(count), as: UTF8.self)
        }
    }
}

extension Groom {
    /// How near (mm) a guide root must be to a scalp vertex for it to count as covered: guides are ~8–10 mm
    /// apart, so 6 mm closes the gaps between them.
    public static let underLayerRadiusMm: Float = 6
    /// How many rings of the head mesh's neighbours (~7 mm each) the under-layer's closing reaches: gaps
    /// inside the covered scalp up to about twice that wide (a part, the space between a buzz-cut's sparse
    /// guides) are filled. Without it the plate's skin showed there as pale bald patches.
    public static let underLayerClosingRings = 2

    /// The scalp this groom's roots cover, as its under-layer (see `UnderLayer`).
    ///
    /// A vertex is covered when it lies within `radiusMm` of some guide root, after a morphological closing
    /// over the mesh's neighbours (`underLayerClosingRings` rings grown, then as many shrunk): gaps inside
    /// the hair fill, the hair's outline stays where it was. A triangle is drawn when all three corners are
    /// covered, so the layer ends just behind the outermost roots and the strands growing there draw the
    /// hairline over it. (Triangles with two covered corners put the layer's zig-zag edge, a row of dark
    /// teeth, on the forehead in front of the roots of every style.)
    public func underLayer(head: HeadModel, radiusMm: Float) -> UnderLayer {
        let roots = (0..<guides.strandCount).map { guides.positions[$0 * guides.pointsPerStrand] }
        let limit = radiusMm * radiusMm
        var covered = head.vertices.map { p in roots.contains { let d = $0 - p; return dot(d, d) <= limit } }
        let neighbours = vertexNeighbours(vertexCount: head.vertices.count, triangles: head.indices)
        func grown(_ set: [Bool]) -> [Bool] { set.indices.map { v in set[v] || neighbours[v].contains { set[$0] } } }
        func shrunk(_ set: [Bool]) -> [Bool] { set.indices.map { v in set[v] && neighbours[v].allSatisfy { set[$0] } } }
        for _ in 0..<Self.underLayerClosingRings { covered = grown(covered) }
        for _ in 0..<Self.underLayerClosingRings { covered = shrunk(covered) }
        var triangles: [UInt32] = []
        var t = 0
        while t + 2 < head.scalpTriangles.count {
            let a = head.scalpTriangles[t], b = head.scalpTriangles[t + 1], c = head.scalpTriangles[t + 2]
            if covered[Int(a)] && covered[Int(b)] && covered[Int(c)] { triangles += [a, b, c] }
            t += 3
        }
        // The outline's vertices (covered, next to one that is not) are transparent: what one more shrink
        // leaves is opaque, and the triangles between the two fade the layer in.
        return UnderLayer(triangles: triangles, edgeCover: shrunk(covered).map { $0 ? 1 : 0 })
    }
}

/// A groom's under-layer: the scalp its roots cover, drawn (slightly inflated) as the hair's dense inner
/// volume, so the photo never shows through between strands on the crown; a bare nape or temple stays
/// open. Its edge fades over one ring of the head mesh (~7 mm), under the strands rooted there: a hard
/// edge drew the mesh's triangles as a dark line where the hair starts.
public struct UnderLayer: Sendable, Equatable {
    /// The head mesh's scalp triangles it draws (index triples).
    public var triangles: [UInt32]
    /// Per head vertex: how opaque the layer is there, 0 on its outline, 1 inside.
    public var edgeCover: [Float]

    public init(triangles: [UInt32], edgeCover: [Float]) {
        self.triangles = triangles
        self.edgeCover = edgeCover
    }
}

/// Distance from `p` to the segment from `a` to `b`.
@inline(__always) func distanceToSegment(_ p: Vec3, _ a: Vec3, _ b: Vec3) -> Float {
    let ab = b - a
    let lengthSquared = dot(ab, ab)
    guard lengthSquared > 0 else { return length(p - a) }
    let t = min(max(dot(p - a, ab) / lengthSquared, 0), 1)
    return length(p - (a + ab * t))
}
