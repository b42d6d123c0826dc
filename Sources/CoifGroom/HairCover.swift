// HairCover: how much hair lies over each strand point, toward the sky over the hair. The strand shader
// darkens a point by it (HairShading.occlusionUnderHair): the sky's light a point receives is what the hair
// over it lets through. It replaced a darkening by the point's place along its strand (roots dark, clear by
// 60% of the length), which drew a bun's and a ponytail's whole visible front (all root half: the length is
// gathered at the crown) at 0.5–0.7 of its light. Pulled-back hair lies in one thin layer with nothing
// over it; a bob's roots lie under its length.
//
// The hair's projected width is splatted into a voxel grid (a deep opacity map's density: Kim & Neumann 2001;
// Yuksel & Keyser 2008) and integrated outward along the hair volume's normal (from the cranium's centre,
// head space's origin, as strand.vert's N), from just past the point's own voxel. The width is the catalog's
// at full density (LevelOfDetail.fullDensityStrands), so a level of detail that draws fewer, wider strands
// has the same cover. A property of the strands, so it lives with them (and is built optimised in every
// configuration, as this module is: it runs at each upload of a style's strands).
import CoifCore

#if canImport(Glibc)
import Glibc
#endif

public enum HairCover {
    /// The grid's voxel (mm): a hair layer over the skull is a few millimetres thick.
    public static let voxelMm: Float = 2.5
    /// Hair counts as over a point from this far out (mm): past the point's own layer (its voxel and the
    /// sampling's reach), so a strand and its neighbours side by side do not cover each other.
    public static let startMm: Float = 3
    /// Hair farther out than this (mm) no longer counts: the sky it hides is lit around it.
    public static let reachMm: Float = 20
    /// Extinction per layer of hair over a point (its projected width × length per mm² of the sky's view). A
    /// head of hair at full density lays ~1.8 layers a millimetre over a bob; at 0.05 a layer that is the
    /// light scattered through hair's extinction, ~0.09/mm (KeyLightShadow: 0.25/mm × 0.35).
    public static let extinctionPerLayer: Float = 0.05

    /// Cover (0 … 1, 1 − transmittance) of each point of `positions` (`pointsPerStrand` per strand, head
    /// space mm), the strands standing for `widthMm` of projected width each (the catalog's mean width ×
    /// fullDensityStrands / the strands drawn). The hair over a point is counted along the hair volume's
    /// normal (from the cranium's centre) turned square to the strand: hair hanging below the head is covered
    /// by the locks beside it, not by its own length below it.
    public static func cover(positions: UnsafeBufferPointer<Vec3>, pointsPerStrand: Int, widthMm: Float) -> [Float] {
        let count = positions.count
        guard count > 0, pointsPerStrand >= 2, widthMm > 0 else { return [Float](repeating: 0, count: count) }
        var low = Vec3(repeating: .infinity), high = Vec3(repeating: -.infinity)
        for p in positions {
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        // The grid reaches past the hair so every march stays inside it.
        let pad = Vec3(repeating: reachMm + 2 * voxelMm)
        low -= pad
        high += pad
        let nx = Int(((high.x - low.x) / voxelMm).rounded(.up)) + 1
        let ny = Int(((high.y - low.y) / voxelMm).rounded(.up)) + 1
        let nz = Int(((high.z - low.z) / voxelMm).rounded(.up)) + 1
        let inverseVoxel = 1 / voxelMm
        // Density: projected area (mm²) per voxel volume (mm³), each segment laid along its length a half
        // voxel at a time.
        var density = [Float](repeating: 0, count: nx * ny * nz)
        let perVolume = widthMm / (voxelMm * voxelMm * voxelMm)
        density.withUnsafeMutableBufferPointer { grid in
            for strand in 0..<(count / pointsPerStrand) {
                let first = strand * pointsPerStrand
                for k in 0..<(pointsPerStrand - 1) {
                    let a = positions[first + k], d = positions[first + k + 1] - a
                    let length = (d * d).sum().squareRoot()
                    let pieces = max(1, Int((length * 2 * inverseVoxel).rounded(.up)))
                    let each = length / Float(pieces) * perVolume
                    for j in 0..<pieces {
                        let q = (a + d * ((Float(j) + 0.5) / Float(pieces)) - low) * inverseVoxel
                        grid[(Int(q.z) * ny + Int(q.y)) * nx + Int(q.x)] += each
                    }
                }
            }
        }
        // Trilinear: a point's cover varies smoothly over the hair, not voxel by voxel.
        @inline(__always) func sample(_ grid: UnsafeBufferPointer<Float>, _ p: Vec3) -> Float {
            let q = (p - low) * inverseVoxel - 0.5
            let x0 = Int(q.x.rounded(.down)), y0 = Int(q.y.rounded(.down)), z0 = Int(q.z.rounded(.down))
            guard x0 >= 0, y0 >= 0, z0 >= 0, x0 + 1 < nx, y0 + 1 < ny, z0 + 1 < nz else { return 0 }
            let fx = q.x - Float(x0), fy = q.y - Float(y0), fz = q.z - Float(z0)
            let i = (z0 * ny + y0) * nx + x0
            func lerp(_ a: Float, _ b: Float, _ t: Float) -> Float { a + (b - a) * t }
            let c00 = lerp(grid[i], grid[i + 1], fx), c10 = lerp(grid[i + nx], grid[i + nx + 1], fx)
            let c01 = lerp(grid[i + nx * ny], grid[i + nx * ny + 1], fx)
            let c11 = lerp(grid[i + nx * ny + nx], grid[i + nx * ny + nx + 1], fx)
            return lerp(lerp(c00, c10, fy), lerp(c01, c11, fy), fz)
        }
        let step: Float = 1
        let samples = Int(((reachMm - startMm) / step).rounded(.down)) + 1
        return density.withUnsafeBufferPointer { grid in
            [Float](unsafeUninitializedCapacity: count) { out, initialized in
                for i in 0..<count {
                    let p = positions[i]
                    let k = i % pointsPerStrand
                    let previous = positions[i - (k > 0 ? 1 : 0)], next = positions[i + (k < pointsPerStrand - 1 ? 1 : 0)]
                    var tangent = next - previous
                    let tangentLength = (tangent * tangent).sum().squareRoot()
                    let radius = (p * p).sum().squareRoot()
                    guard radius > 1e-3, tangentLength > 1e-6 else { out[i] = 0; continue }
                    tangent /= tangentLength
                    let radial = p / radius
                    var outward = radial - tangent * (radial * tangent).sum()
                    let outwardLength = (outward * outward).sum().squareRoot()
                    // A strand standing straight out of the head has no hair over it.
                    guard outwardLength > 0.2 else { out[i] = 0; continue }
                    outward /= outwardLength
                    var layers: Float = 0
                    for s in 0..<samples { layers += sample(grid, p + outward * (startMm + Float(s) * step)) }
                    out[i] = 1 - expf(-extinctionPerLayer * layers * step)
                }
                initialized = count
            }
        }
    }
}
