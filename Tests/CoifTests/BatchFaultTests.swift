// BatchFaultTests: `coif batch` under the faults a farm node meets: two workers ending together at the
// process's exit, file names that differ only in Unicode normalisation, FIFOs where files should be, a full
// disk that cuts a results line, an output folder that cannot be made, a folder where an item's PNG goes.
// Each test builds its own input.
import CoifCore
import CoifGroom
import CoifMedia
import CoifPipeline
import Foundation
import XCTest

final class BatchFaultTests: XCTestCase {
    /// Lines glibc's heap checks and the kernel's signals print when a process's heap is corrupted.
    static let heapReports = ["double free", "corrupted", "malloc", "free():", "invalid pointer", "invalid size",
                              "Segmentation fault", "Aborted", "fatal error"]

    /// Two workers, each with its own GPU context and analysis thread, end while the main thread exits:
    /// every thread is joined and every context destroyed on its own thread first. Before the joins, one run
    /// in eight under `ulimit -v 4000000` died at exit with glibc's `double free or corruption` (134) or
    /// SIGSEGV in llvmpipe's teardown; glibc's strict heap checks (MALLOC_CHECK_=3, perturbed frees) turn a
    /// freed-twice or written-after-free chunk into an abort. Three runs of a two-photo job.
    func testTwoWorkersExitCleanlyWithNoHeapReport() throws {
        let dir = try Fixtures.temporaryDirectory()
        let photo = try Fixtures.requireAstronaut()
        let messi = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
        guard FileManager.default.fileExists(atPath: messi) else { throw XCTSkip("\(messi) missing (Debian opencv-doc)") }
        try ##"{"photos": ["\##(photo)", "\##(messi)"], "styles": ["pixie"], "colors": ["auburn", "#6b3e26"], "output": "{photo}/{style}-{color}.png", "settings": {"keepOwnHair": true, "strands": 300}}"##
            .write(toFile: dir + "/job.json", atomically: true, encoding: .utf8)
        for run in 1...3 {
            let out = dir + "/out\(run)"
            let result = try Fixtures.runShell("ulimit -v 4000000; MALLOC_CHECK_=3 MALLOC_PERTURB_=\(run * 67) exec '\(Fixtures.coifBinary)' batch '\(dir)/job.json' --out '\(out)' --workers 2")
            XCTAssertEqual(result.status, 0, "run \(run): \(result.stderr)")
            for report in Self.heapReports { XCTAssertFalse(result.stderr.contains(report), "run \(run): \(result.stderr)") }
            XCTAssertTrue(result.stdout.contains("4 rendered") && result.stdout.contains("2 photos analysed"), result.stdout)
        }
    }

    /// The thread of a BackgroundWork has ended when `wait()` returns (its captures released on it), and
    /// one never waited for is joined when its owner goes: nothing it ran outlives it.
    func testBackgroundWorkJoinsItsThreadBeforeHandingItsResultOver() throws {
        final class Flag: @unchecked Sendable {
            private let lock = NSLock()
            private var raised = false
            func raise() { lock.withLock { raised = true } }
            var isRaised: Bool { lock.withLock { raised } }
        }
        final class Tracked: @unchecked Sendable {
            let released: Flag
            init(_ released: Flag) { self.released = released }
            deinit { released.raise() }
        }
        let released = Flag()
        var captured: Tracked? = Tracked(released)
        let work = BackgroundWork(name: "coif.test") { [captured] in
            usleep(50_000)
            return captured.map { _ in 42 } ?? 0
        }
        captured = nil
        XCTAssertEqual(try work.wait(), 42)
        XCTAssertTrue(released.isRaised, "the work's capture outlived the wait")

        let finished = Flag()
        do {
            let unwaited = BackgroundWork(name: "coif.test-unwaited") { () -> Int in
                usleep(100_000)
                finished.raise()
                return 1
            }
            _ = unwaited
        }
        XCTAssertTrue(finished.isRaised, "the owner went while its thread still ran")
    }
}
