// GroomMath: the small numerics the groom generator needs and nothing else: Double 3-vectors, rigid and
// similarity Procrustes (Horn's unit-quaternion method with a 4x4 Jacobi eigen-solver), and the fixed
// decimal formatting that keeps generated files byte-identical across runs. Not a general linear-algebra
// library: everything here is sized for 68 points and a few thousand vertices.
import CoifCore

typealias DVec3 = SIMD3<Double>

@inline(__always) func ddot(_ a: DVec3, _ b: DVec3) -> Double { (a * b).sum() }
@inline(__always) func dcross(_ a: DVec3, _ b: DVec3) -> DVec3 {
    DVec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
@inline(__always) func dlength(_ a: DVec3) -> Double { ddot(a, a).squareRoot() }
@inline(__always) func dnormalize(_ a: DVec3) -> DVec3 { let l = dlength(a); return l > 0 ? a / l : a }

/// Each vertex's neighbours over the edges of `triangles` (a flat list of corner triples), each listed once,
/// in the order the triangles first reach them (edges a–b, b–c, c–a). The head generator's relaxation
/// averages over them; a groom's under-layer grows and shrinks its covered set over them.
func vertexNeighbours(vertexCount: Int, triangles: [UInt32]) -> [[Int]] {
    var neighbours = [[Int]](repeating: [], count: vertexCount)
    var t = 0
    while t + 2 < triangles.count {
        let a = Int(triangles[t]), b = Int(triangles[t + 1]), c = Int(triangles[t + 2])
        for (u, v) in [(a, b), (b, c), (c, a)] {
            if !neighbours[u].contains(v) { neighbours[u].append(v) }
            if !neighbours[v].contains(u) { neighbours[v].append(u) }
        }
        t += 3
    }
    return neighbours
}

/// A 3x3 matrix as three rows, Double; used only for rotations from Procrustes.
struct DMat3: Sendable {
    var r0: DVec3, r1: DVec3, r2: DVec3
    static let identity = DMat3(r0: DVec3(1, 0, 0), r1: DVec3(0, 1, 0), r2: DVec3(0, 0, 1))
    @inline(__always) func apply(_ v: DVec3) -> DVec3 { DVec3(ddot(r0, v), ddot(r1, v), ddot(r2, v)) }
}

enum Procrustes {
    static func centroid(_ pts: [DVec3]) -> DVec3 { pts.reduce(DVec3.zero, +) / Double(pts.count) }

    /// The rotation R minimising Σ|R a_i − b_i|² for centred point sets (Horn 1987, "Closed-form solution of
    /// absolute orientation using unit quaternions", JOSA A 4(4)): the eigenvector of the largest eigenvalue
    /// of a 4x4 symmetric matrix built from the cross-covariance is the optimal unit quaternion. Proper
    /// rotations only (never a reflection).
    static func rotation(from a: [DVec3], to b: [DVec3]) -> DMat3 {
        var s = [[Double]](repeating: [0, 0, 0], count: 3)
        for i in 0..<a.count {
            for r in 0..<3 { for c in 0..<3 { s[r][c] += a[i][r] * b[i][c] } }
        }
        let (xx, xy, xz) = (s[0][0], s[0][1], s[0][2])
        let (yx, yy, yz) = (s[1][0], s[1][1], s[1][2])
        let (zx, zy, zz) = (s[2][0], s[2][1], s[2][2])
        let n: [[Double]] = [
            [xx + yy + zz, yz - zy, zx - xz, xy - yx],
            [yz - zy, xx - yy - zz, xy + yx, zx + xz],
            [zx - xz, xy + yx, -xx + yy - zz, yz + zy],
            [xy - yx, zx + xz, yz + zy, -xx - yy + zz],
        ]
        let (values, vectors) = jacobiEigen(n)
        var best = 0
        for i in 1..<4 where values[i] > values[best] { best = i }
        let w = vectors[0][best], x = vectors[1][best], y = vectors[2][best], z = vectors[3][best]
        return DMat3(r0: DVec3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
                     r1: DVec3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
                     r2: DVec3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }

    /// Similarity (scale s, rotation R, translation t) taking `a` onto `b` in the least-squares sense.
    static func similarity(from a: [DVec3], to b: [DVec3]) -> (scale: Double, rotation: DMat3, apply: (DVec3) -> DVec3) {
        let ca = centroid(a), cb = centroid(b)
        let a0 = a.map { $0 - ca }, b0 = b.map { $0 - cb }
        let r = rotation(from: a0, to: b0)
        var num = 0.0, den = 0.0
        for i in 0..<a0.count { let ra = r.apply(a0[i]); num += ddot(ra, b0[i]); den += ddot(a0[i], a0[i]) }
        let s = den > 0 ? num / den : 1
        return (s, r, { p in cb + s * r.apply(p - ca) })
    }

    /// Cyclic Jacobi eigen-decomposition of a small symmetric matrix: eigenvalues, and eigenvectors as columns.
    static func jacobiEigen(_ m: [[Double]]) -> ([Double], [[Double]]) {
        let n = m.count
        var a = m
        var v = (0..<n).map { r in (0..<n).map { c in r == c ? 1.0 : 0.0 } }
        for _ in 0..<64 {
            var off = 0.0
            for p in 0..<n { for q in (p + 1)..<n { off += a[p][q] * a[p][q] } }
            if off < 1e-30 { break }
            for p in 0..<n {
                for q in (p + 1)..<n where abs(a[p][q]) > 1e-300 {
                    let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                    let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot(), s = t * c
                    for k in 0..<n {
                        let akp = a[k][p], akq = a[k][q]
                        a[k][p] = c * akp - s * akq
                        a[k][q] = s * akp + c * akq
                    }
                    for k in 0..<n {
                        let apk = a[p][k], aqk = a[q][k]
                        a[p][k] = c * apk - s * aqk
                        a[q][k] = s * apk + c * aqk
                    }
                    for k in 0..<n {
                        let vkp = v[k][p], vkq = v[k][q]
                        v[k][p] = c * vkp - s * vkq
                        v[k][q] = s * vkp + c * vkq
                    }
                }
            }
        }
        return ((0..<n).map { a[$0][$0] }, v)
    }
}

/// Fixed-point decimal text for generated files: `decimals` digits, round half away from zero, never "-0".
/// Integer arithmetic only, so the same Float gives the same bytes on every platform and run.
func fixed(_ value: Float, _ decimals: Int = 3) -> String { fixed(Double(value), decimals) }

func fixed(_ value: Double, _ decimals: Int = 3) -> String {
    var scale: Int64 = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (value * Double(scale)).rounded(.toNearestOrAwayFromZero)
    guard scaled.isFinite, abs(scaled) < 9e15 else { return "0" }
    var units = Int64(scaled)
    let negative = units < 0
    if negative { units = -units }
    let whole = units / scale, frac = units % scale
    var text = negative && units != 0 ? "-" : ""
    text += String(whole)
    if decimals > 0 {
        let digits = String(frac)
        text += "." + String(repeating: "0", count: decimals - digits.count) + digits
    }
    return text
}

@inline(__always) func smoothstep(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
    let t = min(max((x - e0) / (e1 - e0), 0), 1)
    return t * t * (3 - 2 * t)
}

@inline(__always) func mix(_ a: Vec3, _ b: Vec3, _ t: Float) -> Vec3 { a + (b - a) * t }
