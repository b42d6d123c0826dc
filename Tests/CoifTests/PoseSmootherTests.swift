// PoseSmootherTests: the One Euro filter over a head pose (CoifVision/PoseSmoother.swift), the groundwork of
// `coif video`: rotations survive the round trip through their vectors; on a still head with landmark-like
// noise the smoothed pose is several times steadier than the raw one; on a head turning at 60°/s it keeps up
// within a few degrees; the same input gives the same output.
import CoifCore
import CoifVision
import Foundation
import XCTest

final class PoseSmootherTests: XCTestCase {
    /// A head at `yaw`/`pitch` degrees (HeadPose's convention) and `tvec`.
    func pose(yaw: Double, pitch: Double = 0, tvec: [Double] = [0, 0, 600]) -> HeadPose {
        let a = -yaw * .pi / 180, b = -pitch * .pi / 180
        let ry: [Double] = [cos(a), 0, sin(a), 0, 1, 0, -sin(a), 0, cos(a)]
        let rx: [Double] = [1, 0, 0, 0, cos(b), -sin(b), 0, sin(b), cos(b)]
        let rotation = PoseSmoother.multiply(PoseSmoother.multiply(ry, rx), PoseSmoother.flip)
        return HeadPose(rvec: PoseSmoother.rotationVector(rotation), tvec: tvec, rotation: rotation, reprojectionErrorPx: 0)
    }

    func testRotationsSurviveTheirVectors() {
        var random = SeededRandom(seed: 5)
        for _ in 0..<200 {
            let v = (0..<3).map { _ in Double(random.uniform(0, 1) * 2 - 1) * 1.5 }
            let back = PoseSmoother.rotationVector(PoseSmoother.rotationMatrix(v))
            for i in 0..<3 { XCTAssertEqual(back[i], v[i], accuracy: 1e-9) }
        }
        // The frontal head's own rotation is a half turn; its vector is recovered too.
        let frontal = PoseSmoother.rotationMatrix(PoseSmoother.rotationVector(PoseSmoother.flip))
        for i in 0..<9 { XCTAssertEqual(frontal[i], PoseSmoother.flip[i], accuracy: 1e-9) }
        let p = pose(yaw: 30, pitch: -10)
        XCTAssertEqual(p.yawDegrees, 30, accuracy: 1e-9)
        XCTAssertEqual(p.pitchDegrees, -10, accuracy: 1e-9)
        var smoother = PoseSmoother()
        let first = smoother.smooth(p, at: 0)
        XCTAssertEqual(first.yawDegrees, 30, accuracy: 1e-9, "the first pose passes as it is")
    }

    func testAStillHeadIsSteadierAndATurningHeadKeepsUp() {
        // 25 fps; landmark-like noise: 1° on each angle, 3 mm on each coordinate.
        var random = SeededRandom(seed: 11)
        func noise(_ sigma: Double) -> Double {
            let u1 = max(Double(random.uniform(0, 1)), 1e-7), u2 = Double(random.uniform(0, 1))
            return sigma * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        }
        var smoother = PoseSmoother()
        var raw: [Double] = [], smooth: [Double] = [], rawZ: [Double] = [], smoothZ: [Double] = []
        for frame in 0..<150 {
            let p = pose(yaw: 10 + noise(1), pitch: noise(1), tvec: [noise(3), noise(3), 600 + noise(3)])
            let s = smoother.smooth(p, at: Double(frame) / 25)
            if frame >= 25 {  // after a second to settle
                raw.append(p.yawDegrees); smooth.append(s.yawDegrees)
                rawZ.append(p.tvec[2]); smoothZ.append(s.tvec[2])
            }
        }
        func deviation(_ v: [Double]) -> Double {
            let mean = v.reduce(0, +) / Double(v.count)
            return (v.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(v.count)).squareRoot()
        }
        print(String(format: "PoseSmootherTests: still head, yaw noise %.2f° → %.2f°, depth %.2f → %.2f mm", deviation(raw), deviation(smooth),
                     deviation(rawZ), deviation(smoothZ)))
        XCTAssertLessThan(deviation(smooth), deviation(raw) / 3, "yaw: raw \(deviation(raw))°, smoothed \(deviation(smooth))°")
        XCTAssertLessThan(deviation(smoothZ), deviation(rawZ) / 3, "depth: raw \(deviation(rawZ)) mm, smoothed \(deviation(smoothZ)) mm")

        // A head turning at 60°/s, with the same noise: once moving, the smoothed yaw stays within 4° of the truth.
        var turning = PoseSmoother()
        var worst = 0.0
        for frame in 0..<75 {
            let t = Double(frame) / 25, truth = -30 + 60 * t
            let s = turning.smooth(pose(yaw: truth + noise(1), pitch: noise(1)), at: t)
            if frame >= 12 { worst = max(worst, abs(s.yawDegrees - truth)) }
        }
        print(String(format: "PoseSmootherTests: 60°/s turn, worst error %.2f°", worst))
        XCTAssertLessThan(worst, 4, "lag on a 60°/s turn: \(worst)°")
    }
}
