// VideoFrameAnalysis: the clip's analysis stage and its state (the face followed, its pose filtered, the
// keyframe's parse carried between keyframes, the shot's head size and lens, the background plate).
import CoifCore
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation
import Logging

/// The analysis stage's state: the face followed, its pose filter, the keyframe's parse and the shot's head
/// size, and the background plate. Runs on its own thread; it alone uses the engine's analyser and parser
/// while a clip runs.
final class VideoFrameAnalysis: @unchecked Sendable {
    let analyzer: FaceAnalyzer
    /// The analyzer's `earAnchoring` before this clip turned it off, given back when the clip's analysis goes.
    private let earAnchoringBefore: Bool
    let parser: FaceParser?
    /// The head fitted to the person: the keyframes' size measured as a still's, each frame's pose solved
    /// again under the shot's.
    let fit: HeadFit
    /// The engine's plate stage (its head's normals made once, not per frame).
    let plateStage: PlateStage
    let job: TryOnJob
    let options: VideoTryOnOptions
    let track: FaceTrack
    var smoother: PoseSmoother
    let background = VideoBackgroundPlate()
    /// The last keyframe's parse, the landmarks it was carried by, and its pose.
    var key: (landmarks: [Vec2], hair: OwnHair, yaw: Double, pitch: Double)?
    /// The shot's head size and lens as drawn, nil before its first keyframe; each keyframe's measure, and
    /// their median, which `sizing` eases toward. One measure is noisy (it reads the head's width off the
    /// parse at the pose of one frame: 1.2–2.5 for the focal factor over obama.mp4's first 50 frames), a
    /// head and a lens do not change within a shot.
    var sizing: HeadSizing?
    var sizingSamples: [HeadSizing] = []
    var sizingTarget: HeadSizing?
    var shot = 0
    var inShot = false
    var lastSmoothed: HeadPose?

    /// The head's front hairline (head space), whose image the records follow.
    let hairlinePoint: Vec3

    /// How far the drawn size moves toward the keyframes' median each frame.
    static let sizingFollow = 0.1

    init(engine: TryOnEngine, parser: FaceParser?, job: TryOnJob, options: VideoTryOnOptions) {
        // A clip's pose moves smoothly from frame to frame: no turn read from the ear, which switches on past
        // a yaw (FaceAnalyzer.earAnchoring). Off for this clip only: the engine's stills read it again after.
        earAnchoringBefore = engine.analyzer.earAnchoring
        engine.analyzer.earAnchoring = false
        analyzer = engine.analyzer
        self.parser = parser
        fit = HeadFit(analyzer: engine.analyzer, head: engine.head)
        plateStage = engine.plateStage
        self.job = job
        self.options = options
        track = FaceTrack(analyzer: engine.analyzer, choice: job.face, parameters: options.tracking)
        hairlinePoint = Self.hairlinePoint(of: engine.head)
        smoother = PoseSmoother(options.smoothing)
    }

    deinit { analyzer.earAnchoring = earAnchoringBefore }

    func analyse(_ input: Frame, renders: Bool, timing: inout FrameTiming) throws -> VideoTryOn.AnalysedFrame {
        let frame = input.withFieldOfView(job.fieldOfViewDegrees)
        let index = frame.index ?? 0, time = frame.timestamp ?? 0
        let (state, found) = try track.next(frame, timing: &timing)
        guard let face = found else {
            inShot = false
            key = nil
            sizing = nil
            sizingSamples = []
            sizingTarget = nil
            lastSmoothed = nil
            smoother.reset()
            return .init(frame: frame, state: state, keyframe: false, analyses: nil, shot: shot, renders: renders, timing: timing)
        }
        if !inShot {
            inShot = true
            shot += 1
        }
        var keyframe = false
        var hair: OwnHair?
        if let parser {
            let turned = key.map { abs(face.pose.yawDegrees - $0.yaw) > options.keyframeTurnDegrees
                || abs(face.pose.pitchDegrees - $0.pitch) > options.keyframeTurnDegrees } ?? true
            if key == nil || (state != .held && (index % options.keyframeEvery == 0 || turned)) {
                keyframe = true
                let parsed = try parser.parse(frame, boxes: [face.chosen.box], timing: &timing)
                key = (face.chosen.landmarks, parsed, face.pose.yawDegrees, face.pose.pitchDegrees)
                hair = parsed
                let measured = fit.sized(PhotoAnalysis(frame: frame, face: face), hair: parsed).sizing
                if measured != .unscaled {
                    sizingSamples.append(measured)
                    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
                    let target = HeadSizing(scale: Float(median(sizingSamples.map { Double($0.scale) })), pivot: measured.pivot,
                                            focalFactor: median(sizingSamples.map(\.focalFactor)))
                    sizingTarget = target
                    if sizing == nil { sizing = target }
                }
            } else if let key {
                hair = timing.measure(.carry) { key.hair.carried(from: key.landmarks, to: face.chosen.landmarks) }
            }
        }
        // The shot's size eases toward its keyframes' median, so a keyframe's new measure is no step.
        if let target = sizingTarget, let current = sizing {
            let w = Self.sizingFollow
            sizing = HeadSizing(scale: current.scale + Float(w) * (target.scale - current.scale), pivot: target.pivot,
                                focalFactor: current.focalFactor + w * (target.focalFactor - current.focalFactor))
        }
        // The pose under the shot's lens, filtered (a held frame keeps the last filtered pose).
        var analysis = try timing.measure(.pose) { try fit.underShot(PhotoAnalysis(frame: frame, face: face), sizing: sizing ?? .unscaled) }
        let rawPose = analysis.face.pose
        if state == .held, let lastSmoothed {
            analysis.face.pose = lastSmoothed
        } else {
            analysis.face.pose = timing.measure(.smooth) { smoother.smooth(rawPose, at: time) }
            lastSmoothed = analysis.face.pose
        }
        var raw = analysis
        raw.face.pose = rawPose
        let rawHairline = raw.camera.projectInFront(raw.headToCamera.transformPoint(hairlinePoint))
        let hairline = analysis.camera.projectInFront(analysis.headToCamera.transformPoint(hairlinePoint))
        func out(_ analyses: [PhotoAnalysis]?, renders: Bool) -> VideoTryOn.AnalysedFrame {
            .init(frame: frame, state: state, keyframe: keyframe, analyses: analyses, shot: shot, renders: renders, timing: timing,
                  rawPose: rawPose, rawHairlinePx: rawHairline, hairlinePx: hairline)
        }
        // A segment's warm-up frames go through the plate too (not the render), so its background plate has
        // seen what the whole clip's had by the segment's first frame.
        guard let hair else { return out([analysis], renders: renders) }
        let person = fit.person(analysis, hair: hair)
        var analyses = try plateStage.fill(ParsedOwnHair(analyses: [analysis], hair: hair, persons: [person]), seed: job.seed,
                                           timing: &timing)
        timing.measure(.plate) {
            if var plate = analyses[0].plate, let skin = analyses[0].filledSkin, let removal = analyses[0].removal {
                background.stabilise(&plate, frame: frame.image, hair: hair, removal: removal, skin: skin)
                analyses[0].plate = plate
            }
        }
        return out(analyses, renders: renders)
    }

    /// The head's front hairline on its midline (head space, mm): the front-most head vertex near the
    /// midline 60 mm above the brows' centre, where an average adult's hairline and Coif's styles' fronts sit.
    static func hairlinePoint(of head: HeadModel) -> Vec3 {
        let brows = (17...26).reduce(Vec3.zero) { $0 + head.landmarks68[$1] } / 10
        let near = head.vertices.filter { abs($0.x) < 6 && abs($0.y - (brows.y + 60)) < 6 }
        return near.max { $0.z < $1.z } ?? brows + Vec3(0, 60, -15)
    }
}
