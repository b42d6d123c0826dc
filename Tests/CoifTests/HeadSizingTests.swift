// HeadSizingTests: Coif's head is sized to the person's from the face-parse (real network, real photo):
// astronaut.png, a 512² crop whose 50° guessed field of view makes Coif's skull ~30% too narrow, is refitted
// to within the residual limit, the face stays put, and a user-given field of view is kept.
import CoifCore
import CoifPipeline
import CoifVision
import Foundation
import XCTest

final class HeadSizingTests: XCTestCase {
    func testScalingKeepsThePivotAndScalesDistances() {
        let sizing = HeadSizing(scale: 1.1, pivot: Vec3(3, 15, 80), focalFactor: 1)
        let m = sizing.matrix
        XCTAssertLessThan(length(m.transformPoint(sizing.pivot) - sizing.pivot), 1e-4)
        let a = Vec3(70, 20, -10), b = Vec3(-60, 90, 0)
        XCTAssertEqual(length(m.transformPoint(a) - m.transformPoint(b)), 1.1 * length(a - b), accuracy: 1e-3)
        XCTAssertEqual(HeadSizing.unscaled.matrix, Mat4.identity)
    }

    func analysed(fieldOfView: Double?) throws -> (before: PhotoAnalysis, after: PhotoAnalysis) {
        _ = try OwnHairTests.requireModel()
        let engine = try Fixtures.sharedEngine()
        var timing = FrameTiming()
        var frame = try Frame.read(path: try Fixtures.requireAstronaut())
        if let fieldOfView { frame = frame.withFieldOfView(fieldOfView) }
        let before = try engine.analyse(frame, faces: .largest, timing: &timing)
        let after = try engine.removeOwnHair(before, seed: 1, timing: &timing)
        return (before[0], after[0])
    }

    /// Unsized, the person's forehead is far wider than Coif's posed head; sized (a longer lens, then the
    /// residual scale), much less so. Her full hair keeps her outline wider than any skull, so the fit ends
    /// at its limits, and the landmarks still fit.
    func testAstronautsHeadIsRefittedToHerWidth() throws {
        let (before, after) = try analysed(fieldOfView: nil)
        let hair = try XCTUnwrap(after.ownHair)
        let head = try Fixtures.sharedEngine().head
        let unsized = try XCTUnwrap(HeadSizing.remainingRatio(before, hair: hair, head: head))
        let sized = try XCTUnwrap(HeadSizing.remainingRatio(after, hair: hair, head: head))
        print(String(format: "HeadSizingTests: width ratio %.3f unsized, %.3f sized (lens ×%.2f, scale %.3f)",
                     unsized, sized, after.sizing.focalFactor, after.sizing.scale))
        XCTAssertGreaterThan(unsized, 1.2, "the 50° guess makes Coif's skull too narrow for her")
        XCTAssertLessThan(sized, unsized - 0.2, "sizing closes most of the gap")
        XCTAssertGreaterThan(after.sizing.focalFactor, 1.5)
        XCTAssertTrue(HeadSizing.scaleLimits.contains(after.sizing.scale))
        XCTAssertLessThan(after.pose.reprojectionErrorPx, before.pose.reprojectionErrorPx * 1.5 + 0.5,
                          "the landmarks still fit under the longer lens")
    }

    /// A field of view the user gave is the camera: only the residual scale changes.
    func testAGivenFieldOfViewIsKept() throws {
        let (_, after) = try analysed(fieldOfView: 50)
        XCTAssertEqual(after.sizing.focalFactor, 1)
        XCTAssertEqual(after.sizing.scale, HeadSizing.scaleLimits.upperBound, accuracy: 1e-4,
                       "her width left to the residual scale, at its limit")
    }
}
