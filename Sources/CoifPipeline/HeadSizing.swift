// HeadSizing: Coif's head made the size of the person's in the photo, so a style sits around their head,
// not inside it.
//
// The pose fits Coif's head to the face's 68 landmarks, which fixes the face but not the skull behind it.
// How big the skull looks also depends on the lens: without EXIF (or with the EXIF of an uncropped
// original) the field of view is a guess (50°), and a guess that is too wide puts the head too near, so
// everything behind the face plane shrinks by perspective: AFLW's 450² crops solve to ~420 mm, and the
// cranium's widest part, ~90 mm behind the brows, comes out ~22% narrower than the person's. People's
// heads also differ (breadth about ±8% of Coif's 150 mm). Both show in one figure: the person's head width
// across the forehead, from the face-parsing classes, against Coif's posed head at the same heights.
//
// So, per face: (1) unless the user gave the field of view, the focal length is lengthened (the camera
// moved back, the face's projection unchanged) until Coif's head is as wide as the person's, within
// `focalRange`; (2) what remains is the person's own size, a uniform scale about the brows (a point on the
// face plane, so the face stays where the landmarks put it) within `scaleLimits`. A hat or a big afro
// must not make a giant, a shaved head must not make a pin.
import CoifCore
import CoifGroom
import CoifRender
import CoifVision
#if canImport(Glibc)
import Glibc
#endif

/// How Coif's head is resized for one face: a uniform scale about a head-space point.
public struct HeadSizing: Sendable, Equatable {
    /// 1 = Coif's head as posed.
    public var scale: Float
    /// Head-space point that stays put (mm): the brows' centre.
    public var pivot: Vec3
    /// How much the focal length was lengthened (1: the photo's camera as it was).
    public var focalFactor: Double

    public init(scale: Float, pivot: Vec3, focalFactor: Double) {
        self.scale = scale
        self.pivot = pivot
        self.focalFactor = focalFactor
    }

    public static let unscaled = HeadSizing(scale: 1, pivot: .zero, focalFactor: 1)

    /// The person's own size, after the lens: real adult head breadths span about ±8% of Coif's 150 mm.
    public static let scaleLimits: ClosedRange<Float> = 0.92...1.12
    /// How far the focal length may be lengthened: 4× turns the 50° guess into ~13° (a 150 mm portrait
    /// lens), past which perspective hardly changes.
    public static let focalRange: ClosedRange<Double> = 1...4
    /// Heights above the brows (mm) at which the widths are compared: the forehead band, where the skull
    /// is near its widest and neither ears nor jaw reach.
    public static let heightsAboveBrowsMm: [Float] = [12, 22, 32]
    /// Hair's thickness over the skull at the sides of a short or flat style (mm): taken off each side whose
    /// outline ends in hair, so a head of hair is not read as a wider skull.
    public static let sideHairMm: Float = 10

    /// Head space (mm) → head space, scaled about the pivot.
    public var matrix: Mat4 {
        translation(pivot) * Mat4.scale(Vec3(repeating: scale)) * translation(-pivot)
    }

    private func translation(_ t: Vec3) -> Mat4 {
        Mat4(Vec4(1, 0, 0, 0), Vec4(0, 1, 0, 0), Vec4(0, 0, 1, 0), Vec4(t.x, t.y, t.z, 1))
    }

    /// `analysis` with its camera and pose refitted to the person's head width (see the file's comment) and
    /// its `sizing` set. `solve` solves the pose of the analysis's landmarks under other intrinsics. The
    /// analysis as it is (unscaled) when the parse gives no width at any height (a face turned far away, a
    /// parse that missed the head).
    public static func fit(_ analysis: PhotoAnalysis, hair: OwnHair, head: HeadModel,
                           solve: (PinholeCamera) throws -> HeadPose) -> PhotoAnalysis {
        let pivot = pivot(of: head)
        guard let person = personWidths(analysis, hair: hair, head: head, pivot: pivot) else { return analysis }
        func ratio(_ candidate: PhotoAnalysis) -> Float? { widthRatio(person: person, candidate, head: head, pivot: pivot) }
        guard var best = ratio(analysis) else { return analysis }
        var fitted = analysis
        var factor = 1.0
        if analysis.frame.fieldOfViewDegrees == nil && best > 1 {
            // Lengthen the lens in steps until Coif's head is as wide as the person's; the last step is
            // interpolated (the ratio falls smoothly with the focal length).
            var previous = (factor: 1.0, ratio: best, analysis: analysis)
            for next in stride(from: 1.25, through: focalRange.upperBound, by: 0.25) {
                guard let candidate = refocused(analysis, factor: next, solve: solve), let r = ratio(candidate) else { break }
                if r <= 1 {
                    let t = Double((previous.ratio - 1) / max(previous.ratio - r, 1e-4))
                    let between = previous.factor + (next - previous.factor) * t
                    if let exact = refocused(analysis, factor: between, solve: solve), let er = ratio(exact) {
                        (factor, best, fitted) = (between, er, exact)
                    } else {
                        (factor, best, fitted) = (next, r, candidate)
                    }
                    break
                }
                previous = (next, r, candidate)
                (factor, best, fitted) = previous
            }
        }
        fitted.sizing = HeadSizing(scale: min(max(best, scaleLimits.lowerBound), scaleLimits.upperBound), pivot: pivot,
                                   focalFactor: factor)
        return fitted
    }

    /// The point the head is scaled about: the brows' centre (landmarks 17–26), on the face plane.
    static func pivot(of head: HeadModel) -> Vec3 {
        (17...26).reduce(Vec3.zero) { $0 + head.landmarks68[$1] } / 10
    }

    /// The median over heights of the person's width over Coif's posed head's (nil: no height has both).
    static func widthRatio(person: [Float?], _ analysis: PhotoAnalysis, head: HeadModel, pivot: Vec3) -> Float? {
        let ratios = zip(person, coifWidths(analysis, head: head, pivot: pivot)).compactMap { p, c -> Float? in
            guard let p, let c, c > 4 else { return nil }
            return p / c
        }
        return ratios.isEmpty ? nil : ratios.sorted()[ratios.count / 2]
    }

    /// How wide the person's head is against Coif's head as `analysis` poses and sizes it (1: as wide), from
    /// the parse `hair`; nil where the parse gives no width. What `fit` drives toward 1, for tests and records.
    public static func remainingRatio(_ analysis: PhotoAnalysis, hair: OwnHair, head: HeadModel) -> Float? {
        let pivot = pivot(of: head)
        guard let person = personWidths(analysis, hair: hair, head: head, pivot: pivot),
              let r = widthRatio(person: person, analysis, head: head, pivot: pivot) else { return nil }
        return r / analysis.sizing.scale
    }

    /// The analysis seen through a lens `factor` times longer: the pose solved again for the same landmarks.
    static func refocused(_ analysis: PhotoAnalysis, factor: Double,
                          solve: (PinholeCamera) throws -> HeadPose) -> PhotoAnalysis? {
        let intrinsics = analysis.intrinsics.lengthened(by: factor)
        guard let pose = try? solve(intrinsics) else { return nil }
        var out = analysis
        out.face.intrinsics = intrinsics
        out.face.pose = pose
        return out
    }

    /// Where `p` (head space) lands in the photo, nil behind the camera.
    static func image(_ p: Vec3, _ analysis: PhotoAnalysis) -> Vec2? {
        analysis.camera.projectInFront(analysis.pose.modelToCamera.transformPoint(p))
    }

    /// The head's x axis in the photo (unit, roll and yaw included) and pixels per mm along it at the pivot.
    static func axis(_ analysis: PhotoAnalysis, pivot: Vec3) -> (across: Vec2, pxPerMm: Float)? {
        guard let centre = image(pivot, analysis), let right = image(pivot + Vec3(10, 0, 0), analysis) else { return nil }
        let d = right - centre
        let length = (d * d).sum().squareRoot()
        return length > 0.5 ? (d / length, length / 10) : nil
    }

    /// Coif's posed head's width (px) at each of `heightsAboveBrowsMm`, along the head's x axis: the extreme
    /// projections of the cranium's ring at that height (the analytic shape the mesh was made from; the
    /// mesh's vertices are too sparse in a 4 mm band to find its extremes).
    static func coifWidths(_ analysis: PhotoAnalysis, head: HeadModel, pivot: Vec3) -> [Float?] {
        guard let (across, _) = axis(analysis, pivot: pivot) else { return heightsAboveBrowsMm.map { _ in nil } }
        let centre = head.shape.craniumCentre, radii = head.shape.craniumRadii
        return heightsAboveBrowsMm.map { above -> Float? in
            let y = head.shape.browY + above
            let ring = HeadShape.craniumRing(y: y - centre.y, radii: radii)
            guard ring > 0 else { return nil }
            let rx = radii.x * ring, rz = radii.z * ring
            var low = Float.infinity, high = -Float.infinity
            for k in 0..<96 {
                let theta = Float(k) * 2 * .pi / 96
                guard let p = image(Vec3(centre.x + rx * cosf(theta), y, centre.z + rz * sinf(theta)), analysis) else { continue }
                let t = (p * across).sum()
                low = min(low, t)
                high = max(high, t)
            }
            return high > low ? high - low : nil
        }
    }

    /// The person's head width (px) at each height: walked out both ways along the head's x axis from the
    /// forehead's middle while the parse says head, less `sideHairMm` for each side that ends in hair.
    static func personWidths(_ analysis: PhotoAnalysis, hair: OwnHair, head: HeadModel, pivot: Vec3) -> [Float?]? {
        guard let (across, pxPerMm) = axis(analysis, pivot: pivot) else { return nil }
        let widths = heightsAboveBrowsMm.map { above -> Float? in
            guard let start = image(Vec3(0, head.shape.browY + above, pivot.z), analysis),
                  let (left, leftHair) = walk(hair, from: start, direction: -across),
                  let (right, rightHair) = walk(hair, from: start, direction: across) else { return nil }
            let width = left + right - sideHairMm * pxPerMm * (Float(leftHair ? 1 : 0) + Float(rightHair ? 1 : 0))
            return width > 0 ? width : nil
        }
        return widths.contains { $0 != nil } ? widths : nil
    }

    /// The parse's head classes: skin, brows, eyes, glasses, nose, mouth, lips, hair, hat (not ears, neck,
    /// cloth or background).
    static func isHead(_ c: UInt8) -> Bool { (1...6).contains(c) || (10...13).contains(c) || c == 17 || c == 18 }

    /// Distance (px) from `start` along `direction` to the last head pixel, and whether that pixel is hair;
    /// nil when the start is not on the head or the walk leaves the photo or the parse still on the head.
    static func walk(_ hair: OwnHair, from start: Vec2, direction: Vec2) -> (Float, Bool)? {
        func classAt(_ p: Vec2) -> UInt8? {
            let x = Int(p.x.rounded()), y = Int(p.y.rounded())
            guard x >= 0, y >= 0, x < hair.width, y < hair.height else { return nil }
            return hair.classes[y * hair.width + x]
        }
        guard let first = classAt(start), isHead(first) else { return nil }
        var last: UInt8 = first
        var t: Float = 0
        // Steps of one pixel; a gap of up to 3 px of another class (a strand of background through wispy
        // hair, an earring) does not end the head.
        var gap = 0
        var lastHeadT: Float = 0
        while true {
            t += 1
            guard let c = classAt(start + direction * t), c != OwnHair.unknown else { return nil }
            if isHead(c) {
                gap = 0
                lastHeadT = t
                last = c
            } else {
                gap += 1
                if gap > 3 { break }
            }
        }
        return (lastHeadT, last == OwnHair.hair || last == OwnHair.hat)
    }
}

extension PinholeCamera {
    /// The same camera with a lens `factor` times longer (the principal point stays): the lens a head's size
    /// implies (HeadSizing.focalFactor), for a still's refit and a clip's every frame alike.
    public func lengthened(by factor: Double) -> PinholeCamera {
        var out = self
        out.fx *= factor
        out.fy *= factor
        return out
    }
}
