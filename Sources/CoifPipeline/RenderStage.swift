// RenderStage: the render of a shot's frames, with what a shot holds steady from its first frame:
//  - the strands' level of detail and the style's slide onto the hairline (Shot, one per face);
//  - the light each face's hair is shaded with: each frame's reading eased across the shot (ShotLight), so the
//    shading follows a change of light without flickering with the expression;
//  - with `--color own`, the colour solved on the first frame with a face, kept after.
// A still is a one-frame shot: `TryOnEngine.run` draws its one frame through this stage, as a clip draws each
// of its frames (VideoTryOn), so the two cannot decide these differently.
import CoifCore
import CoifGroom
import CoifRender
import Foundation

public final class RenderStage {
    public let engine: TryOnEngine
    public let style: Style
    public let job: TryOnJob
    /// The open shot: its number and each face's policy, from its first frame.
    private var shot: (index: Int, policies: [Shot])?
    /// Each face's light across the shot, in the analyses' order.
    private var lights: [ShotLight] = []
    /// The own hair's colour, solved on the first frame drawn with a face and kept for the rest of the run: each
    /// frame's parse moves it a little, and solving it again costs a second draw.
    private var ownShading: HairShading?

    public init(engine: TryOnEngine, style: Style, job: TryOnJob) {
        self.engine = engine
        self.style = style
        self.job = job
    }

    /// Opens shot `index` at its first analysed frame, `first` (nothing when that shot is open). A clip's
    /// segment opens its shot on a warm-up frame it does not draw, so it draws the strands the whole clip draws.
    public func open(shot index: Int, first: [PhotoAnalysis]) throws {
        guard shot?.index != index else { return }
        shot = (index, try first.map { try engine.shot(opening: $0, style: style, job: job) })
    }

    /// Draws one frame of shot `index` (opened here if this is its first frame): scene → layers → composite over
    /// `analyses`, the frame's analysed faces with their plate where the job removes the own hair.
    public func process(_ analyses: [PhotoAnalysis], shot index: Int, timing: inout FrameTiming) throws -> TryOnResult {
        guard !analyses.isEmpty else { throw CoifError.internalError("render: no faces") }
        var analyses = try engine.prepared(analyses, job: job, timing: &timing)
        try open(shot: index, first: analyses)
        if job.lightsFromPhoto {
            if lights.count != analyses.count { lights = Array(repeating: ShotLight(), count: analyses.count) }
            for k in analyses.indices {
                let reading = engine.photoLight(analyses[k], timing: &timing)
                if let reading {
                    engine.logger.debug("light from the photo", metadata: [
                        "samples": "\(reading.sampleCount)", "direction": "\(reading.dominantDirection)",
                        "keyShare": "\(reading.keyShare)", "color": "\(reading.color)", "exposure": "\(reading.exposure)",
                        "hairSheen": "\(reading.hairSheen)"])
                }
                let settled = lights[k].next(reading?.lighting(base: job.look.lighting), shot: index, fallback: job.look.lighting)
                analyses[k].light = PhotoLightReading(estimate: reading, shotLighting: settled)
            }
        }
        var frameJob = job
        if let ownShading {
            frameJob.look.shading = ownShading
            frameJob.look.matchesOwnHair = false
        }
        let result = try engine.render(analyses, style: style, job: frameJob, shots: shot!.policies, timing: &timing)
        if frameJob.look.matchesOwnHair { ownShading = result.look?.shading }
        return result
    }
}

/// The light one face's hair is shaded with across a shot: each frame's reading of the face
/// (PhotoLightEstimate) eased toward by `follow` of the way a frame. A shot starts from its first reading (a
/// still's light is its reading); a frame whose face gives no reading keeps the last light.
struct ShotLight {
    static let follow: Float = 0.2
    private var last: (shot: Int, lighting: Lighting)?

    mutating func next(_ reading: Lighting?, shot: Int, fallback: Lighting) -> Lighting {
        guard let previous = last, previous.shot == shot else {
            let first = reading ?? fallback
            last = (shot, first)
            return first
        }
        guard let reading else { return previous.lighting }
        let w = Self.follow
        func ease(_ a: Vec3, _ b: Vec3) -> Vec3 { a + w * (b - a) }
        var eased = reading
        eased.keyDirection = normalize(ease(previous.lighting.keyDirection, reading.keyDirection))
        eased.fillDirection = normalize(ease(previous.lighting.fillDirection, reading.fillDirection))
        eased.keyRadiance = ease(previous.lighting.keyRadiance, reading.keyRadiance)
        eased.fillRadiance = ease(previous.lighting.fillRadiance, reading.fillRadiance)
        eased.ambientRadiance = ease(previous.lighting.ambientRadiance, reading.ambientRadiance)
        eased.exposure = previous.lighting.exposure + w * (reading.exposure - previous.lighting.exposure)
        eased.hairSheen = previous.lighting.hairSheen + w * (reading.hairSheen - previous.lighting.hairSheen)
        last = (shot, eased)
        return eased
    }
}
