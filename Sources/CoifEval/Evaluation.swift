// Evaluation: vision you can measure. Ground-truth readers (iBUG .pts, dlib imglab XML, AFLW2000-3D
// .mat) and the landmark and pose evaluations that `coif eval` prints. Runs the same FaceAnalyzer
// stages as a render; needs no GPU.
import CoifCore
import CoifMedia
import CoifPipeline
import CoifVision
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Ground truth

/// One annotated face: 68 iBUG points in pixel-index coordinates (0-based), and the annotator's box if any.
public struct AnnotatedFace: Sendable {
    public var landmarks: [Vec2]
    public var box: FaceBox?

    public init(landmarks: [Vec2], box: FaceBox?) {
        self.landmarks = landmarks
        self.box = box
    }
}

/// One image with its annotated faces.
public struct AnnotatedImage: Sendable {
    public var imagePath: String
    public var faces: [AnnotatedFace]

    public init(imagePath: String, faces: [AnnotatedFace]) {
        self.imagePath = imagePath
        self.faces = faces
    }
}

public enum GroundTruth {
    /// iBUG .pts (`version: 1`, `n_points: 68`, `{ x y … }`). 300-W's points are 1-based (Matlab); we
    /// subtract 1 to get pixel-index coordinates, as menpo does on import.
    public static func readPts(path: String) throws -> [Vec2] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw CoifError.inputMissing(path: path) }
        guard let open = text.range(of: "{"), let close = text.range(of: "}", range: open.upperBound..<text.endIndex) else {
            throw CoifError.invalidOption(name: path, reason: "not an iBUG .pts file (no { } block)")
        }
        let numbers = text[open.upperBound..<close.lowerBound].split(whereSeparator: { $0.isWhitespace }).compactMap { Float($0) }
        guard numbers.count == 136 else {
            throw CoifError.invalidOption(name: path, reason: "expected 68 points, found \(numbers.count / 2)")
        }
        return stride(from: 0, to: 136, by: 2).map { Vec2(numbers[$0] - 1, numbers[$0 + 1] - 1) }
    }

    /// Every image in `directory` (jpg, jpeg, png, ppm, pgm) with a `.pts` of the same stem; sorted by name.
    public static func ptsDirectory(_ directory: String) throws -> [AnnotatedImage] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw CoifError.inputMissing(path: directory)
        }
        let images = names.filter { ["jpg", "jpeg", "png", "ppm", "pgm"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        return try images.compactMap { name in
            let stem = (name as NSString).deletingPathExtension
            let pts = directory + "/" + stem + ".pts"
            guard FileManager.default.fileExists(atPath: pts) else { return nil }
            return AnnotatedImage(imagePath: directory + "/" + name, faces: [AnnotatedFace(landmarks: try readPts(path: pts), box: nil)])
        }
    }

    /// dlib imglab XML (`<image file=…><box top left width height [ignore]><part name='00' x y/>…`), read
    /// by a small hand parser of that simple format (attributes in single or double quotes). Boxes with
    /// `ignore='1'` or without all 68 parts are skipped. Image paths are relative to the XML's folder.
    public static func imglabXML(path: String) throws -> [AnnotatedImage] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw CoifError.inputMissing(path: path) }
        let folder = (path as NSString).deletingLastPathComponent
        var result: [AnnotatedImage] = []
        for imageChunk in text.components(separatedBy: "<image ").dropFirst() {
            let body = imageChunk.components(separatedBy: "</image>")[0]
            guard let file = attribute("file", in: body.components(separatedBy: ">")[0]) else { continue }
            var faces: [AnnotatedFace] = []
            for boxChunk in body.components(separatedBy: "<box ").dropFirst() {
                let boxBody = boxChunk.components(separatedBy: "</box>")[0]
                let head = boxBody.components(separatedBy: ">")[0]
                if attribute("ignore", in: head) == "1" { continue }
                var points = [Vec2?](repeating: nil, count: 68)
                for partChunk in boxBody.components(separatedBy: "<part ").dropFirst() {
                    let tag = partChunk.components(separatedBy: "/>")[0]
                    guard let name = attribute("name", in: tag), let index = Int(name), (0..<68).contains(index),
                          let x = attribute("x", in: tag).flatMap(Float.init), let y = attribute("y", in: tag).flatMap(Float.init) else { continue }
                    points[index] = Vec2(x, y)
                }
                guard points.allSatisfy({ $0 != nil }) else { continue }
                var box: FaceBox?
                if let top = attribute("top", in: head).flatMap(Float.init), let left = attribute("left", in: head).flatMap(Float.init),
                   let width = attribute("width", in: head).flatMap(Float.init), let height = attribute("height", in: head).flatMap(Float.init) {
                    box = FaceBox(left: left, top: top, right: left + width, bottom: top + height, score: 0)
                }
                faces.append(AnnotatedFace(landmarks: points.map { $0! }, box: box))
            }
            let imagePath = file.hasPrefix("/") ? file : folder + "/" + file
            if !faces.isEmpty { result.append(AnnotatedImage(imagePath: imagePath, faces: faces)) }
        }
        return result
    }

    static func attribute(_ name: String, in tag: String) -> String? {
        for quote in ["'", "\""] {
            if let start = tag.range(of: " \(name)=\(quote)") ?? (tag.hasPrefix("\(name)=\(quote)") ? tag.range(of: "\(name)=\(quote)") : nil),
               let end = tag.range(of: quote, range: start.upperBound..<tag.endIndex) {
                return String(tag[start.upperBound..<end.lowerBound])
            }
        }
        return nil
    }
}

/// AFLW2000-3D's ground truth for one image (from its .mat).
public struct AFLWGroundTruth: Sendable {
    /// Degrees, AFLW2000-3D's own convention (see `AFLWPose`).
    public var pitchDegrees: Double
    public var yawDegrees: Double
    public var rollDegrees: Double
    /// pt3d_68's x and y, shifted to 0-based pixel-index coordinates.
    public var landmarks: [Vec2]

    public static func read(matPath: String) throws -> AFLWGroundTruth {
        let pose = try MatFile.read(path: matPath, variable: "Pose_Para")
        let points = try MatFile.read(path: matPath, variable: "pt3d_68")
        guard pose.rows == 1, pose.cols >= 3, points.rows == 3, points.cols == 68 else {
            throw CoifError.assetFailed(path: matPath, reason: "expected Pose_Para 1x7 and pt3d_68 3x68, found \(pose.rows)x\(pose.cols) and \(points.rows)x\(points.cols)")
        }
        guard pose.values.prefix(3).allSatisfy(\.isFinite), points.values.allSatisfy(\.isFinite) else {
            throw CoifError.assetFailed(path: matPath, reason: "Pose_Para or pt3d_68 holds a value that is not a finite number")
        }
        let degrees = 180 / Double.pi
        let marks = (0..<68).map { Vec2(Float(points.values[3 * $0] - 1), Float(points.values[3 * $0 + 1] - 1)) }
        return AFLWGroundTruth(pitchDegrees: pose.values[0] * degrees, yawDegrees: pose.values[1] * degrees,
                               rollDegrees: pose.values[2] * degrees, landmarks: marks)
    }
}

/// Coif's HeadPose in AFLW2000-3D's convention.
///
/// AFLW2000-3D (3DDFA's fitting code) writes a face as `v_img = s · R · v_model + t` in image axes with
/// y flipped up (x right, y up, z toward the viewer) and `R = Rx(−pitch) · Ry(−yaw) · Rz(−roll)` in
/// right-handed rotations (3DDFA writes the same matrices transposed and calls them Rx(pitch)…). Checked
/// against the data: frontalising each image's pt3d_68 with this R brings the six shapes within 3.1 mm
/// RMS of their mean; with z flipped, 42 mm.
///
/// From Coif's pose (model → OpenCV camera, x right, y down, z forward): flip y and z (F = diag(1,−1,−1)),
/// and take Coif's head frame into AFLW's: `F · R_coif · H⁻¹ = Rx(−pitch) · Ry(−yaw) · Rz(−roll)`.
/// H is the rotation that best aligns Coif's 68 reference points to the mean of the frontalised
/// pt3d_68 shapes (Kabsch): 8.58° about +x (0.26 mm RMS after it): Coif's reference points are pitched
/// 8.6° chin-down relative to AFLW's frontal (see docs/vision.md, "Measuring the vision": the pose convention).
/// Signs: AFLW yaw has the opposite sign of Coif's `yawDegrees` (AFLW + = nose toward image left);
/// AFLW pitch + = chin up, as Coif's; AFLW roll + = counter-clockwise in the image, opposite to Coif's.
public enum AFLWPose {
    /// Coif head frame → AFLW (BFM) head frame, about +x, degrees.
    public static let headFrameOffsetDegrees = 8.58

    public static func angles(_ pose: HeadPose) -> (pitch: Double, yaw: Double, roll: Double) {
        let r = pose.rotation
        let theta = headFrameOffsetDegrees * .pi / 180
        let c = cos(theta), s = sin(theta)
        // F · R (rows 1 and 2 negated), then · Hᵀ with H = Rx(θ): columns 1, 2 mix.
        let fr = [r[0], r[1], r[2], -r[3], -r[4], -r[5], -r[6], -r[7], -r[8]]
        var m = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            let a = fr[row * 3], b = fr[row * 3 + 1], d = fr[row * 3 + 2]
            m[row * 3] = a
            m[row * 3 + 1] = b * c - d * s     // Hᵀ = [[1,0,0],[0,c,s],[0,−s,c]]
            m[row * 3 + 2] = b * s + d * c
        }
        // m = Rx(a) · Ry(b) · Rz(g): m02 = sin b, m12 = −sin a cos b, m22 = cos a cos b, m01 = −cos b sin g.
        let b = asin(max(-1, min(1, m[2])))
        let a = atan2(-m[5], m[8])
        let g = atan2(-m[1], m[0])
        let deg = 180 / Double.pi
        return (-a * deg, -b * deg, -g * deg)
    }

    /// The rotation `angles` decomposes (AFLW's pitch, yaw, roll in degrees), row-major: Rx(a)·Ry(b)·Rz(g)
    /// with a, b, g the negated angles.
    public static func rotation(pitch: Double, yaw: Double, roll: Double) -> [Double] {
        let a = -pitch * .pi / 180, b = -yaw * .pi / 180, g = -roll * .pi / 180
        let ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cg = cos(g), sg = sin(g)
        let rx: [Double] = [1, 0, 0, 0, ca, -sa, 0, sa, ca]
        let ry: [Double] = [cb, 0, sb, 0, 1, 0, -sb, 0, cb]
        let rz: [Double] = [cg, -sg, 0, sg, cg, 0, 0, 0, 1]
        return PoseSmoother.multiply(PoseSmoother.multiply(rx, ry), rz)
    }

    /// The angle (degrees) of the one rotation between two poses given as AFLW angles (pitch, yaw, roll):
    /// the head's whole orientation error, which no Euler component shows alone. Near profile, pitch and
    /// roll trade places (the decomposition nears gimbal lock), so a turn read right can show as large
    /// pitch and roll errors that are one small rotation.
    public static func rotationErrorDegrees(_ truth: [Double], _ estimate: [Double]) -> Double {
        let t = rotation(pitch: truth[0], yaw: truth[1], roll: truth[2])
        let e = rotation(pitch: estimate[0], yaw: estimate[1], roll: estimate[2])
        // m = tᵀ · e: trace(m) = 1 + 2 cos(angle), and its skew part's length 2 sin(angle) (atan2 of the two
        // keeps small angles exact, where acos of a trace near 3 loses them).
        func m(_ i: Int, _ j: Int) -> Double { t[i] * e[j] + t[3 + i] * e[3 + j] + t[6 + i] * e[6 + j] }
        let cosine = m(0, 0) + m(1, 1) + m(2, 2) - 1
        let a = m(2, 1) - m(1, 2), b = m(0, 2) - m(2, 0), c = m(1, 0) - m(0, 1)
        return atan2((a * a + b * b + c * c).squareRoot(), cosine) * 180 / .pi
    }
}

// MARK: - Reports

/// Per-stage wall milliseconds of one image.
public struct StageMs: Codable, Sendable {
    public var decode = 0.0, detect = 0.0, landmarks = 0.0, pose = 0.0
}

public struct LandmarkRow: Codable, Sendable {
    public var image: String
    public var face: Int
    public var found: Bool
    /// Mean point error / outer-eye-corner distance (points 36 and 45 of the ground truth); nil when not found.
    public var nme: Double?
    public var meanErrorPx: Double?
    public var ms: StageMs
    /// Which model's points were chosen (`LandmarkModel`), and the other model's NME on the same box (nil
    /// where it fits nothing): what the choice is weighed against.
    public var model: String? = nil
    public var alternativeNME: Double? = nil
}

public struct PoseRow: Codable, Sendable {
    public var image: String
    public var found: Bool
    public var truth: [Double]      // pitch, yaw, roll (degrees, AFLW convention)
    public var estimate: [Double]?  // same order and convention
    public var absError: [Double]?  // |pitch|, |yaw|, |roll| errors
    public var nme: Double?         // landmarks against pt3d_68's 2D points
    public var ms: StageMs
    /// Why the row could not be evaluated (its ground truth unreadable: a truncated or damaged .mat, a
    /// missing or misshapen Pose_Para); nil for an evaluated row, found or not.
    public var error: String? = nil
    /// Which model's points the estimate comes from (`LandmarkModel`); nil when not found.
    public var model: String? = nil
    /// The other model's NME on the same box (nil where it fits nothing).
    public var alternativeNME: Double? = nil
    /// How the pose was solved (`PoseMethod`); nil when not found.
    public var poseMethod: String? = nil
    /// The angle of the one rotation from the truth to the estimate (`AFLWPose.rotationErrorDegrees`); nil
    /// when not found.
    public var rotationError: Double? = nil
}

/// How a set of faces' chosen points compare with the other model's on the same boxes: the aim (issue #28)
/// is that the chosen points are never worse by more than `ChoiceRegret.allowed` of NME.
public struct ChoiceRegret: Codable, Sendable {
    /// One point of NME.
    public static let allowed = 0.01
    /// Faces where both models fitted.
    public var compared: Int
    /// Of those, where the chosen points were worse than the alternative by more than `allowed`.
    public var over: Int
    /// The largest chosen − alternative NME (negative: the choice was always the better).
    public var worst: Double?

    init(_ pairs: [(chosen: Double, alternative: Double)]) {
        compared = pairs.count
        over = pairs.filter { $0.chosen - $0.alternative > Self.allowed }.count
        worst = pairs.map { $0.chosen - $0.alternative }.max()
    }
}

public struct LandmarkReport: Codable, Sendable {
    public var rows: [LandmarkRow]
    public var faces: Int { rows.count }
    public var detectionRate: Double { rows.isEmpty ? 0 : Double(rows.filter(\.found).count) / Double(rows.count) }
    public var meanNME: Double? { mean(rows.compactMap(\.nme)) }
    public var maxNME: Double? { rows.compactMap(\.nme).max() }
    public var regret: ChoiceRegret { ChoiceRegret(rows.compactMap { r in r.nme.flatMap { n in r.alternativeNME.map { (n, $0) } } }) }
}

public struct PoseReport: Codable, Sendable {
    public var rows: [PoseRow]

    public init(rows: [PoseRow]) { self.rows = rows }
    /// Over the rows that were evaluated (failed rows left out).
    public var detectionRate: Double {
        let evaluated = rows.filter { $0.error == nil }
        return evaluated.isEmpty ? 0 : Double(evaluated.filter(\.found).count) / Double(evaluated.count)
    }
    /// MAE of pitch, yaw, roll over found faces, and their mean (the usual AFLW2000-3D figure).
    public var mae: [Double]? {
        let errors = rows.compactMap(\.absError)
        guard !errors.isEmpty else { return nil }
        return (0..<3).map { i in errors.map { $0[i] }.reduce(0, +) / Double(errors.count) }
    }
    public var meanMAE: Double? { mae.map { $0.reduce(0, +) / 3 } }
    /// The mean over found faces of the whole rotation's error (`PoseRow.rotationError`), degrees.
    public var meanRotationError: Double? {
        let errors = rows.compactMap(\.rotationError)
        return errors.isEmpty ? nil : errors.reduce(0, +) / Double(errors.count)
    }
    /// Mean signed error (estimate − truth, wrapped to ±180°) of pitch, yaw, roll over found faces: the fit's
    /// bias in AFLW2000-3D's convention.
    public var meanSignedError: [Double]? {
        let pairs = rows.compactMap { r in r.estimate.map { (r.truth, $0) } }
        guard !pairs.isEmpty else { return nil }
        return (0..<3).map { i in
            pairs.map { truth, estimate in
                let d = (estimate[i] - truth[i]).truncatingRemainder(dividingBy: 360)
                return d > 180 ? d - 360 : (d < -180 ? d + 360 : d)
            }.reduce(0, +) / Double(pairs.count)
        }
    }
    public var regret: ChoiceRegret { ChoiceRegret(rows.compactMap { r in r.nme.flatMap { n in r.alternativeNME.map { (n, $0) } } }) }
    /// Rows whose ground truth could not be read (see `PoseRow.error`).
    public var failedRows: [PoseRow] { rows.filter { $0.error != nil } }

    /// The |yaw| bins a pose's accuracy is reported in (degrees of the ground truth's yaw; the last takes
    /// every face past 60°): error grows with yaw, and one mean over a sample of mostly frontal faces hides it.
    public static let yawBins: [Range<Double>] = [0..<30, 30..<60, 60..<180]

    /// The figures of `yawBins`, each over the evaluated rows whose ground-truth |yaw| lies in it.
    public var byYaw: [YawBin] {
        Self.yawBins.map { range in
            let inBin = rows.filter { $0.error == nil && $0.truth.count == 3 && range.contains(abs($0.truth[1])) }
            let sub = PoseReport(rows: inBin)
            return YawBin(fromDegrees: range.lowerBound, toDegrees: min(range.upperBound, 90), faces: inBin.count,
                          missed: inBin.filter { !$0.found }.count, mae: sub.mae, meanSignedError: sub.meanSignedError)
        }
    }
}

/// A pose evaluation's figures over the faces whose ground-truth |yaw| lies in one range.
public struct YawBin: Codable, Sendable {
    public var fromDegrees: Double
    public var toDegrees: Double
    /// Annotated faces in the bin, and how many of them no detection found.
    public var faces: Int
    public var missed: Int
    /// Pitch, yaw, roll over the found faces (degrees); nil when none was found.
    public var mae: [Double]?
    public var meanSignedError: [Double]?
}

func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }

// MARK: - Runs

public struct Evaluator {
    public let analyzer: FaceAnalyzer
    public var fieldOfViewDegrees: Double?
    /// Landmark refits from re-centred boxes (FaceFinder.landmarks(gray:box:refits:)): 2 measured best.
    public var landmarkRefits: Int
    /// Average each fit with the fit of the mirror image (`FaceFinder.landmarksMirrorAveraged`). Measured
    /// on menpo: einstein 6.53% → 5.97%, takeo 3.64% → 3.49%.
    public var mirrorAverage: Bool

    public init(analyzer: FaceAnalyzer, fieldOfViewDegrees: Double? = nil, landmarkRefits: Int = 2, mirrorAverage: Bool = true) {
        self.analyzer = analyzer
        self.fieldOfViewDegrees = fieldOfViewDegrees
        self.landmarkRefits = landmarkRefits
        self.mirrorAverage = mirrorAverage
    }

    /// The evaluation's landmark fit: the analyzer's own stage with this evaluator's settings.
    func fit(gray: PixelImage, mirroredGray: PixelImage?, box: FaceBox) -> [Vec2] {
        guard mirrorAverage, let mirroredGray else { return analyzer.faceFinder.landmarks(gray: gray, box: box, refits: landmarkRefits) }
        return analyzer.faceFinder.landmarksMirrorAveraged(gray: gray, mirroredGray: mirroredGray, box: box, refits: landmarkRefits)
    }

    /// Landmarks of every annotated face: a face counts as found when a detection of every face in the photo
    /// (`detectAllFaces`, as `--face all` sees them) overlaps the box of its annotated points
    /// (`annotatedFaceBox`), so no detection order can hide it.
    public func landmarks(_ images: [AnnotatedImage]) throws -> LandmarkReport {
        var rows: [LandmarkRow] = []
        for item in images {
            var ms = StageMs()
            var start = monotonicMs()
            let photo = try Frame.read(path: item.imagePath)
            let gray = photo.image.grayscale()
            ms.decode = monotonicMs() - start
            start = monotonicMs()
            let boxes = analyzer.detectAllFaces(gray: gray, rgb: photo.image)
            ms.detect = monotonicMs() - start
            let name = (item.imagePath as NSString).lastPathComponent
            let intrinsics = FaceAnalyzer.intrinsics(for: photo.withFieldOfView(fieldOfViewDegrees))
            let mirroredGray = mirrorAverage ? gray.mirrored() : nil  // once per image, shared by its faces
            for (index, face) in item.faces.enumerated() {
                guard let box = Self.annotatedFaceBox(face.landmarks, among: boxes) else {
                    rows.append(LandmarkRow(image: name, face: index, found: false, nme: nil, meanErrorPx: nil, ms: ms))
                    continue
                }
                var faceMs = ms
                var timing = FrameTiming()
                let choice = try? analyzer.chooseLandmarks(image: photo.image, box: box, intrinsics: intrinsics, timing: &timing) {
                    fit(gray: gray, mirroredGray: mirroredGray, box: box)
                }
                let points = choice?.landmarks ?? []
                faceMs.landmarks = timing[.landmarks] ?? 0
                guard points.count == 68 else {
                    rows.append(LandmarkRow(image: name, face: index, found: false, nme: nil, meanErrorPx: nil, ms: faceMs))
                    continue
                }
                let (nme, meanPx) = Self.nme(points, truth: face.landmarks)
                let other = alternative(to: choice?.model, image: photo.image, gray: gray, mirroredGray: mirroredGray, box: box)
                rows.append(LandmarkRow(image: name, face: index, found: true, nme: nme, meanErrorPx: meanPx, ms: faceMs,
                                        model: choice?.model.rawValue, alternativeNME: other.map { Self.nme($0, truth: face.landmarks).nme }))
            }
        }
        return LandmarkReport(rows: rows)
    }

    /// AFLW2000-3D style: every `imageN.jpg` with an `imageN.mat` in `directory`. The face evaluated is the
    /// detection that overlaps the ground truth's points most (`annotatedFaceBox`).
    public func pose(directory: String) throws -> PoseReport {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw CoifError.inputMissing(path: directory)
        }
        var rows: [PoseRow] = []
        for name in names.filter({ $0.lowercased().hasSuffix(".jpg") }).sorted() {
            let mat = directory + "/" + (name as NSString).deletingPathExtension + ".mat"
            guard FileManager.default.fileExists(atPath: mat) else { continue }
            // A bad ground-truth file is this row's failure, not the run's: the rest is still measured.
            let truth: AFLWGroundTruth
            do { truth = try AFLWGroundTruth.read(matPath: mat) } catch let error as CoifError {
                rows.append(PoseRow(image: name, found: false, truth: [], estimate: nil, absError: nil, nme: nil, ms: StageMs(),
                                    error: error.description))
                continue
            }
            var ms = StageMs()
            var start = monotonicMs()
            let truthAngles = [truth.pitchDegrees, truth.yawDegrees, truth.rollDegrees]
            let photo: Frame
            do { photo = try Frame.read(path: directory + "/" + name) } catch let error as CoifError {
                rows.append(PoseRow(image: name, found: false, truth: truthAngles, estimate: nil, absError: nil, nme: nil, ms: ms,
                                    error: error.description))
                continue
            }
            let gray = photo.image.grayscale()
            ms.decode = monotonicMs() - start
            start = monotonicMs()
            let boxes = analyzer.detectAllFaces(gray: gray, rgb: photo.image)
            ms.detect = monotonicMs() - start
            guard let box = Self.annotatedFaceBox(truth.landmarks, among: boxes) else {
                rows.append(PoseRow(image: name, found: false, truth: truthAngles, estimate: nil, absError: nil, nme: nil, ms: ms))
                continue
            }
            let intrinsics = FaceAnalyzer.intrinsics(for: photo.withFieldOfView(fieldOfViewDegrees))
            var timing = FrameTiming()
            let choice = try analyzer.chooseLandmarks(image: photo.image, box: box, intrinsics: intrinsics, timing: &timing) {
                fit(gray: gray, mirroredGray: mirrorAverage ? gray.mirrored() : nil, box: box)
            }
            ms.landmarks = timing[.landmarks] ?? 0
            ms.pose = timing[.pose] ?? 0
            guard let choice else {
                rows.append(PoseRow(image: name, found: false, truth: truthAngles, estimate: nil, absError: nil, nme: nil, ms: ms))
                continue
            }
            let points = choice.landmarks, headPose = choice.pose
            let a = AFLWPose.angles(headPose)
            let estimate = [a.pitch, a.yaw, a.roll]
            let errors = zip(estimate, truthAngles).map { e, t -> Double in
                let d = abs(e - t).truncatingRemainder(dividingBy: 360)
                return min(d, 360 - d)
            }
            let other = alternative(to: choice.model, image: photo.image, gray: gray, mirroredGray: mirrorAverage ? gray.mirrored() : nil, box: box)
            rows.append(PoseRow(image: name, found: true, truth: truthAngles, estimate: estimate, absError: errors,
                                nme: Self.nme(points, truth: truth.landmarks).nme, ms: ms, model: choice.model.rawValue,
                                alternativeNME: other.map { Self.nme($0, truth: truth.landmarks).nme }, poseMethod: choice.poseMethod.rawValue,
                                rotationError: AFLWPose.rotationErrorDegrees(truthAngles, estimate)))
        }
        return PoseReport(rows: rows)
    }

    /// The points of the model not chosen for `box` (dlib's as this evaluation fits them, or the mesh's):
    /// nil where it fits nothing or no choice was made.
    func alternative(to chosen: LandmarkModel?, image: PixelImage, gray: PixelImage, mirroredGray: PixelImage?, box: FaceBox) -> [Vec2]? {
        switch chosen {
        case .dlib?: return analyzer.meshLandmarks(image: image, box: box)
        case .mesh?:
            let points = fit(gray: gray, mirroredGray: mirroredGray, box: box)
            return points.count == 68 ? points : nil
        case nil: return nil
        }
    }

    /// The detection that is the annotated face: of the boxes covering at least half of the annotated points'
    /// bounding box, or lying at least half inside it (intersection over the smaller of the two), the one
    /// with the largest intersection over union; nil when none overlaps that much. By overlap, not by the
    /// detections' order or which box holds the points' centroid: a turned face's centroid can sit outside a
    /// tight box, and a nearer face listed first can never take the annotation's place.
    public static func annotatedFaceBox(_ points: [Vec2], among boxes: [FaceBox]) -> FaceBox? {
        guard let first = points.first else { return nil }
        var lo = first, hi = first
        for p in points { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        let annotated = FaceBox(left: lo.x, top: lo.y, right: hi.x, bottom: hi.y, score: 0)
        func iou(_ b: FaceBox) -> Float {
            let w = max(0, min(b.right, annotated.right) - max(b.left, annotated.left))
            let h = max(0, min(b.bottom, annotated.bottom) - max(b.top, annotated.top))
            let union = b.width * b.height + annotated.width * annotated.height - w * h
            return union > 0 ? w * h / union : 0
        }
        return boxes.filter { FaceAnalyzer.overlap($0, annotated) >= 0.5 }.max { iou($0) < iou($1) }
    }

    /// (NME by the outer-eye-corner distance of the truth, mean point error in pixels).
    public static func nme(_ points: [Vec2], truth: [Vec2]) -> (nme: Double, meanPx: Double) {
        let meanPx = zip(points, truth).map { Double(distance($0, $1)) }.reduce(0, +) / Double(truth.count)
        return (meanPx / Double(distance(truth[36], truth[45])), meanPx)
    }
}

func distance(_ a: Vec2, _ b: Vec2) -> Float { ((a - b) * (a - b)).sum().squareRoot() }
