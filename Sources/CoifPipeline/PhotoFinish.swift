// PhotoFinish: the photo's grain and softness at the face, so the new hair carries the same: a render's
// strands are sharper and cleaner than any photo, and that is what makes them look pasted on.
//
// Grain: Immerkær's noise estimator (1996) on the face's skin: the luminance convolved with the 3×3
// Laplacian difference [1 −2 1; −2 4 −2; 1 −2 1], which cancels any locally planar shading and leaves the
// noise at 6σ; the median of its magnitude (/0.6745 for a Gaussian) instead of Immerkær's mean, so the few
// edges that fall in the skin do not count. Skin pores count as grain; that is what the hair should match.
// Softness: Zhuo & Sim's defocus estimate (2011) at the face's edges (eyes, brows, lips, the jaw): blurring a
// step edge of blur σ by a Gaussian of σ₀ scales its gradient by σ/√(σ²+σ₀²), so the ratio R of the gradient
// before and after a σ₀ = 1 re-blur gives σ = σ₀/√(R²−1). The median over the strongest tenth of the face's
// gradients; JPEG blocks and a photo's upscaling both read as softness, which is what the hair should match.
import CoifCore
import CoifRender
import CoifVision

public struct PhotoFinish: Sendable, Equatable {
    /// The photo's noise at the face, standard deviation in 8-bit sRGB units of luminance.
    public var noiseSigma: Float
    /// The photo's blur at the face's edges, a Gaussian's σ in pixels (≈0.5 for a sharp, well-focused photo:
    /// a pixel's own footprint).
    public var blurSigmaPx: Float

    public init(noiseSigma: Float, blurSigmaPx: Float) {
        self.noiseSigma = noiseSigma
        self.blurSigmaPx = blurSigmaPx
    }

    /// The softness a render already has: 4× MSAA resolved by a one-pixel box (σ ≈ 0.3 px) and sub-pixel
    /// strands dithered over the samples; as a Gaussian, about half a pixel.
    static let renderedBlurSigmaPx: Float = 0.5
    /// The most blur and grain applied: beyond this a photo is out of focus or noisy enough that the hair
    /// would turn to mush matching it.
    static let maximumLayerBlurPx: Float = 3
    static let maximumNoiseSigma: Float = 12

    /// The Gaussian (px) the hair layer is blurred by: what the photo has beyond the render's own.
    public var layerBlurSigmaPx: Float {
        min((max(blurSigmaPx * blurSigmaPx - Self.renderedBlurSigmaPx * Self.renderedBlurSigmaPx, 0)).squareRoot(),
            Self.maximumLayerBlurPx)
    }

    /// The grain's standard deviation (8-bit sRGB units) added where the hair covers.
    public var grainSigma: Float { min(noiseSigma, Self.maximumNoiseSigma) }

    /// Pixels the layer's blur reaches: the hair's crop grows by this so a crop blurs as the whole frame does.
    public var blurRadiusPx: Int { Int((3 * layerBlurSigmaPx).rounded(.up)) }

    /// Reads the finish off `analysis`'s face: the skin (the parse's skin class, else the landmarks'
    /// outline) for the grain, the landmarks' box for the edges. nil when the face is too small to say
    /// (under 24 px of skin or edges).
    public static func estimate(_ analysis: PhotoAnalysis) -> PhotoFinish? {
        let image = analysis.frame.image
        let landmarks = analysis.chosen.landmarks
        guard landmarks.count == 68 else { return nil }
        var low = landmarks[0], high = landmarks[0]
        for p in landmarks { low = pointwiseMin(low, p); high = pointwiseMax(high, p) }
        let x0 = max(Int(low.x) - 2, 2), y0 = max(Int(low.y) - 2, 2)
        let x1 = min(Int(high.x) + 3, image.width - 3), y1 = min(Int(high.y) + 3, image.height - 3)
        guard x1 - x0 >= 16, y1 - y0 >= 16 else { return nil }
        let width = x1 - x0 + 4, height = y1 - y0 + 4  // the box plus 2 px on every side for the kernels
        let ox = x0 - 2, oy = y0 - 2
        var luminance = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let i = ((oy + y) * image.width + ox + x) * image.channels
                luminance[y * width + x] = 0.2126 * Float(image.pixels[i]) + 0.7152 * Float(image.pixels[i + 1])
                    + 0.0722 * Float(image.pixels[i + 2])
            }
        }
        let classes = analysis.ownHair?.classes
        let outline = PhotoLightEstimate.faceOutline(landmarks)
        func isSkin(_ x: Int, _ y: Int) -> Bool {
            if let classes { return classes[(oy + y) * image.width + ox + x] == OwnHair.skin }
            return PhotoLightEstimate.contains(outline, Vec2(Float(ox + x), Float(oy + y)))
        }

        // Grain: |Laplacian difference| on skin pixels, median.
        var responses: [Float] = []
        for y in 2..<(height - 2) {
            for x in 2..<(width - 2) where isSkin(x, y) {
                let c = y * width + x
                let l = luminance
                let r = l[c - width - 1] - 2 * l[c - width] + l[c - width + 1]
                    - 2 * l[c - 1] + 4 * l[c] - 2 * l[c + 1]
                    + l[c + width - 1] - 2 * l[c + width] + l[c + width + 1]
                responses.append(abs(r))
            }
        }
        // Softness: gradients before and after a σ₀ = 1 re-blur, at the strongest tenth.
        let blurred = GaussianKernel(sigma: 1).blurred(luminance, width: width, height: height)
        var edges: [(gradient: Float, ratio: Float)] = []
        for y in 2..<(height - 2) {
            for x in 2..<(width - 2) {
                let c = y * width + x
                let g = gradient(luminance, c, width), gb = gradient(blurred, c, width)
                if g > 8, gb > 0 { edges.append((g, g / gb)) }
            }
        }
        guard responses.count >= 24, edges.count >= 24 else { return nil }
        let noise = median(&responses) / (0.6745 * 6)
        edges.sort { $0.gradient > $1.gradient }
        var ratios = edges.prefix(max(edges.count / 10, 24)).map(\.ratio)
        let ratio = median(&ratios)
        // R ≤ 1 cannot come from a blurred edge (re-blurring never steepens one): the sharpest reading.
        let blur = ratio > 1.0001 ? 1 / (ratio * ratio - 1).squareRoot() : 0
        return PhotoFinish(noiseSigma: noise, blurSigmaPx: min(blur, 10))
    }

    /// Central-difference gradient magnitude at index `c`.
    static func gradient(_ l: [Float], _ c: Int, _ width: Int) -> Float {
        let gx = (l[c + 1] - l[c - 1]) * 0.5, gy = (l[c + width] - l[c - width]) * 0.5
        return (gx * gx + gy * gy).squareRoot()
    }

    static func median(_ values: inout [Float]) -> Float {
        values.sort()
        return values[values.count / 2]
    }
}
