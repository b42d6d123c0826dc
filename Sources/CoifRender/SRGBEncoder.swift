// SRGBEncoder: linear light to 8-bit sRGB without a powf per channel. A composite of a preview frame
// (head and hair cover every pixel) spent ~9 ms of 512² in powf; a threshold table gives the same bytes
// in a fraction of that. The thresholds are found from the reference encoding itself, so the two agree
// for every input, not just to within a rounding step.
import CoifCore
#if canImport(Glibc)
import Glibc
#endif

public struct SRGBEncoder: Sendable {
    /// thresholds[k]: the smallest Float in [0, 1] whose reference encoding is k + 1 or more.
    private let thresholds: [Float]
    /// coarse[j]: the reference encoding of j / coarseSteps, where the search for a value starts.
    private let coarse: [UInt8]
    static let coarseSteps = 4096

    /// The definition: round(linearToSrgb(x) · 255), x clamped to [0, 1].
    @inlinable public static func reference(_ linear: Float) -> UInt8 {
        UInt8((linearToSrgb(min(max(linear, 0), 1)) * 255).rounded())
    }

    public init() {
        // Non-negative Floats order like their bit patterns, so bisect on those (monotone encoding).
        thresholds = (1...255).map { (k: Int) -> Float in
            var below = Float(0).bitPattern, atOrAbove = Float(1).bitPattern
            while atOrAbove - below > 1 {
                let middle = below + (atOrAbove - below) / 2
                if Int(Self.reference(Float(bitPattern: middle))) >= k { atOrAbove = middle } else { below = middle }
            }
            return Float(bitPattern: atOrAbove)
        }
        coarse = (0...Self.coarseSteps).map { Self.reference(Float($0) / Float(Self.coarseSteps)) }
    }

    /// Equal to `reference(linear)` for every Float; NaN and negatives give 0.
    @inline(__always) public func encode(_ linear: Float) -> UInt8 {
        guard linear > 0 else { return 0 }
        guard linear < 1 else { return 255 }
        // x · 4096 is exact, so the bucket starts at or below x and its encoding is a lower bound; a value
        // is at most a couple of steps above it (the steepest part of the curve is ~0.8 steps a bucket).
        var k = Int(coarse[Int(linear * Float(Self.coarseSteps))])
        while k < 255 && linear >= thresholds[k] { k += 1 }
        return UInt8(truncatingIfNeeded: k)
    }
}
