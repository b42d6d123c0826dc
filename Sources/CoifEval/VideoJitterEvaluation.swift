// VideoJitterEvaluation: how steady a clip's hair is, from a video try-on's frame records (`coif eval jitter`).
//   - Noise: on the clip's steadiest second (the one-second stretch, faces found throughout, where the drawn
//     hairline moves least), the frame-to-frame noise of yaw, pitch and roll (degrees) and of the hairline's
//     image (px, and mm at the face's scale: 150 mm jaw to jaw), raw and as drawn. Noise is read from second
//     differences, which a steady motion does not change: for white noise of σ, their RMS is √6·σ.
//   - Lag: the delay (frames, ms) at which the drawn yaw best matches the raw yaw (cross-correlation of
//     their frame-to-frame changes), over the frames with a face: what the filter costs a turning head.
//   - Fill change: the mean RMS change (8-bit levels) per frame of the output where the plate filled
//     background, against the visible background's own (the clip's noise): the fill's flicker.
//   - Hair shading: the frame-to-frame noise of the new hair's mean level (second differences): its
//     shading's flicker.
import CoifCore
import CoifPipeline
import CoifVideo
import CoifVision
import Foundation

public struct VideoJitterReport: Codable, Sendable {
    public struct Noise: Codable, Sendable {
        public var yawDegrees: Double
        public var pitchDegrees: Double
        public var rollDegrees: Double
        public var hairlinePx: Double
        public var hairlineMm: Double
    }

    public var frames: Int
    public var framesWithFace: Int
    /// The steadiest stretch: its first frame and length.
    public var steadiestFrom: Int?
    public var steadiestFrames: Int
    public var raw: Noise?
    public var drawn: Noise?
    public var lagFrames: Int?
    public var lagMs: Double?
    public var fillChangeLevels: Double?
    public var backgroundChangeLevels: Double?
    /// Frame-to-frame noise (second differences) of the new hair's mean level over runs of consecutive
    /// frames of one shot: its shading's flicker, in 8-bit levels.
    public var hairLevelNoise: Double?
}

public enum VideoJitterEvaluation {
    /// Jaw-to-jaw width of a face in mm (Coif's head), for the hairline's noise in mm.
    public static let faceWidthMm = 150.0

    public static func evaluate(_ records: [VideoFrameRecord], framesPerSecond: Double) -> VideoJitterReport {
        let window = max(5, Int(framesPerSecond.rounded()))
        let withFace = records.filter { $0.rawPose != nil && $0.pose != nil && $0.hairlinePx != nil && $0.rawHairlinePx != nil }
        var report = VideoJitterReport(frames: records.count, framesWithFace: withFace.count, steadiestFrom: nil, steadiestFrames: 0,
                                       raw: nil, drawn: nil, lagFrames: nil, lagMs: nil, fillChangeLevels: nil, backgroundChangeLevels: nil,
                                       hairLevelNoise: nil)
        // Stretches of consecutive frames with a face, tracked or detected (not held).
        var best: (from: Int, motion: Double)?
        if records.count >= window {
            for start in 0...(records.count - window) {
                let stretch = records[start..<(start + window)]
                guard stretch.allSatisfy({ $0.hairlinePx != nil && $0.rawPose != nil && ($0.state == .tracked || $0.state == .detected) }),
                      zip(stretch.dropFirst(), stretch).allSatisfy({ $0.index == $1.index + 1 }) else { continue }
                let points = stretch.map { $0.hairlinePx! }
                let motion = zip(points.dropFirst(), points).reduce(0.0) { $0 + Double(length2($1.0 - $1.1)) }
                if best == nil || motion < best!.motion { best = (start, motion) }
            }
        }
        if let best {
            let stretch = Array(records[best.from..<(best.from + window)])
            report.steadiestFrom = stretch[0].index
            report.steadiestFrames = window
            let mmPerPx = faceWidthMm / max(stretch.compactMap(\.faceWidthPx).reduce(0, +) / Double(window), 1)
            func noise(_ poses: [HeadPose], _ points: [Vec2]) -> VideoJitterReport.Noise {
                let hairline = (secondDifferenceNoise(points.map { Double($0.x) }).squared + secondDifferenceNoise(points.map { Double($0.y) }).squared).squareRoot()
                return .init(yawDegrees: secondDifferenceNoise(poses.map(\.yawDegrees)), pitchDegrees: secondDifferenceNoise(poses.map(\.pitchDegrees)),
                             rollDegrees: secondDifferenceNoise(poses.map(\.rollDegrees)), hairlinePx: hairline, hairlineMm: hairline * mmPerPx)
            }
            report.raw = noise(stretch.map { $0.rawPose! }, stretch.map { $0.rawHairlinePx! })
            report.drawn = noise(stretch.map { $0.pose! }, stretch.map { $0.hairlinePx! })
        }
        if withFace.count >= 8 {
            let raw = withFace.map { $0.rawPose!.yawDegrees }, drawn = withFace.map { $0.pose!.yawDegrees }
            let dRaw = zip(raw.dropFirst(), raw).map { $0 - $1 }, dDrawn = zip(drawn.dropFirst(), drawn).map { $0 - $1 }
            var bestLag: (lag: Int, score: Double)?
            for lag in 0...min(10, dRaw.count / 2) {
                var score = 0.0
                for i in 0..<(dRaw.count - lag) { score += dRaw[i] * dDrawn[i + lag] }
                if bestLag == nil || score > bestLag!.score { bestLag = (lag, score) }
            }
            report.lagFrames = bestLag?.lag
            report.lagMs = bestLag.map { Double($0.lag) * 1000 / framesPerSecond }
        }
        let fills = records.compactMap(\.fillChange), backgrounds = records.compactMap(\.backgroundChange)
        report.fillChangeLevels = fills.isEmpty ? nil : fills.reduce(0, +) / Double(fills.count)
        report.backgroundChangeLevels = backgrounds.isEmpty ? nil : backgrounds.reduce(0, +) / Double(backgrounds.count)
        // Second differences within runs of consecutive frames that have a hair level.
        var squares = 0.0, terms = 0
        for i in 1..<max(records.count - 1, 1) {
            let a = records[i - 1], b = records[i], c = records[i + 1]
            guard let x = a.hairLevel, let y = b.hairLevel, let z = c.hairLevel, b.index == a.index + 1, c.index == b.index + 1 else { continue }
            squares += (z - 2 * y + x) * (z - 2 * y + x)
            terms += 1
        }
        report.hairLevelNoise = terms > 0 ? (squares / Double(terms) / 6).squareRoot() : nil
        return report
    }

    /// σ of the noise on `values` from their second differences (RMS / √6).
    static func secondDifferenceNoise(_ values: [Double]) -> Double {
        guard values.count >= 3 else { return 0 }
        var sum = 0.0
        for i in 1..<(values.count - 1) {
            let d = values[i + 1] - 2 * values[i] + values[i - 1]
            sum += d * d
        }
        return (sum / Double(values.count - 2) / 6).squareRoot()
    }

    static func length2(_ v: Vec2) -> Float { (v.x * v.x + v.y * v.y).squareRoot() }
}

private extension Double {
    var squared: Double { self * self }
}
