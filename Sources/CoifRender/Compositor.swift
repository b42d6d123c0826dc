// Compositor: puts the hair layer over the photo in linear light ("over" with premultiplied alpha,
// Porter & Duff 1984), then encodes back to sRGB; the hair's shadow on the skin, when given, darkens the
// photo under the layer. Pixels neither touches are copied byte for byte, so a recolor changes nothing
// outside the matte.
import CoifCore

#if canImport(Glibc)
import Glibc
#endif

/// The three images a still produces.
public struct CompositeImages: Sendable {
    /// The photo with hair, RGB.
    public var composite: PixelImage
    /// Hair only, RGBA: RGB is the sRGB encoding of the *premultiplied* linear colour, A the coverage.
    /// Composite it as `decode(rgb) + (1 − a)·decode(photo)` in linear light.
    public var hair: PixelImage
    /// Hair coverage, 8-bit gray (255 = fully hair).
    public var matte: PixelImage
}

/// The person's hair-bearing scalp that the plate filled where the new style does not reach (temples, sides,
/// crown below its hairline): drawn as close-cropped hair of the new hair's own mean colour, so a short
/// style's hairline is the person's, not a bald cap above it. `weights`: how much of each photo pixel is
/// scalp (0…1); `texture`: the own hair's luminance there relative to its mean, softened (1 elsewhere), so the
/// cropped hair keeps the direction and grain of the person's hair.
public struct ScalpHair: Sendable {
    public var weights: [Float]
    public var texture: [Float]
    /// The box of the pixels with weight (nil: none), which the hair's region must hold.
    public var bounds: PixelRect?
    /// How densely the crop covers the scalp: 1 for a style over a full head of hair; `stubbleDensity` for
    /// one designed to show scalp (the catalog tag `shaved-sides`: the mohawk), whose sides show shaded
    /// scalp with stubble, not flat skin and not a crop.
    public var density: Float = 1
    public static let stubbleDensity: Float = 0.35
    /// The catalog tag of styles whose sides are shaved.
    public static let shavedSidesTag = "shaved-sides"
    public init(weights: [Float], texture: [Float], width: Int) {
        precondition(weights.count == texture.count && width > 0 && weights.count % width == 0)
        self.weights = weights
        self.texture = texture
        var low = (x: Int.max, y: Int.max), high = (x: -1, y: -1)
        for i in weights.indices where weights[i] > 0.5 / 255 {
            let x = i % width, y = i / width
            low = (min(low.x, x), min(low.y, y))
            high = (max(high.x, x), max(high.y, y))
        }
        bounds = high.x >= 0 ? PixelRect(x: low.x, y: low.y, width: high.x - low.x + 1, height: high.y - low.y + 1) : nil
    }
    /// Cropped hair is darker than the full-length strands' mean: it shows its roots and the scalp between
    /// them, and catches no long highlight.
    static let shade: Float = 0.8
}

public struct Compositor: Sendable {
    private let decodeTable: [Float]
    private let encoder = SRGBEncoder()

    public init() {
        decodeTable = srgbDecodeTable
    }

    /// - Parameter photo: RGB, sRGB-encoded, the same size as the layer.
    public func composite(layer: HairLayer, over photo: PixelImage) -> CompositeImages {
        precondition(photo.width == layer.width && photo.height == layer.height)
        return composite(layer: layer, at: PixelRect(x: 0, y: 0, width: layer.width, height: layer.height), over: photo)
    }

    /// The layer covers `rect` of the photo (the hair's crop); outside it the composite is the photo and
    /// the hair and matte images are empty.
    /// - Parameter photo: RGB, sRGB-encoded; `rect` lies within it and has the layer's size.
    /// - Parameter grain: noise added to the composite where the hair covers (scaled by coverage); the hair
    ///   and matte images stay clean.
    /// - Parameter lightLeft: the hair's shadow on the skin, the layer's size: R is the share of the photo's
    ///   light left at each pixel (HairRenderer.readSkinLight), applied under the hair.
    public func composite(layer: HairLayer, at rect: PixelRect, over photo: PixelImage, grain: Grain? = nil,
                          lightLeft: HairLayer? = nil, scalpHair: ScalpHair? = nil) -> CompositeImages {
        precondition(lightLeft.map { $0.width == layer.width && $0.height == layer.height } ?? true)
        precondition(photo.channels == 3 && rect.width == layer.width && rect.height == layer.height)
        precondition(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= photo.width && rect.y + rect.height <= photo.height)
        var composite = photo
        var hair = PixelImage(width: photo.width, height: photo.height, channels: 4)
        var matte = PixelImage(width: photo.width, height: photo.height, channels: 1)
        let photoWidth = photo.width
        let lightLeftPixels = lightLeft?.rgba ?? []
        precondition(scalpHair.map { $0.weights.count == photo.width * photo.height } ?? true)
        // The new hair's mean colour (linear, straight) over its solid pixels: what the cropped scalp hair wears.
        var cropped = SIMD3<Float>(repeating: 0), solid: Float = 0
        if scalpHair != nil {
            for p in 0..<(layer.width * layer.height) where layer.rgba[p * 4 + 3] >= 0.5 {
                let straight = SIMD3<Float>(layer.rgba[p * 4], layer.rgba[p * 4 + 1], layer.rgba[p * 4 + 2])
                cropped += straight / layer.rgba[p * 4 + 3]
                solid += 1
            }
        }
        let scalpWeights = solid > 0 ? scalpHair!.weights : []
        let scalpDensity = min(max(scalpHair?.density ?? 1, 0), 1)
        let scalpTexture = solid > 0 ? scalpHair!.texture : []
        if solid > 0 { cropped *= ScalpHair.shade / solid }
        decodeTable.withUnsafeBufferPointer { table in
          scalpWeights.withUnsafeBufferPointer { scalp in
                lightLeftPixels.withUnsafeBufferPointer { leftPixels in
                    layer.rgba.withUnsafeBufferPointer { rgba in
                        composite.pixels.withUnsafeMutableBufferPointer { out in
                            hair.pixels.withUnsafeMutableBufferPointer { hairOut in
                                matte.pixels.withUnsafeMutableBufferPointer { matteOut in
                                    for row in 0..<rect.height {
                                        for column in 0..<rect.width {
                                            let l = row * rect.width + column                          // in the layer
                                            let i = (rect.y + row) * photoWidth + rect.x + column   // in the photo
                                            let left = leftPixels.isEmpty ? 1 : min(max(leftPixels[l * 4], 0), 1)
                                            // Below half an 8-bit step the hair is invisible: none of it (nor its colour)
                                            // reaches the composite, so a recolour changes nothing outside the matte;
                                            // where its shadow is invisible too, the photo's bytes are kept.
                                            // The cropped scalp hair lies under the new hair, in the same layer:
                                            // the new hair over it, premultiplied.
                                            let scalpWeight = scalp.isEmpty ? 0 : min(scalp[i], 1) * scalpDensity
                                            let layerAlpha = min(max(rgba[l * 4 + 3], 0), 1)
                                            let alpha = layerAlpha + (1 - layerAlpha) * scalpWeight
                                            let seen = alpha >= 0.5 / 255
                                            if !seen && abs(left - 1) < 0.5 / 255 { continue }
                                            let noise = grain.map { $0.sigma * alpha * $0.normal(x: rect.x + column, y: rect.y + row) } ?? 0
                                            for c in 0..<3 {
                                                var premultiplied: Float = 0
                                                if seen {
                                                    premultiplied = max(rgba[l * 4 + c], 0)
                                                    if scalpWeight > 0 {
                                                        premultiplied += (1 - layerAlpha) * scalpWeight * min(cropped[c] * scalpTexture[i], 1)
                                                    }
                                                }
                                                let background = min(table[Int(out[i * 3 + c])] * left, 1)
                                                let value = encode(premultiplied + (1 - (seen ? alpha : 0)) * background)
                                                out[i * 3 + c] = noise == 0 ? value : UInt8(min(max((Float(value) + noise).rounded(), 0), 255))
                                                hairOut[i * 4 + c] = encode(premultiplied)
                                            }
                                            let coverage = UInt8(((seen ? alpha : 0) * 255).rounded())
                                            hairOut[i * 4 + 3] = coverage
                                            matteOut[i] = coverage
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
          }
        }
        return CompositeImages(composite: composite, hair: hair, matte: matte)
    }

    @inline(__always) private func encode(_ linear: Float) -> UInt8 { encoder.encode(linear) }
}

/// Remove only what would show: the own hair the new hair covers densely stays in the plate, so what glints
/// through the new hair's gaps is hair, not a fill of skin or background. `keep` = smoothstep over the new
/// hair's coverage blurred by `sigmaPx` (0 at `coverageLow` or less, 1 at `coverageHigh`): only well inside
/// the new hair, so along its edges the fill shows, never a fringe of the old colour.
public enum CoveredOwnHair {
    public static let coverageLow: Float = 0.75
    public static let coverageHigh: Float = 0.97

    /// `plate` with the photo's own pixels back wherever the layer (over `rect`) covers densely.
    public static func restore(plate: PixelImage, photo: PixelImage, layer: HairLayer, at rect: PixelRect, sigmaPx: Float,
                               scratch: inout [Float]) -> PixelImage {
        precondition(plate.width == photo.width && plate.height == photo.height && plate.channels == 3 && photo.channels == 3)
        precondition(rect.width == layer.width && rect.height == layer.height)
        var out = plate
        layer.blurCoverage(sigmaPx: sigmaPx, into: &scratch)
        scratch.withUnsafeBufferPointer { buffer in
            let coverage = buffer.baseAddress!
            for row in 0..<rect.height {
                for column in 0..<rect.width {
                    let t = (coverage[row * rect.width + column] - coverageLow) / (coverageHigh - coverageLow)
                    guard t > 0 else { continue }
                    let keep = t >= 1 ? 1 : t * t * (3 - 2 * t)
                    let i = ((rect.y + row) * plate.width + rect.x + column) * 3
                    for c in 0..<3 where plate.pixels[i + c] != photo.pixels[i + c] {
                        let mixed = Float(plate.pixels[i + c]) + keep * (Float(photo.pixels[i + c]) - Float(plate.pixels[i + c]))
                        out.pixels[i + c] = UInt8(mixed.rounded())
                    }
                }
            }
        }
        return out
    }
}

extension HairLayer {
    /// The layer's coverage alone (one channel, not its four), blurred by three box passes each way (a
    /// Gaussian of σ within a few per cent, at a cost that does not grow with σ: running sums), into the
    /// first `width × height` of `scratch`; the second holds the passes' intermediate. No allocation per
    /// frame once `scratch` has grown to the largest region.
    public func blurCoverage(sigmaPx: Float, into scratch: inout [Float]) {
        let count = width * height
        if scratch.count < 2 * count { scratch = [Float](repeating: 0, count: 2 * count) }
        let (w, h) = (width, height)
        rgba.withUnsafeBufferPointer { rgba in
            scratch.withUnsafeMutableBufferPointer { buffer in
                let coverage = buffer.baseAddress!, between = buffer.baseAddress! + count
                for p in 0..<count { coverage[p] = min(max(rgba[p * 4 + 3], 0), 1) }
                // Three boxes of width w have σ² = 3(w² − 1)/12.
                let radius = Int(((4 * sigmaPx * sigmaPx + 1).squareRoot() - 1) / 2 + 0.5)
                guard radius > 0 else { return }
                for _ in 0..<3 {
                    Self.boxPass(coverage, into: between, lines: h, length: w, step: 1, stride: w, radius: radius)
                    Self.boxPass(between, into: coverage, lines: w, length: h, step: w, stride: 1, radius: radius)
                }
            }
        }
    }

    /// A box mean of `radius` along each of `lines` lines of `length` samples (`step` apart; lines `stride`
    /// apart), edges repeated, by a running sum.
    static func boxPass(_ source: UnsafeMutablePointer<Float>, into output: UnsafeMutablePointer<Float>, lines: Int, length: Int,
                        step: Int, stride: Int, radius: Int) {
        let scale = 1 / Float(2 * radius + 1)
        for line in 0..<lines {
            let base = line * stride
            @inline(__always) func at(_ i: Int) -> Float { source[base + min(max(i, 0), length - 1) * step] }
            var sum: Float = 0
            for i in -radius...radius { sum += at(i) }
            for i in 0..<length {
                output[base + i * step] = sum * scale
                sum += at(i + radius + 1) - at(i - radius)
            }
        }
    }
}
