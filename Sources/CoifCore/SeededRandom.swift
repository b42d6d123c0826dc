// SeededRandom: the only source of randomness in Coif. SplitMix64 (Steele, Lea & Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014): tiny, fast, and the same sequence on every platform,
// which is what byte-identical renders need. Not for cryptography.

public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for a sub-stream (strand i, say) that does not depend on how many numbers other
    /// sub-streams drew: order-independent, so parallel or reordered work gives the same numbers.
    public init(seed: UInt64, stream: UInt64) {
        var mixer = SeededRandom(seed: seed ^ (stream &* 0x9E37_79B9_7F4A_7C15))
        state = mixer.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 24 bits: exact in Float, so no platform rounding differences.
    public mutating func unitFloat() -> Float { Float(next() >> 40) * (1.0 / 16_777_216.0) }

    /// Uniform in [lo, hi).
    public mutating func uniform(_ lo: Float, _ hi: Float) -> Float { lo + (hi - lo) * unitFloat() }

    /// Standard normal by Box–Muller (deterministic: uses only sqrt/log/cos of exact inputs).
    public mutating func gaussian() -> Float {
        let u1 = max(unitFloat(), 1e-7), u2 = unitFloat()
        return (-2 * logf(u1)).squareRoot() * cosf(2 * Float.pi * u2)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
