// PoseSmoother: a head pose filtered over the frames of a clip, so hair on a still head does not jitter and on
// a turning head does not lag: the One Euro filter (Casiez, Roussel and Vogel, CHI 2012) on each of the six
// degrees of freedom, its cut-off rising with the speed of the motion. The groundwork of `coif video` (#31).
//
// The rotation is filtered as the rotation vector of R_rel = R · diag(1, −1, −1), the turn away from a frontal
// head, which stays well inside (−π, π) for a face the camera sees; R's own rotation vector sits near π for a
// frontal head (diag(1, −1, −1) is a half turn about x), where its components flip sign from frame to frame.
import CoifCore
import Foundation

/// The One Euro filter of one signal. Deterministic: the same values at the same times give the same output.
public struct OneEuroFilter: Sendable {
    /// Hz: the cut-off at rest (lower: steadier, more lag at low speeds).
    public var minCutoff: Double
    /// How fast the cut-off rises with the signal's speed (higher: less lag when it moves fast).
    public var beta: Double
    /// Hz: the cut-off of the speed estimate itself.
    public var derivativeCutoff: Double
    private var last: (time: Double, value: Double, speed: Double)?

    public init(minCutoff: Double, beta: Double, derivativeCutoff: Double = 1) {
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivativeCutoff = derivativeCutoff
    }

    /// The smoothing factor of a first-order low-pass at `cutoff` Hz over `interval` seconds.
    static func alpha(cutoff: Double, interval: Double) -> Double {
        let tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / interval)
    }

    /// The filtered value at `time` (seconds; increasing). The first value passes as it is.
    public mutating func filter(_ value: Double, at time: Double) -> Double {
        guard let last, time > last.time else {
            self.last = (time, value, 0)
            return value
        }
        let interval = time - last.time
        let speed = (value - last.value) / interval
        let a = Self.alpha(cutoff: derivativeCutoff, interval: interval)
        let smoothedSpeed = a * speed + (1 - a) * last.speed
        let cutoff = minCutoff + beta * abs(smoothedSpeed)
        let b = Self.alpha(cutoff: cutoff, interval: interval)
        let filtered = b * value + (1 - b) * last.value
        self.last = (time, filtered, smoothedSpeed)
        return filtered
    }

    /// Forgets the signal (a cut, a face lost for longer than a hold).
    public mutating func reset() { last = nil }
}

/// A head pose's six degrees of freedom through One Euro filters: rotation (radians of R_rel's rotation
/// vector) and translation (mm) each with their own parameters, since a turn of 0.01 rad and a move of 1 mm
/// are about the same on screen for a head half a metre away.
public struct PoseSmoother: Sendable {
    public struct Parameters: Sendable, Equatable {
        public var rotationMinCutoff: Double
        public var rotationBeta: Double
        public var translationMinCutoff: Double
        public var translationBeta: Double
        public var derivativeCutoff: Double

        /// MediaPipe's face landmarker filters landmarks in pixels with min_cutoff 0.05, beta 80 and
        /// derivate_cutoff 1. Here the signals are radians and millimetres, and the values chosen so that, at
        /// 25 fps with landmark-like noise (1° an angle, 3 mm a coordinate), a still head's cut-off stays
        /// near 0.7 Hz (its noise reduced 3–4×) while a head turning at 60°/s (1.05 rad/s) raises the
        /// rotation's to ~3.3 Hz (a lag of ~0.05 s, under 3°), and one moving at 200 mm/s the translation's to
        /// ~2.5 Hz (PoseSmootherTests). Not yet tuned on real clips.
        public static let standard = Parameters(rotationMinCutoff: 0.1, rotationBeta: 3, translationMinCutoff: 0.1,
                                                translationBeta: 0.012, derivativeCutoff: 1)

        public init(rotationMinCutoff: Double, rotationBeta: Double, translationMinCutoff: Double, translationBeta: Double,
                    derivativeCutoff: Double) {
            self.rotationMinCutoff = rotationMinCutoff
            self.rotationBeta = rotationBeta
            self.translationMinCutoff = translationMinCutoff
            self.translationBeta = translationBeta
            self.derivativeCutoff = derivativeCutoff
        }
    }

    public let parameters: Parameters
    private var rotation: [OneEuroFilter]
    private var translation: [OneEuroFilter]

    public init(_ parameters: Parameters = .standard) {
        self.parameters = parameters
        rotation = Array(repeating: OneEuroFilter(minCutoff: parameters.rotationMinCutoff, beta: parameters.rotationBeta,
                                                  derivativeCutoff: parameters.derivativeCutoff), count: 3)
        translation = Array(repeating: OneEuroFilter(minCutoff: parameters.translationMinCutoff, beta: parameters.translationBeta,
                                                     derivativeCutoff: parameters.derivativeCutoff), count: 3)
    }

    /// `pose` at `time` (seconds), filtered with the poses before it. The reprojection error is the raw one's.
    public mutating func smooth(_ pose: HeadPose, at time: Double) -> HeadPose {
        let relative = Self.rotationVector(Self.multiply(pose.rotation, Self.flip))
        var r = [Double](repeating: 0, count: 3), t = [Double](repeating: 0, count: 3)
        for i in 0..<3 {
            r[i] = rotation[i].filter(relative[i], at: time)
            t[i] = translation[i].filter(pose.tvec[i], at: time)
        }
        let matrix = Self.multiply(Self.rotationMatrix(r), Self.flip)
        return HeadPose(rvec: Self.rotationVector(matrix), tvec: t, rotation: matrix, reprojectionErrorPx: pose.reprojectionErrorPx)
    }

    public mutating func reset() {
        for i in 0..<3 { rotation[i].reset(); translation[i].reset() }
    }

    // MARK: - Rotations (row-major 3×3)

    public static let flip: [Double] = [1, 0, 0, 0, -1, 0, 0, 0, -1]

    public static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var m = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { m[i * 3 + j] = (0..<3).reduce(0) { $0 + a[i * 3 + $1] * b[$1 * 3 + j] } } }
        return m
    }

    /// Rodrigues: the rotation of angle |v| about v/|v|.
    public static func rotationMatrix(_ v: [Double]) -> [Double] {
        let angle = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot()
        guard angle > 1e-12 else { return [1, 0, 0, 0, 1, 0, 0, 0, 1] }
        let x = v[0] / angle, y = v[1] / angle, z = v[2] / angle
        let c = cos(angle), s = sin(angle), k = 1 - c
        return [c + x * x * k, x * y * k - z * s, x * z * k + y * s,
                y * x * k + z * s, c + y * y * k, y * z * k - x * s,
                z * x * k - y * s, z * y * k + x * s, c + z * z * k]
    }

    /// The rotation vector of a rotation matrix (angle in [0, π]).
    public static func rotationVector(_ m: [Double]) -> [Double] {
        let cosine = max(-1, min(1, (m[0] + m[4] + m[8] - 1) / 2))
        let angle = acos(cosine)
        if angle < 1e-9 { return [0, 0, 0] }
        if Double.pi - angle < 1e-6 {
            // A half turn: the axis from the matrix's diagonal (sin θ is ~0, so the general form fails).
            var axis = [((m[0] + 1) / 2).squareRoot(), ((m[4] + 1) / 2).squareRoot(), ((m[8] + 1) / 2).squareRoot()]
            if m[1] < 0 { axis[1] = -axis[1] }
            if m[2] < 0 { axis[2] = -axis[2] }
            return axis.map { $0 * angle }
        }
        let scale = angle / (2 * sin(angle))
        return [(m[7] - m[5]) * scale, (m[2] - m[6]) * scale, (m[3] - m[1]) * scale]
    }
}

extension HeadPose {
    /// The pose `weight` of the way from `a` to `b` (0: a, 1: b): the turn away from frontal (R_rel's
    /// rotation vector, as PoseSmoother filters it) and the translation, each interpolated linearly. The
    /// reprojection error is the nearer pose's.
    public static func blend(_ a: HeadPose, _ b: HeadPose, weight: Double) -> HeadPose {
        let ra = PoseSmoother.rotationVector(PoseSmoother.multiply(a.rotation, PoseSmoother.flip))
        let rb = PoseSmoother.rotationVector(PoseSmoother.multiply(b.rotation, PoseSmoother.flip))
        let r = (0..<3).map { ra[$0] + weight * (rb[$0] - ra[$0]) }
        let t = (0..<3).map { a.tvec[$0] + weight * (b.tvec[$0] - a.tvec[$0]) }
        let matrix = PoseSmoother.multiply(PoseSmoother.rotationMatrix(r), PoseSmoother.flip)
        return HeadPose(rvec: PoseSmoother.rotationVector(matrix), tvec: t, rotation: matrix,
                        reprojectionErrorPx: weight < 0.5 ? a.reprojectionErrorPx : b.reprojectionErrorPx)
    }
}
