// Shared fixtures for the try-on tests: paths to real inputs, the coif binary, and one engine per
// process (dlib's model, the EGL context and the shaders load once, as in production).
import CoifCore
import CoifPipeline
import Foundation
import Logging
import XCTest

enum Fixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Debian python3-skimage's astronaut.png (512×512, a frontal portrait in the public domain).
    static let astronaut = "/usr/lib/python3/dist-packages/skimage/data/astronaut.png"

    /// $COIF_TESTDATA, else ../shared/testdata beside the package.
    static var testdata: URL {
        if let env = ProcessInfo.processInfo.environment["COIF_TESTDATA"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/testdata")
    }

    /// The `coif` executable that `swift build` put beside the test bundle.
    static var coifBinary: String {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundleDirectory.appendingPathComponent("coif"),
                          packageRoot.appendingPathComponent(".build/debug/coif")] where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate.path
        }
        return packageRoot.appendingPathComponent(".build/debug/coif").path
    }

    /// Debian python3-skimage's camera.png (512×512 greyscale, the cameraman turned ~75° to his camera; CC0).
    static let camera = "/usr/lib/python3/dist-packages/skimage/data/camera.png"

    static func requireAstronaut() throws -> String { try requireSkimagePhoto(astronaut) }
    static func requireCamera() throws -> String { try requireSkimagePhoto(camera) }

    /// `path` (one of python3-skimage's photos), or a skip saying what to install.
    static func requireSkimagePhoto(_ path: String) throws -> String {
        guard FileManager.default.isReadableFile(atPath: path) else {
            print("skipping: \(path) is missing (install Debian python3-skimage; `make test` does)")
            throw XCTSkip("\(path) missing")
        }
        return path
    }

    /// `frame`'s largest face analysed and its own hair removed (seed 1), as a still's render starts.
    static func ownHairRemoved(_ frame: Frame, engine: TryOnEngine, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        try engine.removeOwnHair(try engine.analyse(frame, faces: .largest, timing: &timing), seed: 1, timing: &timing)
    }

    /// One engine for the whole test process.
    nonisolated(unsafe) static let engine: Result<TryOnEngine, Error> = Result {
        try TryOnEngine(logger: Logger(label: "coif.tests"))
    }

    static func sharedEngine() throws -> TryOnEngine { try engine.get() }

    /// `sub` inside the shared test data, or a skip printed with `suite`'s name when it is absent.
    static func requireTestdata(_ sub: String, for suite: String) throws -> String {
        let path = testdata.appendingPathComponent(sub).path
        guard FileManager.default.fileExists(atPath: path) else {
            print("\(suite): skipping, \(path) is absent (set COIF_TESTDATA)")
            throw XCTSkip("\(path) absent")
        }
        return path
    }

    /// A fresh empty directory under the system temporary directory.
    static func temporaryDirectory(_ name: String = #function) throws -> String {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("coif-tests-\(safe)-\(getpid())")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// Runs the coif executable; returns exit status, stdout and stderr.
    /// `environment` is added to this process's own, without COIF_STYLES unless it names it.
    static func runCoif(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(coifBinary, arguments, environment: environment)
    }

    /// Runs `script` with /bin/sh (limits set with ulimit before an `exec coif …`), as `runCoif`.
    static func runShell(_ script: String) throws -> (status: Int32, stdout: String, stderr: String) {
        try run("/bin/sh", ["-c", script])
    }

    /// Starts `script` with /bin/sh in the background (a FIFO's reader or writer); the caller waits or ends it.
    static func startShell(_ script: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try process.run()
        return process
    }

    private static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var variables = ProcessInfo.processInfo.environment
        variables["COIF_STYLES"] = nil
        process.environment = variables.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// Files in a directory (hidden ones too: a leftover temporary file must fail a test).
    static func listing(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }
}

/// Mean matte (0…1) over a box of pixels, clipped to the image.
func meanMatte(_ matte: PixelImage, x0: Float, y0: Float, x1: Float, y1: Float) -> Float {
    var sum = 0, count = 0
    for y in max(Int(y0), 0)...min(Int(y1), matte.height - 1) {
        for x in max(Int(x0), 0)...min(Int(x1), matte.width - 1) {
            sum += Int(matte.pixels[y * matte.width + x])
            count += 1
        }
    }
    return count == 0 ? 0 : Float(sum) / Float(count * 255)
}

// ── Image helpers for building test photos (any channel count) ─────────────────────────

extension PixelImage {
    /// Bilinear resize by `factor` (pixel centres mapped onto pixel centres, edges clamped).
    func scaled(by factor: Float) -> PixelImage {
        let w = Int((Float(width) * factor).rounded()), h = Int((Float(height) * factor).rounded())
        let n = channels
        var out = [UInt8](repeating: 0, count: w * h * n)
        for r in 0..<h {
            for c in 0..<w {
                let fx = max(0, min(Float(width - 1), (Float(c) + 0.5) / factor - 0.5))
                let fy = max(0, min(Float(height - 1), (Float(r) + 0.5) / factor - 0.5))
                let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
                let ax = fx - Float(x0), ay = fy - Float(y0)
                for k in 0..<n {
                    func p(_ x: Int, _ y: Int) -> Float { Float(pixels[(y * width + x) * n + k]) }
                    let v = (p(x0, y0) * (1 - ax) + p(x1, y0) * ax) * (1 - ay) + (p(x0, y1) * (1 - ax) + p(x1, y1) * ax) * ay
                    out[(r * w + c) * n + k] = UInt8(max(0, min(255, v.rounded())))
                }
            }
        }
        return PixelImage(width: w, height: h, channels: n, pixels: out)
    }

    /// This image at (x, y) on a canvasWidth × canvasHeight canvas of `background` (clipped to it).
    func pasted(into canvasWidth: Int, _ canvasHeight: Int, x: Int, y: Int, background: UInt8) -> PixelImage {
        let n = channels
        var out = [UInt8](repeating: background, count: canvasWidth * canvasHeight * n)
        for r in 0..<height where y + r < canvasHeight {
            for c in 0..<width where x + c < canvasWidth {
                for k in 0..<n { out[((y + r) * canvasWidth + x + c) * n + k] = pixels[(r * width + c) * n + k] }
            }
        }
        return PixelImage(width: canvasWidth, height: canvasHeight, channels: n, pixels: out)
    }
}
