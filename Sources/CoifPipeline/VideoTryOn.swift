// VideoTryOn: a try-on of a clip, frame after frame, as stages with state on their own threads joined by
// bounded queues: decode (ffmpeg, ahead) → analyse (the face followed, its pose filtered, the own hair parsed
// on keyframes and carried between them, the plate) → render (the engine's scene, layers and composite, on
// the GL thread) → encode (ffmpeg, behind). A clip's throughput is its slowest stage's, not the sum.
//
// What a shot holds steady: the head's size and lens (HeadSizing, averaged over its keyframes), the level
// of detail and the style's slide to the hairline (both from its first frame), and the background
// behind the removed hair (VideoBackgroundPlate). A shot ends when the face is lost past the hold.
//
// A segment (`frames`) decodes the clip from its start (cheap) and analyses from `warmUpSeconds` before its
// first frame, rounded down to a detection frame, so its filter, keyframes and size have settled the way the
// whole clip's have; it writes no audio (the join adds the clip's).
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Foundation
import Logging

public struct VideoTryOnOptions: Sendable {
    public var input: String
    public var output: String
    public var style: String?
    public var color: HairColor
    /// `coif render`'s flags (seed, detail, strands, face, fov, keepOwnHair, …). `face` may be "largest" or
    /// an index, not "all": a clip follows one face.
    public var settings: RenderSettings
    /// The frames to render (0-based, inclusive); nil: the whole clip, with its audio.
    public var frames: ClosedRange<Int>?
    public var smoothing: PoseSmoother.Parameters = .standard
    public var tracking: FaceTrack.Parameters = .standard
    /// Parse the own hair on every this-many-th frame (counted from the clip's start)…
    public var keyframeEvery = 12
    /// …and whenever the head has turned or nodded this far (degrees) from the last keyframe's pose, which a
    /// carried matte (a 2D similarity) cannot follow.
    public var keyframeTurnDegrees = 8.0
    public var warmUpSeconds = 2.0
    public var crf = 18
    public var timingPath: String?
    public var summaryPath: String?

    public init(input: String, output: String, style: String?, color: HairColor, settings: RenderSettings = RenderSettings()) {
        self.input = input
        self.output = output
        self.style = style
        self.color = color
        self.settings = settings
    }
}

/// One frame's record: how its face was found, whether its own hair was parsed, its stages' times, the
/// head's pose before and after the filter, and how much the fill behind the removed hair changed.
public struct VideoFrameRecord: Sendable {
    public var index: Int
    public var timestamp: Double
    public var state: TrackState
    public var keyframe: Bool
    public var timing: FrameTiming
    /// The pose as fitted to this frame's points (under the shot's lens), and as drawn (filtered).
    public var rawPose: HeadPose?
    public var pose: HeadPose?
    /// Where the head's front hairline (`VideoFrameAnalysis.hairlinePoint`) lands in the frame under each
    /// pose (px): the pose's noise as a viewer sees it.
    public var rawHairlinePx: Vec2?
    public var hairlinePx: Vec2?
    /// Jaw-to-jaw width of the face (px): turns pixels into millimetres at the face.
    public var faceWidthPx: Double?
    /// RMS change (8-bit levels) from the previous frame of the output where the plate filled background
    /// (outside the head, no new hair, in both frames), and of the input where background shows (the
    /// clip's own noise there: what a still background changes anyway). nil on the first frame of a shot.
    public var fillChange: Double?
    public var backgroundChange: Double?
    /// The mean level (8-bit, over RGB) of the output where the new hair covers over half the pixel: its
    /// shading's steadiness from frame to frame.
    public var hairLevel: Double?
}

/// How far a clip has got, for a progress bar.
public struct VideoProgress: Sendable {
    public var framesDone: Int
    public var framesTotal: Int?
    public var framesPerSecond: Double
    public var etaSeconds: Double? {
        guard let framesTotal, framesPerSecond > 0 else { return nil }
        return Double(max(framesTotal - framesDone, 0)) / framesPerSecond
    }
}

public final class VideoTryOn: @unchecked Sendable {
    let engine: TryOnEngine
    let logger: Logger

    public init(engine: TryOnEngine, logger: Logger) {
        self.engine = engine
        self.logger = logger
    }

    /// A frame between the analysis and the render: its analysed face with plate (nil: passed through), the
    /// shot it belongs to, and whether it is rendered (false: a segment's warm-up).
    struct AnalysedFrame {
        var frame: Frame
        var state: TrackState
        var keyframe: Bool
        var analyses: [PhotoAnalysis]?
        var shot: Int
        var renders: Bool
        var timing: FrameTiming
        var rawPose: HeadPose? = nil
        var rawHairlinePx: Vec2? = nil
        var hairlinePx: Vec2? = nil
        /// How much of each pixel the own hair's removal took (`HairPlate.removal`), made once for the frame's
        /// background plate and its fill-change record.
        var removal: [Float]? = nil
    }

    struct RenderedFrame {
        var image: PixelImage
        var record: VideoFrameRecord
    }

    /// Renders the clip; returns the records of the rendered frames. Output is whole or absent.
    public func run(_ options: VideoTryOnOptions, cancel: VideoCancel = VideoCancel(),
                    progress: @escaping @Sendable (VideoProgress) -> Void = { _ in }) throws -> VideoSummary {
        let start = monotonicMs()
        let style = try engine.style(named: options.style)
        // The style as asked (a catalog name or a groom file's path), so the job resolves it as a still's does.
        var job = TryOnJob(input: .frame(Frame(image: PixelImage(width: 1, height: 1, channels: 3, pixels: [0, 0, 0]), source: options.input)),
                           style: options.style, look: HairLook(color: options.color))
        try options.settings.apply(to: &job)
        guard job.face != .all else {
            throw CoifError.invalidOption(name: "--face", reason: "a clip follows one face: 'largest' or an index, not 'all'")
        }
        guard options.keyframeEvery >= 1 else { throw CoifError.invalidOption(name: "--keyframe-every", reason: "must be at least 1") }
        guard (0...3600).contains(options.warmUpSeconds) else { throw CoifError.invalidOption(name: "--warm-up", reason: "must be 0–3600 seconds") }
        // The still's own checks of the render's settings (field of view, detail, strands, face, the style).
        _ = try job.validate(styles: engine.styles)
        let reader = try VideoReader(path: options.input)
        let info = reader.info
        var range = options.frames ?? 0...Int.max
        if let frames = options.frames {
            guard frames.lowerBound >= 0 else { throw CoifError.invalidOption(name: "--frames", reason: "frames count from 0") }
            if let count = info.frameCount {
                guard frames.lowerBound < count else {
                    throw CoifError.invalidOption(name: "--frames", reason: "starts at frame \(frames.lowerBound), past the clip's \(count) frames")
                }
                range = frames.lowerBound...min(frames.upperBound, count - 1)
            }
        }
        let total = info.frameCount.map { min($0 - 1, range.upperBound) - range.lowerBound + 1 }
        let warmFrames = options.frames == nil ? 0 : Int((options.warmUpSeconds * info.framesPerSecond).rounded(.up))
        var warmStart = max(0, range.lowerBound - warmFrames)
        if options.tracking.redetectEvery > 0 { warmStart -= warmStart % options.tracking.redetectEvery }
        // Timing files are checked before the first frame, not found unwritable after the last.
        for path in [options.timingPath, options.summaryPath].compactMap({ $0 }) { try AtomicFile.checkWritable(path) }
        let writer = try VideoWriter(path: options.output, width: info.width, height: info.height, frameRate: info.frameRate,
                                     audioFrom: options.frames == nil && info.hasAudio ? options.input : nil, crf: options.crf)
        // A signal ends both ffmpeg processes (the reader's log removed with it) and the writer's temporary, from
        // the signal's thread while the pipeline's threads still read and write: nothing they use is closed
        // under them (a FileHandle closed during another thread's read or write is a fatal error: exit by
        // SIGILL instead of 130, once in a fresh clone's test run).
        cancel.set { writer.abandon(); reader.abandon() }
        defer { cancel.set(nil) }
        engine.holdsRenderTarget = true
        let parser = job.removesOwnHair ? try engine.faceParser() : nil
        let analysis = VideoFrameAnalysis(engine: engine, parser: parser, job: job, options: options)

        // decode → analyse → (this thread) render → encode.
        let decoded = BoundedQueue<Frame>(capacity: 4), analysed = BoundedQueue<AnalysedFrame>(capacity: 3)
        let rendered = BoundedQueue<RenderedFrame>(capacity: 4)
        let source = HandedOver(reader), sink = HandedOver(writer)
        let first = range.lowerBound, last = range.upperBound, warmFrom = warmStart
        let decodeWork = BackgroundWork(name: "coif.video-decode") {
            let reader = source.value
            do {
                while let frame = try reader.next() {
                    let index = frame.index ?? 0
                    if index > last { break }
                    if index < warmFrom { continue }
                    guard decoded.put(frame) else { break }
                }
                reader.close()
                decoded.close()
            } catch {
                reader.close()
                decoded.close(throwing: error)
            }
        }
        let analyseWork = BackgroundWork(name: "coif.video-analyse") { [analysis] in
            do {
                while let frame = try decoded.take() {
                    var timing = FrameTiming()
                    let renders = (frame.index ?? 0) >= first
                    let out = try analysis.analyse(frame, renders: renders, timing: &timing)
                    guard analysed.put(out) else { break }
                }
                analysed.close()
            } catch {
                decoded.cancel()
                analysed.close(throwing: error)
            }
        }
        let encodeWork = BackgroundWork(name: "coif.video-encode") { () -> [VideoFrameRecord] in
            var records: [VideoFrameRecord] = []
            let encodeStart = monotonicMs()
            do {
                while let item = try rendered.take() {
                    var record = item.record
                    try record.timing.measure(.encode) { try sink.value.append(item.image) }
                    records.append(record)
                    let seconds = (monotonicMs() - encodeStart) / 1000
                    progress(VideoProgress(framesDone: records.count, framesTotal: total,
                                           framesPerSecond: seconds > 0 ? Double(records.count) / seconds : 0))
                }
            } catch {
                rendered.cancel()
                throw error
            }
            return records
        }
        var failure: Error?
        var shotState: (shot: Int, levelOfDetail: LevelOfDetail, slideTilt: Float?)?
        var change = VideoFillChange()
        var light = VideoLightFilter()
        var ownShading: HairShading?
        do {
            while let item = try analysed.take() {
                // The shot's level of detail and slide come from its first frame, warm-up or not, so a segment
                // draws the strands the whole clip draws.
                if let first = item.analyses?.first, shotState?.shot != item.shot {
                    var frameJob = job
                    frameJob.input = .frame(item.frame)
                    shotState = (item.shot, try engine.shotLevelOfDetail(first, style: style, job: frameJob),
                                 try engine.hairlineFit(first, style: style)?.tilt)
                }
                guard item.renders else { continue }
                var timing = item.timing
                var image = item.frame.image
                var record = VideoFrameRecord(index: item.frame.index ?? 0, timestamp: item.frame.timestamp ?? 0, state: item.state,
                                              keyframe: item.keyframe, timing: timing, rawPose: item.rawPose,
                                              pose: item.analyses?.first?.pose, rawHairlinePx: item.rawHairlinePx, hairlinePx: item.hairlinePx,
                                              faceWidthPx: item.analyses?.first?.faceWidthPx)
                if var analyses = item.analyses {
                    var frameJob = job
                    frameJob.input = .frame(item.frame)
                    if job.lightsFromPhoto {
                        // The photo's light, read off this frame's face and eased across the shot (each frame's
                        // reading moves with the expression and the landmarks; the hair's shading would flicker).
                        let skin = engine.faceSkin(analyses[0], timing: &timing)
                        let read = timing.measure(.scene) { PhotoLightEstimate.estimate(skin) }
                        frameJob.look.lighting = light.next(read?.lighting(base: job.look.lighting), shot: item.shot, fallback: job.look.lighting)
                        frameJob.lightsFromPhoto = false
                    }
                    frameJob.levelOfDetail = shotState!.levelOfDetail
                    analyses[0].pinnedSlideTilt = shotState!.slideTilt
                    // `own`: solved on the first frame with a face, then kept, so the colour does not flicker
                    // with each frame's parse and costs no second draw after.
                    if let ownShading { frameJob.look.shading = ownShading; frameJob.look.matchesOwnHair = false }
                    let result = try engine.render(analyses, style: style, job: frameJob, timing: &timing)
                    if frameJob.look.matchesOwnHair { ownShading = result.look?.shading }
                    let images = result.images
                    image = images.composite
                    (record.fillChange, record.backgroundChange) = change.next(input: item.frame.image, output: image, analysis: analyses[0],
                                                                               removal: item.removal, newHair: images.matte, shot: item.shot)
                    record.hairLevel = VideoFillChange.meanLevel(image, where: images.matte)
                } else {
                    change.reset()
                }
                record.timing = timing
                guard rendered.put(RenderedFrame(image: image, record: record)) else { break }
            }
        } catch { failure = error }
        // The stages before stop too, whichever way this loop ended (a failure here, or the encoder's, which
        // refuses further frames): one blocked putting into a full queue would otherwise never be joined.
        analysed.cancel()
        decoded.cancel()
        rendered.close(throwing: failure)
        _ = try? decodeWork.wait()
        _ = try? analyseWork.wait()
        let records: [VideoFrameRecord]
        // The MP4 is staged with the timing and summary and renamed in only when all are written.
        var files = AtomicFile.Batch()
        do {
            records = try encodeWork.wait()
            if let failure { throw failure }
            guard !records.isEmpty else {
                throw CoifError.invalidOption(name: options.input, reason: "no frame decodes in frames \(range.lowerBound)-\(range.upperBound)")
            }
            try writer.finish(staging: &files)
        } catch {
            writer.cancel()
            throw error
        }
        let summary = VideoSummary(records: records, renderer: engine.rendererDescription, wallSeconds: (monotonicMs() - start) / 1000,
                                   backgroundResets: analysis.background.resets, clipFramesPerSecond: info.framesPerSecond)
        if let path = options.timingPath { try files.stage(text: VideoSummary.csv(records), to: path) }
        if let path = options.summaryPath { try files.stage(text: summary.json(), to: path) }
        try files.commit()
        return summary
    }
}

/// Lets a signal handler abandon a clip mid-way: the writer's temporary is removed, ffmpeg stopped.
public final class VideoCancel: @unchecked Sendable {
    private let lock = NSLock()
    private var action: (() -> Void)?

    public init() {}

    func set(_ action: (() -> Void)?) { lock.withLock { self.action = action } }

    /// Runs the cancellation once (from any thread).
    public func cancel() {
        let action = lock.withLock { () -> (() -> Void)? in
            let a = self.action
            self.action = nil
            return a
        }
        action?()
    }
}

/// The analysis stage's state: the face followed, its pose filter, the keyframe's parse and the shot's head
/// size, and the background plate. Runs on its own thread; it alone uses the engine's analyser and parser
/// while a clip runs.
final class VideoFrameAnalysis: @unchecked Sendable {
    let analyzer: FaceAnalyzer
    /// The analyzer's `earAnchoring` before this clip turned it off, given back when the clip's analysis goes.
    private let earAnchoringBefore: Bool
    let parser: FaceParser?
    let head: HeadModel
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
        head = engine.head
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
        guard var face = found else {
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
                let measured = HeadSizing.fit(PhotoAnalysis(frame: frame, face: face), hair: parsed, head: head) { intrinsics in
                    try self.analyzer.solvePose(for: face, intrinsics: intrinsics)
                }.sizing
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
        let shotSizing = sizing ?? .unscaled
        var intrinsics = face.intrinsics
        intrinsics.fx *= shotSizing.focalFactor
        intrinsics.fy *= shotSizing.focalFactor
        face.pose = try timing.measure(.pose) { try analyzer.solvePoseContinuous(for: face, intrinsics: intrinsics) }
        face.intrinsics = intrinsics
        let rawPose = face.pose
        if state == .held, let lastSmoothed {
            face.pose = lastSmoothed
        } else {
            face.pose = timing.measure(.smooth) { smoother.smooth(face.pose, at: time) }
            lastSmoothed = face.pose
        }
        var analysis = PhotoAnalysis(frame: frame, face: face)
        analysis.sizing = shotSizing
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
        let person = PersonHead(landmarks: face.chosen.landmarks)?.fittingHairline(matte: hair.matte, width: hair.width, height: hair.height)
        var analyses = try PlateStage(head: head).fill(ParsedOwnHair(analyses: [analysis], hair: hair, persons: [person]), seed: job.seed,
                                                       timing: &timing)
        let removal = timing.measure(.plate) { () -> [Float] in
            let removal = HairPlate.removal(hair)
            if var plate = analyses[0].plate, let skin = analyses[0].filledSkin {
                background.stabilise(&plate, frame: frame.image, hair: hair, removal: removal, skin: skin)
                analyses[0].plate = plate
            }
            return removal
        }
        var done = out(analyses, renders: renders)
        done.removal = removal
        return done
    }

    /// The head's front hairline on its midline (head space, mm): the front-most head vertex near the
    /// midline 60 mm above the brows' centre, where an average adult's hairline and Coif's styles' fronts sit.
    static func hairlinePoint(of head: HeadModel) -> Vec3 {
        let brows = (17...26).reduce(Vec3.zero) { $0 + head.landmarks68[$1] } / 10
        let near = head.vertices.filter { abs($0.x) < 6 && abs($0.y - (brows.y + 60)) < 6 }
        return near.max { $0.z < $1.z } ?? brows + Vec3(0, 60, -15)
    }
}

/// The light a clip's hair is shaded with: each frame's reading of the face (PhotoLightEstimate) eased
/// toward (`follow` of the way a frame), so the hair's shading follows a change of light within a few
/// frames without flickering with each frame's expression and points. A new shot starts from its first
/// reading; a frame the face gives no reading keeps the last light.
struct VideoLightFilter {
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
        last = (shot, eased)
        return eased
    }
}

/// How much a clip's fill behind the removed hair changes from frame to frame, against how much the visible
/// background does (the clip's own noise): a still background changes by its noise only; a fill that is
/// re-made each frame flickers well above it.
struct VideoFillChange {
    /// The last frame's input, output and masks (1: background fill, 2: visible background), and its shot.
    private var last: (input: PixelImage, output: PixelImage, mask: [UInt8], shot: Int)?

    mutating func reset() { last = nil }

    /// The mean level of `image` where `matte` (8-bit) is over half; nil under 300 such pixels.
    static func meanLevel(_ image: PixelImage, where matte: PixelImage) -> Double? {
        var sum = 0.0, count = 0
        for i in 0..<(image.width * image.height) where matte.pixels[i * matte.channels] > 128 {
            sum += Double(image.pixels[3 * i]) + Double(image.pixels[3 * i + 1]) + Double(image.pixels[3 * i + 2])
            count += 1
        }
        return count >= 300 ? sum / Double(3 * count) : nil
    }

    mutating func next(input: PixelImage, output: PixelImage, analysis: PhotoAnalysis, removal: [Float]?, newHair: PixelImage, shot: Int)
        -> (fill: Double?, background: Double?) {
        let count = input.width * input.height
        var mask = [UInt8](repeating: 0, count: count)
        if let hair = analysis.ownHair, let plate = analysis.plate, let skin = analysis.filledSkin, let removal {
            for i in 0..<count where newHair.pixels[i * newHair.channels] == 0 {
                if removal[i] < 0.01 {
                    if hair.classes[i] == OwnHair.background { mask[i] = 2 }
                } else if skin[i] < 0.01 && (plate.pixels[3 * i] != input.pixels[3 * i] || plate.pixels[3 * i + 1] != input.pixels[3 * i + 1]
                                             || plate.pixels[3 * i + 2] != input.pixels[3 * i + 2]) {
                    mask[i] = 1
                }
            }
        }
        defer { last = (input, output, mask, shot) }
        guard let last, last.shot == shot, last.input.width == input.width, last.input.height == input.height else { return (nil, nil) }
        var fill = 0.0, fillCount = 0, background = 0.0, backgroundCount = 0
        for i in 0..<count where mask[i] != 0 && mask[i] == last.mask[i] {
            for c in 0..<3 {
                let j = 3 * i + c
                if mask[i] == 1 {
                    let d = Double(output.pixels[j]) - Double(last.output.pixels[j])
                    fill += d * d
                    fillCount += 1
                } else {
                    let d = Double(input.pixels[j]) - Double(last.input.pixels[j])
                    background += d * d
                    backgroundCount += 1
                }
            }
        }
        return (fillCount >= 300 ? (fill / Double(fillCount)).squareRoot() : nil,
                backgroundCount >= 300 ? (background / Double(backgroundCount)).squareRoot() : nil)
    }
}

extension TryOnEngine {
    /// The level of detail a shot keeps: chosen as a still's is, from its first frame's face width
    /// rounded to 16 px (so segments of one clip, whose first frames differ by a pixel, pick the same).
    func shotLevelOfDetail(_ analysis: PhotoAnalysis, style: Style, job: TryOnJob) throws -> LevelOfDetail {
        try levelOfDetail(faceWidthPx: max(16, (analysis.faceWidthPx / 16).rounded() * 16), style: style, job: job)
    }
}

/// A clip's figures: frames by how their face was found, and each stage's times over the frames.
public struct VideoSummary: Sendable {
    public var frames: Int
    public var states: [String: Int]
    public var keyframes: Int
    public var renderer: String
    public var wallSeconds: Double
    /// Each stage's times over the frames it ran in, summarised as `coif bench` summarises (DurationSummary:
    /// one definition of a percentile).
    public var stages: [(stage: Stage, figures: DurationSummary)]
    public var backgroundResets: Int
    /// The clip's own frame rate.
    public var clipFramesPerSecond: Double
    public var records: [VideoFrameRecord]
    /// Frames rendered per second of wall time (start-up included).
    public var framesPerSecond: Double { wallSeconds > 0 ? Double(frames) / wallSeconds : 0 }

    init(records: [VideoFrameRecord], renderer: String, wallSeconds: Double, backgroundResets: Int, clipFramesPerSecond: Double) {
        self.records = records
        self.clipFramesPerSecond = clipFramesPerSecond
        frames = records.count
        var states: [String: Int] = [:]
        for s in TrackState.allCases { states[s.rawValue] = 0 }
        for r in records { states[r.state.rawValue, default: 0] += 1 }
        self.states = states
        keyframes = records.filter(\.keyframe).count
        self.renderer = renderer
        self.wallSeconds = wallSeconds
        self.backgroundResets = backgroundResets
        stages = Stage.allCases.compactMap { stage in
            let values = records.compactMap { $0.timing[stage] }
            guard !values.isEmpty else { return nil }
            return (stage, DurationSummary(values))
        }
    }

    /// The summary as JSON (sorted keys, times to 0.01 ms).
    public func json() -> String {
        func r(_ x: Double) -> Double { (x * 100).rounded() / 100 }
        var stageObject: [String: Any] = [:]
        for (stage, f) in stages {
            stageObject[stage.rawValue] = ["frames": f.count, "mean_ms": r(f.meanMs), "p50_ms": r(f.p50Ms), "p95_ms": r(f.p95Ms),
                                           "p99_ms": r(f.p99Ms), "max_ms": r(f.maxMs)]
        }
        var object: [String: Any] = ["frames": frames, "states": states, "keyframes": keyframes, "renderer": renderer,
                                     "wall_seconds": r(wallSeconds), "frames_per_second": r(framesPerSecond), "stages": stageObject,
                                     "background_resets": backgroundResets, "clip_frames_per_second": r(clipFramesPerSecond)]
        let fills = records.compactMap(\.fillChange), backgrounds = records.compactMap(\.backgroundChange)
        if !fills.isEmpty { object["fill_change_levels"] = r(fills.reduce(0, +) / Double(fills.count)) }
        if !backgrounds.isEmpty { object["background_change_levels"] = r(backgrounds.reduce(0, +) / Double(backgrounds.count)) }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return (String(data: data, encoding: .utf8) ?? "{}") + "\n"
    }

    /// One row per frame: index, time, how the face was found, keyframe, each stage's ms (empty: did not
    /// run) and their sum; the pose raw and drawn (degrees), the hairline's image raw and drawn (px), and
    /// the fill's and the background's change from the last frame (levels). Empty cells: not measured.
    public static func csv(_ records: [VideoFrameRecord]) -> String {
        let poseColumns = ["raw_yaw", "raw_pitch", "raw_roll", "yaw", "pitch", "roll",
                           "raw_hairline_x", "raw_hairline_y", "hairline_x", "hairline_y", "fill_change", "background_change", "hair_level"]
        var lines = ["frame,time_s,state,keyframe," + Stage.allCases.map { $0.rawValue + "_ms" }.joined(separator: ",") + ",sum_ms,"
                     + poseColumns.joined(separator: ",")]
        func cell(_ value: Double?, _ format: String = "%.2f") -> String { value.map { String(format: format, $0) } ?? "" }
        for r in records {
            let stages = Stage.allCases.map { cell(r.timing[$0]) }
            let sum = Stage.allCases.reduce(0) { $0 + (r.timing[$1] ?? 0) }
            let poses = [r.rawPose?.yawDegrees, r.rawPose?.pitchDegrees, r.rawPose?.rollDegrees,
                         r.pose?.yawDegrees, r.pose?.pitchDegrees, r.pose?.rollDegrees].map { cell($0, "%.3f") }
            let points = [r.rawHairlinePx?.x, r.rawHairlinePx?.y, r.hairlinePx?.x, r.hairlinePx?.y].map { cell($0.map(Double.init)) }
            lines.append("\(r.index),\(String(format: "%.4f", r.timestamp)),\(r.state.rawValue),\(r.keyframe ? 1 : 0),"
                         + stages.joined(separator: ",") + "," + String(format: "%.2f", sum) + ","
                         + (poses + points + [cell(r.fillChange), cell(r.backgroundChange), cell(r.hairLevel)]).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
