// LayerFinish: what makes a rendered hair layer sit in a photo: the photo's softness (a Gaussian blur of
// the premultiplied layer, which blurs colour and coverage together, as a lens does) and its grain (added
// by the Compositor where the hair covers). The amounts come from the photo (CoifPipeline's PhotoFinish).
import CoifCore

#if canImport(Glibc)
import Glibc
#endif

/// A normalised Gaussian kernel, radius ⌈3σ⌉, and a separable convolution with it (edges clamped).
public struct GaussianKernel: Sendable {
    public let weights: [Float]
    public var radius: Int { weights.count / 2 }

    public init(sigma: Float) {
        let radius = max(Int((3 * sigma).rounded(.up)), 0)
        var weights = (-radius...radius).map { x -> Float in sigma > 0 ? expf(-Float(x * x) / (2 * sigma * sigma)) : 1 }
        let sum = weights.reduce(0, +)
        for i in weights.indices { weights[i] /= sum }
        self.weights = weights
    }

    /// One pass along rows (`horizontal`) or columns of an interleaved image of `channels` floats a pixel.
    public func convolve(_ source: [Float], into output: inout [Float], width: Int, height: Int, channels: Int, horizontal: Bool) {
        let r = radius
        source.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { out in
                weights.withUnsafeBufferPointer { w in
                    for y in 0..<height {
                        for x in 0..<width {
                            for c in 0..<channels {
                                var sum: Float = 0
                                for k in -r...r {
                                    let sx = horizontal ? min(max(x + k, 0), width - 1) : x
                                    let sy = horizontal ? y : min(max(y + k, 0), height - 1)
                                    sum += w[k + r] * src[(sy * width + sx) * channels + c]
                                }
                                out[(y * width + x) * channels + c] = sum
                            }
                        }
                    }
                }
            }
        }
    }
}

extension GaussianKernel {
    /// A one-channel image blurred by this kernel along rows, then columns, edges clamped.
    public func blurred(_ image: [Float], width: Int, height: Int) -> [Float] {
        var rows = [Float](repeating: 0, count: image.count), out = rows
        convolve(image, into: &rows, width: width, height: height, channels: 1, horizontal: true)
        convolve(rows, into: &out, width: width, height: height, channels: 1, horizontal: false)
        return out
    }

    /// `convolve` for RGBA, a pixel at a time as one SIMD4 (the layer's blur: 1024² stills spent 20–40 ms
    /// in the per-channel loop). Same sums in the same order per channel, so the same result.
    func convolveRGBA(_ source: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>,
                      width: Int, height: Int, horizontal: Bool) {
        let r = radius
        let src = UnsafeRawBufferPointer(source).bindMemory(to: SIMD4<Float>.self)
        let out = UnsafeMutableRawBufferPointer(output).bindMemory(to: SIMD4<Float>.self)
        weights.withUnsafeBufferPointer { w in
            for y in 0..<height {
                for x in 0..<width {
                    var sum = SIMD4<Float>(repeating: 0)
                    if horizontal {
                        let row = y * width
                        for k in -r...r { sum += w[k + r] * src[row + min(max(x + k, 0), width - 1)] }
                    } else {
                        for k in -r...r { sum += w[k + r] * src[min(max(y + k, 0), height - 1) * width + x] }
                    }
                    out[y * width + x] = sum
                }
            }
        }
    }
}

extension HairLayer {
    /// Blurs the layer (premultiplied RGBA) by a Gaussian of `sigmaPx`; nothing below 0.05 px. `scratch`
    /// is reused storage (resized as needed), so a frame allocates nothing once it has grown.
    public mutating func blur(sigmaPx: Float, scratch: inout [Float]) {
        guard sigmaPx >= 0.05, width > 0, height > 0 else { return }
        let kernel = GaussianKernel(sigma: sigmaPx)
        if scratch.count != rgba.count { scratch = [Float](repeating: 0, count: rgba.count) }
        let (w, h) = (width, height)
        rgba.withUnsafeBufferPointer { source in
            scratch.withUnsafeMutableBufferPointer { kernel.convolveRGBA(source, into: $0, width: w, height: h, horizontal: true) }
        }
        scratch.withUnsafeBufferPointer { source in
            rgba.withUnsafeMutableBufferPointer { kernel.convolveRGBA(source, into: $0, width: w, height: h, horizontal: false) }
        }
    }
}

/// Film or sensor grain added to the composite where the hair covers, scaled by its coverage: luminance
/// noise (the same on R, G and B) of `sigma` 8-bit sRGB units, from a hash of the photo pixel and `seed`
/// (no state: a crop gets the whole frame's grain, and the same seed the same bytes).
public struct Grain: Sendable, Equatable {
    public var sigma: Float
    public var seed: UInt64
    public init(sigma: Float, seed: UInt64) {
        self.sigma = sigma
        self.seed = seed
    }

    /// A standard normal number for photo pixel (x, y): the sum of four hashed uniforms, centred and scaled
    /// (Irwin–Hall; within 1% of a Gaussian's spread, bounded at ±3.5σ).
    @inline(__always) func normal(x: Int, y: Int) -> Float {
        var h = UInt64(truncatingIfNeeded: x) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: y) &* 0xC2B2_AE3D_27D4_EB4F ^ seed
        var sum: Float = 0
        for _ in 0..<4 {
            h ^= h >> 33; h = h &* 0xFF51_AFD7_ED55_8CCD; h ^= h >> 33; h = h &* 0xC4CE_B9FE_1A85_EC53; h ^= h >> 33
            sum += Float(h >> 40) / Float(1 << 24)
        }
        return (sum - 2) * 1.7320508
    }
}
