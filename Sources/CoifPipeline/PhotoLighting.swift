// PhotoLighting: the light the photo was taken in, read from the shading of the person's face, so the new
// hair is lit as the face is (a warm room gives warm hair, a light from the left lights the left).
//
// Method. Coif's head, posed and sized as the hair is, gives a normal at each of its vertices that lands on
// the face's skin in the photo (the parse's skin and nose classes; without a parse, inside the landmarks'
// jaw-and-brow outline, darkest fifth and brightest twentieth dropped for eyes, brows and shine). The
// linear colour there, averaged over 3×3 pixels, is fitted per channel with first-order spherical
// harmonics, I(n) = c₀ + c₁·n (Ramamoorthi & Hanrahan 2001: a Lambertian surface's shading is within a few
// percent of its order-2 expansion; a face's normals cover one hemisphere, so order 1 is what they
// determine). The dominant direction is the luminance's c₁. Along it the skin is fitted again as
// ambient + key·max(0, n·d), which turns the light into Coif's two terms: the key's share of the light,
// its direction, and one colour for both.
//
// What the skin cannot say: its own albedo. Brightness is therefore kept at Coif's tuned portrait lights
// on the same normals, moved toward the photo's only by the square root of the skin's luminance over a
// typical skin's (0.75…1.05): a dark photo darkens the hair a little, a dark skin in good light not much,
// and a bright one never lightens it much past the colour its name promises.
// The colour is the skin's chroma over a typical skin's beyond the ±15% that skins differ by, at half
// strength and within ±20% per channel, for the same reason (a ruddy or pale face is not a coloured
// light; a tungsten-lit one is).
import CoifCore
import CoifGroom
import CoifRender
import CoifVision

#if canImport(Glibc)
import Glibc
#endif

public struct PhotoLightEstimate: Sendable, Equatable {
    /// Order-1 spherical harmonics of the skin's linear colour per channel: [c₀, c₁x, c₁y, c₁z] (OpenCV
    /// camera space: +x right, +y down, +z away from the camera).
    public var harmonics: [SIMD4<Float>]
    /// Toward the dominant light, OpenCV camera space.
    public var dominantDirection: Vec3
    /// The key's share of the light on a surface facing it, 0…1 (the rest is ambient).
    public var keyShare: Float
    /// The light's colour, luminance 1.
    public var color: Vec3
    /// Brightness relative to Coif's portrait lights.
    public var exposure: Float
    /// How many head vertices were read from the photo.
    public var sampleCount: Int
    /// The share of the cuticle's highlight the photo shows on hair (`hairSheen(_:lighting:)`), 1 where it
    /// cannot say.
    public var hairSheen: Float = 1
    /// The skin's luminance as order-1 harmonics of the normal, over its mean on the face's own skin samples:
    /// how the plate shades the skin the hair hid (HeadRender). nil where that mean is not positive.
    public var skinLuminance: SIMD4<Float>?

    /// Below this many skin samples the photo says too little: Coif's portrait lights stay.
    static let minimumSamples = 40
    /// A typical skin's linear albedo, for the colour and exposure priors above: the mean of the
    /// ColorChecker's "dark skin" and "light skin" patches (sRGB 115,82,68 and 194,150,130), linearised.
    static let typicalSkin = Vec3(0.355, 0.195, 0.141)
    static let rec709Luminance = Vec3(0.2126, 0.7152, 0.0722)
    /// How far a skin's chroma may sit from the typical one, per channel, before it counts as a colour cast.
    static let skinSpread: Float = 1.15
    /// How far the skin may move the exposure from Coif's portrait lights.
    static let exposureRange: ClosedRange<Float> = 0.75...1.05

    /// A head vertex on the face's skin: its normal (OpenCV camera space) and the photo's linear colour there.
    typealias SkinSample = (normal: Vec3, color: Vec3)

    /// The face's skin as Coif's posed head sees it: each head vertex that lands on skin (the parse's skin
    /// and nose classes; without a parse, inside the landmarks' outline, darkest fifth and brightest
    /// twentieth dropped), with its normal (OpenCV camera space) and the photo's linear colour there (3×3).
    static func skinSamples(_ analysis: PhotoAnalysis, head: HeadModel, normals: [Vec3]) -> [SkinSample] {
        let image = analysis.frame.image
        let camera = analysis.camera
        let toCamera = analysis.headToCamera
        let classes = analysis.ownHair?.classes
        let outline = classes == nil ? faceOutline(analysis.chosen.landmarks) : []
        var samples: [SkinSample] = []
        samples.reserveCapacity(1024)
        for (vertex, normal) in zip(head.vertices, normals) {
            let p = toCamera.transformPoint(vertex)
            let n = normalize(toCamera.transformPoint(vertex + normal) - p)
            guard dot(n, normalize(-p)) > 0.2, let pixel = camera.projectInFront(p) else { continue }
            let x = Int(pixel.x.rounded()), y = Int(pixel.y.rounded())
            guard x >= 1, y >= 1, x < image.width - 1, y < image.height - 1 else { continue }
            if let classes {
                let label = classes[y * image.width + x]
                guard label == OwnHair.skin || label == 10 else { continue }  // 10: nose
            } else if !contains(outline, Vec2(Float(x), Float(y))) {
                continue
            }
            samples.append((n, meanLinear(image, x: x, y: y)))
        }
        if classes == nil {
            // No parse: eyes, brows, lips and shine are in the outline too. Drop the darkest fifth and the
            // brightest twentieth by luminance.
            samples.sort { dot($0.color, rec709Luminance) < dot($1.color, rec709Luminance) }
            let count = samples.count
            samples = Array(samples[(count / 5)..<(count - count / 20)])
        }
        return samples
    }

    /// Reads the light from `analysis`'s face. nil when too few skin samples land on the face.
    /// - Parameter normals: `head`'s vertex normals (outward, head space), from `vertexNormals`.
    public static func estimate(_ analysis: PhotoAnalysis, head: HeadModel, normals: [Vec3]) -> PhotoLightEstimate? {
        guard var estimate = estimate(skinSamples(analysis, head: head, normals: normals)) else { return nil }
        estimate.hairSheen = hairSheen(analysis, lighting: estimate.lighting())
        return estimate
    }

    /// A 90th percentile of a render's solid pixels in Coif's black, over the model sphere's mean highlight
    /// (the cuticle's R lobe, `HairRecipe.referenceColor` with and without it) under the same light: the median
    /// over the 42 shared portraits' bobs, 2.6 (1.5–5.2).
    static let blackHighlightOverSphere: Float = 2.6
    /// The least share of the highlight kept: below about a quarter, dark hair loses the highlights that
    /// part its strands and reads as one flat shape.
    static let leastHairSheen: Float = 0.25

    /// How much of the cuticle's colourless highlight this photo shows on hair, read off the person's own
    /// hair: its 90th percentile of luminance (OwnHairColor's pixels) against what Coif's black shows there
    /// under `lighting` (the sphere's highlight × `blackHighlightOverSphere`), at most 1, at least
    /// `leastHairSheen`. Under a frontal key read from the face, Coif's highlight covers a straight style's
    /// front, and on a low-key photo whose own black hair shows almost none (vmhuman b-7: the person's hair at
    /// a 90th percentile of L* 10, Coif's black bob at 26) the new hair came out silver-grey beside the face.
    /// Hair lighter than that highlight (every brown, red or blonde, and black hair that shows its shine)
    /// leaves it whole: 1. No own hair to read (bald, a hat): 1.
    static func hairSheen(_ analysis: PhotoAnalysis, lighting: Lighting) -> Float {
        // On a grid of at most ~65,000 of the window's pixels: a 10-megapixel portrait's millions of hair
        // pixels, gathered and sorted, cost 170 ms for a percentile the grid gives as well.
        let image = analysis.frame.image
        let table = srgbDecodeTable
        var luminances: [Float] = []
        let enough = OwnHairColor.visitPixels(analysis, atMost: 65_536) { i, _ in
            let p = i * image.channels
            luminances.append(dot(Vec3(table[Int(image.pixels[p])], table[Int(image.pixels[p + 1])], table[Int(image.pixels[p + 2])]),
                                  rec709Luminance))
        }
        guard enough, !luminances.isEmpty else { return 1 }
        luminances.sort()
        return hairSheen(ownHighlight: luminances[min(luminances.count - 1, Int(0.9 * Float(luminances.count - 1) + 0.5))],
                         lighting: lighting)
    }

    /// The rule of `hairSheen(_:lighting:)` for own hair whose 90th percentile of linear luminance is `ownHighlight`.
    public static func hairSheen(ownHighlight: Float, lighting: Lighting) -> Float {
        let sphereHighlight = dot(HairRecipe.referenceColor(sigmaA: .zero, lights: lighting, withHighlight: true)
                                  - HairRecipe.referenceColor(sigmaA: .zero, lights: lighting, withHighlight: false), rec709Luminance)
        guard sphereHighlight > 1e-6 else { return 1 }
        return min(max(ownHighlight / (blackHighlightOverSphere * sphereHighlight), leastHairSheen), 1)
    }

    /// The light from the face's `skinSamples`.
    static func estimate(_ samples: [SkinSample]) -> PhotoLightEstimate? {
        guard samples.count >= minimumSamples else { return nil }

        // Order-1 harmonics per channel, least squares.
        let basis: [[Double]] = samples.map { [1, Double($0.normal.x), Double($0.normal.y), Double($0.normal.z)] }
        var harmonics: [SIMD4<Float>] = []
        for c in 0..<3 {
            let channel: [Double] = samples.map { Double($0.color[c]) }
            let x = solveLeastSquares(basis, channel)
            harmonics.append(SIMD4<Float>(Float(x[0]), Float(x[1]), Float(x[2]), Float(x[3])))
        }
        let r: SIMD4<Float> = harmonics[0] * rec709Luminance.x
        let g: SIMD4<Float> = harmonics[1] * rec709Luminance.y
        let b: SIMD4<Float> = harmonics[2] * rec709Luminance.z
        let luminanceHarmonics = r + g + b
        let gradient = Vec3(luminanceHarmonics.y, luminanceHarmonics.z, luminanceHarmonics.w)
        // A face lit evenly has no direction to speak of: Coif's key direction then (camera space).
        let studioKey = PinholeCamera.flipCameraAndView(Lighting().keyDirection)
        let luminances: [Double] = samples.map { Double(dot($0.color, rec709Luminance)) }
        var direction = length(gradient) > 1e-4 * max(luminanceHarmonics.x, 1e-4) ? normalize(gradient) : studioKey
        if direction.z > maximumKeyDepth {
            direction = frontKeyDirection(samples, luminances: luminances)
        }

        // Ambient + key along that direction, luminance.
        let fit = ambientAndKey(samples, luminances: luminances, direction: direction)
        let ambient = fit.ambient, key = fit.key
        let keyShare = min(max(key / max(key + ambient, 1e-6), 0.2), 0.9)

        // Colour: the skin's mean chroma over a typical skin's, half strength, ±20%.
        let mean = samples.reduce(Vec3.zero) { $0 + $1.color } / Float(samples.count)
        let meanLuminance = max(dot(mean, rec709Luminance), 1e-6)
        var color = Vec3(1, 1, 1)
        for c in 0..<3 {
            let ratio = (mean[c] / meanLuminance) / (typicalSkin[c] / dot(typicalSkin, rec709Luminance))
            // Skins differ from the typical one by up to ~15% per channel in good light: only what lies
            // beyond that band is taken as the light's colour.
            let cast = ratio / min(max(ratio, 1 / skinSpread), skinSpread)
            color[c] = min(max(cast.squareRoot(), 0.8), 1.2)
        }
        color /= dot(color, rec709Luminance)

        // Exposure: the skin's luminance over a typical skin's under Coif's lights on the same normals.
        let studio = Lighting()
        var studioLuminance: Float = 0
        for sample in samples {
            let n = PinholeCamera.flipCameraAndView(sample.normal)
            let irradiance = studio.keyRadiance * max(dot(n, normalize(studio.keyDirection)), 0)
                + studio.fillRadiance * max(dot(n, normalize(studio.fillDirection)), 0) + studio.ambientRadiance
            studioLuminance += dot(irradiance * typicalSkin, rec709Luminance)
        }
        studioLuminance /= Float(samples.count)
        let exposure = min(max((meanLuminance / max(studioLuminance, 1e-6)).squareRoot(), exposureRange.lowerBound), exposureRange.upperBound)
        var estimate = PhotoLightEstimate(harmonics: harmonics, dominantDirection: direction, keyShare: keyShare, color: color,
                                          exposure: exposure, sampleCount: samples.count)
        let h = harmonics
        let l = h[0] * rec709Luminance.x + h[1] * rec709Luminance.y + h[2] * rec709Luminance.z
        // Summed term by term into the running total, not through relativeLuminance: grouping each sample's
        // terms first moves the mean by an ulp and a pixel of a turned face's neck by a level.
        let skinMean = samples.reduce(Float(0)) { $0 + l.x + l.y * $1.normal.x + l.z * $1.normal.y + l.w * $1.normal.z } / Float(samples.count)
        if skinMean > 0 { estimate.skinLuminance = l / skinMean }
        return estimate
    }

    /// How far toward the back of the head (OpenCV camera z, toward the light) the key may lie: a face lit from
    /// behind shows no lit skin to read. The order-1 gradient points there for a light beside the face: past
    /// the terminator the far side is lit by the ambient alone, and a straight line through that clamped
    /// cosine tilts back (a light at 80° from the camera's axis reads at 110°). On 10 of the 42 shared
    /// portraits front-lit faces read as lit from behind (ctrlhair 27127, lit from her left, at 129°), and
    /// the new hair was lit as if from behind the head. −0.1: up to ~84° from the camera's axis.
    static let maximumKeyDepth: Float = -0.1

    /// The key's direction in front of the face (z ≤ `maximumKeyDepth`) whose ambient + key·max(0, n·d) fits
    /// the skin's luminance best: every 3° of azimuth (±90°) and elevation (±90°). The clamp at the terminator
    /// is what tells a side light from the face's own falloff, which a linear gradient cannot.
    static func frontKeyDirection(_ samples: [SkinSample], luminances: [Double]) -> Vec3 {
        var best = (error: Double.infinity, direction: Vec3(0, 0, -1))
        for elevationStep in -30...30 {
            let elevation = Float(elevationStep) * 3 * .pi / 180
            for azimuthStep in -30...30 {
                let azimuth = Float(azimuthStep) * 3 * .pi / 180
                // OpenCV camera space: +x right, +y down, +z away from the camera.
                let d = Vec3(sinf(azimuth) * cosf(elevation), -sinf(elevation), -cosf(azimuth) * cosf(elevation))
                guard d.z <= maximumKeyDepth else { continue }
                let fit = ambientAndKey(samples, luminances: luminances, direction: d)
                var error = 0.0
                for (sample, luminance) in zip(samples, luminances) {
                    let r = Double(fit.ambient + fit.key * max(dot(sample.normal, d), 0)) - luminance
                    error += r * r
                }
                if error < best.error { best = (error, d) }
            }
        }
        return best.direction
    }

    /// Least squares of the skin's luminance as ambient + key·max(0, n·direction), both held ≥ 0.
    static func ambientAndKey(_ samples: [SkinSample], luminances: [Double], direction: Vec3) -> (ambient: Float, key: Float) {
        let keyBasis: [[Double]] = samples.map { [1, Double(max(dot($0.normal, direction), 0))] }
        let fit = solveLeastSquares(keyBasis, luminances)
        if fit[0] < 0 {
            // No ambient: the key alone, through the origin.
            var cc = 0.0, cl = 0.0
            for (row, luminance) in zip(keyBasis, luminances) { cc += row[1] * row[1]; cl += row[1] * luminance }
            return (0, cc > 0 ? max(Float(cl / cc), 0) : 0)
        }
        if fit[1] < 0 { return (Float(luminances.reduce(0, +) / Double(max(luminances.count, 1))), 0) }
        return (Float(fit[0]), Float(fit[1]))
    }

    /// Coif's lights as the photo's: the key along the dominant direction with its share, the rest ambient,
    /// one colour, carrying as much light over the whole sphere of directions as Coif's portrait lights do
    /// (a clamped cosine averages 1/4 over the sphere, ambient 1), times `exposure`: hair faces every way,
    /// so a frontal key does not brighten it overall, it only moves the light. The key's shadow settings
    /// are `base`'s.
    public func lighting(base: Lighting = Lighting()) -> Lighting {
        let studio = Lighting()
        let studioTotal = (dot(studio.keyRadiance, Self.rec709Luminance) + dot(studio.fillRadiance, Self.rec709Luminance)) * 0.25
            + dot(studio.ambientRadiance, Self.rec709Luminance)
        let perUnit = keyShare * 0.25 + (1 - keyShare)
        let scale = exposure * studioTotal / perUnit
        var lighting = base
        lighting.keyDirection = PinholeCamera.flipCameraAndView(dominantDirection)
        lighting.keyRadiance = color * (keyShare * scale)
        lighting.fillRadiance = .zero
        lighting.ambientRadiance = color * ((1 - keyShare) * scale)
        lighting.hairSheen = hairSheen
        return lighting
    }

    /// The landmarks' jaw (0–16) and brows (26 back to 17) as one closed outline.
    static func faceOutline(_ landmarks: [Vec2]) -> [Vec2] {
        guard landmarks.count >= 27 else { return [] }
        return Array(landmarks[0...16]) + landmarks[17...26].reversed()
    }

    /// Even-odd point-in-polygon.
    static func contains(_ polygon: [Vec2], _ p: Vec2) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[i], b = polygon[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// The 3×3 mean around (x, y), linear RGB.
    static func meanLinear(_ image: PixelImage, x: Int, y: Int) -> Vec3 {
        var sum = Vec3.zero
        for dy in -1...1 {
            for dx in -1...1 {
                let i = ((y + dy) * image.width + (x + dx)) * image.channels
                sum += Vec3(srgbToLinear(Float(image.pixels[i]) / 255), srgbToLinear(Float(image.pixels[i + 1]) / 255),
                            srgbToLinear(Float(image.pixels[i + 2]) / 255))
            }
        }
        return sum / 9
    }
}

/// Least squares by the normal equations (Gaussian elimination with partial pivoting); a few unknowns,
/// well conditioned here (normals spread over a face). Zeros where the system is singular.
func solveLeastSquares(_ rows: [[Double]], _ values: [Double]) -> [Double] {
    let n = rows.first?.count ?? 0
    var a = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: n)
    for (row, value) in zip(rows, values) {
        for i in 0..<n {
            for j in 0..<n { a[i][j] += row[i] * row[j] }
            a[i][n] += row[i] * value
        }
    }
    for column in 0..<n {
        let pivot = (column..<n).max { abs(a[$0][column]) < abs(a[$1][column]) }!
        guard abs(a[pivot][column]) > 1e-12 else { return [Double](repeating: 0, count: n) }
        a.swapAt(column, pivot)
        for row in 0..<n where row != column {
            let f = a[row][column] / a[column][column]
            for k in column...n { a[row][k] -= f * a[column][k] }
        }
    }
    return (0..<n).map { a[$0][n] / a[$0][$0] }
}
