// Robustness: how far the vision stages stretch on one real photo, by degrading it in known ways:
// smaller (downscaled in steps), rolled (rotated in 5° steps), turned (AFLW2000-3D's sample, when
// present) and crowded (the face crop tiled 8×8). Uses the production detector (`FaceAnalyzer`);
// needs no GPU. The image transforms are plain bilinear resampling of the 8-bit luma.
import CoifCore
import CoifMedia
import CoifPipeline
import CoifVision
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One line of the robustness table.
public struct RobustnessRow: Codable, Sendable {
    /// "smallest face", "largest roll", "largest yaw", "many faces".
    public var test: String
    /// The headline figure ("29 px wide", "±45°", "61 of 64"), or "skipped".
    public var result: String
    /// How it was measured and what failed next.
    public var detail: String
}

public struct RobustnessReport: Codable, Sendable {
    public var photo: String
    public var rows: [RobustnessRow]
}

public struct RobustnessProbe {
    public let analyzer: FaceAnalyzer

    public init(analyzer: FaceAnalyzer) { self.analyzer = analyzer }

    /// Fits the largest face of `gray`, or with `near`, the detection whose centre is nearest that point
    /// (a degraded photo can raise a false detection elsewhere); nil when none is found.
    func fitLargest(_ gray: PixelImage, near: Vec2? = nil) -> (box: FaceBox, landmarks: [Vec2])? {
        let boxes = analyzer.detectFaces(gray: gray)
        guard let box = near.map({ Self.nearest(boxes, to: $0) }) ?? boxes.max(by: { $0.width * $0.height < $1.width * $1.height })
        else { return nil }
        let points = analyzer.faceFinder.landmarks(gray: gray, box: box)
        return points.count == 68 ? (box, points) : nil
    }

    /// As `fitLargest`, on an RGB photo and with the production choice of landmarks (dlib's, or the face
    /// mesh's where dlib's are past their range or rolled back toward level; `FaceAnalyzer.chooseLandmarks`).
    func fitChosen(_ rgb: PixelImage, near: Vec2) -> (box: FaceBox, landmarks: [Vec2])? {
        let gray = rgb.grayscale()
        guard let box = Self.nearest(analyzer.detectFaces(gray: gray, rgb: rgb), to: near) else { return nil }
        var timing = FrameTiming()
        let intrinsics = FaceAnalyzer.intrinsics(for: Frame(image: rgb, source: "robustness"))
        guard let choice = try? analyzer.chooseLandmarks(image: rgb, box: box, intrinsics: intrinsics, timing: &timing, dlibLandmarks: {
            analyzer.faceFinder.landmarks(gray: gray, box: box)
        }) else { return nil }
        return (box, choice.landmarks)
    }

    /// The box whose centre is nearest `point`.
    static func nearest(_ boxes: [FaceBox], to point: Vec2) -> FaceBox? {
        boxes.min { (($0.center - point) * ($0.center - point)).sum() < (($1.center - point) * ($1.center - point)).sum() }
    }

    /// Jaw-to-jaw width (points 0 and 16), pixels.
    static func faceWidth(_ p: [Vec2]) -> Double { Double(((p[16] - p[0]) * (p[16] - p[0])).sum().squareRoot()) }
    /// The eye line's angle, degrees, + = clockwise in the image (y down).
    static func eyeLineDegrees(_ p: [Vec2]) -> Double {
        Double(Landmarks68.eyeLineRadians(p)) * 180 / .pi
    }
    static func centre(_ p: [Vec2]) -> Vec2 { p.reduce(Vec2(), +) / Float(p.count) }

    public func run(photoPath: String, aflwDirectory: String?) throws -> RobustnessReport {
        let photo = try Frame.read(path: photoPath).image
        let gray = photo.grayscale()
        guard let reference = fitLargest(gray) else { throw CoifError.noFace(path: photoPath) }
        var rows = [smallest(gray, reference: reference), roll(photo, reference: reference)]
        rows.append(try yaw(aflwDirectory))
        rows.append(many(gray, reference: reference))
        return RobustnessReport(photo: photoPath, rows: rows)
    }

    /// Downscales by 0.85 per step until the face is lost (found = a face whose landmark centre lies within
    /// a quarter face width of the scaled reference centre).
    func smallest(_ gray: PixelImage, reference: (box: FaceBox, landmarks: [Vec2])) -> RobustnessRow {
        let width0 = Self.faceWidth(reference.landmarks), centre0 = Self.centre(reference.landmarks)
        var scale = 1.0, last: (scale: Double, width: Double, size: String)?
        var steps = 0
        while steps < 40 {
            let w = Int((Double(gray.width) * scale).rounded()), h = Int((Double(gray.height) * scale).rounded())
            guard w >= 16, h >= 16 else { break }
            let small = scale == 1 ? gray : Self.resize(gray, width: w, height: h)
            guard let fit = fitLargest(small, near: centre0 * Float(scale)),
                  Double(((Self.centre(fit.landmarks) - centre0 * Float(scale)) * (Self.centre(fit.landmarks) - centre0 * Float(scale))).sum().squareRoot())
                    < 0.25 * width0 * scale else { break }
            last = (scale, Self.faceWidth(fit.landmarks), "\(w)x\(h)")
            scale *= 0.85
            steps += 1
        }
        guard let found = last else { return RobustnessRow(test: "smallest face", result: "none", detail: "not found at full size") }
        return RobustnessRow(test: "smallest face", result: String(format: "%.0f px wide", found.width),
                             detail: String(format: "jaw-to-jaw width at %@ (scale %.3f, ×0.85 steps from %.0f px); lost at the next step", found.size, found.scale, width0))
    }

    /// Rotates about the face centre in 5° steps each way up to 90°; handled = found and the eye line's
    /// angle within 10° of the reference's plus the rotation. On the photo as given (RGB: the face mesh's
    /// choice takes part, as in a try-on).
    func roll(_ photo: PixelImage, reference: (box: FaceBox, landmarks: [Vec2])) -> RobustnessRow {
        let angle0 = Self.eyeLineDegrees(reference.landmarks)
        let pivot = Self.centre(reference.landmarks)
        var reach: [Int] = [], failures: [String] = []
        for sign in [1, -1] {
            var handled = 0, failure = "none up to 90°"
            for step in 1...18 {
                let degrees = Double(sign * step * 5)
                let rotated = Self.rotate(photo, degreesClockwise: degrees, about: pivot)
                guard let fit = photo.channels == 3 ? fitChosen(rotated, near: pivot) : fitLargest(rotated, near: pivot) else { failure = String(format: "%+.0f° no face", degrees); break }
                var error = abs(Self.eyeLineDegrees(fit.landmarks) - angle0 - degrees).truncatingRemainder(dividingBy: 360)
                error = min(error, 360 - error)
                guard error < 10 else { failure = String(format: "%+.0f° eye line off by %.0f°", degrees, error); break }
                handled = step * 5
            }
            reach.append(handled)
            failures.append(failure)
        }
        return RobustnessRow(test: "largest roll", result: "+\(reach[0])° / −\(reach[1])°",
                             detail: "rotated about the face in 5° steps (+ = clockwise, the face starts at \(String(format: "%+.0f", angle0))°); handled = found, eye line within 10°; first miss: \(failures.joined(separator: ", "))")
    }

    /// AFLW2000-3D's sample: the largest |yaw| (ground truth) whose face is found with a yaw error under 15°.
    func yaw(_ directory: String?) throws -> RobustnessRow {
        guard let directory, FileManager.default.fileExists(atPath: directory) else {
            return RobustnessRow(test: "largest yaw", result: "skipped", detail: "AFLW2000-3D sample not found (set COIF_TESTDATA or --aflw)")
        }
        let report = try Evaluator(analyzer: analyzer).pose(directory: directory)
        let handled = report.rows.filter { ($0.absError?[1] ?? 99) < 15 }.map { abs($0.truth[1]) }
        let missed = report.rows.filter { ($0.absError?[1] ?? 99) >= 15 }.map { abs($0.truth[1]) }
        let best = handled.max() ?? 0
        return RobustnessRow(test: "largest yaw", result: String(format: "%.0f°", best),
                             detail: String(format: "%d AFLW2000-3D images, handled = found with |yaw error| < 15°; %d missed%@", report.rows.count, missed.count,
                                            missed.isEmpty ? "" : String(format: " (|yaw| %@)", missed.map { String(format: "%.0f°", $0) }.joined(separator: ", "))))
    }

    /// The face crop (its box grown by half on each side) scaled to 160 px and tiled 8×8.
    func many(_ gray: PixelImage, reference: (box: FaceBox, landmarks: [Vec2])) -> RobustnessRow {
        let b = reference.box
        let side = Double(max(b.width, b.height)) * 1.6
        let cx = Double(b.center.x), cy = Double(b.center.y)
        let tile = 160, n = 8
        var mosaic = PixelImage(width: tile * n, height: tile * n, channels: 1)
        for ty in 0..<tile {
            for tx in 0..<tile {
                let sx = cx - side / 2 + (Double(tx) + 0.5) * side / Double(tile) - 0.5
                let sy = cy - side / 2 + (Double(ty) + 0.5) * side / Double(tile) - 0.5
                let value = Self.sample(gray, sx, sy)
                for row in 0..<n { for col in 0..<n { mosaic.pixels[(row * tile + ty) * mosaic.width + col * tile + tx] = value } }
            }
        }
        let boxes = analyzer.detectAllFaces(gray: mosaic)
        var cells = Set<Int>()
        for box in boxes {
            let c = box.center
            cells.insert(Int(c.y) / tile * n + Int(c.x) / tile)
        }
        return RobustnessRow(test: "many faces", result: "\(cells.count) of \(n * n)",
                             detail: "face crop at \(tile) px tiled \(n)×\(n) (\(tile * n)x\(tile * n)); cells with a detection, \(boxes.count) boxes")
    }

    // MARK: - Resampling (8-bit, bilinear, edges clamped)

    /// Channel `channel` of `g` at (x, y).
    public static func sample(_ g: PixelImage, _ x: Double, _ y: Double, channel: Int = 0) -> UInt8 {
        let xc = min(max(x, 0), Double(g.width - 1)), yc = min(max(y, 0), Double(g.height - 1))
        let x0 = Int(xc), y0 = Int(yc), x1 = min(x0 + 1, g.width - 1), y1 = min(y0 + 1, g.height - 1)
        let fx = xc - Double(x0), fy = yc - Double(y0)
        let n = g.channels
        func p(_ x: Int, _ y: Int) -> Double { Double(g.pixels[(y * g.width + x) * n + channel]) }
        let v = (p(x0, y0) * (1 - fx) + p(x1, y0) * fx) * (1 - fy) + (p(x0, y1) * (1 - fx) + p(x1, y1) * fx) * fy
        return UInt8(min(max(v.rounded(), 0), 255))
    }

    /// Bilinear resize (box-prefiltered by whole factors first when shrinking by 2× or more, so small
    /// copies are not aliased).
    public static func resize(_ g: PixelImage, width: Int, height: Int) -> PixelImage {
        var source = g
        let factor = min(g.width / width, g.height / height)
        if factor >= 2 { source = FaceAnalyzer.downscale(g, by: factor) }
        var out = PixelImage(width: width, height: height, channels: 1)
        let sx = Double(source.width) / Double(width), sy = Double(source.height) / Double(height)
        for y in 0..<height {
            for x in 0..<width {
                out.pixels[y * width + x] = sample(source, (Double(x) + 0.5) * sx - 0.5, (Double(y) + 0.5) * sy - 0.5)
            }
        }
        return out
    }

    /// The image (any channel count) turned clockwise (as seen, y down) by `degreesClockwise` about
    /// `about`, same size.
    public static func rotate(_ g: PixelImage, degreesClockwise: Double, about: Vec2) -> PixelImage {
        let t = degreesClockwise * .pi / 180, c = cos(t), s = sin(t)
        let px = Double(about.x), py = Double(about.y)
        let n = g.channels
        var out = PixelImage(width: g.width, height: g.height, channels: n)
        for y in 0..<g.height {
            for x in 0..<g.width {
                // Inverse map: a destination pixel comes from the source rotated back by −t.
                let dx = Double(x) - px, dy = Double(y) - py
                for k in 0..<n {
                    out.pixels[(y * g.width + x) * n + k] = sample(g, px + c * dx + s * dy, py - s * dx + c * dy, channel: k)
                }
            }
        }
        return out
    }
}
