// JudgeRegions: where `coif eval believable` allows skin, from the 68 landmarks alone. The plate decides
// where skin goes with its own model of the person's head (PersonHead, the posed head render); a judge that
// used that model would pass whatever the model gets wrong (a fringe portrait read 1.6% bared scalp by the
// plate's face and 16.5% by a fixed region). So these regions share nothing with the plate: fixed shares of
// the landmarks' own geometry, written once here.
import CoifCore
import CoifVision

public struct JudgeRegions: Sendable {
    /// Unit vectors in the image: across the face (subject's right eye to left eye) and up it (y is down).
    let across: Vec2
    let up: Vec2
    let points: [Vec2]
    /// The face's width: the jaw's ends, points 0 and 16 (px).
    let faceWidth: Float

    /// The natural hairline above the brows over the brows-to-nose-base distance: the facial thirds (upper
    /// third ≈ middle third; 1.1 allows a forehead a little taller than the middle third, as most are).
    static let upperThirdRatio: Float = 1.1
    /// How far the jaw line may grow before new skin counts as widening the face, as a share of its width.
    static let jawGrowShare: Float = 0.03

    /// nil for degenerate points (coincident eyes or jaw ends).
    public init?(landmarks p: [Vec2]) {
        guard p.count == 68 else { return nil }
        let eyes = Landmarks68.eyeCentres(p)
        let d = eyes.left - eyes.right
        let length = (d * d).sum().squareRoot()
        guard length > 1 else { return nil }
        across = d / length
        up = Vec2(across.y, -across.x)
        points = p
        let jaw = p[16] - p[0]
        faceWidth = (jaw * jaw).sum().squareRoot()
        guard faceWidth > 1 else { return nil }
    }

    func along(_ v: Vec2, _ axis: Vec2) -> Float { (v * axis).sum() }

    /// The jaw outline: points 0…16, closed along the brows (26 back to 17), as a fan of triangles about the
    /// nose's top (27), which every part of that outline sees.
    func jawTriangles(grownBy grow: Float = 0) -> [Float] {
        let outline = Array(points[0...16]) + points[17...26].reversed()
        let hub = points[27]
        let grown = outline.map { p -> Vec2 in
            let d = p - hub
            let r = (d * d).sum().squareRoot()
            return r > 0 ? p + d / r * grow : p
        }
        var out: [Float] = []
        for i in 0..<grown.count {
            let a = grown[i], b = grown[(i + 1) % grown.count]
            out += [hub.x, hub.y, a.x, a.y, b.x, b.y]
        }
        return out
    }

    /// The forehead: between the brows' outer ends (17 and 26), from the brows up to the facial-thirds
    /// hairline (upperThirdRatio × the brows' centre to the nose's base, point 33).
    func foreheadTriangles() -> [Float] {
        let brows = points[17...26].reduce(Vec2(), +) / 10
        let middleThird = max(along(brows - points[33], up), 1)
        let lift = up * (Self.upperThirdRatio * middleThird)
        let a = points[17], b = points[26], c = b + lift, d = a + lift
        return [a.x, a.y, b.x, b.y, c.x, c.y, a.x, a.y, c.x, c.y, d.x, d.y]
    }

    /// The skin a try-on may show on the face: the jaw outline and the forehead up to the facial-thirds
    /// hairline. Skin where own hair was, outside this, is bared scalp.
    public func allowedSkin(width: Int, height: Int) -> [UInt8] {
        HeadSilhouette.mask(width: width, height: height, triangles: jawTriangles() + foreheadTriangles())
    }

    /// The jaw outline alone (its area is what `faceWidened` is a share of).
    public func jawOutline(width: Int, height: Int) -> [UInt8] {
        HeadSilhouette.mask(width: width, height: height, triangles: jawTriangles())
    }

    /// Where new skin below the eyes does not widen the face: the jaw outline grown by `jawGrowShare` of the
    /// face's width, and a neck as wide as the jaw at points 4 and 12, from that row down. Everything at or
    /// above the eye line is left to the scalp measure.
    public func unwidened(width: Int, height: Int) -> [UInt8] {
        var mask = HeadSilhouette.mask(width: width, height: height, triangles: jawTriangles(grownBy: Self.jawGrowShare * faceWidth))
        let eyes = Landmarks68.eyeCentres(points)
        let eyeLine = (eyes.left + eyes.right) / 2
        let neckLeft = along(points[4] - eyeLine, across), neckRight = along(points[12] - eyeLine, across)
        let neckTop = min(along(points[4] - eyeLine, up), along(points[12] - eyeLine, up))
        let low = min(neckLeft, neckRight), high = max(neckLeft, neckRight)
        for y in 0..<height {
            for x in 0..<width {
                let d = Vec2(Float(x) + 0.5, Float(y) + 0.5) - eyeLine
                let u = along(d, up), a = along(d, across)
                if u >= 0 || (u <= neckTop && a >= low && a <= high) { mask[y * width + x] = 255 }
            }
        }
        return mask
    }
}
