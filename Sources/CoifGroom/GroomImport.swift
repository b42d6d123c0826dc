// GroomImport: brings grooms made elsewhere onto Coif's head. Readers for AMD TressFX `.tfx` (v4 binary),
// USC-HairSalon `.data`, Assimp-read curves (OBJ `l`, glTF LINES / LINE_STRIP) and Assimp-read hair cards
// (textured strips, one strand per card: see HairCards); a similarity fit of the groom onto Coif's head
// (scale, a facing flip about +y, translation) from the groom's own head mesh when given, else from its
// roots; root snapping and push-out against the head's distance field; the style OBJ and the catalog entry.
// Every malformed or truncated file fails as CoifError.assetFailed naming it.
// Not a retargeter: the groom keeps its own shape; no per-region warping to a different skull.
import CAssimp
import CoifCore
import Foundation

/// Strands as read from a file, in the file's own units and frame (assumed +y up, as TressFX, glTF and
/// USC-HairSalon all are); each strand root first, at least 2 points.
public struct ImportedStrands: Sendable {
    public var strands: [[Vec3]]
    /// "tfx", "usc-data" or "assimp".
    public var format: String
}

/// How a groom was placed on Coif's head: p_head = centreHead + scale · flip(p − centreSource).
public struct GroomFit: Sendable {
    public var scale: Float
    /// true when the groom faced −z and was turned 180° about +y.
    public var turned: Bool
    public var centreSource: Vec3
    public var centreHead: Vec3
    /// Whether the source head mesh (rather than the roots alone) set the fit.
    public var usedSourceHead: Bool
    /// Quarter turns about +x (0–3) applied first, bringing the file's up axis (+y, −z, −y or +z) to +y;
    /// `centreSource` is in the turned frame.
    public var quarterTurnsAboutX: Int = 0

    public func apply(_ p: Vec3) -> Vec3 {
        var q = (Self.quarterTurnAboutX(p, quarterTurnsAboutX) - centreSource) * scale
        if turned { q = Vec3(-q.x, q.y, -q.z) }
        return centreHead + q
    }

    /// `p` turned `k` quarter turns about +x (right-handed: the first takes −z to +y).
    static func quarterTurnAboutX(_ p: Vec3, _ k: Int) -> Vec3 {
        switch k & 3 {
        case 1: return Vec3(p.x, -p.z, p.y)
        case 2: return Vec3(p.x, -p.y, -p.z)
        case 3: return Vec3(p.x, p.z, -p.y)
        default: return p
        }
    }

    /// The quarter turns about +x that bring a scalp's up direction to +y: `up` is the way from the
    /// roots' sphere centre to the roots' mean (the roots cap the top of a head, whatever the hair does
    /// below them), snapped to the nearest of ±y, ±z. 0 when it is shorter than a fifth of the radius (no
    /// clear cap) so a groom that is already +y up is never turned on weak evidence.
    static func quarterTurnsBringingUp(_ up: Vec3, radius: Float) -> Int {
        guard (up.y * up.y + up.z * up.z).squareRoot() > 0.2 * radius else { return 0 }
        if abs(up.y) >= abs(up.z) { return up.y > 0 ? 0 : 2 }
        return up.z < 0 ? 1 : 3
    }
}

public enum GroomImport {
    // MARK: Readers

    /// Reads any supported groom file by its extension: .tfx, .data, else Assimp (.obj, .gltf, .glb, …).
    public static func read(path: String) throws -> ImportedStrands {
        switch (path as NSString).pathExtension.lowercased() {
        case "tfx": return try readTFX(path: path)
        case "data": return try readUSCData(path: path)
        default: return try readAssimpCurves(path: path)
        }
    }

    /// The most points a groom may hold, all its strands' together: 2^24 (16,777,216), about 200 MB as Coif
    /// reads them, where the largest published grooms hold a few million (TressFX's Ruby about 3 million). A
    /// well-formed 1 GB `.tfx` of 64 million points aborted for memory under a 3 GB address-space limit.
    public static let maxPoints = 1 << 24
    /// The largest groom file read (binary readers and Assimp's alike): 512 MiB, from its size before a byte
    /// is read.
    public static let maxFileBytes = 512 << 20

    /// `path`'s bytes, once its size is known to be within `maxFileBytes`.
    static func bytes(_ path: String) throws -> [UInt8] {
        try checkFileSize(path)
        guard let data = FileManager.default.contents(atPath: path) else { throw CoifError.inputMissing(path: path) }
        return [UInt8](data)
    }

    /// Refuses (exit 50) a groom file over `maxFileBytes`, from its size; a missing file is left to the read.
    static func checkFileSize(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0, Int(info.st_size) > maxFileBytes else { return }
        throw CoifError.assetFailed(path: path, reason: "\(info.st_size) bytes, over the \(maxFileBytes >> 20) MiB a groom file may be")
    }

    /// Refuses (exit 50) a groom of more than `maxPoints` points.
    static func checkPoints(_ points: Int, path: String, format: String) throws {
        guard points > maxPoints else { return }
        throw CoifError.assetFailed(path: path, reason: "\(format): \(points) points, over the \(maxPoints) a groom may hold")
    }

    @inline(__always) static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
    @inline(__always) static func f32(_ b: [UInt8], _ at: Int) -> Float { Float(bitPattern: u32(b, at)) }

    /// AMD TressFX v4 binary (TressFXAsset.h's TressFXTFXFileHeader, little-endian): float version; uint32
    /// numHairStrands, numVerticesPerStrand, offsetVertexPosition, offsetStrandUV, offsetVertexUV,
    /// offsetStrandThickness, offsetVertexColor; 32 reserved uint32 — 160 bytes. Positions are
    /// numHairStrands × numVerticesPerStrand float4 (xyz + inverse mass) at offsetVertexPosition; strand UVs
    /// (float2 per strand) follow when offsetStrandUV is set. Every referenced block must lie in the file.
    public static func readTFX(path: String) throws -> ImportedStrands {
        let b = try bytes(path)
        func fail(_ reason: String) -> CoifError { .assetFailed(path: path, reason: "TressFX: \(reason)") }
        guard b.count >= 160 else { throw fail("\(b.count) bytes, shorter than the 160-byte header") }
        let version = f32(b, 0)
        guard version.isFinite, version >= 1, version < 5 else { throw fail("version \(version) is not a TressFX 1–4 file") }
        let strands = Int(u32(b, 4)), perStrand = Int(u32(b, 8)), positions = Int(u32(b, 12))
        let strandUV = Int(u32(b, 16)), vertexUV = Int(u32(b, 20)), thickness = Int(u32(b, 24)), colour = Int(u32(b, 28))
        guard strands > 0, strands < 10_000_000 else { throw fail("strand count \(strands)") }
        guard perStrand >= 2, perStrand <= 4096 else { throw fail("\(perStrand) vertices per strand") }
        let vertices = strands * perStrand
        try checkPoints(vertices, path: path, format: "TressFX")
        guard positions >= 160, positions + vertices * 16 <= b.count else {
            throw fail("positions (\(vertices) float4 at offset \(positions)) run past the end of the \(b.count)-byte file")
        }
        for (name, offset, size) in [("strand UVs", strandUV, strands * 8), ("vertex UVs", vertexUV, vertices * 8),
                                     ("thickness", thickness, vertices * 4), ("colours", colour, vertices * 16)] where offset != 0 {
            guard offset >= 160, offset + size <= b.count else {
                throw fail("\(name) (\(size) bytes at offset \(offset)) run past the end of the \(b.count)-byte file")
            }
        }
        var out: [[Vec3]] = []
        out.reserveCapacity(strands)
        for s in 0..<strands {
            var strand: [Vec3] = []
            strand.reserveCapacity(perStrand)
            for k in 0..<perStrand {
                let at = positions + (s * perStrand + k) * 16
                let p = Vec3(f32(b, at), f32(b, at + 4), f32(b, at + 8))
                guard p.x.isFinite, p.y.isFinite, p.z.isFinite else { throw fail("non-finite position in strand \(s)") }
                strand.append(p)
            }
            out.append(strand)
        }
        return ImportedStrands(strands: out, format: "tfx")
    }

    /// USC-HairSalon `.data`: int32 strand count, then per strand int32 point count and that many float32
    /// xyz (little-endian). Strands of 0 or 1 points (bare scalp samples) are skipped; the file must end
    /// exactly after the last strand.
    public static func readUSCData(path: String) throws -> ImportedStrands {
        let b = try bytes(path)
        func fail(_ reason: String) -> CoifError { .assetFailed(path: path, reason: "USC-HairSalon .data: \(reason)") }
        guard b.count >= 4 else { throw fail("\(b.count) bytes, no strand count") }
        let count = Int(Int32(bitPattern: u32(b, 0)))
        guard count > 0, count <= 10_000_000 else { throw fail("strand count \(count)") }
        var at = 4, total = 0
        var out: [[Vec3]] = []
        for s in 0..<count {
            guard at + 4 <= b.count else { throw fail("truncated at strand \(s) of \(count) (offset \(at))") }
            let points = Int(Int32(bitPattern: u32(b, at)))
            at += 4
            guard points >= 0, points <= 100_000 else { throw fail("strand \(s) has \(points) points") }
            total += points
            try checkPoints(total, path: path, format: "USC-HairSalon .data")
            guard at + points * 12 <= b.count else { throw fail("truncated in strand \(s) of \(count) (offset \(at))") }
            var strand: [Vec3] = []
            strand.reserveCapacity(points)
            for _ in 0..<points {
                let p = Vec3(f32(b, at), f32(b, at + 4), f32(b, at + 8))
                guard p.x.isFinite, p.y.isFinite, p.z.isFinite else { throw fail("non-finite point in strand \(s)") }
                strand.append(p)
                at += 12
            }
            if strand.count >= 2 { out.append(strand) }
        }
        guard at == b.count else { throw fail("\(b.count - at) bytes after the last strand") }
        guard !out.isEmpty else { throw fail("no strand with 2 or more points") }
        return ImportedStrands(strands: out, format: "usc-data")
    }

    /// Writes strands as USC-HairSalon `.data` (for tests and for handing grooms to research tools).
    public static func uscDataBytes(_ strands: [[Vec3]]) -> [UInt8] {
        var out: [UInt8] = []
        func put(_ v: UInt32) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        put(UInt32(strands.count))
        for s in strands {
            put(UInt32(s.count))
            for p in s { put(p.x.bitPattern); put(p.y.bitPattern); put(p.z.bitPattern) }
        }
        return out
    }

    /// Curves through Assimp from a file: OBJ `l`, glTF LINES / LINE_STRIP (node transforms applied).
    /// Line primitives are chained into strands where a segment starts at the previous one's end. A file
    /// with no line primitives but polygons is read as hair cards (HairCards): one strand per card, its
    /// centre line root first, format "assimp-cards".
    public static func readAssimpCurves(path: String) throws -> ImportedStrands {
        guard FileManager.default.isReadableFile(atPath: path) else { throw CoifError.inputMissing(path: path) }
        try checkFileSize(path)
        // Node transforms only, for cards too. Triangulate is not needed (cards are split and sliced over
        // faces of any corner count) and JoinIdenticalVertices would cost ~430 ms on a large line file while
        // still keeping copies of a vertex with different UVs apart: HairCards welds by position itself.
        guard let scene = aiImportFile(path, UInt32(aiProcess_PreTransformVertices.rawValue)) else {
            throw CoifError.assetFailed(path: path, reason: "Assimp: \(String(cString: aiGetErrorString()))")
        }
        defer { aiReleaseImport(scene) }
        if !HairCards.hasLinePrimitives(scene.pointee) && HairCards.polygonCount(scene.pointee) > 0 {
            return ImportedStrands(strands: try HairCards.strands(scene.pointee, name: path), format: "assimp-cards")
        }
        let strands = try AssimpScene.lineStrands(scene.pointee, name: path)
        guard !strands.isEmpty else { throw CoifError.assetFailed(path: path, reason: "no line strands (OBJ 'l', glTF LINES/LINE_STRIP)") }
        try checkPoints(strands.reduce(0) { $0 + $1.count }, path: path, format: "Assimp curves")
        return ImportedStrands(strands: strands, format: "assimp")
    }

    /// The vertices of a head mesh (any format Assimp reads, node transforms applied).
    public static func readMeshVertices(path: String) throws -> [Vec3] {
        guard FileManager.default.isReadableFile(atPath: path) else { throw CoifError.inputMissing(path: path) }
        guard let scene = aiImportFile(path, UInt32(aiProcess_PreTransformVertices.rawValue)) else {
            throw CoifError.assetFailed(path: path, reason: "Assimp: \(String(cString: aiGetErrorString()))")
        }
        defer { aiReleaseImport(scene) }
        var out: [Vec3] = []
        for m in 0..<Int(scene.pointee.mNumMeshes) {
            guard let mesh = scene.pointee.mMeshes[m]?.pointee else { continue }
            for i in 0..<Int(mesh.mNumVertices) { let v = mesh.mVertices[i]; out.append(Vec3(v.x, v.y, v.z)) }
        }
        guard out.count >= 10 else { throw CoifError.assetFailed(path: path, reason: "no mesh vertices") }
        return out
    }

    // MARK: Fitting

    /// A sphere symmetric about x = mean x (the head's mid-sagittal plane), least squares in
    /// (x − cx)² + y² + z² = 2·cy·y + 2·cz·z + k: well posed for a cap or a strip over the top.
    static func symmetricSphere(_ points: [Vec3]) -> (centre: Vec3, radius: Float) {
        let n = Double(points.count)
        let cx = points.reduce(0.0) { $0 + Double($1.x) } / n
        var a = [[Double]](repeating: [0, 0, 0, 0], count: 3)
        for p in points {
            let x = Double(p.x) - cx, y = Double(p.y), z = Double(p.z)
            let row = [2 * y, 2 * z, 1.0], rhs = x * x + y * y + z * z
            for r in 0..<3 { for c in 0..<3 { a[r][c] += row[r] * row[c] }; a[r][3] += row[r] * rhs }
        }
        // Gaussian elimination with partial pivoting on the 3×4 augmented matrix.
        for col in 0..<3 {
            var pivot = col
            for r in col..<3 where abs(a[r][col]) > abs(a[pivot][col]) { pivot = r }
            a.swapAt(col, pivot)
            guard abs(a[col][col]) > 1e-12 else { continue }
            for r in 0..<3 where r != col {
                let f = a[r][col] / a[col][col]
                for c in col..<4 { a[r][c] -= f * a[col][c] }
            }
        }
        let cy = a[0][3] / a[0][0], cz = a[1][3] / a[1][1], k = a[2][3] / a[2][2]
        let r2 = k + cy * cy + cz * cz
        return (Vec3(Float(cx), Float(cy), Float(cz)), Float(max(r2, 1e-6).squareRoot()))
    }

    /// Coif's scalp as a sphere (fitted to its scalp vertices above the hairline), cached per head.
    static func headSphere(_ head: HeadModel) -> (centre: Vec3, radius: Float) {
        var seen = Set<UInt32>()
        var points: [Vec3] = []
        for i in head.scalpTriangles where seen.insert(i).inserted {
            let p = head.vertices[Int(i)]
            if head.shape.isScalp(p) { points.append(p) }
        }
        return symmetricSphere(points)
    }

    /// The similarity that puts `strands` on Coif's head: the source scalp sphere (from the source head's
    /// vertices near the roots when given, else from the roots) onto Coif's scalp sphere; the groom is
    /// turned 180° about +y when its hair mass sits in front of that centre (hair covers the back).
    public static func fit(_ strands: [[Vec3]], sourceHead: [Vec3]?, to head: HeadModel) -> GroomFit {
        // Bring the file's up axis to +y first: DCC tools export Z-up as often as Y-up, and a Z-up groom
        // read as Y-up would be fitted lying on its side. The quarter turn keeps x (both heads' left–right
        // axis) and so the mid-sagittal plane the sphere fit relies on.
        let fileRoots = strands.map { $0[0] }
        let fileSphere = symmetricSphere(fileRoots)
        let fileMean = fileRoots.reduce(Vec3.zero, +) / Float(fileRoots.count)
        let quarterTurns = GroomFit.quarterTurnsBringingUp(fileMean - fileSphere.centre, radius: fileSphere.radius)
        let roots = fileRoots.map { GroomFit.quarterTurnAboutX($0, quarterTurns) }
        let sourceHead = sourceHead?.map { GroomFit.quarterTurnAboutX($0, quarterTurns) }
        var sphere = symmetricSphere(roots)
        var usedHead = false
        if let sourceHead, sphere.radius.isFinite {
            // Scalp vertices of the source head: within 15% of the root sphere's radius of some root.
            let reach = sphere.radius * 0.15, limit = reach * reach
            let grid = SpatialGrid(points: roots, cellMm: reach)
            let scalp = sourceHead.filter { q in
                grid.contains(near: q, radius: reach) { let d = roots[$0] - q; return dot(d, d) <= limit }
            }
            if scalp.count >= 20 { sphere = symmetricSphere(scalp); usedHead = true }
        }
        let target = headSphere(head)
        let meanRoot = roots.reduce(Vec3.zero, +) / Float(roots.count)
        let behind = meanRoot.z - sphere.centre.z
        // Hair mass in front of the centre means the groom faces −z.
        let turned = behind > 0.05 * sphere.radius
        return GroomFit(scale: target.radius / sphere.radius, turned: turned, centreSource: sphere.centre,
                        centreHead: target.centre, usedSourceHead: usedHead, quarterTurnsAboutX: quarterTurns)
    }

    /// Applies `fit`, snaps each root onto the scalp (moving its strand with it), resamples to
    /// `pointsPerStrand`, keeps the frontal face clear and pushes every point `marginMm` outside the head.
    public static func place(_ strands: [[Vec3]], fit: GroomFit, head: HeadModel, pointsPerStrand: Int,
                             marginMm: Float = 1, faceClearanceMm: Float = 8) -> StrandSet {
        let shape = head.shape
        var out: [Vec3] = []
        out.reserveCapacity(strands.count * pointsPerStrand)
        for strand in strands {
            var s = StyleGenerator.resample(strand.map(fit.apply), count: pointsPerStrand)
            var root = s[0]
            for _ in 0..<4 { root -= shape.surfaceNormal(root) * shape.signedDistance(root) }
            root += shape.surfaceNormal(root) * 0.3
            let delta = root - s[0]
            s[0] = root
            for j in 1..<s.count {
                var p = s[j] + delta
                p = StyleGenerator.keepOffFace(p, shape: shape, clearance: faceClearanceMm)
                s[j] = pushOut(p, shape: shape, margin: marginMm)
            }
            out += s
        }
        return StrandSet(pointsPerStrand: pointsPerStrand, positions: out)
    }

    /// `HeadShape.pushOutside` with enough Newton steps for points deep inside (imported grooms may start
    /// well inside Coif's head).
    static func pushOut(_ p: Vec3, shape: HeadShape, margin: Float) -> Vec3 {
        var q = p
        for _ in 0..<16 {
            let d = shape.signedDistance(q)
            if d >= margin { break }
            q += shape.surfaceNormal(q) * (margin - d + 0.01)
        }
        return q
    }

    /// Reads, fits and places a groom file: the style's guides on Coif's head, with how it was fitted.
    public static func load(path: String, headPath: String?, head: HeadModel, maxPointsPerStrand: Int = 32)
        throws -> (strands: StrandSet, fit: GroomFit, format: String) {
        let imported = try read(path: path)
        try GroomGeometry.check(points: imported.strands.joined(), roots: imported.strands.map { $0[0] }, name: path)
        let sourceHead = try headPath.map { try readMeshVertices(path: $0) }
        if let headPath, let bad = sourceHead?.first(where: { !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite) }) {
            throw CoifError.assetFailed(path: headPath, reason: "a vertex is not a finite number (\(bad.x), \(bad.y), \(bad.z))")
        }
        let fit = fit(imported.strands, sourceHead: sourceHead, to: head)
        guard fit.scale.isFinite, fit.scale > 0, fit.centreSource.x.isFinite, fit.centreSource.y.isFinite, fit.centreSource.z.isFinite else {
            throw CoifError.assetFailed(path: path, reason: "the strand roots outline no scalp to fit Coif's head to (a flat or degenerate root layout)")
        }
        let longest = imported.strands.map(\.count).max() ?? 2
        let points = min(max(longest, 2), maxPointsPerStrand)
        let placed = place(imported.strands, fit: fit, head: head, pointsPerStrand: points)
        try GroomGeometry.check(placed, name: path)
        return (placed, fit, imported.format)
    }

    // MARK: Output

    /// OBJ text of a placed groom (one `l` per strand), as the generator writes styles.
    public static func objText(name: String, source: String, strands: StrandSet) -> String {
        OBJWriter.hairstyle(name: name, strands: strands, provenance: "Imported by `coif groom import` from \(source).")
    }

    /// Imports `path` as style `name` into `meshesDirectory`: writes styles/NAME.obj and adds (or replaces)
    /// its entry in catalog.json there. Returns the entry and how the groom was fitted.
    @discardableResult
    public static func importStyle(path: String, headPath: String?, name: String, meshesDirectory: String,
                                   head: HeadModel) throws -> (entry: StyleEntry, fit: GroomFit) {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw CoifError.invalidOption(name: "-o", reason: "style name must be letters, digits, '-' or '_', got '\(name)'")
        }
        let catalogPath = (meshesDirectory as NSString).appendingPathComponent("catalog.json")
        let stylePath = (meshesDirectory as NSString).appendingPathComponent("styles/\(name).obj")
        // The groom or its head imported from the catalog's own files (re-importing a style over itself) would be
        // refitted in place, its scale changing at every import.
        try OutputPaths.check([stylePath, catalogPath], inputs: [path] + (headPath.map { [$0] } ?? []))
        // A directory named for the first time becomes a user catalog (created with the first style, which
        // is its default); an existing catalog that does not parse is an error, never overwritten.
        var catalog: StyleCatalog
        if FileManager.default.fileExists(atPath: catalogPath) {
            // Read as every user catalog is read (size, UTF-8, ranges, files inside the folder).
            catalog = try StyleLibrary.readCatalog(directory: meshesDirectory)
        } else {
            catalog = StyleCatalog(defaultStyle: name, styles: [])
        }
        let (strands, fit, format) = try load(path: path, headPath: headPath, head: head)
        var lengthMm: Float = 0
        for i in 0..<strands.strandCount {
            let s = strands.strand(i)
            for j in s.indices.dropFirst() { lengthMm += length(s[j] - s[j - 1]) }
        }
        lengthMm /= Float(strands.strandCount)
        let file = "styles/\(name).obj"
        let source = (path as NSString).lastPathComponent
        let entry = StyleEntry(name: name, file: file, description: "Imported from \(source)", tags: ["imported", format],
                               length: lengthMm < 100 ? "short" : (lengthMm < 250 ? "medium" : "long"), texture: nil,
                               faceShapes: nil, guides: strands.strandCount, pointsPerGuide: strands.pointsPerStrand,
                               rootWidthMm: 0.3, tipWidthMm: 0.1)
        if let i = catalog.styles.firstIndex(where: { $0.name == name }) { catalog.styles[i] = entry } else { catalog.styles.append(entry) }
        // The groom and the catalog naming it succeed or fail together: a catalog never lists a groom that
        // is not there, nor is a groom left that no catalog lists.
        try AtomicFile.write(all: [(stylePath, Array(objText(name: name, source: source, strands: strands).utf8), true),
                                   (catalogPath, Array(catalog.jsonText().utf8), true)])
        return (entry, fit)
    }
}

extension StyleCatalog {
    /// The catalog as the generator lays it out: one style per line, fixed key order.
    public func jsonText() -> String {
        func quoted(_ s: String) -> String {
            let data = try? JSONEncoder().encode(s)
            return data.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        }
        func list(_ items: [String]) -> String { "[" + items.map(quoted).joined(separator: ", ") + "]" }
        var out = "{\n  \"default\": \(quoted(defaultStyle)),\n  \"styles\": [\n"
        for (i, e) in styles.enumerated() {
            out += "    {\"name\": \(quoted(e.name)), \"file\": \(quoted(e.file)), \"description\": \(quoted(e.description)), "
            out += "\"tags\": \(list(e.tags)), "
            if let length = e.length { out += "\"length\": \(quoted(length)), " }
            if let texture = e.texture { out += "\"texture\": \(quoted(texture)), " }
            if let shapes = e.faceShapes { out += "\"faceShapes\": \(list(shapes)), " }
            out += "\"guides\": \(e.guides), \"pointsPerGuide\": \(e.pointsPerGuide), "
            out += "\"rootWidthMm\": \(fixed(e.rootWidthMm)), \"tipWidthMm\": \(fixed(e.tipWidthMm))}"
            out += i == styles.count - 1 ? "\n" : ",\n"
        }
        return out + "  ]\n}\n"
    }
}
