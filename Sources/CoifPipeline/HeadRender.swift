// HeadRender: the person's head drawn at the photo's camera. Coif's head mesh (cranium, face, jaw and neck,
// from the project's generator), posed by the face's pose and sized to the person (HeadSizing), rasterised
// with a depth test into a label buffer (which part of the head each pixel sees) and a shading buffer (the
// skin's luminance at the head's interpolated normal under the light read from the face, over its mean on
// the face). The plate takes where skin may go from this silhouette (HeadRegion), not from a convex hull
// around the face and the skull (which drew an egg from the skull's side to the chin, and no neck), and lights
// the skin it fills with the shading.
//
// On the CPU: the plate runs before the GPU pass and on photos up to 12 MP, and the mesh is a few thousand
// triangles, so a scan-line rasteriser over the head's box costs about a millisecond at 512² and no context.
import CoifCore
import CoifGroom
import CoifRender
import CoifVision
import Foundation

package enum HeadRender {
    /// The buffers, photo-sized: `labels` (HeadRegion's; 0 off every head) and `shade` (0 where unknown: off
    /// the heads, or a face showing too little skin to read the light).
    package struct Buffers: Sendable {
        package var labels: [UInt8]
        package var shade: [Float]
        /// Per analysis drawn: the skin's luminance as order-1 harmonics of the camera-space normal, over its
        /// mean on the face (nil where the face showed too little skin to read the light).
        package var luminance: [SIMD4<Float>?] = []

        package init(labels: [UInt8], shade: [Float]) {
            self.labels = labels
            self.shade = shade
        }
    }

    /// The range the shading is kept to, relative to the face's mean: order-1 harmonics fitted on the face's
    /// front extrapolate to the skull's sides and top, where a clamp keeps a dim or blown-out fit in reason.
    static let shadeRange: ClosedRange<Float> = 0.6...1.3

    /// Draws every analysed face's posed head into one pair of photo-sized buffers. Where two heads overlap,
    /// the nearer one wins (one depth buffer for all). `analyses` carry the own hair's parse, which says where
    /// the face's skin is for reading the light.
    package static func draw(_ analyses: [PhotoAnalysis], head: HeadModel) -> Buffers {
        draw(analyses, head: head, normals: vertexNormals(vertices: head.vertices, indices: head.indices))
    }

    /// `draw` with `head`'s vertex normals (`vertexNormals`) already made: the plate makes them once for the
    /// light it reads and the head it draws.
    package static func draw(_ analyses: [PhotoAnalysis], head: HeadModel, normals: [Vec3]) -> Buffers {
        let image = analyses[0].frame.image
        let width = image.width, height = image.height
        var buffers = Buffers(labels: [UInt8](repeating: HeadRegion.none, count: width * height),
                              shade: [Float](repeating: 0, count: width * height))
        var depth = [Float](repeating: .infinity, count: width * height)
        let parts = partOfEachTriangle(head)
        for analysis in analyses {
            let camera = analysis.camera, toCamera = analysis.headToCamera
            let inCamera = head.vertices.map { toCamera.transformPoint($0) }
            let projected = inCamera.map { camera.projectInFront($0) }
            // The skin's luminance as order-1 harmonics of the normal, over its mean on the face's own skin
            // samples: the light the analysis read (PhotoAnalysis.readLight), read here where it was not.
            let luminance = analysis.readLight(head: head, normals: normals).estimate?.skinLuminance
            buffers.luminance.append(luminance)
            let normalsInCamera = zip(head.vertices, normals).enumerated().map { k, pair in
                normalize(toCamera.transformPoint(pair.0 + pair.1) - inCamera[k])
            }
            var t = 0
            while t + 2 < head.indices.count {
                let i0 = Int(head.indices[t]), i1 = Int(head.indices[t + 1]), i2 = Int(head.indices[t + 2])
                if let a = projected[i0], let b = projected[i1], let c = projected[i2] {
                    var label = parts[t / 3].part
                    if parts[t / 3].behindTheEars {
                        let centre = (inCamera[i0] + inCamera[i1] + inCamera[i2]) / 3
                        let facing = dot(normalize(normalsInCamera[i0] + normalsInCamera[i1] + normalsInCamera[i2]), normalize(-centre))
                        if facing > HeadRegion.backOfHeadFacing { label = HeadRegion.backOfHead }
                    }
                    rasterise(a, b, c, depths: (inCamera[i0].z, inCamera[i1].z, inCamera[i2].z),
                              normals: (normalsInCamera[i0], normalsInCamera[i1], normalsInCamera[i2]), luminance: luminance,
                              label: label, width: width, height: height, buffers: &buffers, depth: &depth)
                }
                t += 3
            }
        }
        return buffers
    }

    /// How much of the light the jaw takes from the neck just beneath it (it hides about half the sky there),
    /// and how far below the jaw line that shadow reaches, in the neck's half-widths (its e-folding distance).
    static let jawOcclusion: Float = 0.5, jawShadowReach: Float = 0.35

    /// The neck `band` HeadRegion draws, shaded as the cylinder it is under `luminance` (Buffers.luminance):
    /// across the band the normal turns from the camera to the band's sides, so the neck darkens toward its
    /// edges as a neck does, not a flat column with the head's shading smeared down it; and just under the
    /// `jaw` line (landmarks, photo pixels) the jaw shades it, so the face keeps its jaw's edge. Over the
    /// band's pixels off the drawn face and cranium (the chin stays the face's).
    package static func shadeNeck(_ band: HeadRegion.NeckBand, jaw: [Vec2], luminance: SIMD4<Float>, width: Int, height: Int,
                                  buffers: inout Buffers) {
        let side = Vec2(-band.down.y, band.down.x)
        let corners = [band.top - side * band.halfWidth, band.top + side * band.halfWidth,
                       band.top + band.down * band.length - side * band.halfWidth, band.top + band.down * band.length + side * band.halfWidth]
        let x0 = max(0, Int(corners.map(\.x).min()!.rounded(.down))), x1 = min(width - 1, Int(corners.map(\.x).max()!.rounded(.up)))
        let y0 = max(0, Int(corners.map(\.y).min()!.rounded(.down))), y1 = min(height - 1, Int(corners.map(\.y).max()!.rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        for y in y0...y1 {
            for x in x0...x1 {
                let i = y * width + x
                let pixel = Vec2(Float(x) + 0.5, Float(y) + 0.5)
                guard buffers.labels[i] != HeadRegion.lowerFace, buffers.labels[i] != HeadRegion.cranium, buffers.labels[i] != HeadRegion.backOfHead,
                      let place = band.place(pixel) else { continue }
                // OpenCV camera space: x right, y down, the camera along −z from the surface.
                let s = place.across, n = Vec3(side.x * s, side.y * s, -(max(0, 1 - s * s)).squareRoot())
                let occlusion = jawOcclusion * expf(-distance(from: pixel, toLine: jaw) / (jawShadowReach * band.halfWidth))
                let shade = relativeLuminance(luminance, at: n) * (1 - occlusion)
                buffers.shade[i] = min(max(shade, shadeRange.lowerBound), shadeRange.upperBound)
            }
        }
    }

    /// The skin's relative luminance at camera-space normal `n` under order-1 harmonics `l` (Buffers.luminance).
    @inline(__always) static func relativeLuminance(_ l: SIMD4<Float>, at n: Vec3) -> Float { l.x + l.y * n.x + l.z * n.y + l.w * n.z }

    /// The distance from `p` to the polyline through `points`.
    static func distance(from p: Vec2, toLine points: [Vec2]) -> Float {
        var best = Float.infinity
        for k in 0..<max(0, points.count - 1) {
            let a = points[k], ab = points[k + 1] - points[k]
            let t = min(max(((p - a) * ab).sum() / max((ab * ab).sum(), 1e-6), 0), 1)
            let d = p - (a + ab * t)
            best = min(best, (d * d).sum())
        }
        return best.squareRoot()
    }

    /// Each triangle's part of the head, by its centroid in head space: below the chin (landmark 8) the neck;
    /// above the cheekbones (the jaw's landmarks 1 and 15, where the face is widest) the cranium and temples;
    /// between them the face's lower part, which the landmarks' jaw line bounds in the photo. And whether it is
    /// skull behind the ears: above the chin and behind the plane of the jaw line's top points (0 and 16, at the
    /// tragus; head space's +z is out of the face), and above the cheekbones also the side of the skull up to
    /// `templeAheadOfEarMm` in front of it (over the ear and the temple behind the brows' ends, which a turned
    /// head shows beside the face); `draw` labels it the back of the head where it faces the camera.
    static func partOfEachTriangle(_ head: HeadModel) -> [(part: UInt8, behindTheEars: Bool)] {
        let l = head.landmarks68
        let chinY = l[8].y, cheekY = (l[1].y + l[15].y) / 2, earZ = min(l[0].z, l[16].z)
        var parts: [(part: UInt8, behindTheEars: Bool)] = []
        parts.reserveCapacity(head.indices.count / 3)
        var t = 0
        while t + 2 < head.indices.count {
            let centre = (head.vertices[Int(head.indices[t])] + head.vertices[Int(head.indices[t + 1])] + head.vertices[Int(head.indices[t + 2])]) / 3
            let part = centre.y < chinY ? HeadRegion.neck : centre.y >= cheekY ? HeadRegion.cranium : HeadRegion.lowerFace
            let plane = centre.y >= cheekY ? earZ + templeAheadOfEarMm : earZ
            parts.append((part, centre.z < plane && centre.y >= chinY))
            t += 3
        }
        return parts
    }

    /// How far in front of the tragus the skull's side above the cheekbones counts as the back of the head (mm).
    static let templeAheadOfEarMm: Float = 20

    /// One triangle, pixel centres inside it (half-open edge tests), depth interpolated as 1/z and tested: the
    /// nearest surface's label is kept, and its shading from the normal interpolated perspective-correctly.
    static func rasterise(_ a: Vec2, _ b: Vec2, _ c: Vec2, depths: (Float, Float, Float), normals: (Vec3, Vec3, Vec3),
                          luminance: SIMD4<Float>?, label: UInt8, width: Int, height: Int, buffers: inout Buffers, depth: inout [Float]) {
        let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
        guard abs(area) > 1e-6 else { return }
        let x0 = max(0, Int((min(a.x, b.x, c.x) - 0.5).rounded(.up))), x1 = min(width - 1, Int((max(a.x, b.x, c.x) - 0.5).rounded(.down)))
        let y0 = max(0, Int((min(a.y, b.y, c.y) - 0.5).rounded(.up))), y1 = min(height - 1, Int((max(a.y, b.y, c.y) - 0.5).rounded(.down)))
        guard x0 <= x1, y0 <= y1 else { return }
        let inverse = (1 / depths.0, 1 / depths.1, 1 / depths.2)
        for y in y0...y1 {
            let py = Float(y) + 0.5
            for x in x0...x1 {
                let px = Float(x) + 0.5
                let w0 = ((b.x - px) * (c.y - py) - (b.y - py) * (c.x - px)) / area
                let w1 = ((c.x - px) * (a.y - py) - (c.y - py) * (a.x - px)) / area
                let w2 = 1 - w0 - w1
                guard w0 >= 0, w1 >= 0, w2 >= 0 else { continue }
                let perspective = (w0 * inverse.0, w1 * inverse.1, w2 * inverse.2)
                let sum = perspective.0 + perspective.1 + perspective.2
                let z = 1 / sum
                let i = y * width + x
                guard z < depth[i] else { continue }
                depth[i] = z
                buffers.labels[i] = label
                if let l = luminance {
                    let n = normalize((normals.0 * perspective.0 + normals.1 * perspective.1 + normals.2 * perspective.2) / sum)
                    let shade = relativeLuminance(l, at: n)
                    buffers.shade[i] = min(max(shade, shadeRange.lowerBound), shadeRange.upperBound)
                } else {
                    buffers.shade[i] = 0
                }
            }
        }
    }
}
