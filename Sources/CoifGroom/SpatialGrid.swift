// SpatialGrid: CoifGroom's one uniform grid for "which points lie near q" questions: the guide roots that
// child interpolation blends (every render), the roots an imported groom is fitted by, and the roots the
// style generator has accepted so far while it samples the scalp.
import CoifCore

/// A bounded grid of cubic cells over numbered points (numbered 0, 1, 2… in the order they are added).
/// It keeps the numbers, not the positions: a query hands each candidate's number to the caller, who
/// knows where it is. Cells are visited in z, y, x order and a cell's points in the order they were added,
/// so a query whose answer depends on visiting order (equal distances) answers the same every time.
/// Points and queries outside the bounds fall into the nearest edge cells: answers stay exact, only
/// slower. Not a k-d tree: one cell size, no rebalancing.
struct SpatialGrid: Sendable {
    /// The corner of cell (0, 0, 0), head-space mm.
    let origin: Vec3
    let cellMm: Float
    let dims: SIMD3<Int32>
    private var first: [Int32]  // per cell: its first point, −1 when empty
    private var last: [Int32]   // per cell: its last point
    private var next: [Int32]   // per point: the next point in its cell, −1 after the last

    /// Most cells a grid makes (4M); beyond that its cells grow wider than asked, up to 160 along the
    /// longest side: a degenerate input, such as a tiny cell over a large box, must not exhaust memory.
    static let maxCells: Float = 4_194_304

    /// An empty grid whose cells start at `lo` and cover up to `hi`, each `cellMm` wide (see `maxCells`).
    init(lo: Vec3, hi: Vec3, cellMm: Float) {
        var cell = cellMm
        var extent = (hi - lo) / cell
        if !((extent.x + 1) * (extent.y + 1) * (extent.z + 1) <= Self.maxCells) {
            cell = max(cell, (hi - lo).max() / 159)
            extent = (hi - lo) / cell
        }
        extent.replace(with: 0, where: .!(extent .< 1e6))  // a non-finite box (never from a checked groom): one cell
        origin = lo
        self.cellMm = cell
        dims = SIMD3<Int32>(Int32(extent.x) + 1, Int32(extent.y) + 1, Int32(extent.z) + 1)
        let cellCount = Int(dims.x) * Int(dims.y) * Int(dims.z)
        first = [Int32](repeating: -1, count: cellCount)
        last = [Int32](repeating: -1, count: cellCount)
        next = []
    }

    /// An empty grid over the box around `points`, its origin 0.5 mm below their smallest coordinates.
    init<Points: Sequence<Vec3>>(bounding points: Points, cellMm: Float) {
        var lo = Vec3(repeating: .greatestFiniteMagnitude), hi = Vec3(repeating: -.greatestFiniteMagnitude)
        for p in points { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        if lo.x > hi.x { lo = .zero; hi = .zero }  // no points
        self.init(lo: lo - Vec3(repeating: 0.5), hi: hi, cellMm: cellMm)
    }

    /// The grid over `points`, numbered in their order.
    init<Points: Collection<Vec3>>(points: Points, cellMm: Float) {
        self.init(bounding: points, cellMm: cellMm)
        next.reserveCapacity(points.count)
        for p in points { append(p) }
    }

    var count: Int { next.count }

    /// Adds the next point (number `count`) at `p`.
    mutating func append(_ p: Vec3) {
        let item = Int32(next.count), c = cellIndex(cellCoord(p))
        next.append(-1)
        if last[c] >= 0 { next[Int(last[c])] = item } else { first[c] = item }
        last[c] = item
    }

    /// The cell holding `p`, clamped to the grid; clamped before the conversion to integers, so no
    /// coordinate (however far, infinite or NaN, which lands in cell 0) can trap.
    @inline(__always) func cellCoord(_ p: Vec3) -> SIMD3<Int32> {
        var f = (p - origin) / cellMm
        f.replace(with: 0, where: .!(f .== f))
        f = pointwiseMin(pointwiseMax(f, .zero), SIMD3<Float>(dims &- 1))
        return SIMD3<Int32>(f.rounded(.down))
    }

    @inline(__always) func cellIndex(_ c: SIMD3<Int32>) -> Int {
        Int(c.x) + Int(dims.x) * (Int(c.y) + Int(dims.y) * Int(c.z))
    }

    /// Calls `body` with each point of cell `index`, in the order they were added, until it returns true.
    @inline(__always) func anyInCell(_ index: Int, _ body: (Int) -> Bool) -> Bool {
        var k = first[index]
        while k >= 0 {
            if body(Int(k)) { return true }
            k = next[Int(k)]
        }
        return false
    }

    /// Whether `isNear` holds for some point in the cells that the box q ± `radius` touches (every point
    /// within `radius` of q is among them); stops at the first.
    @inline(__always)
    func contains(near q: Vec3, radius: Float, where isNear: (Int) -> Bool) -> Bool {
        let lo = cellCoord(q - Vec3(repeating: radius)), hi = cellCoord(q + Vec3(repeating: radius))
        for z in lo.z...hi.z {
            for y in lo.y...hi.y {
                for x in lo.x...hi.x where anyInCell(cellIndex(SIMD3(x, y, z)), isNear) { return true }
            }
        }
        return false
    }

    /// The 3 points nearest q by `distance` (mm, Euclidean), nearest first, searched in growing shells of
    /// cells around q's; a point at the same distance as one found earlier does not displace it. With
    /// fewer than 3 points the missing distances are infinite (and their numbers 0).
    @inline(__always)
    func nearest3(to q: Vec3, distance: (Int) -> Float) -> (items: (Int, Int, Int), distances: (Float, Float, Float)) {
        var bi = (0, 0, 0)
        var bd = (Float.infinity, Float.infinity, Float.infinity)
        let c = cellCoord(q)
        let maxRing = Int32(max(dims.x, max(dims.y, dims.z)))
        var ring: Int32 = 0
        while ring <= maxRing {
            for z in (c.z - ring)...(c.z + ring) where z >= 0 && z < dims.z {
                for y in (c.y - ring)...(c.y + ring) where y >= 0 && y < dims.y {
                    for x in (c.x - ring)...(c.x + ring) where x >= 0 && x < dims.x {
                        // Only the shell of this ring (inner cells were searched already).
                        if ring > 0 && abs(x - c.x) < ring && abs(y - c.y) < ring && abs(z - c.z) < ring { continue }
                        _ = anyInCell(cellIndex(SIMD3(x, y, z))) { i in
                            let d = distance(i)
                            if d < bd.2 {
                                if d < bd.1 {
                                    bd.2 = bd.1; bi.2 = bi.1
                                    if d < bd.0 { bd.1 = bd.0; bi.1 = bi.0; bd.0 = d; bi.0 = i } else { bd.1 = d; bi.1 = i }
                                } else { bd.2 = d; bi.2 = i }
                            }
                            return false
                        }
                    }
                }
            }
            // Every unsearched point is farther than `ring` cells from q.
            if bd.2 <= Float(ring) * cellMm { break }
            ring += 1
        }
        return (bi, bd)
    }
}
