// HeadGenerator: Coif's own head. (1) The 68 reference landmarks, fitted to AFLW2000-3D ground truth by
// generalized Procrustes, made bilaterally symmetric and put in head space; (2) the occluder mesh: the
// zero set of `HeadShape`'s analytic signed distance, meshed by rays from inside; (3) the scalp region.
// Head space: millimetres, +x the subject's left, +y up, +z out of the face, origin the cranium's centre.
import CoifCore
import Foundation

// MARK: - Landmarks

/// The result of fitting the reference landmarks: 68 points in head space (mm) and the per-image
/// Procrustes residuals that say how well one rigid-plus-scale template explains each ground-truth face.
struct LandmarkFit: Sendable {
    var points: [DVec3]
    /// (image name, RMS residual in mm after a similarity fit of that image's 68 points to the template).
    var residualsMm: [(String, Double)]
    var sourceNames: [String]
}

enum LandmarkFitting {
    /// Adult biocular (outer canthus) width the template is scaled to.
    static let outerEyeCornerWidthMm = 90.0

    private struct AFLWFile: Decodable {
        struct Image: Decodable { var pt3d_68: [[Double]] }
        var images: [String: Image]
    }

    /// Parses DERIVED_pose_landmarks.json: per image, 68 × [x, y (image, down), z]; returns y-up shapes
    /// (x right in the image = subject's left, z toward the camera: right-handed), sorted by image name.
    static func parseAFLW(_ json: String) throws -> [(String, [DVec3])] {
        let file: AFLWFile
        do { file = try JSONDecoder().decode(AFLWFile.self, from: Data(json.utf8)) } catch {
            throw CoifError.assetFailed(path: "DERIVED_pose_landmarks.json", reason: "not the AFLW landmark JSON: \(error)")
        }
        var shapes: [(String, [DVec3])] = []
        for name in file.images.keys.sorted() {
            let pts = file.images[name]!.pt3d_68
            guard pts.count == 68, pts.allSatisfy({ $0.count == 3 }) else {
                throw CoifError.assetFailed(path: name, reason: "pt3d_68 must be 68 × [x, y, z]")
            }
            shapes.append((name, pts.map { DVec3($0[0], -$0[1], $0[2]) }))
        }
        guard shapes.count >= 1 else { throw CoifError.assetFailed(path: "DERIVED_pose_landmarks.json", reason: "no images") }
        return shapes
    }

    /// Generalized Procrustes (similarity) → mean → symmetric → canonical axes → 90 mm eye width.
    /// The result is centred on the eye midpoint; HeadGenerator moves the origin to the cranium centre.
    static func fit(aflwJSON: String) throws -> LandmarkFit {
        let shapes = try parseAFLW(aflwJSON)
        // Centre and normalise every shape to unit Frobenius norm.
        var aligned = shapes.map { (_, pts) -> [DVec3] in
            let c = Procrustes.centroid(pts)
            let centred = pts.map { $0 - c }
            let norm = centred.reduce(0) { $0 + ddot($1, $1) }.squareRoot()
            return centred.map { $0 / norm }
        }
        var mean = aligned[0]
        for _ in 0..<50 {
            aligned = aligned.map { shape in
                let r = Procrustes.rotation(from: shape, to: mean)
                let rotated = shape.map { r.apply($0) }
                // Optimal scale onto the current mean (shapes stay centred).
                var num = 0.0, den = 0.0
                for i in 0..<68 { num += ddot(rotated[i], mean[i]); den += ddot(rotated[i], rotated[i]) }
                return rotated.map { $0 * (num / den) }
            }
            var next = [DVec3](repeating: .zero, count: 68)
            for s in aligned { for i in 0..<68 { next[i] += s[i] } }
            let norm = next.reduce(0) { $0 + ddot($1, $1) }.squareRoot()
            next = next.map { $0 / norm }
            var change = 0.0
            for i in 0..<68 { change += ddot(next[i] - mean[i], next[i] - mean[i]) }
            mean = next
            if change < 1e-20 { break }
        }

        // Bilateral symmetry: mirror (x → −x) and relabel, rigidly align to the original, average.
        let mirrored = (0..<68).map { i -> DVec3 in let p = mean[Landmarks68.mirror[i]]; return DVec3(-p.x, p.y, p.z) }
        let r = Procrustes.rotation(from: mirrored, to: mean)   // both are centred
        var sym = (0..<68).map { (mean[$0] + r.apply(mirrored[$0])) * 0.5 }

        // Canonical axes: x from the right-eye centre to the left-eye centre, y from chin (8) toward the
        // nose bridge (27) orthogonalised, z = x × y.
        func eyeCentres(_ p: [DVec3]) -> (DVec3, DVec3) {
            ((36...41).reduce(DVec3.zero) { $0 + p[$1] } / 6, (42...47).reduce(DVec3.zero) { $0 + p[$1] } / 6)
        }
        let (re, le) = eyeCentres(sym)
        let ex = dnormalize(le - re)
        var up = sym[27] - sym[8]
        up -= ddot(up, ex) * ex
        let ey = dnormalize(up)
        var ez = dcross(ex, ey)
        let origin = (re + le) * 0.5
        sym = sym.map { p in let d = p - origin; return DVec3(ddot(d, ex), ddot(d, ey), ddot(d, ez)) }
        if sym[30].z < max(sym[36].z, sym[45].z) {
            // The data were mirrored in depth: reflect z so the nose points at the camera.
            ez = -ez
            sym = sym.map { DVec3($0.x, $0.y, -$0.z) }
        }
        // Exact symmetry in the canonical frame (removes the last rounding of the axes).
        sym = (0..<68).map { i in
            let m = sym[Landmarks68.mirror[i]]
            let p = (sym[i] + DVec3(-m.x, m.y, m.z)) * 0.5
            return Landmarks68.mirror[i] == i ? DVec3(0, p.y, p.z) : p
        }
        let scale = outerEyeCornerWidthMm / dlength(sym[45] - sym[36])
        sym = sym.map { $0 * scale }

        // Residual of each image against the final template, in template millimetres.
        let residuals = shapes.map { (name, pts) -> (String, Double) in
            let sim = Procrustes.similarity(from: pts, to: sym)
            var sum = 0.0
            for i in 0..<68 { let d = sim.apply(pts[i]) - sym[i]; sum += ddot(d, d) }
            return (name, (sum / 68).squareRoot())
        }
        return LandmarkFit(points: sym, residualsMm: residuals, sourceNames: shapes.map(\.0))
    }
}

// MARK: - The analytic head

/// Coif's head as a signed distance field (mm; negative inside), a pure function of the 68 head-space
/// landmarks, so the generator that meshes it and the renderer that collides against it agree exactly.
/// A smooth union (polynomial smin) of: a cranium (breadth 150, length 190, vertex 230 mm above the chin; an
/// ellipsoid with its widest ring raised, `craniumLiftMm`), a lower-face ellipsoid, a chain of capsules through jaw landmarks 0–16 (pushed inward by
/// their radius so the landmarks lie on the surface), and a neck capsule. Not an exact Euclidean
/// distance: the ellipsoid term is Quilez's first-order bound and smin only lowers values, so it may
/// underestimate distance away from the surface (safe for collision), and is within a fraction of a
/// millimetre of exact near it.
public struct HeadShape: Sendable {
    public static let craniumBreadthMm: Float = 150
    public static let craniumLengthMm: Float = 190
    public static let vertexToChinMm: Float = 230

    /// The cranium's centre (head space's origin for Coif's own head) and radii (see `craniumLiftMm`).
    public var craniumCentre: Vec3
    public var craniumRadii: Vec3
    var faceCentre: Vec3
    var faceRadii: Vec3
    /// Jaw capsule chain through the (inset) jaw landmarks 0…16: segment starts `a` and directions `ba`
    /// as 16 SIMD lanes, so the hot distance evaluates all 16 capsules at once without touching memory
    /// that an array would have to retain (it runs per strand point on several threads).
    struct JawSegment: Sendable { var a: Vec3; var ba: Vec3; var invLengthSquared: Float }
    var jawSegments: [JawSegment]
    /// Bounds of the lower face (ellipsoid and jaw chain) for skipping it far away.
    var lowerMin: Vec3
    var lowerMax: Vec3
    var jawRadius: Float
    var neckTop: Vec3
    var neckBottom: Vec3
    var neckRadius: Float
    var faceBlendMm: Float = 16
    var jawBlendMm: Float = 12
    var neckBlendMm: Float = 24
    /// Brow level (mean y of landmarks 19 and 24) and chin (landmark 8) height.
    public var browY: Float
    public var chinY: Float
    /// Half width of the frontal face region hair must not cover (outer eye corners + margin).
    public var faceHalfWidth: Float
    /// Highest brow landmark 17–26; the fringe ends above this plus a margin.
    public var browTopY: Float
    /// Axis-aligned bounds of the whole shape (for quick rejection and meshing).
    public var boundsMin: Vec3
    public var boundsMax: Vec3

    public init(landmarks l: [Vec3]) {
        precondition(l.count == 68, "HeadShape needs the 68 iBUG landmarks")
        chinY = l[8].y
        browY = (l[19].y + l[24].y) / 2
        browTopY = (17...26).map { l[$0].y }.max()!
        faceHalfWidth = max(abs(l[36].x), abs(l[45].x)) + 10
        let a = Self.craniumBreadthMm / 2, c = Self.craniumLengthMm / 2, b: Float = 105
        let cy = chinY + Self.vertexToChinMm - b
        craniumRadii = Vec3(a, b, c)
        // Forehead at brow level on the surface: every brow point 17–26 at least 1 mm in front of it.
        var cz = Float.infinity
        for i in 17...26 {
            let r = Self.craniumRing(y: l[i].y - cy, radii: craniumRadii)
            let q = 1 - (l[i].x / (a * r)) * (l[i].x / (a * r))
            cz = min(cz, l[i].z - 1 - c * r * max(q, 0).squareRoot())
        }
        craniumCentre = Vec3(0, cy, cz)
        // Lower face: spans bridge (27) to chin (8) vertically, the cheeks (jaw 2/14) across, and puts the
        // lower lip (57) 8 mm in front of its surface (the nose and lips stand out of the occluder).
        let fy = (l[27].y + l[8].y) / 2 + 12
        let ry = (l[27].y - l[8].y) / 2 + 5
        let rx = (abs(l[2].x) + abs(l[14].x)) / 2 - 8
        let rz: Float = 72
        let qy = (l[57].y - fy) / ry
        let fz = l[57].z - 8 - rz * max(1 - qy * qy, 0).squareRoot()
        faceCentre = Vec3(0, fy, fz)
        faceRadii = Vec3(rx, ry, rz)
        // Jaw line: landmarks 0–16 moved toward an interior point by the capsule radius.
        jawRadius = 15
        let inner = Vec3(0, cy - 52, cz + 22)
        let jawPoints = (0...16).map { i in l[i] + normalize(inner - l[i]) * 15 }
        jawSegments = (0..<16).map { i in
            let ba = jawPoints[i + 1] - jawPoints[i]
            return JawSegment(a: jawPoints[i], ba: ba, invLengthSquared: 1 / max(dot(ba, ba), 1e-6))
        }
        var lmin = faceCentre - faceRadii, lmax = faceCentre + faceRadii
        for i in 0..<17 {
            lmin = pointwiseMin(lmin, jawPoints[i] - Vec3(repeating: jawRadius))
            lmax = pointwiseMax(lmax, jawPoints[i] + Vec3(repeating: jawRadius))
        }
        lowerMin = lmin
        lowerMax = lmax
        neckRadius = 56
        neckTop = Vec3(0, cy - 40, cz - 5)
        neckBottom = Vec3(0, chinY - 90, cz - 5)
        boundsMin = Vec3(-a - 10, neckBottom.y - neckRadius - 5, cz - c - 10)
        boundsMax = Vec3(a + 10, cy + b + 5, max(cz + c, faceCentre.z + rz, l[8].z) + 10)
    }

    /// How far the cranium's widest ring is raised above its centre (mm): the cranium is an ellipsoid cut at
    /// its centre and stretched there by this much, its top a shorter half-ellipsoid (the vertex stays where
    /// it was), its lower half as it was. A person's head is nearly as wide 40 mm above the brows as at them,
    /// and its top is round; one ellipsoid 210 mm tall narrowed from the brows up, and every short style and
    /// the plate's scalp read as an egg (128 mm wide 40 mm above the brows, now 141; 105 mm at 60, now 120).
    public static let craniumLiftMm: Float = 30

    /// The cranium's ring at height `y` above its centre (mm), as a share of its widest (1 between the centre
    /// and the lift; 0 beyond the vertex and the bottom).
    @inline(__always) public static func craniumRing(y: Float, radii r: Vec3) -> Float {
        let q: Float
        if y > craniumLiftMm { q = (y - craniumLiftMm) / (r.y - craniumLiftMm) } else if y < 0 { q = y / r.y } else { return 1 }
        return max(1 - q * q, 0).squareRoot()
    }

    /// Distance bound to the cranium (see `craniumLiftMm`): the ellipsoid bound of the top or the lower half,
    /// and between them the ellipse of the widest ring (Quilez's elongation), all with a continuous gradient.
    @inline(__always) static func cranium(_ q: Vec3, _ r: Vec3) -> Float {
        if q.y > craniumLiftMm { return ellipsoid(Vec3(q.x, q.y - craniumLiftMm, q.z), Vec3(r.x, r.y - craniumLiftMm, r.z)) }
        if q.y < 0 { return ellipsoid(q, r) }
        return ellipsoid(Vec3(q.x, 0, q.z), r)
    }

    @inline(__always) static func ellipsoid(_ p: Vec3, _ r: Vec3) -> Float {
        let k0 = length(p / r), k1 = length(p / (r * r))
        return k1 > 0 ? k0 * (k0 - 1) / k1 : -r.min()
    }

    @inline(__always) static func capsule(_ p: Vec3, _ a: Vec3, _ b: Vec3, _ r: Float) -> Float {
        let pa = p - a, ba = b - a
        let h = min(max(dot(pa, ba) / dot(ba, ba), 0), 1)
        return length(pa - ba * h) - r
    }

    @inline(__always) static func smin(_ a: Float, _ b: Float, _ k: Float) -> Float {
        let h = max(k - abs(a - b), 0) / k
        return min(a, b) - h * h * k * 0.25
    }

    /// Signed distance in mm: negative inside the head, positive outside.
    public func signedDistance(_ p: Vec3) -> Float {
        var d = Self.cranium(p - craniumCentre, craniumRadii)
        let neck = Self.capsule(p, neckTop, neckBottom, neckRadius)
        // The lower face cannot change the result where even its bounding box is farther than the nearer
        // of cranium and neck plus both blend widths (smin(a, b, k) = min(a, b) once |a − b| ≥ k).
        let outside = pointwiseMax(pointwiseMax(lowerMin - p, p - lowerMax), .zero)
        if length(outside) >= min(d, neck) + faceBlendMm + neckBlendMm {
            return Self.smin(d, neck, neckBlendMm)
        }
        var lower = Self.ellipsoid(p - faceCentre, faceRadii)
        // Only capsules near p matter; the chain is short (16 capsules), so test them all.
        var nearest = Float.infinity
        jawSegments.withUnsafeBufferPointer { segments in
            for s in segments {
                let pa = p - s.a
                let h = min(max(dot(pa, s.ba) * s.invLengthSquared, 0), 1)
                let d = pa - s.ba * h
                nearest = min(nearest, dot(d, d))
            }
        }
        let jaw = nearest.squareRoot() - jawRadius
        lower = Self.smin(lower, jaw, jawBlendMm)
        d = Self.smin(d, lower, faceBlendMm)
        return Self.smin(d, neck, neckBlendMm)
    }

    /// Outward unit normal (central differences of the distance, 0.25 mm apart).
    public func surfaceNormal(_ p: Vec3) -> Vec3 {
        let e: Float = 0.25
        let g = Vec3(signedDistance(p + Vec3(e, 0, 0)) - signedDistance(p - Vec3(e, 0, 0)),
                     signedDistance(p + Vec3(0, e, 0)) - signedDistance(p - Vec3(0, e, 0)),
                     signedDistance(p + Vec3(0, 0, e)) - signedDistance(p - Vec3(0, 0, e)))
        let n = normalize(g)
        return n == .zero ? Vec3(0, 1, 0) : n
    }

    /// Moves `p` outside the surface by at least `margin` mm (a few Newton steps along the normal).
    public func pushOutside(_ p: Vec3, margin: Float) -> Vec3 {
        var q = p
        for _ in 0..<4 {
            let d = signedDistance(q)
            if d >= margin { break }
            q += surfaceNormal(q) * (margin - d + 0.01)
        }
        return q
    }

    /// Height of the hairline (head-space y, mm) at azimuth |φ| (radians, 0 = front, π = back) around
    /// the cranium centre: ≈60 mm above the brows at the front, lower at the temples, just above the
    /// ear at the side, down to the nape behind. Piecewise linear in |φ|, offsets from brow level.
    public func hairlineY(azimuth phi: Float) -> Float {
        let knotsDeg: [Float] = [0, 25, 45, 65, 90, 115, 140, 165, 180]
        let offsets: [Float] = [60, 56, 46, 30, 8, -25, -72, -86, -88]
        let deg = min(abs(phi) * 180 / .pi, 180)
        var i = 0
        while i < knotsDeg.count - 2 && deg > knotsDeg[i + 1] { i += 1 }
        let t = (deg - knotsDeg[i]) / (knotsDeg[i + 1] - knotsDeg[i])
        return browY + offsets[i] + (offsets[i + 1] - offsets[i]) * t
    }

    /// Whether a surface point is on the scalp (above the hairline).
    public func isScalp(_ p: Vec3) -> Bool {
        let q = p - craniumCentre
        return p.y > hairlineY(azimuth: atan2f(q.x, q.z))
    }
}

// MARK: - The occluder mesh

/// A closed triangle mesh (outward counter-clockwise) with a per-triangle scalp flag.
struct HeadMesh: Sendable {
    var vertices: [Vec3]
    var triangles: [SIMD3<UInt32>]
    var isScalp: [Bool]
}

enum HeadMeshBuilder {
    /// Icosphere subdivision level: 4 gives 2,562 vertices and 5,120 triangles.
    static let subdivisions = 4
    static let relaxIterations = 12

    static func icosphere(levels: Int) -> (vertices: [DVec3], faces: [SIMD3<UInt32>]) {
        let t = (1 + 5.0.squareRoot()) / 2
        var v: [DVec3] = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t],
                          [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]].map { dnormalize($0) }
        var f: [SIMD3<UInt32>] = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4],
                                  [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8],
                                  [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]]
        for _ in 0..<levels {
            var mid: [UInt64: UInt32] = [:]
            func midpoint(_ a: UInt32, _ b: UInt32) -> UInt32 {
                let key = UInt64(min(a, b)) << 32 | UInt64(max(a, b))
                if let m = mid[key] { return m }
                v.append(dnormalize((v[Int(a)] + v[Int(b)]) * 0.5))
                let m = UInt32(v.count - 1)
                mid[key] = m
                return m
            }
            var next: [SIMD3<UInt32>] = []
            next.reserveCapacity(f.count * 4)
            for tri in f {
                let ab = midpoint(tri.x, tri.y), bc = midpoint(tri.y, tri.z), ca = midpoint(tri.z, tri.x)
                next += [[tri.x, ab, ca], [tri.y, bc, ab], [tri.z, ca, bc], [ab, bc, ca]]
            }
            f = next
        }
        return (v, f)
    }

    /// Meshes the zero set of `shape` by casting one ray per icosphere vertex from a point inside the
    /// head and neck, keeping the outermost crossing, so the mesh is closed and has the sphere's topology.
    static func build(shape: HeadShape) -> HeadMesh {
        let (dirs, faces) = icosphere(levels: subdivisions)
        let top = shape.boundsMax.y, bottom = shape.boundsMin.y
        let start = Vec3(0, (top + bottom) / 2, shape.craniumCentre.z)
        // Directions are stretched like the head (tall) so vertices spread more evenly over its surface.
        let stretch = Vec3(80, (top - bottom) / 2, 100)
        let farT: Float = 500
        var vertices: [Vec3] = []
        vertices.reserveCapacity(dirs.count)
        for u in dirs {
            let d = normalize(Vec3(Float(u.x), Float(u.y), Float(u.z)) * stretch)
            // March inward from far outside until inside, then bisect the last bracket.
            var t = farT, outside = farT
            var steps = 0
            while t > 0 && steps < 4000 {
                let f = shape.signedDistance(start + d * t)
                if f <= 0 { break }
                outside = t
                t -= max(f * 0.9, 0.05)
                steps += 1
            }
            var lo = max(t, 0), hi = outside
            for _ in 0..<40 {
                let m = (lo + hi) / 2
                if shape.signedDistance(start + d * m) > 0 { hi = m } else { lo = m }
            }
            vertices.append(start + d * ((lo + hi) / 2))
        }
        // Rays meet the jaw and neck at grazing angles and leave thin triangles there: relax every vertex
        // toward its neighbours' mean and project back onto the zero set (Newton along the normal).
        let neighbours = vertexNeighbours(vertexCount: vertices.count, triangles: faces.flatMap { [$0.x, $0.y, $0.z] })
        for _ in 0..<relaxIterations {
            let previous = vertices
            for i in 0..<vertices.count {
                let mean = neighbours[i].reduce(Vec3.zero) { $0 + previous[$1] } / Float(neighbours[i].count)
                var p = previous[i] + (mean - previous[i]) * 0.5
                for _ in 0..<3 { p -= shape.surfaceNormal(p) * shape.signedDistance(p) }
                vertices[i] = p
            }
        }
        // A triangle is scalp when any corner is above the hairline; root sampling then trims to the exact
        // (smooth) hairline with `HeadShape.isScalp`, so roots do not inherit the triangles' zig-zag.
        let scalp = faces.map { f -> Bool in
            shape.isScalp(vertices[Int(f.x)]) || shape.isScalp(vertices[Int(f.y)]) || shape.isScalp(vertices[Int(f.z)])
        }
        return HeadMesh(vertices: vertices, triangles: faces, isScalp: scalp)
    }

    /// OBJ text: all vertices, then group `head`, then group `scalp`.
    static func objText(_ mesh: HeadMesh, header: [String]) -> String {
        var obj = OBJWriter(comments: header, reservingCapacity: mesh.vertices.count * 32 + mesh.triangles.count * 24)
        for v in mesh.vertices { obj.vertex(v) }
        for (name, wantScalp) in [("head", false), ("scalp", true)] {
            obj.object(name)
            obj.group(name)
            for (i, f) in mesh.triangles.enumerated() where mesh.isScalp[i] == wantScalp { obj.face(f) }
        }
        return obj.text
    }
}

// MARK: - Generation of the head files

/// What `HeadGenerator.generate` produces: the two files' text plus the fitted head for the styles.
struct GeneratedHead: Sendable {
    var objText: String
    var landmarksJSON: String
    var landmarks: [Vec3]
    var shape: HeadShape
    var mesh: HeadMesh
    var residualsMm: [(String, Double)]
}

enum HeadGenerator {
    static let source = "AFLW2000-3D pt3d_68 (6 images from PRNet TestImages/AFLW2000): generalized Procrustes mean, "
        + "bilaterally symmetrised, outer eye corners 90 mm apart; fitted by Coif's HeadGenerator"

    static func generate(aflwLandmarksJSON: String) throws -> GeneratedHead {
        let fit = try LandmarkFitting.fit(aflwJSON: aflwLandmarksJSON)
        // Move the origin to the cranium centre: build the shape once in the eye-midpoint frame, shift.
        let eyeFrame = fit.points.map { Vec3(Float($0.x), Float($0.y), Float($0.z)) }
        let centre = HeadShape(landmarks: eyeFrame).craniumCentre
        let headSpace = fit.points.map { p -> DVec3 in p - DVec3(Double(centre.x), Double(centre.y), Double(centre.z)) }
        let json = landmarksJSONText(headSpace)
        // Read our own file back so generator and loader build the shape from identical numbers.
        let landmarks = try parseLandmarksJSON(json, name: "head-landmarks68.json")
        let shape = HeadShape(landmarks: landmarks)
        let mesh = HeadMeshBuilder.build(shape: shape)
        let obj = HeadMeshBuilder.objText(mesh, header: [
            "Coif head occluder (cranium + face + neck) and scalp; generated by CoifGroom.HeadGenerator, do not edit.",
            "Head space: mm, +x subject's left, +y up, +z toward the camera; origin = cranium centre.",
            "Groups: head (occluder only), scalp (where hair grows). Together they form one closed surface.",
        ])
        return GeneratedHead(objText: obj, landmarksJSON: json, landmarks: landmarks, shape: shape, mesh: mesh,
                             residualsMm: fit.residualsMm)
    }

    static func landmarksJSONText(_ pts: [DVec3]) -> String {
        var out = "{\n  \"units\": \"mm\",\n  \"space\": \"head: +x subject's left, +y up, +z toward camera\",\n"
        out += "  \"source\": \"\(source)\",\n  \"points\": [\n"
        for (i, p) in pts.enumerated() {
            out += "    [\(fixed(p.x)), \(fixed(p.y)), \(fixed(p.z))]" + (i == pts.count - 1 ? "\n" : ",\n")
        }
        return out + "  ]\n}\n"
    }

    private struct LandmarksFile: Decodable { var points: [[Float]] }

    static func parseLandmarksJSON(_ json: String, name: String) throws -> [Vec3] {
        let file: LandmarksFile
        do { file = try JSONDecoder().decode(LandmarksFile.self, from: Data(json.utf8)) } catch {
            throw CoifError.assetFailed(path: name, reason: "landmark JSON unreadable: \(error)")
        }
        guard file.points.count == 68, file.points.allSatisfy({ $0.count == 3 }) else {
            throw CoifError.assetFailed(path: name, reason: "expected 68 points of [x, y, z], found \(file.points.count)")
        }
        return file.points.map { Vec3($0[0], $0[1], $0[2]) }
    }
}
