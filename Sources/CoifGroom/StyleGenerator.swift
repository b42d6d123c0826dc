// StyleGenerator: grows Coif's built-in hairstyles as guide strands on the generated head. Roots are a
// Poisson-disk set over the scalp (by area, seeded); each guide is grown in 2 mm steps through a direction
// field (part line, fringe, sweep-back) bent by gravity after a stiff root length, hugging the head and
// pushed outside its distance field after every step; then curl (a helix in the strand's frame), frizz
// (seeded smooth noise), resampling to a fixed segment length, and clumping toward clump-centre guides.
// Not a simulator: no dynamics, no strand–strand collision beyond the "volume" layering margin.
import CoifCore
import Foundation

/// Every knob of one generated style, in head-space millimetres (see HeadShape for the frame).
public struct StyleParameters: Sendable {
    public var name: String
    public var description: String
    public var tags: [String]
    /// Wanted number of guides (Poisson-disk spacing is searched to land near it).
    public var targetGuides: Int = 450
    /// Segments per guide: every guide is resampled to `segments + 1` points at equal arc length.
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
    /// Clumping (0…1) toward every `clumpEvery`-th guide, growing toward the tip.
    public var clump: Float = 0.25
    public var clumpEvery: Int = 6
    /// Frizz: amplitude (mm) of seeded smooth noise at the tip (grows with the square of arc length).
    public var frizzMm: Float = 1
    /// Rendered width of one strand at root and tip (mm), written into the catalog.
    public var rootWidthMm: Float = 0.35
    public var tipWidthMm: Float = 0.1
    public var seed: UInt64 = 1

    public init(name: String, description: String, tags: [String], lengthMm: Float, minLengthMm: Float) {
        self.name = name
        self.description = description
        self.tags = tags
        self.lengthMm = lengthMm
        self.minLengthMm = minLengthMm
    }

    /// The built-in styles, the default (`bob`) first. Heights are relative to the fitted head.
    public static func builtIn(shape: HeadShape) -> [StyleParameters] {
        // Widths: a real hair is ~0.08 mm thick, but each rendered strand stands for a bundle of a few
        // dozen hairs (6,000 strands for ~100,000 hairs), so it is drawn wider at the root and tapers
        // toward a single hair's width at the tip, where bundles thin out.
        var bob = StyleParameters(name: "bob", description: "Chin-length bob, side part, fringe swept to one side",
                                  tags: ["short", "bob", "side-part", "fringe", "straight"], lengthMm: 260, minLengthMm: 40)
        bob.hemYFront = shape.chinY + 6
        bob.hemYBack = shape.chinY + 22
        bob.partX = 24
        bob.partPull = 1.0
        bob.backPull = 0.25
        bob.fringeDepthMm = 38
        bob.fringeSide = -1
        bob.fringeSweep = 1.3
        bob.gravityPerMm = 0.06
        bob.stiffnessMm = 12
        bob.volumeMm = 7
        bob.curlRadiusMm = 0.8
        bob.curlPeriodMm = 90
        bob.clump = 0.3
        bob.frizzMm = 0.8
        bob.seed = 0xB0B

        var long = StyleParameters(name: "long-straight", description: "Long straight hair past the shoulders, centre part, swept behind the face",
                                   tags: ["long", "straight", "centre-part"], lengthMm: 480, minLengthMm: 200)
        long.hemYFront = shape.chinY - 175
        long.hemYBack = shape.chinY - 195
        long.partX = 0
        long.partPull = 0.9
        long.backPull = 0.9
        long.gravityPerMm = 0.07
        long.stiffnessMm = 10
        long.volumeMm = 6
        long.curlRadiusMm = 0.5
        long.curlPeriodMm = 140
        long.clump = 0.35
        long.frizzMm = 1.5
        long.rootWidthMm = 0.3
        long.tipWidthMm = 0.08
        long.seed = 0x1096

        var pixie = StyleParameters(name: "pixie", description: "Short pixie crop, longer textured top swept forward and to the side",
                                    tags: ["short", "pixie", "crop", "textured"], lengthMm: 60, minLengthMm: 30)
        pixie.partX = 20
        pixie.partPull = 0.7
        pixie.backPull = 0.5
        pixie.fringeDepthMm = 45
        pixie.fringeSide = -1
        pixie.fringeSweep = 0.9
        pixie.gravityPerMm = 0.02
        pixie.stiffnessMm = 15
        pixie.rootLift = 0.15
        pixie.hugPerMm = 0.04
        pixie.volumeMm = 5
        pixie.curlRadiusMm = 1.2
        pixie.curlPeriodMm = 45
        pixie.clump = 0.45
        pixie.clumpEvery = 5
        pixie.frizzMm = 1.2
        pixie.rootWidthMm = 0.4
        pixie.tipWidthMm = 0.12
        pixie.seed = 0x919
        return [bob, long, pixie]
    }
}

/// Guides for one style: `guides.count` strands of `pointsPerGuide` points each, root first.
struct GeneratedStyle: Sendable {
    var parameters: StyleParameters
    var guides: [[Vec3]]
    var pointsPerGuide: Int { parameters.segments + 1 }
}

enum StyleGenerator {
    static let stepMm: Float = 2

    // MARK: Roots

    /// Poisson-disk roots by area on the scalp: area-weighted candidates on the scalp triangles (trimmed to
    /// the smooth hairline), then greedy dart acceptance with a radius searched so about `target` survive.
    /// Returns points on the surface (moved 0.5 mm out) in acceptance order.
    static func roots(mesh: HeadMesh, shape: HeadShape, target: Int, seed: UInt64) -> [Vec3] {
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
            for _ in 0..<3 { p -= shape.surfaceNormal(p) * shape.signedDistance(p) }
            candidates.append(p + shape.surfaceNormal(p) * 0.5)
        }
        func accept(radius: Float) -> [Vec3] {
            let cell = radius
            var grid: [SIMD3<Int32>: [Int]] = [:]
            var kept: [Vec3] = []
            func key(_ p: Vec3) -> SIMD3<Int32> {
                SIMD3<Int32>(Int32((p.x / cell).rounded(.down)), Int32((p.y / cell).rounded(.down)), Int32((p.z / cell).rounded(.down)))
            }
            outer: for p in candidates {
                let k = key(p)
                for dx in Int32(-1)...1 { for dy in Int32(-1)...1 { for dz in Int32(-1)...1 {
                    for j in grid[k &+ SIMD3(dx, dy, dz)] ?? [] where length(kept[j] - p) < radius { continue outer }
                } } }
                grid[k, default: []].append(kept.count)
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
        let roots = roots(mesh: mesh, shape: shape, target: style.targetGuides, seed: style.seed)
        var fine: [[Vec3]] = []
        fine.reserveCapacity(roots.count)
        for (i, root) in roots.enumerated() {
            var rng = SeededRandom(seed: style.seed, stream: UInt64(i))
            var strand = grow(root: root, style: style, shape: shape)
            shapeStrand(&strand, style: style, rng: &rng)
            fine.append(strand)
        }
        let count = style.segments + 1
        var guides = fine.map { resample($0, count: count) }
        clump(&guides, style: style)
        for g in guides.indices {
            var s: Float = 0
            for j in 1..<count {
                s += length(guides[g][j] - guides[g][j - 1])
                var p = shape.pushOutside(guides[g][j], margin: margin(root: guides[g][0], s: s, style: style, shape: shape))
                p = keepOffFace(p, shape: shape, clearance: style.fringeClearanceMm)
                guides[g][j] = shape.pushOutside(p, margin: style.marginMm)
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
            let fringe = normalize(Vec3(style.fringeSide * style.fringeSweep, -0.35, 0.7))
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
        var tangent = normalize(points[1] - points[0])
        var normal = normalize(cross(tangent, abs(tangent.y) < 0.9 ? Vec3(0, 1, 0) : Vec3(1, 0, 0)))
        let original = points
        for i in 1..<points.count {
            let t = normalize(original[i] - original[i - 1])
            // Parallel transport of the frame.
            normal = normalize(normal - t * dot(normal, t))
            tangent = t
            let binormal = cross(tangent, normal)
            let s = Float(i) * stepMm
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

    /// OBJ text: one `v` per point (3 decimals) and one `l` per guide, root first.
    static func objText(_ style: GeneratedStyle) -> String {
        let p = style.parameters
        var out = "# Coif hairstyle '\(p.name)': \(style.guides.count) guide strands × \(style.pointsPerGuide) points, root first.\n"
        out += "# Head space (mm, +x subject's left, +y up, +z toward camera). Generated by CoifGroom.StyleGenerator; do not edit.\n"
        out += "o \(p.name)\n"
        out.reserveCapacity(style.guides.count * style.pointsPerGuide * 30)
        for g in style.guides { for v in g { out += "v \(fixed(v.x)) \(fixed(v.y)) \(fixed(v.z))\n" } }
        var index = 1
        for g in style.guides {
            out += "l"
            for _ in g { out += " \(index)"; index += 1 }
            out += "\n"
        }
        return out
    }
}
