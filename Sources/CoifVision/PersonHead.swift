// PersonHead: the person's own face in the photo, from the 68 landmarks alone, in the face's own frame (the
// eye line across, its perpendicular up, so a rolled face is handled): the face inside its jaw line, the
// forehead up to a natural hairline set by the facial thirds (brows to hairline ≈ 1.1 × brows to the nose's
// base), the brows and eyes. Coif's posed 3D head is one fixed shape scaled to the person: right for the
// skull the new hair sits on, wrong for the jaw and cheeks, which this follows. The plate fills skin inside
// HeadRegion: this face, and the drawn head's cranium and neck. Limit: 2D, so a face turned far keeps its
// jaw line but not its cheek's depth.
import CVision
import CoifCore
import Foundation

public struct PersonHead: Sendable {
    /// Unit vectors in the image: across the face (the subject's right eye to left eye) and up the face.
    public let across: Vec2
    public let up: Vec2
    /// The brows' centre (landmarks 17–26), the frame's origin.
    public let browCentre: Vec2
    /// Half the face's width along `across` (jaw points 0 and 16), px.
    public let halfWidth: Float
    /// The jaw's centre along `across` from the brow centre, px (a turned face's jaw sits off the brows).
    public let centreAcross: Float
    /// The brows to the nose's base (landmark 33), px along `up`: the face's middle third.
    public let middleThird: Float
    /// The jaw line, 0…16, image px.
    public let jaw: [Vec2]
    /// The brows (17–21, 22–26) and eyes (36–41, 42–47), image px: what a fill must never paint over.
    public let features: [[Vec2]]

    /// How far the face's outline lies beyond its jaw landmarks, as a share of their distance from the face's
    /// middle (by eye on the shared portraits: 4–8%): what a judge allows as the face's own skin.
    public static let contourMargin: Float = 0.06
    /// The plate's: none. Where hair hid a cheek's edge, where that edge lay is not known; skin filled past
    /// the landmarks there (at 2%) showed as a strip of new skin down each cheek beside long hair, which the
    /// judge counts as bared scalp (barbershop_16's buzz-cut 5.0 → 2.3% of the face's skin at 0). Background
    /// it fills inside the real cheek is covered by the photo's own cheek wherever the photo shows it (the
    /// removal leaves the cheek).
    public static let plateContourMargin: Float = 0
    /// The forehead's width at the brows over the face's (the temples sit inside the jaw's top points).
    public static let foreheadWidthRatio: Float = 0.95
    /// The natural hairline's height above the brows: the upper third ≈ 1.1 × the middle third.
    public static let upperThirdRatio: Float = 1.1

    /// nil for a degenerate set of points (coincident eyes or jaw ends).
    public init?(landmarks p: [Vec2]) {
        guard p.count == 68 else { return nil }
        let eyes = Landmarks68.eyeCentres(p)
        let d = eyes.left - eyes.right
        let length = (d * d).sum().squareRoot()
        guard length > 1 else { return nil }
        across = d / length
        // Image y points down: the face's up is the eye line turned a quarter toward −y.
        up = Vec2(across.y, -across.x)
        browCentre = p[17...26].reduce(Vec2(), +) / 10
        let left = ((p[0] - browCentre) * across).sum(), right = ((p[16] - browCentre) * across).sum()
        halfWidth = abs(right - left) / 2
        centreAcross = (left + right) / 2
        middleThird = max(((browCentre - p[33]) * up).sum(), 1)
        jaw = Array(p[0...16])
        hairlineHeight = Self.upperThirdRatio * middleThird
        features = [Array(p[17...21]), Array(p[22...26]), Array(p[36...41]), Array(p[42...47])]
        guard halfWidth > 1 else { return nil }
    }

    /// A point's coordinates in the face's frame: along `across` from the jaw's centre, and up from the brows.
    public func local(_ point: Vec2) -> (across: Float, up: Float) {
        let d = point - browCentre
        return ((d * across).sum() - centreAcross, (d * up).sum())
    }

    /// The image point at face-frame coordinates.
    public func image(across a: Float, up u: Float) -> Vec2 { browCentre + across * (a + centreAcross) + up * u }

    /// The hairline's height above the brows (px): the facial thirds' prior, or the person's own where
    /// `fittingHairline` found it lower.
    public private(set) var hairlineHeight: Float = 0

    /// Columns across the forehead (shares of its half-width) where the person's own hairline is looked for.
    public static let hairlineColumns: [Float] = [-0.5, -0.25, 0, 0.25, 0.5]
    /// Hair found lower than this share of the middle third above the brows is a fringe hiding the hairline
    /// (a hairline sits about 1.1 middle thirds up, rarely under 0.8; at 0.4, a fringe on a head bowed toward
    /// the camera passed for a hairline and slid every style down over the brows).
    public static let fringeBelow: Float = 0.6

    /// This head with its hairline at the person's own, where the own hair's `matte` (photo-sized, 0…1) shows
    /// it: in each of `hairlineColumns`, walking up from the brows, the first pixel of hair (matte ≥ 0.5); the
    /// median over the columns that find one above `fringeBelow`. A fringe (hair lower than that in most
    /// columns), no hair found, or a hairline above the facial thirds' keeps the thirds' prior: the forehead
    /// the plate leaves bare is never taller than a face's upper third. Unless a fringe hides the hairline, the
    /// head also carries the forehead's outline column by column (`foreheadProfile`), down to where the
    /// person's hair starts at the temples.
    public func fittingHairline(matte: [Float], width: Int, height: Int) -> PersonHead {
        precondition(matte.count == width * height)
        var found: [Float] = []
        var fringe = 0
        let prior = Self.upperThirdRatio * middleThird
        for c in Self.hairlineColumns {
            let across = c * Self.foreheadWidthRatio * halfWidth
            var t: Float = 0
            while t <= prior * 1.3 {
                let p = image(across: across, up: t)
                let x = Int(p.x), y = Int(p.y)
                guard x >= 0, y >= 0, x < width, y < height else { break }
                if matte[y * width + x] >= 0.5 {
                    if t < Self.fringeBelow * middleThird { fringe += 1 } else { found.append(t) }
                    break
                }
                t += 1
            }
        }
        var out = self
        guard fringe * 2 < Self.hairlineColumns.count else { return out }
        if !found.isEmpty { out.hairlineHeight = min(found.sorted()[found.count / 2], prior) }
        out.foreheadProfile = out.profile(matte: matte, width: width, height: height)
        return out
    }

    /// Columns across the forehead (shares of its half-width at the brows) at which the plate's forehead
    /// follows the person's own hairline.
    public static let profileColumns: [Float] = (0...20).map { Float($0) / 10 - 1 }
    /// Hair nearer the face's middle than this share of the forehead's half-width, and lower than
    /// `fringeBelow`, is a strand over the forehead, not the hairline; farther out, hair just above the brows
    /// is the temple's own.
    public static let templeFrom: Float = 0.6

    /// The forehead's height above the brows at each of `profileColumns` (px), where the plate's forehead
    /// ends and the hair-bearing scalp begins: walking up each column from the brows, the first pixel of hair
    /// (matte ≥ 0.5), never above the half-ellipse up to `hairlineHeight` (the facial thirds' prior, or the
    /// person's lower hairline); a strand low over the forehead's middle, or no hair, keeps that ellipse.
    /// Smoothed by a median of three columns. The half-ellipse alone, as wide as the face at the brows, bared
    /// the temples where the person had hair beside them: a bald cap's corners under every short style.
    func profile(matte: [Float], width: Int, height: Int) -> [Float] {
        let a = Self.foreheadWidthRatio * halfWidth
        var heights = Self.profileColumns.map { c -> Float in
            let cap = hairlineHeight * max(1 - c * c, 0).squareRoot()
            let across = c * a
            var t: Float = 0
            while t < cap {
                let p = image(across: across, up: t)
                let x = Int(p.x), y = Int(p.y)
                guard x >= 0, y >= 0, x < width, y < height else { break }
                if matte[y * width + x] >= 0.5 {
                    return abs(c) < Self.templeFrom && t < Self.fringeBelow * middleThird ? cap : t
                }
                t += 1
            }
            return cap
        }
        let raw = heights
        for k in 1..<(raw.count - 1) { heights[k] = [raw[k - 1], raw[k], raw[k + 1]].sorted()[1] }
        return heights
    }

    /// The forehead's height above the brows at each of `profileColumns` (px) where the person's own
    /// hairline was read (`fittingHairline`); nil: the half-ellipse up to `hairlineHeight`.
    public private(set) var foreheadProfile: [Float]?

    /// The face as triangles (6 floats each, image px): inside its jaw line (a fan around the jaw's points,
    /// closed along the brow line) and the forehead, up to `foreheadProfile` where the person's hairline was
    /// read, else a half-ellipse up to the hairline; both grown by `margin` (a share of each point's distance
    /// from the face's middle).
    public func faceTriangles(margin: Float = PersonHead.contourMargin) -> [Float] {
        let half = Self.foreheadWidthRatio * halfWidth * (1 + margin)
        return faceTriangles(margin: margin, foreheadReach: (-half, half))
    }

    /// The face as `faceTriangles`, its forehead reaching `foreheadReach` (px along `across` from the face's
    /// middle: the subject's right side's, negative, and left side's) at the brows.
    func faceTriangles(margin: Float, foreheadReach: (right: Float, left: Float)) -> [Float] {
        var out: [Float] = []
        func triangle(_ a: Vec2, _ b: Vec2, _ c: Vec2) { out += [a.x, a.y, b.x, b.y, c.x, c.y] }
        let hub = image(across: 0, up: -middleThird)
        // The jaw's points lie on the face's contour as dlib and the mesh fit it, a little inside the cheek's
        // silhouette: grown from the hub by `margin` they reach the face's real edge.
        let grow = 1 + margin
        let edge = jaw.map { hub + ($0 - hub) * grow }
        let w = halfWidth * grow
        for i in 0..<16 { triangle(hub, edge[i], edge[i + 1]) }
        // Up to the brow line: from the jaw's top points (0 and 16, beside the eyes) to the forehead's ends
        // there, no wider than the face. A forehead narrower than the face (the bare face's, as wide as the
        // brows) so meets the face's side along a diagonal across the temple, as a temple's hairline runs
        // down to the sideburn; a band as wide as the face up to the brow line drew a step there, a notch
        // in the crop beside each brow once the crop's edge was sharp.
        let h = hairlineHeight, aLeft = min(foreheadReach.left, w), aRight = max(foreheadReach.right, -w)
        triangle(hub, edge[16], image(across: aLeft, up: 0))
        triangle(hub, image(across: aLeft, up: 0), image(across: aRight, up: 0))
        triangle(hub, image(across: aRight, up: 0), edge[0])
        // A column's reach on its own side (columns run from −1, the subject's right, to 1).
        func reach(_ c: Float) -> Float { c < 0 ? -c * aRight : c * aLeft }
        // The forehead: a half-ellipse over the brow line, as wide as the temples there (0.95 of the face) and
        // as high as the natural hairline, so it narrows toward the hairline as a forehead does.
        let base = image(across: 0, up: 0)
        if let profile = foreheadProfile {
            // The person's own hairline, column by column (`profile`), over the same base.
            let columns = Self.profileColumns
            for k in 0..<(columns.count - 1) {
                triangle(base, image(across: reach(columns[k]), up: profile[k]), image(across: reach(columns[k + 1]), up: profile[k + 1]))
            }
            return out
        }
        let steps = 24
        for k in 0..<steps {
            let t0 = Float(k) / Float(steps) * .pi, t1 = Float(k + 1) / Float(steps) * .pi
            triangle(base, image(across: reach(cosf(t0)), up: h * sinf(t0)), image(across: reach(cosf(t1)), up: h * sinf(t1)))
        }
        return out
    }

    /// Where the sideburns end, in middle thirds below the brows (the ear runs from the brows to the nose's
    /// base; a sideburn ends about half-way down it): the scalp carries its whole crop down to
    /// `sideburnFull` and none below `sideburnEnd`. Below the brows the scalp the head leaves is only the
    /// strip between the face's outline and the head's side, in front of the ear: the sideburn's place.
    public static let sideburnFull: Float = -0.4, sideburnEnd: Float = -0.6

    /// How much hair the scalp carries at `point`, 0…1: all of it down to the sideburns' length, then none
    /// over a fifth of the middle third. The taper ran from a fifth of the middle third above the brows to
    /// eye level: the crop beside the temples thinned from the brows down into a dark haze that read as a
    /// shadow, not hair, and left the temples bare where the person's hair had been.
    public func scalpTaper(_ point: Vec2) -> Float {
        let u = local(point).up / middleThird
        let t = (u - Self.sideburnEnd) / (Self.sideburnFull - Self.sideburnEnd)
        return min(max(t, 0), 1)
    }

    /// Where the hair at the back of the head ends, in middle thirds below the brows: whole down to `napeFull`
    /// (about the ear lobe, which ends near the nose's base), none below `napeEnd` (the nape's hairline).
    public static let napeFull: Float = -1.05, napeEnd: Float = -1.2

    /// How much hair the back of a turned head carries at `point`, 0…1 (scalpTaper's counterpart behind the
    /// ears): the crop runs on below the sideburns' length, down to the nape, where the neck is skin.
    public func napeTaper(_ point: Vec2) -> Float {
        let u = local(point).up / middleThird
        return min(max((u - Self.napeEnd) / (Self.napeFull - Self.napeEnd), 0), 1)
    }

    /// The eyes alone as triangles, each a fan about its centre grown 1.15 times (the opening, its lids and
    /// lashes): the windows a plate keeps whole even under hair. Grown 1.6 times (to the shadow under a brow),
    /// they kept the fringe's strands beside the eyes: grey smudges round eyes on a bare forehead.
    public var eyeTriangles: [Float] { eyeFans(grownBy: 1.15) }

    private func eyeFans(grownBy grow: Float) -> [Float] {
        var out: [Float] = []
        for eye in features[2...3] {
            let centre = eye.reduce(Vec2(), +) / Float(eye.count)
            for i in 0..<eye.count {
                let a = centre + (eye[i] - centre) * grow, b = centre + (eye[(i + 1) % eye.count] - centre) * grow
                out += [centre.x, centre.y, a.x, a.y, b.x, b.y]
            }
        }
        return out
    }

    /// The brows and eyes as triangles: each brow a band along its points, 0.08 of the face's half-width
    /// thick above and below (its hairs lie outside the landmarks), each eye a fan about its centre grown 1.6
    /// times (the lids, lashes and the shadow under a brow).
    public var featureTriangles: [Float] {
        var out: [Float] = []
        func triangle(_ a: Vec2, _ b: Vec2, _ c: Vec2) { out += [a.x, a.y, b.x, b.y, c.x, c.y] }
        let thickness = 0.08 * halfWidth
        for brow in features[0...1] {
            for i in 0..<(brow.count - 1) {
                let a0 = brow[i] - up * thickness, a1 = brow[i] + up * thickness
                let b0 = brow[i + 1] - up * thickness, b1 = brow[i + 1] + up * thickness
                triangle(a0, b0, b1)
                triangle(a0, b1, a1)
            }
        }
        return out + eyeFans(grownBy: 1.6)
    }

    /// The face and forehead (`faceTriangles(margin:)`) as a width×height mask (255 inside).
    public func faceMask(width: Int, height: Int, margin: Float = PersonHead.contourMargin) -> [UInt8] {
        HeadSilhouette.mask(width: width, height: height, triangles: faceTriangles(margin: margin))
    }

    /// The brows' outer ends (points 17 and 26) along `across` from the face's middle (px): the subject's
    /// right brow's, negative, and the left's. Each side its own: on a turned face the far brow's end lies
    /// nearer the middle, and one reach for both (their mean) took the far temple into the bare face.
    public var browEnds: (right: Float, left: Float) {
        (local(features[0][0]).across, local(features[1][features[1].count - 1]).across)
    }

    /// The bare face the plate draws no crop over: the face (`faceTriangles(margin:)`) with its forehead only
    /// as wide as each brow's outer end (`browEnds`, grown by `margin`). Beside them, above the brows, are the
    /// temples, which carry hair: a forehead as wide as the face at the brows left them bare skin under every
    /// short style, which reads as a receding hairline (the buzz-cut's scalp bared on the shared portraits was
    /// mostly there).
    public func bareFaceMask(width: Int, height: Int, margin: Float) -> [UInt8] {
        HeadSilhouette.mask(width: width, height: height, triangles: bareFaceTriangles(margin: margin))
    }

    /// `bareFaceMask` over a window of the photo only (x, y, width, height in photo pixels): its pixel (x, y)
    /// is the photo's (window.x + x, window.y + y).
    public func bareFaceMask(margin: Float, window: (x: Int, y: Int, width: Int, height: Int)) -> [UInt8] {
        var triangles = bareFaceTriangles(margin: margin)
        for k in stride(from: 0, to: triangles.count, by: 2) {
            triangles[k] -= Float(window.x)
            triangles[k + 1] -= Float(window.y)
        }
        return HeadSilhouette.mask(width: window.width, height: window.height, triangles: triangles)
    }

    func bareFaceTriangles(margin: Float) -> [Float] {
        let most = Self.foreheadWidthRatio * halfWidth, ends = browEnds
        let reach = (right: max(min(ends.right, 0), -most) * (1 + margin), left: min(max(ends.left, 0), most) * (1 + margin))
        return faceTriangles(margin: margin, foreheadReach: reach)
    }
}

/// Where the plate may paint skin for one person, from their head drawn at the photo's camera (the labels
/// below, one per pixel) and the landmarks (PersonHead). Three named parts, each the drawn head's own where
/// it can be and the person's landmarks where the head is a fitted guess:
///  - the cranium: the drawn head's silhouette above the brows; between the brows and the cheekbones (jaw
///    points 1 and 15) the temples, narrowing straight from the cranium's width at the brows to the face's at
///    the cheekbones, so the head's side runs into the cheek without a shelf;
///  - the face below the cheekbones: inside the landmarks' jaw line only (PersonHead's face): hair that hung
///    beside the cheeks gives way to what was behind it, not to a wider face (the convex hull of face and
///    skull that stood here drew an egg from the skull's side to the chin);
///  - the neck: a band from under the jaw's points 4 and 12, `neckToJaw` of the jaw's width there, running
///    `neckLength` middle thirds toward the visible neck (the parse's neck pixels below the chin; straight
///    down the photo where none show). A head turns and rolls on its neck, the neck does not follow it: the
///    drawn head's own neck, posed with the head, laid a slab along a tilted face. Where hair hid the neck the
///    head sits on one; it is never wider than the jaw, never a block beside it.
public enum HeadRegion {
    /// The drawn head's labels. `backOfHead`: the skull behind the ears where it faces the camera (a head turned
    /// from the camera shows it behind the near ear, down to the nape; a frontal one only edge-on, so never).
    public static let none: UInt8 = 0, cranium: UInt8 = 1, lowerFace: UInt8 = 2, neck: UInt8 = 3, backOfHead: UInt8 = 4
    /// The least cosine between the back of the head's surface and the line to the camera for it to be drawn as
    /// the back of the head: 60° from facing the camera. A frontal head's skull behind the ears is seen edge-on
    /// at its outline beside the temples, where it would widen the head; turned 35° or more, its side behind the
    /// near ear faces the camera.
    public static let backOfHeadFacing: Float = 0.5
    /// The region's value over the back of the head (255 elsewhere inside): hair-bearing down to the nape, so the
    /// nape's taper (PersonHead.napeTaper), not the sideburns', applies there.
    public static let backOfHeadValue: UInt8 = 128
    /// The neck's half-width over half the jaw's width between landmarks 4 and 12 (a neck is a little
    /// narrower than the jaw above it, seen from the front).
    public static let neckToJaw: Float = 0.9
    /// How far the neck runs below the jaw's points 4 and 12, in middle thirds (brows to the nose's base):
    /// about the length of neck a portrait shows above the collar.
    public static let neckLength: Float = 1.5
    /// The share of the neck band's length over which its foot rounds off (NeckBand.place).
    public static let footRounding: Float = 0.3
    /// Below this many of the parse's neck pixels the neck's direction is the photo's down.
    static let neckPixelsForDirection = 50

    /// The neck `skin` draws for one person: a band from `top` (under the jaw's points 4 and 12) along `down`
    /// (a unit vector in the photo), `halfWidth` to each side, `length` long; all in pixels.
    public struct NeckBand: Sendable, Equatable {
        public var top: Vec2, down: Vec2, halfWidth: Float, length: Float

        public init(top: Vec2, down: Vec2, halfWidth: Float, length: Float) {
            self.top = top
            self.down = down
            self.halfWidth = halfWidth
            self.length = length
        }

        /// Where `pixel` lies on the band: `along` its axis from the top, `across` it over the half-width
        /// (−1…1 inside), or nil off the band. Its foot is rounded: over the last `footRounding` of its length
        /// it narrows as a quarter ellipse does, so where the body's fill meets it the neck ends in a curve,
        /// not on square corners (two square legs stood on a dark top, liveportrait d9; a block's corner
        /// against the backdrop beside the collar, facerec img2).
        public func place(_ pixel: Vec2) -> (along: Float, across: Float)? {
            let d = pixel - top
            let along = (d * down).sum(), off = (d * Vec2(-down.y, down.x)).sum()
            guard along >= 0, along <= length, abs(off) <= halfWidth else { return nil }
            let footFrom = (1 - HeadRegion.footRounding) * length
            if along > footFrom {
                let t = (along - footFrom) / max(HeadRegion.footRounding * length, 1e-3)
                guard abs(off) <= halfWidth * (1 - t * t).squareRoot() else { return nil }
            }
            return (along, off / halfWidth)
        }
    }

    /// The neck band of `person`: its top under the jaw's points 4 and 12, its axis toward the visible neck
    /// (`classes`, the own hair's parse, photo-sized; straight down the photo where too little of it shows).
    public static func neckBand(_ person: PersonHead, classes: [UInt8]?, width: Int, height: Int) -> NeckBand {
        precondition(classes.map { $0.count == width * height } ?? true)
        let top = (person.jaw[4] + person.jaw[12]) / 2
        let jawWidth = ((person.jaw[12] - person.jaw[4]) * (person.jaw[12] - person.jaw[4])).sum().squareRoot()
        let length = neckLength * person.middleThird
        var down = Vec2(0, 1)
        if let classes {
            var sum = Vec2(), count = 0
            let chin = person.jaw[8]
            let y0 = max(0, Int(chin.y)), y1 = min(height, Int(chin.y + length))
            if y0 < y1 {
                for y in y0..<y1 {
                    for x in max(0, Int(chin.x - 2 * jawWidth))..<min(width, Int(chin.x + 2 * jawWidth)) where classes[y * width + x] == OwnHair.neck {
                        sum += Vec2(Float(x) + 0.5, Float(y) + 0.5)
                        count += 1
                    }
                }
            }
            if count >= neckPixelsForDirection {
                let d = sum / Float(count) - top
                let n = (d * d).sum().squareRoot()
                if n > 1, d.y > 0 { down = d / n }
            }
        }
        return NeckBand(top: top, down: down, halfWidth: neckToJaw * jawWidth / 2, length: length)
    }

    /// The skin region (255 inside; `backOfHeadValue` over the back of a turned head) of `person` over `labels`
    /// (width×height, HeadRender's), with `neck`, the
    /// person's neck band (`neckBand`; the plate also shades it, so it is found once).
    public static func skin(_ person: PersonHead, neck: NeckBand, labels: [UInt8], width: Int, height: Int) -> [UInt8] {
        precondition(labels.count == width * height)
        var region = person.faceMask(width: width, height: height, margin: PersonHead.plateContourMargin)
        let grow = 1 + PersonHead.plateContourMargin
        // The cheekbones' row and the face's sides there (grown as the face's outline is).
        let cheekRight = person.local(person.jaw[1]), cheekLeft = person.local(person.jaw[15])
        let cheekUp = min(cheekRight.up, cheekLeft.up)
        let cheekLow = min(cheekRight.across, cheekLeft.across) * grow, cheekHigh = max(cheekRight.across, cheekLeft.across) * grow
        // The cranium's sides at the brows' row (up = 0), as drawn.
        var browLow = cheekLow, browHigh = cheekHigh
        for i in 0..<(width * height) where labels[i] == cranium {
            let p = person.local(Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5))
            if abs(p.up) < 1 { browLow = min(browLow, p.across); browHigh = max(browHigh, p.across) }
        }
        for i in 0..<(width * height) {
            let pixel = Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5)
            if neck.place(pixel) != nil { region[i] = 255; continue }
            // The back of a turned head is skull wherever it shows: the cranium-above-the-brows rule cut it off
            // below the brows, and behind the near ear the fill painted the background into a notch.
            // Down to the nape's hairline: below it the neck, which the band draws.
            if labels[i] == backOfHead, region[i] == 0 {
                if person.local(pixel).up >= PersonHead.napeEnd * person.middleThird { region[i] = backOfHeadValue }
                continue
            }
            guard labels[i] == cranium else { continue }
            let p = person.local(pixel)
            if p.up >= 0 {
                region[i] = 255
            } else if p.up > cheekUp {
                // The temples: from the cranium's width at the brows to the face's at the cheekbones.
                let s = p.up / cheekUp
                if p.across >= browLow + (cheekLow - browLow) * s && p.across <= browHigh + (cheekHigh - browHigh) * s { region[i] = 255 }
            }
        }
        return region
    }

    /// How far from the jaw line's top (points 0…3 or 13…16) an ear the photo shows may lie and still be joined
    /// to the face, over the face's width: beside the jaw's top seen from the front, farther as the head turns
    /// its side to the camera (a third of the face's width at about 30°).
    public static let earReach: Float = 0.45
    /// The fewest pixels of an ear the parse must see before it is joined (fewer: a speck, not an ear).
    static let earPixelsToJoin = 24
    /// The most, over the face's width squared: more is not an ear (a misread patch of hair or background).
    static let earAreaToFace: Float = 0.12

    /// `region` (HeadRegion.skin's) joined to each ear the photo shows (`classes`, the own hair's parse,
    /// photo-sized): the convex hull of the ear's pixels and the jaw line's top on its side becomes skin, as the
    /// side of the head between them is. The face below the cheekbones stops at the jaw line, so an ear seen
    /// between strands was left standing alone in the background the fill painted round it: its photo's
    /// bytes (a feature's, kept) floated beside the face as a dark blob.
    public static func joinVisibleEars(_ region: inout [UInt8], person: PersonHead, classes: [UInt8], width: Int, height: Int) {
        precondition(region.count == width * height && classes.count == width * height)
        let faceWidth = 2 * person.halfWidth
        // Where an ear may be: within the reach beside the jaw's ends, from a middle third above the brows to the chin.
        let jawTop = [person.jaw[0], person.jaw[16]]
        let reach = earReach * faceWidth
        let chinUp = person.local(person.jaw[8]).up
        let xs = jawTop.map(\.x), ys = jawTop.map(\.y)
        let x0 = max(0, Int(xs.min()! - reach - 1)), x1 = min(width, Int(xs.max()! + reach + 2))
        let y0 = max(0, Int(ys.min()! - reach - person.middleThird)), y1 = min(height, Int(max(ys.max()!, person.jaw[8].y) + reach + 2))
        guard x0 < x1, y0 < y1 else { return }
        // Each ear's pixels there (the parse's two ear classes), in one pass.
        var earPixels: [[Vec2]] = [[], []]
        for y in y0..<y1 {
            for x in x0..<x1 {
                let c = classes[y * width + x]
                guard c == OwnHair.rightEar || c == OwnHair.leftEar else { continue }
                let e = c == OwnHair.rightEar ? 0 : 1
                let p = Vec2(Float(x) + 0.5, Float(y) + 0.5)
                let u = person.local(p).up
                guard u <= person.middleThird, u >= chinUp else { continue }
                earPixels[e].append(p)
            }
        }
        for pixels in earPixels {
            guard pixels.count >= earPixelsToJoin, Float(pixels.count) <= earAreaToFace * faceWidth * faceWidth else { continue }
            let centre = pixels.reduce(Vec2(), +) / Float(pixels.count)
            // Its side: the jaw's end it lies beside, within the reach.
            let side = person.local(centre).across < 0 ? Array(person.jaw[0...3]) : Array(person.jaw[13...16])
            let nearest = side.map { (($0 - centre) * ($0 - centre)).sum().squareRoot() }.min()!
            guard nearest <= reach else { continue }
            let hull = convexHull(pixels + side)
            guard hull.count >= 3 else { continue }
            // A fan of triangles from its first corner, filled into the region (pixel centres at +0.5).
            var triangles: [Float] = []
            for k in 1..<(hull.count - 1) {
                for p in [hull[0], hull[k], hull[k + 1]] { triangles += [p.x - 0.5, p.y - 0.5] }
            }
            // The back of the head the hull takes in stays the back of the head (hair-bearing, not the ear's skin).
            let back = region.indices.filter { region[$0] == backOfHeadValue }
            cv_fill_triangles(&region, Int32(width), Int32(height), triangles, Int32(triangles.count / 6))
            for i in back { region[i] = backOfHeadValue }
        }
    }

    /// The convex hull of `points`, counter-clockwise in image coordinates (Andrew's monotone chain).
    static func convexHull(_ points: [Vec2]) -> [Vec2] {
        let sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        guard sorted.count >= 3 else { return sorted }
        func turn(_ o: Vec2, _ a: Vec2, _ b: Vec2) -> Float { (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x) }
        var lower: [Vec2] = [], upper: [Vec2] = []
        for p in sorted {
            while lower.count >= 2 && turn(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in sorted.reversed() {
            while upper.count >= 2 && turn(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }
}
