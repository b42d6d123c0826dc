// FaceTrack: one face followed through the frames of a clip. The detector runs on the first frame, on every
// `redetectEvery`-th frame (counted from the clip's start, so a segment of a clip detects on the same frames
// as the whole clip), and whenever the track is lost; in between, dlib's detector searches only a window
// around the last face, and where it misses, the landmarks are fitted in a box made from the last frame's
// points (dlib's shape predictor needs a box). At 1280×720 a full detection costs ~90 ms on this machine.
//
// A frame where no face is found keeps the last face for `holdSeconds` (a blink of the detector, a hand
// passing), then passes through with no face until one is found again.
import CoifCore
import Foundation

/// How a frame got its face.
public enum TrackState: String, Sendable, Codable, CaseIterable {
    /// The detector ran and found the face.
    case detected
    /// Fitted from the previous frame's points.
    case tracked
    /// No face found; the last one kept (within the hold).
    case held
    /// No face found and the hold is over: the frame goes out as it came in.
    case passed
}

public final class FaceTrack {
    public struct Parameters: Sendable, Equatable {
        /// Detect again every this many frames (0: only when the track is lost).
        public var redetectEvery: Int
        /// How long a lost face is held, in seconds.
        public var holdSeconds: Double

        public static let standard = Parameters(redetectEvery: 30, holdSeconds: 0.5)

        public init(redetectEvery: Int, holdSeconds: Double) {
            self.redetectEvery = redetectEvery
            self.holdSeconds = holdSeconds
        }
    }

    public let analyzer: FaceAnalyzer
    public let choice: FaceChoice
    public let parameters: Parameters
    /// The last face found, when it was seen, and how its detection box sat on its points (see `BoxOnPoints`).
    private var last: (face: FaceAnalysis, time: Double, box: BoxOnPoints)?

    /// `choice` is `.largest` or `.index(i)` (the i-th face of the first detection, followed from there);
    /// one face is tracked.
    public init(analyzer: FaceAnalyzer, choice: FaceChoice, parameters: Parameters = .standard) {
        self.analyzer = analyzer
        self.choice = choice
        self.parameters = parameters
    }

    /// Forgets the face (a new shot).
    public func reset() {
        last = nil
        lostBox = nil
    }

    /// The face of `frame` (nil when `passed`) and how it was found. `frame.index` and `frame.timestamp`
    /// drive the schedule and the hold.
    public func next(_ frame: Frame, timing: inout FrameTiming) throws -> (state: TrackState, face: FaceAnalysis?) {
        let index = frame.index ?? 0, time = frame.timestamp ?? 0
        let gray = frame.image.grayscale()
        let due = last == nil || (parameters.redetectEvery > 0 && index % parameters.redetectEvery == 0)
        var tracked: FaceAnalysis?
        if let previous = last {
            // dlib's detector in a window around the last face (`guidedDetections`: ~2.5 times its box, the face
            // resampled to ~120 px): the box a still's detection gives, so the points are a still's. A box made
            // from the last frame's points drifts: dlib's points follow the box they are given, and on a head
            // turning at 720p the chain of boxes slid 30 px off the face within 7 frames and the yaw read 6°
            // for 29°. Only where the detector misses it there (blur, a turn past its range) is the box made
            // from the last points.
            let around = previous.face.chosen.box
            let boxes = timing.measure(.detect) { analyzer.guidedDetections(gray: gray, candidates: [around]) }
            if let box = boxes.max(by: { FaceAnalyzer.overlap($0, around) < FaceAnalyzer.overlap($1, around) }) {
                tracked = try? analyzer.fit(frame, trackedBox: box, meshFrom: previous.face.meshRegion, gray: gray, timing: &timing)
            }
            if tracked == nil {
                // dlib's predictor puts 68 points in any box, and on a frame with no face (a cut to a flat grey)
                // they are its mean shape, which a rigid head fits well: the face mesh's presence score is asked
                // whether a face is there at all.
                let box = previous.box.box(around: previous.face.chosen.landmarks)
                if analyzer.facePresence(frame.image, box: box).map({ $0 >= FaceAnalyzer.meshMinPresence }) ?? true {
                    tracked = try? analyzer.fit(frame, trackedBox: box, meshFrom: previous.face.meshRegion, gray: gray, timing: &timing)
                }
            }
        }
        if due || tracked == nil, let found = try detect(frame, near: tracked ?? last?.face, timing: &timing) {
            last = (found, time, BoxOnPoints(box: found.chosen.box, points: found.chosen.landmarks))
            return (.detected, found)
        }
        if let tracked, let previous = last {
            last = (tracked, time, previous.box)
            return (.tracked, tracked)
        }
        if let previous = last, time - previous.time <= parameters.holdSeconds {
            return (.held, previous.face)
        }
        if let previous = last { lostBox = previous.face.chosen.box }
        last = nil
        return (.passed, nil)
    }

    /// Where the face was when its track was lost: after a gap, the face found there again is the one
    /// followed, not whichever face `choice` names in that frame (another person, with `--face 1`).
    private var lostBox: FaceBox?

    /// The detector's face: the one `choice` names on a first detection; with a face already followed, the
    /// detection that overlaps it most (none overlapping: the track is kept, not jumped to another person).
    /// `faceIndexOutOfRange` when the first frame with faces has fewer than `choice` asks for (as a still).
    private func detect(_ frame: Frame, near followed: FaceAnalysis?, timing: inout FrameTiming) throws -> FaceAnalysis? {
        guard let followed else {
            if let lostBox, let all = try? analyzer.analyseAll(frame, timing: &timing),
               let again = all.max(by: { FaceAnalyzer.overlap($0.chosen.box, lostBox) < FaceAnalyzer.overlap($1.chosen.box, lostBox) }),
               FaceAnalyzer.overlap(again.chosen.box, lostBox) > 0.3 {
                return again
            }
            switch choice {
            case .index(let i):
                guard let all = try? analyzer.analyseAll(frame, timing: &timing), !all.isEmpty else { return nil }
                guard i >= 0, i < all.count else {
                    if lostBox == nil { throw CoifError.faceIndexOutOfRange(path: frame.source, index: i, found: all.count) }
                    return nil
                }
                return all[i]
            case .largest, .all:
                return try? analyzer.analyse(frame, face: .largest, timing: &timing)
            }
        }
        guard let all = try? analyzer.analyseAll(frame, timing: &timing) else { return nil }
        let best = all.map { (face: $0, overlap: FaceAnalyzer.overlap($0.chosen.box, followed.chosen.box)) }.max { $0.overlap < $1.overlap }
        guard let best, best.overlap > 0.3 else { return nil }
        return best.face
    }
}

/// Where a detector's box sat on the face's points (centre offset and size, in units of the points' bounding
/// box), so a box made from another frame's points frames the face as the detector would.
struct BoxOnPoints: Sendable {
    var offset: Vec2
    var scale: Vec2

    init(box: FaceBox, points: [Vec2]) {
        let bounds = Self.bounds(points)
        let size = Vec2(max(bounds.max.x - bounds.min.x, 1), max(bounds.max.y - bounds.min.y, 1))
        let centre = (bounds.min + bounds.max) * 0.5
        offset = (box.center - centre) / size
        scale = Vec2(box.width, box.height) / size
    }

    func box(around points: [Vec2]) -> FaceBox {
        let bounds = Self.bounds(points)
        let size = Vec2(max(bounds.max.x - bounds.min.x, 1), max(bounds.max.y - bounds.min.y, 1))
        let centre = (bounds.min + bounds.max) * 0.5 + offset * size
        let half = scale * size * 0.5
        return FaceBox(left: centre.x - half.x, top: centre.y - half.y, right: centre.x + half.x, bottom: centre.y + half.y, score: 0)
    }

    static func bounds(_ points: [Vec2]) -> (min: Vec2, max: Vec2) {
        var lo = points[0], hi = points[0]
        for p in points { lo = Vec2(min(lo.x, p.x), min(lo.y, p.y)); hi = Vec2(max(hi.x, p.x), max(hi.y, p.y)) }
        return (lo, hi)
    }
}
