// HairlineFit: a style's front put at the person's own hairline.
//
// Coif's styles are grown on Coif's head, whose hairline sits where an average adult's does (60 mm above
// the brows). A person's own hairline is often lower, and the style then started above it: the band between
// showed as a bald cap, later as close-cropped hair under a style that floats above the forehead. So each
// style is slid over the scalp (ScalpSlide: its front down the forehead, its crown, sides and back kept)
// until its front hairline (`StyleLibrary.frontHairline`) lands, in the photo, at the person's hairline
// (`PersonHead.hairlineHeight`: read from the own hair's matte, or the facial thirds where a fringe hides
// it or no hair is found), measured along the face's own up axis, so roll and pitch are the photo's.
//
// Limits: the slide fits the front's middle; the temples follow it in proportion, not to the person's own
// temple corners. A style is only brought down, by at most `maxTilt`: a hairline higher than the style's
// (a receding one) keeps the style as grown, since a style moved back would bare the forehead the
// customer is trying to cover.
import CoifCore
import CoifGroom
import CoifRender
import CoifVision
#if canImport(Glibc)
import Glibc
#endif

public enum HairlineFit {
    /// The most a style is slid: 22°, about 35 mm at the front of Coif's cranium. At 12° (~19 mm) a low
    /// hairline or a fringe's facial-thirds prior (a child, a short forehead: 13–16° on the shared portraits)
    /// was out of reach and the style still started over a tall bare forehead; the fringe's tips keep their
    /// place (ScalpSlide), so a larger slide does not drop a fringe into the eyes.
    public static let maxTilt: Float = 22 * .pi / 180
    /// Slides are rounded to this step (a quarter degree, ~0.4 mm at the front) so the strands of a style
    /// slid for one photo are reused for the next photo of the same person, and a slide is exactly
    /// reproducible.
    public static let tiltStep: Float = 0.25 * .pi / 180

    /// The slide that puts `front` (the style's front hairline root, head space) at `person`'s hairline in
    /// `analysis`'s photo: bisection on the tilt, since the front's height above the brows (px, along the
    /// face's up axis) falls as the tilt grows. No slide where the style already starts at or below the
    /// hairline, or the front does not project.
    public static func fit(front: Vec3, person: PersonHead, analysis: PhotoAnalysis, head: HeadModel) -> ScalpSlide {
        let camera = analysis.camera, toCamera = analysis.headToCamera, shape = head.shape
        let target = person.hairlineHeight
        func height(_ tilt: Float) -> Float? {
            let p = ScalpSlide(tilt: tilt, front: front).movedFront(shape: shape)
            guard let image = camera.projectInFront(toCamera.transformPoint(p)) else { return nil }
            return person.local(image).up
        }
        let none = ScalpSlide(tilt: 0, front: front)
        guard target > 0, let start = height(0), start > target, let lowest = height(maxTilt) else { return none }
        var tilt = maxTilt
        if lowest < target {
            var low: Float = 0, high = maxTilt
            for _ in 0..<20 {
                let mid = (low + high) / 2
                guard let h = height(mid) else { return none }
                if h > target { low = mid } else { high = mid }
            }
            tilt = (low + high) / 2
        }
        return ScalpSlide(tilt: (tilt / tiltStep).rounded() * tiltStep, front: front)
    }
}
