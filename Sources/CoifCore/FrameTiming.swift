// FrameTiming: wall milliseconds for each pipeline stage of one frame, plus the context a reader needs
// to compare runs (renderer, resolution, strand and segment counts). Every stage reports here.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The stages of one still, in pipeline order.
public enum Stage: String, CaseIterable, Sendable, Codable {
    case decode, detect, landmarks, pose
    /// A video's pose filter (PoseSmoother).
    case smooth
    /// The own hair: the face-parsing network, a video frame's parse carried from its keyframe, and the plate
    /// (the photo with the hair taken away).
    case parse, carry, plate
    case scene, render, readback, composite, encode, write

    /// The stages a clip's frames have and a still does not.
    public static let videoOnly: Set<Stage> = [.smooth, .carry]
    /// A still's stages, in order.
    public static var still: [Stage] { allCases.filter { !videoOnly.contains($0) } }
}

/// Monotonic milliseconds (CLOCK_MONOTONIC): never reaches a pixel, only timing records.
@inlinable public func monotonicMs() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
}

public struct FrameTiming: Sendable, Codable, Equatable {
    /// Wall milliseconds per stage; a stage that did not run (cached face, say) is absent.
    public var stageMs: [String: Double] = [:]
    /// GPU milliseconds from timer queries, where the driver has trustworthy ones (not llvmpipe).
    public var gpuRenderMs: Double?
    public var totalMs: Double = 0
    public var renderer: String = ""
    public var imageWidth: Int = 0
    public var imageHeight: Int = 0
    public var strandCount: Int = 0
    public var segmentCount: Int = 0
    public var faceWidthPx: Double = 0

    public init() {}

    public subscript(stage: Stage) -> Double? {
        get { stageMs[stage.rawValue] }
        set { stageMs[stage.rawValue] = newValue }
    }

    /// Runs `body`, adds its wall time to `stage`, and returns its result.
    @inlinable public mutating func measure<T>(_ stage: Stage, _ body: () throws -> T) rethrows -> T {
        let start = monotonicMs()
        defer { stageMs[stage.rawValue, default: 0] += monotonicMs() - start }
        return try body()
    }
}
