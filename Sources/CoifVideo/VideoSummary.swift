// A clip's records: one per frame (VideoFrameRecord), progress as it runs (VideoProgress), and the
// figures over the clip (VideoSummary).
import CoifCore
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation
import Logging

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
