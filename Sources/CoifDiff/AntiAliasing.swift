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
    /// Memoised `isFlat` answers for one band's pixels [first, end) of both images: bit 0 A known, bit 1
    /// A flat, bit 2 B known, bit 3 B flat. Only the band that owns a pixel writes its flags (zeroed
    /// memory to start); a neighbour in another band's rows is computed directly. Noise-like differences
    /// ask about each pixel several times, once for each differing neighbour.
    struct FlatMemo {
        let flags: UnsafeMutablePointer<UInt8>
        let first: Int
        let end: Int
    }

    /// Whether pixel (x, y) of one image (`imageIsA`: the reference, else the other) looks like an
    /// anti-aliased edge pixel. `lumaA`/`lumaB` are the two luma planes.
    @inline(__always)
    static func isEdgePixel<S>(x: Int, y: Int, imageIsA: Bool, lumaA: UnsafePointer<Float>, lumaB: UnsafePointer<Float>,
                               reader: PixelReader<S>, memo: FlatMemo) -> Bool {
        let width = reader.width, height = reader.height
        let luma = imageIsA ? lumaA : lumaB
        let centre = luma[y * width + x]
        if x > 0 && y > 0 && x < width - 1 && y < height - 1 {
            // Interior: the same scan in the same order (ties keep the first extreme), without branches
            // the data decides — noise makes them unpredictable. Stopping early at 3 equal lumas and
            // counting to the end give the same answer.
            var sameLuma = 0
            var darkest: Float = 0, brightest: Float = 0
            var darkIndex = -1, brightIndex = -1
            @inline(__always) func visit(_ n: Int) {
                let delta = luma[n] - centre
                sameLuma &+= delta == 0 ? 1 : 0
                let darker = delta < darkest, brighter = delta > brightest
                darkIndex = darker ? n : darkIndex; darkest = darker ? delta : darkest
                brightIndex = brighter ? n : brightIndex; brightest = brighter ? delta : brightest
            }
            let i = y * width + x
            visit(i - width - 1); visit(i - width); visit(i - width + 1)
            visit(i - 1); visit(i + 1)
            visit(i + width - 1); visit(i + width); visit(i + width + 1)
            guard sameLuma <= 2, darkIndex >= 0, brightIndex >= 0 else { return false }
            return (flat(darkIndex, isA: imageIsA, lumaA, lumaB, reader, memo) && flat(darkIndex, isA: !imageIsA, lumaA, lumaB, reader, memo))
                || (flat(brightIndex, isA: imageIsA, lumaA, lumaB, reader, memo) && flat(brightIndex, isA: !imageIsA, lumaA, lumaB, reader, memo))
        }
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
        // (c) asks about both images: the order only changes which answer is computed first.
        return (flat(darkIndex, isA: imageIsA, lumaA, lumaB, reader, memo) && flat(darkIndex, isA: !imageIsA, lumaA, lumaB, reader, memo))
            || (flat(brightIndex, isA: imageIsA, lumaA, lumaB, reader, memo) && flat(brightIndex, isA: !imageIsA, lumaA, lumaB, reader, memo))
    }

    /// `isFlat` for pixel `index` of image A or B, through the band's memo where the band owns the pixel.
    @inline(__always)
    static func flat<S>(_ index: Int, isA: Bool, _ lumaA: UnsafePointer<Float>, _ lumaB: UnsafePointer<Float>,
                        _ reader: PixelReader<S>, _ memo: FlatMemo) -> Bool {
        let image = isA ? reader.a : reader.b, luma = isA ? lumaA : lumaB
        guard index >= memo.first && index < memo.end else { return isFlat(index, image, luma, reader) }
        let known: UInt8 = isA ? 1 : 4, yes: UInt8 = isA ? 2 : 8
        let flags = memo.flags[index]
        if flags & known != 0 { return flags & yes != 0 }
        let answer = isFlat(index, image, luma, reader)
        memo.flags[index] = flags | known | (answer ? yes : 0)
        return answer
    }

    /// At least 3 of pixel `index`'s neighbours carry exactly its samples (border counts as one).
    /// `luma` is `image`'s luma plane: pixels of another luma cannot be identical, so most neighbours are
    /// ruled out by one compare.
    @inline(__always)
    static func isFlat<S>(_ index: Int, _ image: UnsafePointer<S>, _ luma: UnsafePointer<Float>, _ reader: PixelReader<S>) -> Bool {
        let width = reader.width, height = reader.height
        let y = index / width, x = index - y * width
        var same = (x == 0 || y == 0 || x == width - 1 || y == height - 1) ? 1 : 0
        let centre = luma[index]
        for ny in max(y - 1, 0)...min(y + 1, height - 1) {
            for nx in max(x - 1, 0)...min(x + 1, width - 1) where nx != x || ny != y {
                let n = ny * width + nx
                if luma[n] != centre { continue }
                if reader.same(image, index, n) {
                    same += 1
                    if same >= 3 { return true }
                }
            }
        }
        return false
    }
}
