// VideoTryOnOptions: what a clip's try-on is asked for (frames, keyframes, tracking, smoothing, files), and
// VideoCancel, which lets a signal handler abandon a clip mid-way.
import CoifCore
import CoifGroom
import CoifMedia
import CoifPipeline
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
