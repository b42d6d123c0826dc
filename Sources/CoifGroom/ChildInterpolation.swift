// ChildInterpolation: fills a groom with child strands between its guides, every render (hot path).
// Roots are sampled by area on the scalp; each child takes the inverse-distance blend of its 3 nearest
// guides' shapes (offsets from their roots; guides combed apart, as across a part, are not blended), is clumped toward the nearest guide, gets smooth seeded
// noise growing toward the tip, and is pushed out of the head. A uniform grid over guide roots answers
// the nearest-guide queries; output is written in place into one preallocated array, in parallel chunks.
import CoifCore
import Foundation

/// A helix each child strand winds around the path it takes from its guides: its radius and its period
/// (mm of strand per turn). Each child draws its own phase, period (±25%) and radius (±30%), so
/// neighbouring strands coil out of step, as separate hairs do.
public struct StrandCoil: Sendable, Equatable {
    public var radiusMm: Float
    public var periodMm: Float

    public init(radiusMm: Float, periodMm: Float) {
        self.radiusMm = radiusMm
        self.periodMm = periodMm
    }
}

/// Flyaways: a few children that leave their lock partway along as one loose fibre does (static, breakage,
/// new growth): from there the fibre runs on straight, lifted off the hair and sagging a little, for a short
/// free length, then ends. The silhouette is broken by single hairs, not a clean shell edge. Each is drawn a
/// strand of the catalog's width (`StrandSet.flyaways`), however wide the level of detail draws the locks.
public struct StrandFlyaways: Sendable, Equatable {
    /// How many of the children, on average, fly away: a number, not a share, so a head has about as many
    /// whatever its level of detail (a flyaway is one fibre, where a child is a lock of them).
    public var count: Int
    /// A flyaway's free length past its departure, at most: `freeShare` of its guide's length, and never more
    /// than `freeMm` (a long loose end sags back into the hair; what shows is its first few centimetres).
    public var freeShare: Float
    public var freeMm: Float

    public init(count: Int, freeShare: Float, freeMm: Float) {
        self.count = count
        self.freeShare = freeShare
        self.freeMm = freeMm
    }
}

/// Child strands interpolated from guides: roots sampled by area on the scalp (seeded), each child
/// follows a weighted blend of the 3 nearest guides' shapes (offsets from their roots; inverse-distance
/// weights), plus clumping toward the nearest guide and seeded noise growing toward the tip; then pushed
/// out of the head. Deterministic for a seed and order-independent: child i draws only from
/// `SeededRandom(seed:stream: i)`.
public struct ChildInterpolation: Sendable {
    public var childCount: Int
    public var pointsPerStrand: Int
    public var seed: UInt64
    /// 0…1: how far each child is pulled onto its nearest guide at the tip.
    public var clump: Float
    /// Noise amplitude (mm) at the tip.
    public var noiseMm: Float
    /// Children are kept at least this far outside the head (mm).
    public var marginMm: Float = 1.0
    /// Children stay this far above the brows (and outside the eye corners) in front of the face.
    public var faceClearanceMm: Float = 8
    /// Children root no farther than this from some guide root (mm): partial grooms stay partial.
    public var maxGuideDistanceMm: Float = 25
    /// Each child's own coil (coily styles); nil: children follow their guides' shape alone.
    public var coil: StrandCoil?
    /// The children that fly away; nil: none does.
    public var flyaways: StrandFlyaways?
    /// A flyaway is chosen, and shaped, from its own stream of draws, so every other child keeps its draws
    /// (and bytes) whether flyaways are on or not.
    static let flyawayStream: UInt64 = 0xF1A7_AA57_5EED_0001
    /// How far a flyaway's end sags below its straight line, as a share of its free length.
    static let flyawaySag: Float = 0.2
    /// How many of the guides to draw, evenly spaced through them (nil: all). Set only when fewer strands
    /// than guides are asked for (`--strands 1` draws one strand); there are no children then.
    public var guideLimit: Int?

    public init(childCount: Int, pointsPerStrand: Int, seed: UInt64 = 1, clump: Float = 0.3, noiseMm: Float = 1.5) {
        self.childCount = childCount
        self.pointsPerStrand = pointsPerStrand
        self.seed = seed
        self.clump = clump
        self.noiseMm = noiseMm
    }

    /// The guides resampled to `pointsPerStrand`, followed by `childCount` children.
    public func apply(guides input: StrandSet, head: HeadModel) -> StrandSet {
        let p = max(pointsPerStrand, 2)
        var guides = input.resampled(to: p)
        if let limit = guideLimit, limit < guides.strandCount {
            let every = guides
            let picked = (0..<max(limit, 0)).flatMap { every.strand($0 * every.strandCount / limit) }
            guides = StrandSet(pointsPerStrand: p, positions: picked)
            return guides
        }
        let guideCount = guides.strandCount
        guard childCount > 0, guideCount > 0, !head.scalpTriangles.isEmpty else { return guides }

        // Scalp triangles by cumulative area.
        let tris = head.scalpTriangles
        let triCount = tris.count / 3
        var cumulative = [Float](repeating: 0, count: triCount)
        var total: Float = 0
        for t in 0..<triCount {
            let a = head.vertices[Int(tris[3 * t])], b = head.vertices[Int(tris[3 * t + 1])], c = head.vertices[Int(tris[3 * t + 2])]
            total += length(cross(b - a, c - a)) * 0.5
            cumulative[t] = total
        }
        let grid = SpatialGrid(points: (0..<guideCount).lazy.map { guides.positions[$0 * p] }, cellMm: 12)
        let total0 = guideCount * p
        var out = [Vec3](repeating: .zero, count: total0 + childCount * p)
        out.withUnsafeMutableBufferPointer { buf in
            for i in 0..<total0 { buf[i] = guides.positions[i] }
        }
        let chunks = min(childCount, max(1, ProcessInfo.processInfo.activeProcessorCount) * 4)
        let per = (childCount + chunks - 1) / chunks
        let me = self
        let totalArea = total
        var shapeCopy = head.shape
        let vertices = head.vertices, scalp = head.scalpTriangles
        // Which strands fly away, as each child is made (guides never do); none when there are no flyaways.
        var flags = [Bool](repeating: false, count: (flyaways?.count ?? 0) > 0 ? guideCount + childCount : 0)
        out.withUnsafeMutableBufferPointer { buf in
          flags.withUnsafeMutableBufferPointer { fbuf in
            let dest = SendablePointer(base: buf.baseAddress! + total0)
            let flyFlags = fbuf.baseAddress.map { SendablePointer(base: $0 + guideCount) }
            guides.positions.withUnsafeBufferPointer { gbuf in
                let src = SendableConstPointer(base: gbuf.baseAddress!)
                cumulative.withUnsafeBufferPointer { cbuf in
                    vertices.withUnsafeBufferPointer { vbuf in
                        scalp.withUnsafeBufferPointer { sbuf in
                            withUnsafePointer(to: &shapeCopy) { shapePtr in
                                let cdf = SendableConstPointer(base: cbuf.baseAddress!)
                                let verts = SendableConstPointer(base: vbuf.baseAddress!)
                                let tris = SendableConstPointer(base: sbuf.baseAddress!)
                                let shape = SendableConstPointer(base: shapePtr)
                                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                                    let lo = chunk * per, hi = min(me.childCount, lo + per)
                                    guard lo < hi else { return }
                                    for child in lo..<hi {
                                        let flies = me.makeChild(child, into: dest.base + child * p, points: p, guides: src.base,
                                                                 grid: grid, shape: shape.base, vertices: verts.base, scalp: tris.base,
                                                                 cdf: cdf.base, triCount: triCount, totalArea: totalArea)
                                        if flies, let flyFlags { flyFlags.base[child] = true }
                                    }
                                }
                            }
                        }
                    }
                }
            }
          }
        }
        return StrandSet(pointsPerStrand: p, positions: out, flyaways: flags)
    }

    /// How child `child` flies away, when it is a flyaway; nil when it is not. departure: where it leaves its
    /// path (0…1 along it); free: its free length's share of the most (0.5…1); lift: the tangent of the angle
    /// it leaves the hair at; sideways: how far that turn swings across the hair (−1…1); bend: how far its
    /// end arcs further off the hair, as a share of its free length.
    func flyaway(_ child: Int, of flyaways: StrandFlyaways) -> (departure: Float, free: Float, lift: Float, sideways: Float, bend: Float)? {
        guard childCount > 0 else { return nil }
        var random = SeededRandom(seed: seed ^ Self.flyawayStream, stream: UInt64(child))
        guard random.unitFloat() < Float(flyaways.count) / Float(childCount) else { return nil }
        // Departures from 3% to 70% of the way, more of them near the root (short new growth and broken
        // hairs standing off the crown, which the outline shows first); lifts of 17–45°: loose, not on end;
        // a bend of its own over its free length, mostly further off the hair (a loose fibre arcs).
        let spread = random.unitFloat()
        return (0.03 + 0.67 * spread * spread, random.uniform(0.5, 1), random.uniform(0.3, 1), random.uniform(-0.8, 0.8),
                random.uniform(-0.3, 0.6))
    }

    /// Writes child `child`'s points; returns whether it is a flyaway.
    @inline(__always)
    private func makeChild(_ child: Int, into dst: UnsafeMutablePointer<Vec3>, points p: Int,
                           guides g: UnsafePointer<Vec3>, grid: SpatialGrid, shape: UnsafePointer<HeadShape>,
                           vertices: UnsafePointer<Vec3>, scalp t: UnsafePointer<UInt32>,
                           cdf: UnsafePointer<Float>, triCount: Int, totalArea: Float) -> Bool {
        var rng = SeededRandom(seed: seed, stream: UInt64(child))
        let shape = shape.pointee
        // Root: area-weighted triangle, uniform barycentric; trimmed to the smooth hairline (a few tries).
        var root = Vec3.zero
        var near = (0, 0, 0, Float(1), Float(0), Float(0))
        // Roots farther than `maxGuideDistanceMm` from every guide root (outside a partial groom such as a
        // mohawk's strip) are drawn again; a full-scalp groom accepts the first draw, as before.
        for retry in 0..<12 {
            for attempt in 0..<6 {
                let x = rng.unitFloat() * totalArea
                var lo = 0, hi = triCount - 1
                while lo < hi { let m = (lo + hi) >> 1; if cdf[m] < x { lo = m + 1 } else { hi = m } }
                var u = rng.unitFloat(), v = rng.unitFloat()
                if u + v > 1 { u = 1 - u; v = 1 - v }
                let a = vertices[Int(t[3 * lo])], b = vertices[Int(t[3 * lo + 1])], c = vertices[Int(t[3 * lo + 2])]
                root = a + (b - a) * u + (c - a) * v
                if shape.isScalp(root) || attempt == 5 { break }
            }
            // The chord of a triangle lies slightly inside the curved surface: lift the root onto it.
            let d0 = shape.signedDistance(root)
            if d0 < 0.3 { root += shape.surfaceNormal(root) * (0.3 - d0) }
            // A draw far from every guide (most draws, for a strip like a mohawk) is turned down by a search
            // of the few cells within reach, before the full nearest-3 search that would widen over the grid.
            if retry < 11 && !grid.contains(near: root, radius: maxGuideDistanceMm, where: { i in
                let d = g[i * p] - root
                return dot(d, d) <= maxGuideDistanceMm * maxGuideDistanceMm
            }) { continue }
            near = Self.nearestGuides(root, grid: grid, guides: g, pointsPerStrand: p)
            let offset = root - g[near.0 * p]
            if dot(offset, offset) <= maxGuideDistanceMm * maxGuideDistanceMm { break }
            if retry == 11 {
                // Give up drawing: put the root between the nearest guide root and the draw. That point is
                // on a chord, inside the curved scalp, so lift it back onto the surface.
                root = g[near.0 * p] + offset * (maxGuideDistanceMm * 0.5 / length(offset))
                root = shape.pushOutside(root, margin: 0.3)
                near = Self.nearestGuides(root, grid: grid, guides: g, pointsPerStrand: p)
            }
        }

        let (i0, i1, i2, n0, n1, n2) = near
        let b0 = g + i0 * p, b1 = g + i1 * p, b2 = g + i2 * p
        // Across a part (or a whorl) neighbouring guides are combed apart; their average would fall
        // straight over the face. A guide blends in only where the way it leaves the scalp (its chord over
        // the first 25 mm) agrees with the nearest guide's: full weight within 45°, none past 90°.
        @inline(__always) func combDirection(_ b: UnsafePointer<Vec3>) -> Vec3 {
            var s: Float = 0
            var j = 1
            while j < p - 1 {
                s += length(b[j] - b[j - 1])
                if s >= 25 { break }
                j += 1
            }
            return b[j] - b[0]
        }
        let comb0 = combDirection(b0)
        @inline(__always) func agreement(_ b: UnsafePointer<Vec3>) -> Float {
            let comb = combDirection(b)
            let lengths = length(comb) * length(comb0)
            guard lengths > 1e-6 else { return 1 }
            return smoothstep(0, 0.7071, dot(comb, comb0) / lengths)
        }
        let a1 = n1 * agreement(b1), a2 = n2 * agreement(b2)
        let normaliser = 1 / (n0 + a1 + a2)
        let w0 = n0 * normaliser, w1 = a1 * normaliser, w2 = a2 * normaliser
        let na = Vec3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * noiseMm
        let nb = Vec3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * noiseMm
        // The child's own coil, drawn only for a coiled style so every other style's children keep their
        // draws (and bytes).
        var coilPhase: Float = 0, coilRate: Float = 0, coilRadius: Float = 0
        if let coil, coil.radiusMm > 0, coil.periodMm > 0 {
            coilPhase = rng.uniform(0, 2 * .pi)
            coilRate = 2 * .pi / (coil.periodMm * rng.uniform(0.75, 1.25))
            coilRadius = coil.radiusMm * rng.uniform(0.7, 1.3)
        }
        // A flyaway (see StrandFlyaways): past its departure it is no longer held in the clump.
        var departure: Float = 2, freeMm: Float = 0, lift: Float = 0, sideways: Float = 0, bend: Float = 0, guideLength: Float = 0
        var departed = Vec3.zero, departedAlong = Vec3.zero, freeDirection = Vec3.zero, offHair = Vec3.zero
        var departedAt: Float = 0
        let fly = flyaways.flatMap { flyaway(child, of: $0) }
        if let flyaways, let fly {
            for j in 1..<p { guideLength += length(b0[j] - b0[j - 1]) }
            departure = fly.departure
            freeMm = min(flyaways.freeShare * guideLength, flyaways.freeMm) * fly.free
            lift = fly.lift
            sideways = fly.sideways
            bend = fly.bend
        }
        var uncoiledPrevious = root, coilNormal = Vec3.zero
        var arc: Float = 0
        let clumpRootOffset = root - b0[0]
        dst[0] = root
        let inv = 1 / Float(p - 1)
        for j in 1..<p {
            let u = Float(j) * inv
            var q = root + (b0[j] - b0[0]) * w0 + (b1[j] - b1[0]) * w1 + (b2[j] - b2[0]) * w2
            let clumped = b0[j] + clumpRootOffset * (1 - u)
            q += (clumped - q) * (clump * min(u, departure))
            q += (na * u + nb * (u * u - u * 0.5)) * u
            if coilRadius > 0 {
                // A helix around the uncoiled path, in a frame carried along it (the previous normal made
                // perpendicular to this step), fading in over the first 8 mm so the root stays put.
                let step = q - uncoiledPrevious
                let stepLength = length(step)
                if stepLength > 1e-6 {
                    let tangent = step / stepLength
                    var normal = coilNormal - tangent * dot(coilNormal, tangent)
                    if dot(normal, normal) < 1e-8 { normal = cross(tangent, abs(tangent.y) < 0.9 ? Vec3(0, 1, 0) : Vec3(1, 0, 0)) }
                    normal = normalize(normal)
                    coilNormal = normal
                    arc += stepLength
                    uncoiledPrevious = q
                    let angle = coilPhase + arc * coilRate
                    q += (normal * cosf(angle) + cross(tangent, normal) * sinf(angle)) * (coilRadius * smoothstep(0, 8, arc))
                }
            }
            if u > departure {
                // The free fibre: on from where it left, turned off the hair along the head's outward normal
                // (swung a little across it), arcing by its bend and sagging with the square of its free
                // length, eased in from straight on over its first third so it bends off rather than kinks.
                // Its free length is spread over the strand's remaining points, so it ends at the strand's
                // last point and its tip thins out there as every strand's does.
                if freeDirection == .zero {
                    departed = dst[j - 1]
                    departedAt = Float(j - 1) * inv
                    let step = q - departed
                    departedAlong = dot(step, step) > 1e-12 ? normalize(step) : Vec3(0, -1, 0)
                    let normal = shape.surfaceNormal(departed)
                    var off = normal - departedAlong * dot(normal, departedAlong)
                    if dot(off, off) < 1e-6 { off = cross(departedAlong, abs(departedAlong.y) < 0.9 ? Vec3(0, 1, 0) : Vec3(1, 0, 0)) }
                    off = normalize(off)
                    off = normalize(off + normalize(cross(departedAlong, off)) * sideways)
                    freeDirection = normalize(departedAlong + off * lift)
                    offHair = off
                }
                let along = (u - departedAt) / (1 - departedAt) * freeMm
                let arc = along * along / max(freeMm, 1)
                let straightOn = departed + departedAlong * along
                let free = departed + freeDirection * along + offHair * (bend * arc) - Vec3(0, Self.flyawaySag * arc, 0)
                q = straightOn + (free - straightOn) * smoothstep(0, freeMm / 3, along)
            }
            // Keep the frontal face clear (as the guides do), then push out of the head.
            q = StyleGenerator.keepOffFace(q, shape: shape, clearance: faceClearanceMm)
            var d = shape.signedDistance(q)
            var tries = 0
            while d < marginMm && tries < 32 {
                q += shape.surfaceNormal(q) * (marginMm - d + 0.01)
                d = shape.signedDistance(q)
                tries += 1
            }
            // Both ends can lie outside the face while the segment between them crosses it (a child blended
            // from guides on either side of the face, its points pushed alternately up and sideways). Such a
            // child ends here: its remaining points collapse onto the last good one and draw nothing.
            let previous = dst[j - 1]
            if [Float(0.25), 0.5, 0.75].contains(where: {
                StyleGenerator.inFaceBox(previous + (q - previous) * $0, shape: shape, clearance: faceClearanceMm)
            }) {
                for k in j..<p { dst[k] = previous }
                return fly != nil
            }
            dst[j] = q
        }
        return fly != nil
    }
}

extension ChildInterpolation {
    /// The 3 guides whose roots are nearest q (fewer guides: repeats) and normalised inverse-distance weights.
    @inline(__always)
    static func nearestGuides(_ q: Vec3, grid: SpatialGrid, guides g: UnsafePointer<Vec3>,
                              pointsPerStrand p: Int) -> (Int, Int, Int, Float, Float, Float) {
        var (bi, bd) = grid.nearest3(to: q) { length(g[$0 * p] - q) }
        if bd.1 == .infinity { bi.1 = bi.0; bd.1 = bd.0 }
        if bd.2 == .infinity { bi.2 = bi.1; bd.2 = bd.1 }
        // Inverse-distance weights, softened by 1 mm so a child on a guide root is finite.
        let w0 = 1 / ((bd.0 + 1) * (bd.0 + 1)), w1 = 1 / ((bd.1 + 1) * (bd.1 + 1)), w2 = 1 / ((bd.2 + 1) * (bd.2 + 1))
        let s = 1 / (w0 + w1 + w2)
        return (bi.0, bi.1, bi.2, w0 * s, w1 * s, w2 * s)
    }
}

/// Raw pointers handed to `concurrentPerform` workers; each worker writes a disjoint range.
struct SendablePointer<T>: @unchecked Sendable { let base: UnsafeMutablePointer<T> }
struct SendableConstPointer<T>: @unchecked Sendable { let base: UnsafePointer<T> }
