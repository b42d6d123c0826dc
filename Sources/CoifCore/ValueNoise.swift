// ValueNoise: smooth seeded noise in 3-D, the lattice form of Perlin (1985) with values in place of
// gradients: a seeded value in [0, 1) at every integer lattice point, blended trilinearly with
// smoothstep weights. Deterministic (SeededRandom per lattice point, no table, no global state) and
// cheap enough to evaluate once per strand.

public struct ValueNoise: Sendable {
    public let seed: UInt64

    public init(seed: UInt64) { self.seed = seed }

    /// The noise at `p` (lattice units), in [0, 1).
    public func callAsFunction(_ p: Vec3) -> Float {
        let cell = p.rounded(.down)
        var f = p - cell
        f = f * f * (3 - 2 * f)
        let x = Int64(cell.x), y = Int64(cell.y), z = Int64(cell.z)
        func value(_ dx: Int64, _ dy: Int64, _ dz: Int64) -> Float {
            // Each coordinate through its own odd multiplier, so neighbouring cells draw unrelated streams.
            let stream = UInt64(bitPattern: (x &+ dx) &* 0x1F1F_1F1F_1F1F_1F1F)
                ^ UInt64(bitPattern: (y &+ dy) &* 0x5851_F42D_4C95_7F2D) ^ UInt64(bitPattern: (z &+ dz) &* 0x2545_F491_4F6C_DD1D)
            var random = SeededRandom(seed: seed, stream: stream)
            return random.unitFloat()
        }
        func lerp(_ a: Float, _ b: Float, _ t: Float) -> Float { a + (b - a) * t }
        let x00 = lerp(value(0, 0, 0), value(1, 0, 0), f.x), x10 = lerp(value(0, 1, 0), value(1, 1, 0), f.x)
        let x01 = lerp(value(0, 0, 1), value(1, 0, 1), f.x), x11 = lerp(value(0, 1, 1), value(1, 1, 1), f.x)
        return lerp(lerp(x00, x10, f.y), lerp(x01, x11, f.y), f.z)
    }
}
