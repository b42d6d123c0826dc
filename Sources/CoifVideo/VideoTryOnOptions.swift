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

    /// The clip's own numbers, checked before anything is read (the CLI's `validate()` and `VideoTryOn.run`
    /// alike): each refusal names its flag (exit 22).
    public static func check(keyframeEvery: Int, keyframeTurnDegrees: Double, warmUpSeconds: Double, crf: Int) throws {
        guard keyframeEvery >= 1 else { throw CoifError.invalidOption(name: "--keyframe-every", reason: "must be 1 or more") }
        guard keyframeTurnDegrees > 0, keyframeTurnDegrees.isFinite else {
            throw CoifError.invalidOption(name: "--keyframe-turn", reason: "must be over 0°")
        }
        guard (0...3600).contains(warmUpSeconds) else { throw CoifError.invalidOption(name: "--warm-up", reason: "must be 0–3600 seconds") }
        guard (0...51).contains(crf) else { throw CoifError.invalidOption(name: "--crf", reason: "must be 0–51, got \(crf)") }
    }

    /// `check` on these options.
    public func check() throws {
        try Self.check(keyframeEvery: keyframeEvery, keyframeTurnDegrees: keyframeTurnDegrees, warmUpSeconds: warmUpSeconds, crf: crf)
    }

    /// `--frames A-B`: 0-based, inclusive.
    public static func frames(_ text: String) throws -> ClosedRange<Int> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 0, a <= b else {
            throw CoifError.invalidOption(name: "--frames", reason: "expected A-B with 0 ≤ A ≤ B, got '\(text)'")
        }
        return a...b
    }

    /// `--start` and `--duration` (seconds; either may be nil: from the clip's start, to its end) as frames at
    /// `framesPerSecond` (at most 1000): at least one frame from where it starts.
    public static func frames(start: Double?, duration: Double?, framesPerSecond: Double) -> ClosedRange<Int> {
        let rate = min(framesPerSecond, 1000)
        let a = Int(((start ?? 0) * rate).rounded())
        let b = duration.map { a + max(Int(($0 * rate).rounded()), 1) - 1 } ?? Int.max
        return a...b
    }

    /// `--smoothing`: 'standard', 'none' (every pose as it is), or comma-separated key=value of rotation-cutoff
    /// (Hz), rotation-beta, translation-cutoff (Hz), translation-beta and derivative-cutoff (Hz) over the
    /// standard ones.
    public static func smoothing(_ text: String) throws -> PoseSmoother.Parameters {
        switch text {
        case "standard": return .standard
        case "none":
            // Cut-offs far above any frame rate: each value passes as it is.
            return PoseSmoother.Parameters(rotationMinCutoff: 1e9, rotationBeta: 0, translationMinCutoff: 1e9, translationBeta: 0, derivativeCutoff: 1)
        default:
            var p = PoseSmoother.Parameters.standard
            for pair in text.split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2, let value = Double(kv[1]), value.isFinite, value >= 0 else {
                    throw CoifError.invalidOption(name: "--smoothing", reason: "expected key=value with a number ≥ 0, got '\(pair)'")
                }
                switch kv[0] {
                case "rotation-cutoff": p.rotationMinCutoff = value
                case "rotation-beta": p.rotationBeta = value
                case "translation-cutoff": p.translationMinCutoff = value
                case "translation-beta": p.translationBeta = value
                case "derivative-cutoff": p.derivativeCutoff = value
                default:
                    throw CoifError.invalidOption(name: "--smoothing", reason: "unknown key '\(kv[0])' (rotation-cutoff, rotation-beta, translation-cutoff, translation-beta, derivative-cutoff)")
                }
            }
            guard p.rotationMinCutoff > 0, p.translationMinCutoff > 0, p.derivativeCutoff > 0 else {
                throw CoifError.invalidOption(name: "--smoothing", reason: "cut-offs must be over 0 Hz")
            }
            return p
        }
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
