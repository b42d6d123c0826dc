// AntiAliasing: is a differing pixel just an edge drawn with a slightly different sub-pixel coverage?
// The idea is pixelmatch's (Mapbox; after Vysniauskas, "Anti-aliased pixel and intensity slope detector",
// 2009); this is Coif's own formulation of it:
//   in one of the two images, the pixel
//   (a) sits on a slope, not on a plateau: at most 2 of its 8 neighbours share its luma (a pixel on the
//       image border counts one such neighbour for the missing side);
//   (b) lies strictly between its darkest and its brightest neighbour (both exist);
//   (c) and one of those two extremes is itself in a flat region in *both* images: it has at least 3
//       neighbours with exactly its samples (border bonus as in (a)) — the two sides of an edge are flat,
//       the pixel between them is their blend.
// A real change — a recolour, a missing strand, noise — fails (a) or (c).
enum AntiAliasing {
    /// Whether pixel (x, y) of `image` (with `luma` its luma plane) looks like an anti-aliased edge pixel,
    /// `other` being the image it is compared with.
    @inline(__always)
    static func isEdgePixel<S>(x: Int, y: Int, in image: UnsafePointer<S>, luma: UnsafePointer<Float>,
                               other: UnsafePointer<S>, reader: PixelReader<S>) -> Bool {
        let width = reader.width, height = reader.height
        let centre = luma[y * width + x]
        let x0 = max(x - 1, 0), x1 = min(x + 1, width - 1), y0 = max(y - 1, 0), y1 = min(y + 1, height - 1)
        var sameLuma = (x == 0 || y == 0 || x == width - 1 || y == height - 1) ? 1 : 0
        var darkest: Float = 0, brightest: Float = 0
        var darkIndex = -1, brightIndex = -1
        for ny in y0...y1 {
            for nx in x0...x1 where nx != x || ny != y {
                let n = ny * width + nx
                let delta = luma[n] - centre
                if delta == 0 {
                    sameLuma += 1
                    if sameLuma > 2 { return false }
                } else if delta < darkest {
                    darkest = delta; darkIndex = n
                } else if delta > brightest {
                    brightest = delta; brightIndex = n
                }
            }
        }
        guard darkIndex >= 0, brightIndex >= 0 else { return false }
        return (isFlat(darkIndex, image, luma, reader) && isFlat(darkIndex, other, nil, reader))
            || (isFlat(brightIndex, image, luma, reader) && isFlat(brightIndex, other, nil, reader))
    }

    /// At least 3 of pixel `index`'s neighbours carry exactly its samples (border counts as one).
    @inline(__always)
    /// `luma`, when given, is `image`'s luma plane: pixels of another luma cannot be identical, so most
    /// neighbours are ruled out by one compare.
    static func isFlat<S>(_ index: Int, _ image: UnsafePointer<S>, _ luma: UnsafePointer<Float>?, _ reader: PixelReader<S>) -> Bool {
        let width = reader.width, height = reader.height
        let y = index / width, x = index - y * width
        var same = (x == 0 || y == 0 || x == width - 1 || y == height - 1) ? 1 : 0
        for ny in max(y - 1, 0)...min(y + 1, height - 1) {
            for nx in max(x - 1, 0)...min(x + 1, width - 1) where nx != x || ny != y {
                let n = ny * width + nx
                if let luma, luma[n] != luma[index] { continue }
                if reader.same(image, index, n) {
                    same += 1
                    if same >= 3 { return true }
                }
            }
        }
        return false
    }
}
