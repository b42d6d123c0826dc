// StyleGenerator: grows Coif's built-in hairstyles as guide strands on the generated head. Roots are a
// Poisson-disk set over the scalp (by area, seeded); each guide is grown in 2 mm steps through a direction
// field (part line, fringe, sweep-back) bent by gravity after a stiff root length, hugging the head and
// pushed outside its distance field after every step; then curl (a helix in the strand's frame), frizz
// (seeded smooth noise), resampling to a fixed segment length, and clumping toward clump-centre guides.
// Not a simulator: no dynamics, no strand–strand collision beyond the "volume" layering margin.
import CoifCore
import Foundation

/// Every knob of one generated style, in head-space millimetres (see HeadShape for the frame). The
/// built-in styles' values live in Meshes/style-presets.json (`StyleParameters.presets`).
public struct StyleParameters: Sendable {
    public var name: String
    public var description: String
    public var tags: [String]
    /// Wanted number of guides (Poisson-disk spacing is searched to land near it).
    public var targetGuides: Int = 450
    /// Segments per guide: every guide is resampled to `segments + 1` points at equal arc length
    /// (raised for curls: see `segmentsFollowingCurl`).
    public var segments: Int = 24
    /// Longest strand (mm along the strand); strands also end at `hemY` or the fringe line.
    public var lengthMm: Float
    /// Shortest strand (mm); `lengthMm` applies at the crown, `minLengthMm` at the nape and ears.
    public var minLengthMm: Float
    /// Strands end where they fall below this head-space height (mm): the cut line; nil = length only.
    public var hemYFront: Float?
    public var hemYBack: Float?
    /// Part line x (mm, + = subject's left); roots comb away from it. nil = no part (radial from crown).
    public var partX: Float?
    /// How strongly top roots comb away from the part (sideways) and toward the back.
    public var partPull: Float = 1
    public var backPull: Float = 0.3
    /// Fringe: roots within `fringeDepthMm` behind the front hairline comb forward and sweep to
    /// `fringeSide` (−1 = subject's right); they are cut `fringeClearanceMm` above the brows.
    public var fringeDepthMm: Float = 0
    public var fringeSide: Float = -1
    public var fringeSweep: Float = 1
    public var fringeClearanceMm: Float = 8
    /// Gravity: how fast the direction turns downward (per mm of strand) once past the stiff root.
    public var gravityPerMm: Float = 0.05
    /// Bend toward the scalp per mm while within 4 mm of the collision margin (keeps short hair close).
    public var hugPerMm: Float = 0.01
    /// Root length (mm) over which the root direction is kept (gravity fades in).
    public var stiffnessMm: Float = 15
    /// Root lift off the scalp (0 = tangent, 1 = along the normal).
    public var rootLift: Float = 0.15
    /// Collision margin (mm) outside the head's distance field, plus extra for roots high on the head
    /// (so hair from the crown lies over hair from lower down).
    public var marginMm: Float = 1.5
    public var volumeMm: Float = 6
    /// Curl: helix radius (mm) reached 30 mm from the root, and period (mm of strand per turn).
    public var curlRadiusMm: Float = 0
    public var curlPeriodMm: Float = 60
    /// A coil of its own for every child strand (radius and period, mm; 0 = none), around the path the
    /// children take from their guides, each with its own seeded phase, period and radius. Coily hair's
    /// coils are a property of each hair, not of a bundle: drawn on the guides alone, every child copies its
    /// guide's helix in step and the coils read as thick twisted ropes. Written into the catalog.
    public var strandCoilRadiusMm: Float = 0
    public var strandCoilPeriodMm: Float = 8
    /// Clumping (0…1) toward every `clumpEvery`-th guide, growing toward the tip.
    public var clump: Float = 0.25
    public var clumpEvery: Int = 6
    /// Frizz: amplitude (mm) of seeded smooth noise at the tip (grows with the square of arc length).
    public var frizzMm: Float = 1
    /// Rendered width of one strand at root and tip (mm), written into the catalog. A real hair is ~0.08 mm
    /// thick, but each rendered strand stands for a bundle of a few dozen hairs (6,000 strands for ~100,000
    /// hairs), so it is drawn wider at the root and tapers toward a single hair's width at the tip, where
    /// bundles thin out.
    public var rootWidthMm: Float = 0.35
    public var tipWidthMm: Float = 0.1
    public var seed: UInt64 = 1
    /// Catalog facts: overall length class, texture, and the face shapes the cut flatters
    /// (oval, round, square, heart, long, diamond).
    public var lengthClass = "short"
    public var texture = "straight"
    public var faceShapes: [String] = []
    /// Roots only where |x| < this (mm): a strip over the top (mohawk). nil = the whole scalp.
    public var regionHalfWidthMm: Float?
    /// Fringe direction: rise (+ = up, a quiff) and forward components before normalising; with
    /// `fringeSplit` each side sweeps away from the part (curtain bangs) instead of toward `fringeSide`.
    public var fringeRise: Float = -0.35
    public var fringeForward: Float = 0.7
    public var fringeSplit = false
    /// Gathering: every strand is combed over the scalp to this head-space direction's surface point
    /// (from the cranium centre), then continues as a tail (ponytail) or coils into a bun.
    public var gatherDirection: Vec3?
    /// Tail length past the gathering point (mm) and the tail's radius there (mm); 0 = a bun.
    public var tailLengthMm: Float = 0
    public var tailRadiusMm: Float = 14
    /// Bun: radius (mm) of the coil the strands wrap around, centred one radius off the scalp.
    public var bunRadiusMm: Float = 0

    public init(name: String, description: String, tags: [String], lengthMm: Float, minLengthMm: Float) {
        self.name = name
        self.description = description
        self.tags = tags
        self.lengthMm = lengthMm
        self.minLengthMm = minLengthMm
    }
}

/// Guides for one style: `guides.count` strands of `pointsPerGuide` points each, root first.
struct GeneratedStyle: Sendable {
    var parameters: StyleParameters
    var guides: [[Vec3]]
    var pointsPerGuide: Int { parameters.segmentsFollowingCurl + 1 }
    var strands: StrandSet { StrandSet(pointsPerStrand: pointsPerGuide, positions: Array(guides.joined())) }
}

extension StyleParameters {
    /// `segments`, raised so a curl keeps at least 8 points a turn: a helix sampled at 8 points a turn
    /// strays from its chords by r·(1 − cos 22.5°) ≈ 0.08·r (0.5 mm on a 6-mm ringlet), where 4 points a
    /// turn (what 24 segments give a 230-mm ringlet of 36-mm period) draw it as a zig-zag. Capped at 96.
    public var segmentsFollowingCurl: Int {
        guard curlRadiusMm >= 1, lengthMm > 0, curlPeriodMm > 0 else { return segments }
        return max(segments, min(96, Int((8 * lengthMm / curlPeriodMm).rounded(.up))))
    }
}

enum StyleGenerator {
    static let stepMm: Float = 2

    // MARK: Roots

    /// Poisson-disk roots by area on the scalp: area-weighted candidates on the scalp triangles (trimmed to
    /// the smooth hairline), then greedy dart acceptance with a radius searched so about `target` survive.
    /// Returns points on the surface (moved 0.5 mm out) in acceptance order.
    static func roots(mesh: HeadMesh, shape: HeadShape, target: Int, seed: UInt64, region: Float? = nil) -> [Vec3] {
        var tris: [SIMD3<UInt32>] = []
        var cumulative: [Float] = []
        var total: Float = 0
        for (i, t) in mesh.triangles.enumerated() where mesh.isScalp[i] {
            let a = mesh.vertices[Int(t.x)], b = mesh.vertices[Int(t.y)], c = mesh.vertices[Int(t.z)]
            total += length(cross(b - a, c - a)) / 2
            tris.append(t)
            cumulative.append(total)
        }
        var rng = SeededRandom(seed: seed)
        var candidates: [Vec3] = []
        let candidateCount = target * 30
        candidates.reserveCapacity(candidateCount)
        for _ in 0..<candidateCount {
            let x = rng.unitFloat() * total
            var lo = 0, hi = cumulative.count - 1
            while lo < hi { let m = (lo + hi) / 2; if cumulative[m] < x { lo = m + 1 } else { hi = m } }
            var u = rng.unitFloat(), v = rng.unitFloat()
            if u + v > 1 { u = 1 - u; v = 1 - v }
            let t = tris[lo]
            let a = mesh.vertices[Int(t.x)], b = mesh.vertices[Int(t.y)], c = mesh.vertices[Int(t.z)]
            var p = a + (b - a) * u + (c - a) * v
            guard shape.isScalp(p) else { continue }
            if let half = region, abs(p.x) > half { continue }
            for _ in 0..<3 { p -= shape.surfaceNormal(p) * shape.signedDistance(p) }
            candidates.append(p + shape.surfaceNormal(p) * 0.5)
        }
        func accept(radius: Float) -> [Vec3] {
            var grid = SpatialGrid(bounding: candidates, cellMm: radius)
            var kept: [Vec3] = []
            for p in candidates where !grid.contains(near: p, radius: radius, where: { length(kept[$0] - p) < radius }) {
                grid.append(p)
                kept.append(p)
            }
            return kept
        }
        // Bisection on the radius (count falls as the radius grows).
        var lo: Float = 2, hi: Float = 40
        var best = accept(radius: (lo + hi) / 2)
        for _ in 0..<14 {
            let r = (lo + hi) / 2
            best = accept(radius: r)
            if best.count > target { lo = r } else { hi = r }
        }
        return best
    }

    // MARK: Growth

    static func generate(_ style: StyleParameters, mesh: HeadMesh, shape: HeadShape) -> GeneratedStyle {
        let roots = roots(mesh: mesh, shape: shape, target: style.targetGuides, seed: style.seed, region: style.regionHalfWidthMm)
        var fine: [[Vec3]] = []
        fine.reserveCapacity(roots.count)
        for (i, root) in roots.enumerated() {
            var rng = SeededRandom(seed: style.seed, stream: UInt64(i))
            var strand = style.gatherDirection == nil ? grow(root: root, style: style, shape: shape)
                : growGathered(root: root, index: i, style: style, shape: shape)
            shapeStrand(&strand, style: style, rng: &rng)
            fine.append(strand)
        }
        let count = style.segmentsFollowingCurl + 1
        var guides = fine.map { resample($0, count: count) }
        clump(&guides, style: style)
        for g in guides.indices {
            var s: Float = 0
            for j in 1..<count {
                s += length(guides[g][j] - guides[g][j - 1])
                var p = shape.pushOutside(guides[g][j], margin: margin(root: guides[g][0], s: s, style: style, shape: shape))
                p = keepOffFace(p, shape: shape, clearance: style.fringeClearanceMm)
                p = shape.pushOutside(p, margin: style.marginMm)
                // A point moved off the face into the cheek can need more Newton steps than pushOutside takes.
                if shape.signedDistance(p) < -0.25 { p = GroomImport.pushOut(p, shape: shape, margin: style.marginMm) }
                // Points pushed alternately up and sideways off the face leave a segment that crosses it:
                // the guide ends there, cut at the fringe line (its remaining points collapse, drawing nothing).
                let previous = guides[g][j - 1]
                if [Float(0.25), 0.5, 0.75].contains(where: {
                    inFaceBox(previous + (p - previous) * $0, shape: shape, clearance: style.fringeClearanceMm)
                }) {
                    for k in j..<count { guides[g][k] = previous }
                    break
                }
                guides[g][j] = p
            }
        }
        return GeneratedStyle(parameters: style, guides: guides)
    }

    /// 0 at the ears and below, 1 at the top of the head.
    static func topness(_ p: Vec3, _ shape: HeadShape) -> Float {
        smoothstep(shape.browY - 10, shape.craniumCentre.y + shape.craniumRadii.y * 0.9, p.y)
    }

    /// Collision margin at arc length `s` from the root: the volume layer builds up over the first 40 mm,
    /// so strands leave the scalp at a shallow angle instead of being shoved straight out.
    static func margin(root: Vec3, s: Float, style: StyleParameters, shape: HeadShape) -> Float {
        style.marginMm + style.volumeMm * topness(root, shape) * smoothstep(0, 40, s)
    }

    /// How far a root is into the fringe band (1 at the front hairline, 0 deeper than `fringeDepthMm`).
    static func fringeWeight(_ root: Vec3, style: StyleParameters, shape: HeadShape) -> Float {
        guard style.fringeDepthMm > 0 else { return 0 }
        let q = root - shape.craniumCentre
        let azimuth = atan2f(q.x, q.z)
        guard abs(azimuth) < 0.9 else { return 0 }
        let above = root.y - shape.hairlineY(azimuth: azimuth)   // height above the hairline at this azimuth
        return (1 - smoothstep(style.fringeDepthMm * 0.5, style.fringeDepthMm, above)) * (1 - smoothstep(0.55, 0.9, abs(azimuth)))
    }

    /// The combing direction at a root, before projection onto the scalp's tangent plane.
    static func rootDirection(_ root: Vec3, style: StyleParameters, shape: HeadShape) -> Vec3 {
        let q = root - shape.craniumCentre
        let front = smoothstep(-30, 40, q.z) * topness(root, shape)
        var w: Vec3
        if let partX = style.partX {
            let side: Float = root.x >= partX ? 1 : -1
            w = Vec3(side * style.partPull, 0, -style.backPull) * front
        } else {
            w = normalize(Vec3(q.x, 0, q.z)) * front
        }
        // Behind and below the crown: down and slightly back.
        w += Vec3(0, -1, -0.35) * (1 - front)
        let f = fringeWeight(root, style: style, shape: shape)
        if f > 0 {
            let side: Float = style.fringeSplit ? (root.x >= (style.partX ?? 0) ? 1 : -1) : style.fringeSide
            let fringe = normalize(Vec3(side * style.fringeSweep, style.fringeRise, style.fringeForward))
            w = mix(w, fringe, f)
        }
        return normalize(w)
    }

    /// Grows one strand in `stepMm` steps from the root; returns the fine polyline (root first).
    static func grow(root: Vec3, style: StyleParameters, shape: HeadShape) -> [Vec3] {
        let n0 = shape.surfaceNormal(root)
        var w = rootDirection(root, style: style, shape: shape)
        w -= n0 * dot(w, n0)
        var d = normalize(normalize(w) + n0 * style.rootLift)
        let lengthMm = style.minLengthMm + (style.lengthMm - style.minLengthMm) * topness(root, shape)
        let isFringe = fringeWeight(root, style: style, shape: shape) > 0.3
        let q = root - shape.craniumCentre
        let backness = smoothstep(20, -60, q.z)
        var points = [root]
        points.reserveCapacity(Int(lengthMm / stepMm) + 2)
        var p = root
        var s: Float = 0
        while s < lengthMm {
            let margin = margin(root: root, s: s + stepMm, style: style, shape: shape)
            let g = style.gravityPerMm * smoothstep(0, style.stiffnessMm, s) * stepMm
            d = normalize(d + Vec3(0, -g, 0))
            // Hug: near the head, a direction into it slides along the tangent plane instead.
            let dist = shape.signedDistance(p)
            if dist < margin + 4 {
                let n = shape.surfaceNormal(p)
                // Attraction toward the scalp (past the stiff root) follows the head's curvature.
                d = normalize(d - n * (style.hugPerMm * stepMm * smoothstep(0, style.stiffnessMm, s)))
                let into = dot(d, n)
                if into < 0 { d = normalize(d - n * into) }
            }
            if !isFringe { d = sweptAside(d, at: p, root: root, style: style, shape: shape) }
            var next = p + d * stepMm
            next = shape.pushOutside(next, margin: margin)
            next = p + normalize(next - p) * stepMm
            next = shape.pushOutside(next, margin: margin)
            // The face stays clear: the fringe ends above the brows, side hair slides outside the eyes.
            let top = shape.browTopY + style.fringeClearanceMm
            if inFaceBox(next, shape: shape, clearance: style.fringeClearanceMm) {
                if p.y >= top || isFringe { break }
                next = keepOffFace(next, shape: shape, clearance: style.fringeClearanceMm)
            }
            if let hf = style.hemYFront, let hb = style.hemYBack, next.y < hf + (hb - hf) * backness { break }
            d = normalize(next - p)
            p = next
            points.append(p)
            s += stepMm
        }
        if points.count < 2 { points.append(root + d * stepMm) }
        return points
    }

    /// Hair that is not a fringe never hangs over the forehead. Below the front hairline and between the
    /// face's sides, a falling strand is turned sideways, away from its part (from the centre line when the
    /// style has none), at least steeply enough to clear the face's side before it reaches the fringe line:
    /// it frames the face, as a parted style's front hair is combed aside, instead of ending in a row of cut
    /// tips above the brows (what the face box's cut made of long-straight's and the lob's front guides,
    /// and of every child blended from them).
    static func sweptAside(_ d: Vec3, at p: Vec3, root: Vec3, style: StyleParameters, shape: HeadShape) -> Vec3 {
        let q = p - shape.craniumCentre
        let top = shape.browTopY + style.fringeClearanceMm
        guard d.y < 0, q.z > 0, abs(p.x) < shape.faceHalfWidth, p.y > top,
              p.y < shape.hairlineY(azimuth: atan2f(q.x, q.z)) else { return d }
        let side: Float = root.x >= (style.partX ?? 0) ? 1 : -1
        // Sideways travel wanted per millimetre of fall: the way to the face's side (plus 8 mm) over the
        // height left above the fringe line less 32 mm, so the guide's resampled chords (up to 20 mm on a
        // long style) do not cut the face box's corner. (With 4 and 20 mm, a front guide of long-straight
        // and one of long-wavy did once the forehead was made upright, and each was cut above the brow's end.)
        let wanted = (shape.faceHalfWidth + 8 - side * p.x) / max(p.y - top - 32, 1)
        let fall = -d.y
        guard side * d.x < wanted * fall else { return d }
        return normalize(Vec3(side * wanted * fall, d.y, d.z))
    }

    /// The point where a ray from the cranium centre along `direction` leaves the head (bisection on the
    /// distance field).
    static func surfacePoint(direction: Vec3, shape: HeadShape) -> Vec3 {
        let d = normalize(direction)
        var lo: Float = 0, hi: Float = 300
        for _ in 0..<40 {
            let m = (lo + hi) / 2
            if shape.signedDistance(shape.craniumCentre + d * m) > 0 { hi = m } else { lo = m }
        }
        return shape.craniumCentre + d * hi
    }

    /// A gathered strand: combed over the scalp (hugging it at the collision margin) straight to the
    /// gathering point, then either a tail hanging from it (its centre line bends down under gravity and
    /// the strand keeps its side of the bundle, the bundle narrowing to the tip) or a coil around a torus
    /// standing one `bunRadiusMm` off the scalp (a bun). The fine polyline, root first.
    static func growGathered(root: Vec3, index: Int, style: StyleParameters, shape: HeadShape) -> [Vec3] {
        let gather = surfacePoint(direction: style.gatherDirection!, shape: shape)
        let ng = shape.surfaceNormal(gather)
        var points = [root]
        var p = root
        var s: Float = 0
        var rng = SeededRandom(seed: style.seed &+ 0x6A7E, stream: UInt64(index))
        let spread = 0.25 + 0.75 * rng.unitFloat().squareRoot()
        let along = rng.unitFloat()
        // Over the scalp: straight at the gathering point in the tangent plane, kept at the margin.
        while length(gather - p) > 4, s < 400 {
            let n = shape.surfaceNormal(p)
            let g = gather - p
            var d = g - n * dot(g, n)
            if length(d) < 1e-3 { break }
            d = normalize(d)
            let margin = style.marginMm + style.volumeMm * 0.5 * smoothstep(0, 40, s)
                * (1 - smoothstep(20, 60, length(gather - p)))
            var next = shape.pushOutside(p + d * stepMm, margin: margin)
            next = keepOffFace(next, shape: shape, clearance: style.fringeClearanceMm)
            p = next
            points.append(p)
            s += stepMm
        }
        // Where the strand arrives around the gathering point: its side of the bundle.
        var arrival = p - gather
        arrival -= ng * dot(arrival, ng)
        let side = length(arrival) > 1e-3 ? normalize(arrival) : normalize(cross(ng, Vec3(1, 0, 0)))
        if style.bunRadiusMm > 0 {
            // Bun: torus around the axis `ng`, major radius R, minor radius r·spread.
            let R = style.bunRadiusMm * 0.75, r = style.bunRadiusMm * 0.55 * spread
            let centre = gather + ng * (style.bunRadiusMm * 0.8)
            let e1 = side, e2 = normalize(cross(ng, e1))
            let turns: Float = 1.2 + 0.6 * along
            let total = turns * 2 * .pi * R
            let minorPhase = rng.uniform(0, 2 * .pi)
            var u: Float = 0
            while u < total {
                let a = u / R
                let radial = e1 * cosf(a) + e2 * sinf(a)
                let b = minorPhase + u / (R * 0.7)
                let rr = r * smoothstep(0, 25, u)
                let q = centre + radial * R * smoothstep(0, 20, u) + (radial * cosf(b) + ng * sinf(b)) * rr
                points.append(shape.pushOutside(q, margin: style.marginMm + 2))
                u += stepMm
            }
        } else {
            // Tail: the bundle's centre line leaves along the normal, tipped down by gravity.
            var d = normalize(ng + Vec3(0, -0.2, 0))
            var c = gather
            let lengthMm = style.tailLengthMm * (0.8 + 0.2 * along)
            var u: Float = 0
            while u < lengthMm {
                d = normalize(d + Vec3(0, -style.gravityPerMm * stepMm * smoothstep(0, style.stiffnessMm, u), 0))
                c += d * stepMm
                u += stepMm
                var off = side - d * dot(side, d)
                off = length(off) > 1e-3 ? normalize(off) : side
                let radius = style.tailRadiusMm * spread * (1 - 0.45 * u / lengthMm) * smoothstep(-10, 12, u)
                points.append(shape.pushOutside(c + off * radius, margin: style.marginMm + 1))
            }
        }
        if points.count < 2 { points.append(root + shape.surfaceNormal(root) * stepMm) }
        return points
    }

    static func inFaceBox(_ p: Vec3, shape: HeadShape, clearance: Float) -> Bool {
        abs(p.x) < shape.faceHalfWidth && p.y < shape.browTopY + clearance && p.y > shape.chinY - 20
            && p.z > shape.craniumCentre.z
    }

    /// Moves a point out of the frontal face region through its nearest wall (top or sides).
    static func keepOffFace(_ p: Vec3, shape: HeadShape, clearance: Float) -> Vec3 {
        guard inFaceBox(p, shape: shape, clearance: clearance) else { return p }
        let toTop = shape.browTopY + clearance - p.y
        let toSide = shape.faceHalfWidth - abs(p.x)
        if toTop < toSide { return Vec3(p.x, shape.browTopY + clearance + 0.01, p.z) }
        return Vec3((p.x >= 0 ? 1 : -1) * (shape.faceHalfWidth + 0.01), p.y, p.z)
    }

    /// Curl (helix in a parallel-transported frame) and frizz (smooth seeded noise), both fading in from
    /// the root.
    static func shapeStrand(_ points: inout [Vec3], style: StyleParameters, rng: inout SeededRandom) {
        guard points.count > 2 else { return }
        let phase = rng.uniform(0, 2 * .pi)
        // Frizz control vectors every 20 mm.
        let knots = Int(Float(points.count) * stepMm / 20) + 2
        var noise: [Vec3] = []
        for _ in 0..<knots { noise.append(Vec3(rng.gaussian(), rng.gaussian(), rng.gaussian())) }
        let total = Float(points.count - 1) * stepMm
        // A tight coil needs the centre line finer than the growth step: 12 points a turn.
        var step = stepMm
        if style.curlRadiusMm > 0, style.curlPeriodMm < 12 * stepMm {
            let split = Int((stepMm * 12 / style.curlPeriodMm).rounded(.up))
            var fine: [Vec3] = [points[0]]
            fine.reserveCapacity((points.count - 1) * split + 1)
            for i in 1..<points.count {
                for k in 1...split { fine.append(mix(points[i - 1], points[i], Float(k) / Float(split))) }
            }
            points = fine
            step = stepMm / Float(split)
        }
        var tangent = normalize(points[1] - points[0])
        var normal = normalize(cross(tangent, abs(tangent.y) < 0.9 ? Vec3(0, 1, 0) : Vec3(1, 0, 0)))
        let original = points
        for i in 1..<points.count {
            let t = normalize(original[i] - original[i - 1])
            // Parallel transport of the frame.
            normal = normalize(normal - t * dot(normal, t))
            tangent = t
            let binormal = cross(tangent, normal)
            let s = Float(i) * step
            let angle = phase + 2 * .pi * s / style.curlPeriodMm
            let curl = (normal * cosf(angle) + binormal * sinf(angle)) * (style.curlRadiusMm * smoothstep(0, 30, s))
            let k = s / 20
            let k0 = min(Int(k), knots - 2)
            let f = k - Float(k0)
            let frizz = mix(noise[k0], noise[k0 + 1], f * f * (3 - 2 * f)) * (style.frizzMm * (s / total) * (s / total))
            points[i] = original[i] + curl + frizz
        }
    }

    /// `count` points at equal arc length along a polyline (root and tip kept).
    static func resample(_ points: [Vec3], count: Int) -> [Vec3] {
        var cumulative = [Float](repeating: 0, count: points.count)
        for i in 1..<points.count { cumulative[i] = cumulative[i - 1] + length(points[i] - points[i - 1]) }
        let total = cumulative[points.count - 1]
        var out: [Vec3] = []
        out.reserveCapacity(count)
        var j = 0
        for k in 0..<count {
            let target = total * Float(k) / Float(count - 1)
            while j < points.count - 2 && cumulative[j + 1] < target { j += 1 }
            let span = cumulative[j + 1] - cumulative[j]
            let t = span > 0 ? min(max((target - cumulative[j]) / span, 0), 1) : 0
            out.append(mix(points[j], points[j + 1], t))
        }
        return out
    }

    /// Pulls each guide's shape toward its nearest clump centre (every `clumpEvery`-th guide), more so
    /// toward the tip, and tightens it around the centre's path.
    static func clump(_ guides: inout [[Vec3]], style: StyleParameters) {
        guard style.clump > 0, guides.count > style.clumpEvery else { return }
        let centres = Array(stride(from: 0, to: guides.count, by: style.clumpEvery))
        let original = guides
        for g in guides.indices {
            let root = original[g][0]
            var best = centres[0], bestD = Float.infinity
            for c in centres { let d = length(original[c][0] - root); if d < bestD { bestD = d; best = c } }
            if best == g { continue }
            let centre = original[best]
            let n = centre.count
            for j in 1..<n {
                let u = Float(j) / Float(n - 1)
                let target = centre[j] + (root - centre[0]) * (1 - 0.6 * u)
                guides[g][j] = mix(original[g][j], target, style.clump * u)
            }
        }
    }

    /// The style's OBJ file: one `v` per point and one `l` per guide, root first.
    static func objText(_ style: GeneratedStyle) -> String {
        OBJWriter.hairstyle(name: style.parameters.name, strands: style.strands,
                            provenance: "Generated by CoifGroom.StyleGenerator; do not edit.")
    }
}
