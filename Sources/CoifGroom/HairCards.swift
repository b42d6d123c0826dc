// HairCards: reads hair cards (textured strips of quads or triangles, one per lock of hair, as game and DCC
// grooms ship them in OBJ, glTF, FBX, …) as strands: each card becomes its centre line, root first, so a
// card groom goes through the same fit to Coif's head, push-out and children as curves do.
// GroomImport.readAssimpCurves hands over a scene that has polygons but no line primitives.
// Per Assimp mesh: vertices are welded by position (Assimp's OBJ reader gives every face corner its own
// vertex, and a card exported with split UV seams must stay one card); cards are the connected parts over
// faces. Each card is ordered along its length by the texture coordinate that runs along it, else by
// geodesic distance between its two far ends (which follows hooks and curls that a straight principal axis
// would fold) straightened by projection on a first fitted line; its rows across (runs of one parameter
// value) are averaged into the centre line. Parts that are not strips (a scalp cap or a head shipped with
// the cards) are left out. Roots are the ends that make the more compact set (roots sit on a scalp cap,
// tips spread out): decided once per file for textured cards, per card otherwise (see rootFirst).
import CAssimp
import CoifCore
import Foundation

enum HairCards {
    /// What ordered a card along its length. Textured cards of one file share one root convention per
    /// coordinate (a file's UV layout puts every root at the same end of its coordinate); untextured
    /// cards' geometric order has no shared convention.
    enum Ordering: Hashable { case textureU, textureV, geometric }

    /// One card's centre line, low parameter end first (not yet root first), and how it was ordered.
    struct CentreLine {
        var points: [Vec3]
        var ordering: Ordering
    }

    /// A card must be at least this many times as long as it is wide (length² ≥ ratio · area): a scalp
    /// cap, a head or a square patch is not a lock of hair.
    static let minimumLengthToWidth: Float = 2

    /// The scene's faces whose corner count passes `corners`: 2 for line primitives (OBJ `l`, glTF
    /// LINES/LINE_STRIP come as 2-index faces), 3 or more for polygons.
    static func faceCount(_ scene: aiScene, corners: (UInt32) -> Bool) -> Int {
        var count = 0
        for m in 0..<Int(scene.mNumMeshes) {
            guard let mesh = scene.mMeshes[m]?.pointee, let faces = mesh.mFaces else { continue }
            for f in 0..<Int(mesh.mNumFaces) where corners(faces[f].mNumIndices) { count += 1 }
        }
        return count
    }

    /// Whether the scene has line primitives.
    static func hasLinePrimitives(_ scene: aiScene) -> Bool { faceCount(scene) { $0 == 2 } > 0 }

    /// Faces of 3 or more corners in the scene.
    static func polygonCount(_ scene: aiScene) -> Int { faceCount(scene) { $0 >= 3 } }

    /// Every hair card of the scene as a strand, root first. Fails as CoifError.assetFailed naming `name`
    /// on a face index out of range, a non-finite vertex, or when no part of the scene is a card.
    static func strands(_ scene: aiScene, name: String) throws -> [[Vec3]] {
        var lines: [CentreLine] = []
        var scratch = Scratch()
        for m in 0..<Int(scene.mNumMeshes) {
            guard let mesh = scene.mMeshes[m]?.pointee else { continue }
            try centreLines(of: mesh, name: name, into: &lines, scratch: &scratch)
        }
        guard !lines.isEmpty else {
            throw CoifError.assetFailed(path: name, reason: "\(polygonCount(scene)) polygons but no hair cards (no strip-shaped "
                                        + "part at least \(Int(minimumLengthToWidth))× as long as wide) and no line strands")
        }
        return rootFirst(lines)
    }

    // MARK: Cards of one mesh

    /// Buffers reused from card to card and mesh to mesh (cards are small and many: no per-card allocation
    /// beyond the centre line itself).
    struct Scratch {
        /// (parameter, welded vertex) of the current card, sorted by parameter.
        var ordered: [(t: Float, vertex: Int32)] = []
        var distanceA: [Float] = []
        var distanceB: [Float] = []
        var heap: [(d: Float, vertex: Int32)] = []
        var gaps: [Float] = []
    }

    /// A mesh's welded vertices and its polygons' connectivity.
    struct WeldedMesh {
        var positions: [Vec3] = []
        var uvs: [SIMD2<Float>] = []
        /// Per welded vertex: bit 0 when copies of it disagree on u, bit 1 on v (a UV seam there).
        var uvConflicts: [UInt8] = []
        var hasUVs = false
        /// Neighbours over polygon edges, CSR: vertex i's in neighbours[neighbourStart[i]..<neighbourStart[i+1]].
        var neighbourStart: [Int32] = []
        var neighbours: [Int32] = []
    }

    /// Appends the centre line of every card in `mesh` to `lines`.
    static func centreLines(of mesh: aiMesh, name: String, into lines: inout [CentreLine], scratch: inout Scratch) throws {
        let rawCount = Int(mesh.mNumVertices)
        guard rawCount > 0, mesh.mNumFaces > 0, let rawPositions = mesh.mVertices, let faces = mesh.mFaces else { return }
        var welded = WeldedMesh()
        let rawUVs = mesh.mTextureCoords.0
        welded.hasUVs = rawUVs != nil

        // Weld by exact position (adding +0 turns −0 into +0 so the two zeros weld), only the vertices that
        // polygons use. Exact, not within a tolerance: copies of one vertex are bit-identical, and a
        // tolerance could join two cards that merely touch.
        var weldOf = [Int32](repeating: -1, count: rawCount)
        var weldByPosition: [SIMD3<UInt32>: Int32] = [:]
        var corners: [Int32] = []
        var faceStart: [Int32] = [0]
        corners.reserveCapacity(Int(mesh.mNumFaces) * 4)
        faceStart.reserveCapacity(Int(mesh.mNumFaces) + 1)
        for f in 0..<Int(mesh.mNumFaces) {
            let face = faces[f]
            let count = Int(face.mNumIndices)
            guard count >= 3, let indices = face.mIndices else { continue }
            for k in 0..<count {
                let raw = Int(indices[k])
                guard raw < rawCount else {
                    throw CoifError.assetFailed(path: name, reason: "face \(f) index \(raw) out of range (\(rawCount) vertices)")
                }
                if weldOf[raw] < 0 {
                    let v = rawPositions[raw]
                    let p = Vec3(v.x, v.y, v.z) + Vec3(repeating: 0)
                    guard p.x.isFinite, p.y.isFinite, p.z.isFinite else {
                        throw CoifError.assetFailed(path: name, reason: "non-finite vertex \(raw)")
                    }
                    let uv = rawUVs.map { SIMD2<Float>($0[raw].x, $0[raw].y) } ?? .zero
                    let key = SIMD3<UInt32>(p.x.bitPattern, p.y.bitPattern, p.z.bitPattern)
                    if let existing = weldByPosition[key] {
                        weldOf[raw] = existing
                        let difference = welded.uvs[Int(existing)] - uv
                        if abs(difference.x) > 1e-4 { welded.uvConflicts[Int(existing)] |= 1 }
                        if abs(difference.y) > 1e-4 { welded.uvConflicts[Int(existing)] |= 2 }
                    } else {
                        let index = Int32(welded.positions.count)
                        weldByPosition[key] = index
                        weldOf[raw] = index
                        welded.positions.append(p)
                        welded.uvs.append(uv)
                        welded.uvConflicts.append(0)
                    }
                }
                corners.append(weldOf[raw])
            }
            faceStart.append(Int32(corners.count))
        }
        let vertexCount = welded.positions.count
        guard vertexCount > 0 else { return }

        // Cards: connected parts over faces (union–find with path halving).
        var parent = [Int32](0..<Int32(vertexCount))
        func find(_ x: Int32) -> Int32 {
            var x = x
            while parent[Int(x)] != x { parent[Int(x)] = parent[Int(parent[Int(x)])]; x = parent[Int(x)] }
            return x
        }
        let faceCount = faceStart.count - 1
        for f in 0..<faceCount {
            let first = corners[Int(faceStart[f])]
            for c in Int(faceStart[f]) + 1..<Int(faceStart[f + 1]) {
                let a = find(first), b = find(corners[c])
                if a != b { parent[Int(max(a, b))] = min(a, b) }
            }
        }
        var partOf = [Int32](repeating: -1, count: vertexCount)
        var partCount = 0
        for v in 0..<vertexCount {
            let root = Int(find(Int32(v)))
            if partOf[root] < 0 { partOf[root] = Int32(partCount); partCount += 1 }
            partOf[v] = partOf[root]
        }
        // Each part's vertices (CSR by counting) and area (polygons as fans).
        var partStart = [Int32](repeating: 0, count: partCount + 1)
        for v in 0..<vertexCount { partStart[Int(partOf[v]) + 1] += 1 }
        for p in 0..<partCount { partStart[p + 1] += partStart[p] }
        var partVertices = [Int32](repeating: 0, count: vertexCount)
        var fill = partStart
        for v in 0..<vertexCount { let p = Int(partOf[v]); partVertices[Int(fill[p])] = Int32(v); fill[p] += 1 }
        var partArea = [Float](repeating: 0, count: partCount)
        // Neighbours over polygon edges (both directions), for the geodesic order of untextured cards.
        welded.neighbourStart = [Int32](repeating: 0, count: vertexCount + 1)
        for f in 0..<faceCount {
            let start = Int(faceStart[f]), end = Int(faceStart[f + 1])
            let a = welded.positions[Int(corners[start])]
            for c in start + 1..<end - 1 {
                partArea[Int(partOf[Int(corners[start])])] +=
                    0.5 * length(cross(welded.positions[Int(corners[c])] - a, welded.positions[Int(corners[c + 1])] - a))
            }
            for c in start..<end {
                welded.neighbourStart[Int(corners[c]) + 1] += 1
                welded.neighbourStart[Int(corners[c == end - 1 ? start : c + 1]) + 1] += 1
            }
        }
        for v in 0..<vertexCount { welded.neighbourStart[v + 1] += welded.neighbourStart[v] }
        welded.neighbours = [Int32](repeating: 0, count: Int(welded.neighbourStart[vertexCount]))
        fill = welded.neighbourStart
        for f in 0..<faceCount {
            let start = Int(faceStart[f]), end = Int(faceStart[f + 1])
            for c in start..<end {
                let a = corners[c], b = corners[c == end - 1 ? start : c + 1]
                welded.neighbours[Int(fill[Int(a)])] = b; fill[Int(a)] += 1
                welded.neighbours[Int(fill[Int(b)])] = a; fill[Int(b)] += 1
            }
        }

        if scratch.distanceA.count < vertexCount {
            scratch.distanceA = [Float](repeating: .infinity, count: vertexCount)
            scratch.distanceB = [Float](repeating: .infinity, count: vertexCount)
        }
        for p in 0..<partCount {
            let vertices = partVertices[Int(partStart[p])..<Int(partStart[p + 1])]
            if let line = centreLine(of: vertices, area: partArea[p], in: welded, scratch: &scratch) { lines.append(line) }
        }
    }

    /// One card's centre line, or nil when the part is not a card (fewer than 2 slices, no length, or not
    /// at least `minimumLengthToWidth` times as long as wide).
    static func centreLine(of vertices: ArraySlice<Int32>, area: Float, in mesh: WeldedMesh, scratch: inout Scratch) -> CentreLine? {
        guard vertices.count >= 3 else { return nil }
        scratch.ordered.removeAll(keepingCapacity: true)
        var points: [Vec3] = []
        var ordering = Ordering.geometric
        // The longest the card can be for the strip test below: a line fitted through a part that is not a
        // strip (a scalp cap) can wander far longer than the part, its geodesic diameter cannot.
        var longestMm = Float.infinity
        if let axis = lengthwiseTextureAxis(of: vertices, in: mesh) {
            // Textured: the coordinate that runs along the card. A card's rows share one value, so each
            // distinct value is a slice across the card and its mean is a point of the centre line, exactly.
            ordering = axis.index == 0 ? .textureU : .textureV
            for v in vertices { scratch.ordered.append((mesh.uvs[Int(v)][axis.index], v)) }
            scratch.ordered.sort { $0.t < $1.t }
            points = rowMeans(scratch.ordered, tolerance: axis.range * 1e-3, positions: mesh.positions)
            if points.isEmpty {
                // Rows not aligned with the coordinate (a sheared or projected layout): fit a line through the
                // vertices instead, with the parameter in mm of chord.
                let mmPerUnit = axis.chord / axis.range
                for i in scratch.ordered.indices { scratch.ordered[i].t *= mmPerUnit }
                points = fittedLine(widthMm: area / max(axis.chord, 1e-12), positions: mesh.positions, scratch: &scratch)
            }
        } else {
            // Untextured: geodesic distance over the card's edges between its two far ends a and b (a double
            // sweep), t = (d_a − d_b) / 2. Unlike a projection on the principal axis it keeps increasing
            // along a hooked or curled card.
            guard let span = geodesicParameter(of: vertices, in: mesh, scratch: &scratch) else { return nil }
            longestMm = span
            scratch.ordered.sort { $0.t < $1.t }
            points = fittedLine(widthMm: area / max(span, 1e-12), positions: mesh.positions, scratch: &scratch)
        }
        guard points.count >= 2 else { return nil }
        var lengthMm: Float = 0
        for i in 1..<points.count { lengthMm += length(points[i] - points[i - 1]) }
        let stripLength = min(lengthMm, longestMm)
        guard lengthMm > 0, lengthMm.isFinite, stripLength * stripLength >= minimumLengthToWidth * area else { return nil }
        return CentreLine(points: points, ordering: ordering)
    }

    /// The texture coordinate (0 = u, 1 = v) that runs along the card, with its range over the card and the
    /// chord between its two ends (mm); nil when the mesh has no UVs, the card has a seam in both, or neither
    /// clearly runs lengthwise. For each coordinate, the vertices at its low end and at its high end are
    /// averaged: along the length the two means are a card's length apart, across it about its width.
    static func lengthwiseTextureAxis(of vertices: ArraySlice<Int32>, in mesh: WeldedMesh) -> (index: Int, range: Float, chord: Float)? {
        guard mesh.hasUVs else { return nil }
        var chords: [Float] = [0, 0], ranges: [Float] = [0, 0]
        for axis in 0..<2 {
            var low = Float.infinity, high = -Float.infinity, seam = false
            for v in vertices {
                let value = mesh.uvs[Int(v)][axis]
                low = min(low, value)
                high = max(high, value)
                if mesh.uvConflicts[Int(v)] & UInt8(1 << axis) != 0 { seam = true }
            }
            guard !seam, high - low > 1e-6, (high - low).isFinite else { continue }
            let tolerance = (high - low) * 0.01
            var lowSum = Vec3.zero, highSum = Vec3.zero, lowCount: Float = 0, highCount: Float = 0
            for v in vertices {
                let value = mesh.uvs[Int(v)][axis]
                if value <= low + tolerance { lowSum += mesh.positions[Int(v)]; lowCount += 1 }
                if value >= high - tolerance { highSum += mesh.positions[Int(v)]; highCount += 1 }
            }
            chords[axis] = length(highSum / highCount - lowSum / lowCount)
            ranges[axis] = high - low
        }
        let best = chords[1] >= chords[0] ? 1 : 0
        // A clear winner only: a card whose UVs run diagonally, or are all one point, is ordered by shape.
        guard chords[best] > 0, chords[best] >= 1.25 * chords[1 - best] else { return nil }
        return (best, ranges[best], chords[best])
    }

    /// Means of the runs of equal parameter (within `tolerance`) in `ordered`, or [] when they are not rows
    /// across the card: fewer than 2 runs, or a run of one vertex anywhere but at the two ends (a pointed
    /// root or tip), or two of them in a row (a row split in two, whose halves would zig-zag from edge to
    /// edge).
    static func rowMeans(_ ordered: [(t: Float, vertex: Int32)], tolerance: Float, positions: [Vec3]) -> [Vec3] {
        var points: [Vec3] = []
        var singles = 0, lastSingle = -2
        var i = 0
        while i < ordered.count {
            var j = i, sum = Vec3.zero
            while j < ordered.count && ordered[j].t - ordered[i].t <= tolerance { sum += positions[Int(ordered[j].vertex)]; j += 1 }
            if j - i == 1 {
                let row = points.count
                guard row == 0 || j == ordered.count, lastSingle != row - 1 else { return [] }
                singles += 1
                lastSingle = row
            }
            points.append(sum / Float(j - i))
            i = j
        }
        guard points.count >= 2, points.count > singles else { return [] }
        return points
    }

    /// Fills `scratch.ordered` with (t, vertex), t = (d_a − d_b) / 2 from the geodesic distances to the card's
    /// two far ends; returns d_a(b), the card's geodesic length, or nil when it has none.
    static func geodesicParameter(of vertices: ArraySlice<Int32>, in mesh: WeldedMesh, scratch: inout Scratch) -> Float? {
        guard let start = vertices.first else { return nil }
        let a = geodesic(from: start, over: vertices, in: mesh, into: &scratch.distanceA, heap: &scratch.heap)
        let b = geodesic(from: a, over: vertices, in: mesh, into: &scratch.distanceA, heap: &scratch.heap)
        _ = geodesic(from: b, over: vertices, in: mesh, into: &scratch.distanceB, heap: &scratch.heap)
        let span = scratch.distanceA[Int(b)]
        guard span > 0, span.isFinite else { return nil }
        for v in vertices { scratch.ordered.append(((scratch.distanceA[Int(v)] - scratch.distanceB[Int(v)]) / 2, v)) }
        return span
    }

    /// Dijkstra over polygon edges (edge length in mm) from `source`, within one card; returns the farthest
    /// vertex. A binary heap with lazy deletion, in reused storage.
    static func geodesic(from source: Int32, over vertices: ArraySlice<Int32>, in mesh: WeldedMesh,
                         into distance: inout [Float], heap: inout [(d: Float, vertex: Int32)]) -> Int32 {
        for v in vertices { distance[Int(v)] = .infinity }
        distance[Int(source)] = 0
        heap.removeAll(keepingCapacity: true)
        heap.append((0, source))
        var farthest = source
        while let top = heap.first {
            let last = heap.removeLast()
            if !heap.isEmpty {
                // Sift `last` down from the root's place.
                var i = 0
                while true {
                    let l = 2 * i + 1
                    guard l < heap.count else { break }
                    let c = l + 1 < heap.count && heap[l + 1].d < heap[l].d ? l + 1 : l
                    guard heap[c].d < last.d else { break }
                    heap[i] = heap[c]
                    i = c
                }
                heap[i] = last
            }
            let u = Int(top.vertex)
            guard top.d <= distance[u] else { continue }
            if top.d > distance[Int(farthest)] { farthest = top.vertex }
            for n in Int(mesh.neighbourStart[u])..<Int(mesh.neighbourStart[u + 1]) {
                let w = Int(mesh.neighbours[n])
                let d = top.d + length(mesh.positions[w] - mesh.positions[u])
                guard d < distance[w] else { continue }
                distance[w] = d
                // Sift up.
                heap.append((d, Int32(w)))
                var i = heap.count - 1
                while i > 0 {
                    let p = (i - 1) / 2
                    if heap[p].d <= d { break }
                    heap[i] = heap[p]
                    i = p
                }
                heap[i] = (d, Int32(w))
            }
        }
        return farthest
    }

    /// The centre line through `scratch.ordered` (sorted by a rough parameter in mm) when rows are not
    /// known: a locally linear fit, then up to 3 times re-parameterised by each vertex's projection on that
    /// line (a principal-curve step). A rough parameter runs askew across the card (the geodesic one by up
    /// to a card's width: a and b are corners on opposite edges); the projection puts each row's vertices
    /// at one value again, so the rows are found and averaged exactly as for textured cards, or, when they
    /// still are not, the fit is redone on the straightened parameter.
    static func fittedLine(widthMm: Float, positions: [Vec3], scratch: inout Scratch) -> [Vec3] {
        var line = locallyLinearLine(scratch.ordered, widthMm: widthMm, positions: positions)
        for _ in 0..<3 {
            guard line.count >= 2 else { return line }
            // Arc length of each vertex's nearest point on the line (unclamped before the first point and
            // past the last, so root and tip rows keep their place).
            for i in scratch.ordered.indices {
                let p = positions[Int(scratch.ordered[i].vertex)]
                var nearest = Float.infinity, at: Float = 0, arc: Float = 0
                for j in 1..<line.count {
                    let a = line[j - 1], segment = line[j] - a
                    let segmentLength = length(segment)
                    guard segmentLength > 0 else { continue }
                    var f = dot(p - a, segment) / (segmentLength * segmentLength)
                    if j > 1 { f = max(f, 0) }
                    if j < line.count - 1 { f = min(f, 1) }
                    let distance = length(p - (a + segment * f))
                    if distance < nearest { nearest = distance; at = arc + f * segmentLength }
                    arc += segmentLength
                }
                scratch.ordered[i].t = at
            }
            scratch.ordered.sort { $0.t < $1.t }
            // Rows: runs closer than a quarter of the 90th-percentile gap (the gap between rows, as long as
            // fewer than 9 in 10 vertices share a row with the next).
            scratch.gaps.removeAll(keepingCapacity: true)
            for i in 1..<scratch.ordered.count { scratch.gaps.append(scratch.ordered[i].t - scratch.ordered[i - 1].t) }
            scratch.gaps.sort()
            let rowGap = scratch.gaps[min(scratch.gaps.count - 1, scratch.gaps.count * 9 / 10)]
            let rows = rowMeans(scratch.ordered, tolerance: rowGap / 4, positions: positions)
            if !rows.isEmpty { return rows }
            line = locallyLinearLine(scratch.ordered, widthMm: widthMm, positions: positions)
        }
        return line
    }

    /// The centre line by locally linear regression of position on t (sorted `ordered`, t in mm): at evenly
    /// spaced t from the first to the last vertex, a weighted line fit (Epanechnikov weights) over the
    /// vertices within 2h, where h is the larger of the card's width and the largest gap between successive
    /// t, so every window holds vertices of both long edges and of more than one row. The fit's value is
    /// unbiased at the two ends too, where a plain window mean would pull root and tip inward.
    static func locallyLinearLine(_ ordered: [(t: Float, vertex: Int32)], widthMm: Float, positions: [Vec3]) -> [Vec3] {
        guard let first = ordered.first?.t, let last = ordered.last?.t, last > first else { return [] }
        var largestGap: Float = 0
        for i in 1..<ordered.count { largestGap = max(largestGap, ordered[i].t - ordered[i - 1].t) }
        let span = last - first
        let h = max(min(widthMm, span / 2), largestGap, span * 1e-4)
        let radius = 2 * h
        let samples = min(max(Int((span / h).rounded()) + 1, 2), 64)
        var points: [Vec3] = []
        points.reserveCapacity(samples)
        var windowStart = 0
        for s in 0..<samples {
            let t = first + span * Float(s) / Float(samples - 1)
            while windowStart < ordered.count && ordered[windowStart].t < t - radius { windowStart += 1 }
            var s0: Float = 0, s1: Float = 0, s2: Float = 0, p0 = Vec3.zero, p1 = Vec3.zero
            var i = windowStart
            while i < ordered.count && ordered[i].t <= t + radius {
                let offset = ordered[i].t - t, x = offset / radius
                let w = 1 - x * x
                let p = positions[Int(ordered[i].vertex)]
                s0 += w; s1 += w * offset; s2 += w * offset * offset
                p0 += p * w; p1 += p * (w * offset)
                i += 1
            }
            guard s0 > 0 else { continue }
            let determinant = s0 * s2 - s1 * s1
            points.append(determinant > 1e-9 * s0 * s2 ? (p0 * s2 - p1 * s1) / determinant : p0 / s0)
        }
        return points
    }

    // MARK: Which end is the root

    /// Mean squared distance of `points` to their centroid.
    static func scatter(_ points: [Vec3]) -> Float {
        guard !points.isEmpty else { return 0 }
        let centre = points.reduce(Vec3.zero, +) / Float(points.count)
        return points.reduce(Float(0)) { $0 + dot($1 - centre, $1 - centre) } / Float(points.count)
    }

    /// Each centre line root first. Roots are the more compact choice of ends (smallest scatter about their
    /// centroid): roots sit on a scalp cap while tips hang and spread, whether the hair is long, short,
    /// spiked or blunt-cut (a blunt cut's tips lie on a ring, which a sphere fit would take for a scalp).
    /// Textured cards: decided once per file for each ordering coordinate (a UV layout's convention is
    /// per file), comparing all low ends with all high ends. Untextured cards, and a lone textured card:
    /// per card, by descent on the scatter of all roots (each card takes the end nearer the roots'
    /// centroid, the centroid is recomputed, until nothing flips), from two starts (the higher end, +y
    /// being up; the end nearer the centroid of all cards' points) of which the more compact wins, ties to
    /// the higher end. The descent matters for crown cards in a long groom, whose tips can lie nearer the
    /// centroid of everything (pulled down by the long hair) than their roots do, though not nearer the
    /// roots' centroid; the second start for spikes, whose roots are their lower ends. Still ambiguous
    /// without texture coordinates: a card lying flat from the hairline to the crown (slicked back), whose
    /// tip is as much on the scalp as its root.
    static func rootFirst(_ lines: [CentreLine]) -> [[Vec3]] {
        let count = lines.count
        var rootIsLow = [Bool](repeating: true, count: count)
        var free = [Bool](repeating: true, count: count)
        for ordering in [Ordering.textureU, .textureV] {
            let members = lines.indices.filter { lines[$0].ordering == ordering }
            guard members.count >= 2 else { continue }
            let lowEnds = members.map { lines[$0].points[0] }
            let highEnds = members.map { lines[$0].points[lines[$0].points.count - 1] }
            let lowIsRoot = scatter(lowEnds) <= scatter(highEnds)
            for i in members { rootIsLow[i] = lowIsRoot; free[i] = false }
        }
        let freeCards = lines.indices.filter { free[$0] }
        if !freeCards.isEmpty {
            var everything = Vec3.zero, pointCount: Float = 0
            for line in lines { for p in line.points { everything += p }; pointCount += Float(line.points.count) }
            everything /= pointCount
            func descend(_ start: [Bool]) -> (rootIsLow: [Bool], scatter: Float) {
                var choice = start
                var roots = (0..<count).map { choice[$0] ? lines[$0].points[0] : lines[$0].points[lines[$0].points.count - 1] }
                for _ in 0..<32 {
                    let centre = roots.reduce(Vec3.zero, +) / Float(count)
                    var flipped = false
                    for i in freeCards {
                        let low = lines[i].points[0], high = lines[i].points[lines[i].points.count - 1]
                        let lowNearer = dot(low - centre, low - centre) <= dot(high - centre, high - centre)
                        if lowNearer != choice[i] { choice[i] = lowNearer; roots[i] = lowNearer ? low : high; flipped = true }
                    }
                    if !flipped { break }
                }
                return (choice, scatter(roots))
            }
            var higher = rootIsLow, nearer = rootIsLow
            for i in freeCards {
                let low = lines[i].points[0], high = lines[i].points[lines[i].points.count - 1]
                higher[i] = low.y >= high.y
                nearer[i] = dot(low - everything, low - everything) <= dot(high - everything, high - everything)
            }
            let fromHigher = descend(higher), fromNearer = descend(nearer)
            rootIsLow = fromNearer.scatter < fromHigher.scatter * (1 - 1e-4) ? fromNearer.rootIsLow : fromHigher.rootIsLow
        }
        return (0..<count).map { rootIsLow[$0] ? lines[$0].points : lines[$0].points.reversed() }
    }
}
