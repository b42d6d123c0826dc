// HeadRender: the person's head drawn at the photo's camera. Coif's head mesh (cranium, face, jaw and neck,
// from the project's generator), posed by the face's pose and sized to the person (HeadSizing), rasterised
// with a depth test into a label buffer: which part of the head each pixel sees. The plate takes where skin
// may go from this silhouette (HeadRegion), not from a convex hull around the face and the skull: a hull
// drew an egg from the skull's side to the chin, and no neck at all.
//
// On the CPU: the plate runs before the GPU pass and on photos up to 12 MP, and the mesh is a few thousand
// triangles, so a scan-line rasteriser over the head's box costs about a millisecond at 512² and no context.
import CoifCore
import CoifGroom
import CoifVision

package enum HeadRender {
    /// Draws every analysed face's posed head into one photo-sized label buffer (HeadRegion's labels; 0 off
    /// every head). Where two heads overlap, the nearer one's label wins (one depth buffer for all).
    package static func labels(_ analyses: [PhotoAnalysis], head: HeadModel) -> [UInt8] {
        let image = analyses[0].frame.image
        let width = image.width, height = image.height
        var labels = [UInt8](repeating: HeadRegion.none, count: width * height)
        var depth = [Float](repeating: .infinity, count: width * height)
        let parts = partOfEachTriangle(head)
        for analysis in analyses {
            let camera = analysis.camera, toCamera = analysis.headToCamera
            let inCamera = head.vertices.map { toCamera.transformPoint($0) }
            let projected = inCamera.map { camera.projectInFront($0) }
            var t = 0
            while t + 2 < head.indices.count {
                let i0 = Int(head.indices[t]), i1 = Int(head.indices[t + 1]), i2 = Int(head.indices[t + 2])
                if let a = projected[i0], let b = projected[i1], let c = projected[i2] {
                    rasterise(a, b, c, depths: (inCamera[i0].z, inCamera[i1].z, inCamera[i2].z), label: parts[t / 3],
                              width: width, height: height, labels: &labels, depth: &depth)
                }
                t += 3
            }
        }
        return labels
    }

    /// Each triangle's part of the head, by its centroid in head space: below the chin (landmark 8) the neck;
    /// above the cheekbones (the jaw's landmarks 1 and 15, where the face is widest) the cranium and temples;
    /// between them the face's lower part, which the landmarks' jaw line bounds in the photo.
    static func partOfEachTriangle(_ head: HeadModel) -> [UInt8] {
        let l = head.landmarks68
        let chinY = l[8].y, cheekY = (l[1].y + l[15].y) / 2
        var parts: [UInt8] = []
        parts.reserveCapacity(head.indices.count / 3)
        var t = 0
        while t + 2 < head.indices.count {
            let y = (head.vertices[Int(head.indices[t])].y + head.vertices[Int(head.indices[t + 1])].y
                     + head.vertices[Int(head.indices[t + 2])].y) / 3
            parts.append(y < chinY ? HeadRegion.neck : y >= cheekY ? HeadRegion.cranium : HeadRegion.lowerFace)
            t += 3
        }
        return parts
    }

    /// One triangle, pixel centres inside it (top-left rule by half-open edge tests), depth interpolated as
    /// 1/z (perspective-correct) and tested: the nearest surface's label is kept.
    static func rasterise(_ a: Vec2, _ b: Vec2, _ c: Vec2, depths: (Float, Float, Float), label: UInt8,
                          width: Int, height: Int, labels: inout [UInt8], depth: inout [Float]) {
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
                let z = 1 / (w0 * inverse.0 + w1 * inverse.1 + w2 * inverse.2)
                let i = y * width + x
                if z < depth[i] {
                    depth[i] = z
                    labels[i] = label
                }
            }
        }
    }
}
