// MirrorFit: left–right mirrored images and boxes, and landmark fits made on the mirror image and mapped
// back (points renumbered by CoifCore's `Landmarks68.mirror`). dlib's ERT is not mirror-symmetric (its
// trees were grown on one orientation of each training face), so the fit of the mirror image errs
// differently from the direct fit: their mean has less variance than either (the usual flip test-time
// augmentation).

import CoifCore

extension PixelImage {
    /// The image flipped left–right (any channel count).
    public func mirrored() -> PixelImage {
        var out = pixels
        let c = channels
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let row = y * width * c
                    for x in 0..<width {
                        let from = row + x * c, to = row + (width - 1 - x) * c
                        for k in 0..<c { dst[to + k] = src[from + k] }
                    }
                }
            }
        }
        return PixelImage(width: width, height: height, channels: c, pixels: out)
    }
}

extension FaceBox {
    /// The same box in the left–right mirror of an image `imageWidth` pixels wide.
    public func mirrored(imageWidth: Int) -> FaceBox {
        FaceBox(left: Float(imageWidth) - right, top: top, right: Float(imageWidth) - left, bottom: bottom, score: score)
    }
}

extension FaceFinder {
    /// Landmarks fitted on `mirroredGray` (the left–right mirror of the image) in `box` (in the original's
    /// pixels), mapped back: x → width − 1 − x and the points renumbered by `Landmarks68.mirror`.
    public func landmarksOnMirror(mirroredGray: PixelImage, box: FaceBox, refits: Int) -> [Vec2] {
        let w = mirroredGray.width
        let points = landmarks(gray: mirroredGray, box: box.mirrored(imageWidth: w), refits: refits)
        guard points.count == 68 else { return [] }
        var out = points
        for i in 0..<68 {
            let p = points[Landmarks68.mirror[i]]
            out[i] = Vec2(Float(w - 1) - p.x, p.y)
        }
        return out
    }

    /// The mean of the direct fit in `box` and the fit on the mirror image (`landmarksOnMirror`), each with
    /// `refits` refits; the direct fit alone when the mirror fit fails. Twice the cost of one fit.
    public func landmarksMirrorAveraged(gray: PixelImage, mirroredGray: PixelImage, box: FaceBox, refits: Int) -> [Vec2] {
        let direct = landmarks(gray: gray, box: box, refits: refits)
        guard direct.count == 68 else { return [] }
        let mirror = landmarksOnMirror(mirroredGray: mirroredGray, box: box, refits: refits)
        guard mirror.count == 68 else { return direct }
        return zip(direct, mirror).map { ($0 + $1) / 2 }
    }
}
