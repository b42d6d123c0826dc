// TryOn: one try-on, as stages with one owner each, in order:
//   decode (CoifMedia: file → Frame) → analyse (CoifVision: Frame → faces, pose) → scene (the style at a
//   level of detail, on the GPU) → layers (CoifRender passes: render, read back) → composite (CoifRender)
//   → encode + write (CoifMedia, AtomicFile).
// Each stage is a method that can be called on its own, so a video frame, a batch item or a test's
// in-memory image enters at `analyse` and a sheet re-enters at `render`. Models (dlib, shaders, head, styles)
// load once in `TryOnEngine.init`; every stage reports into the frame's FrameTiming.
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Foundation
import Logging

/// A still made by `TryOnEngine.runOnce`: the result (its total is the whole wall time, engine start
/// included), when the GPU side was ready, and when the vision side (model load and the photo's
/// analysis, beside the GPU start) was done, both in ms from the start.
public struct TryOnOnceOutcome: Sendable {
    public var result: TryOnResult
    public var engineMs: Double
    public var visionMs: Double
}

/// A frame and what the vision stages found for one of its faces.
public struct PhotoAnalysis: Sendable {
    public var frame: Frame
    public var face: FaceAnalysis
    /// The person's own hair (every analysed face's, merged), once `removeOwnHair` has run.
    public var ownHair: OwnHair?
    /// The photo with the own hair taken away: what the new hair is composited over.
    public var plate: PixelImage?
    /// The person's hair-bearing scalp the plate filled, drawn as close-cropped hair of the new colour under
    /// the new style (see `ScalpHair`).
    public var scalpHair: ScalpHair?
    /// How much of each photo pixel the plate filled with skin (0…1): where the head's shading applies.
    public var filledSkin: [Float]?
    /// Coif's head resized to the person's (measured from the parse with the own hair; unscaled without it).
    public var sizing: HeadSizing = .unscaled
    /// The person's face frame with their own hairline (from the own hair's matte), once the plate has run:
    /// where each style's front is put (HairlineFit). nil keeps styles as grown.
    public var person: PersonHead?

    public init(frame: Frame, face: FaceAnalysis) {
        self.frame = frame
        self.face = face
    }

    /// Every face kept in the frame, largest first.
    public var faceBoxes: [FaceBox] { face.faceBoxes }
    public var chosen: Face { face.chosen }
    public var intrinsics: CameraIntrinsics { face.intrinsics }
    public var pose: HeadPose { face.pose }
    public var faceWidthPx: Double { face.faceWidthPx }
    /// Head space (mm) → camera space (mm): the pose with the head resized to the person's. What the head,
    /// the groom and the plate's skin are drawn with.
    public var headToCamera: Mat4 { pose.modelToCamera * sizing.matrix }

    /// The photo's camera: its size and the intrinsics the pose was solved with.
    public var camera: PinholeCamera {
        PinholeCamera(widthPx: frame.image.width, heightPx: frame.image.height, fx: intrinsics.fx, fy: intrinsics.fy,
                      cx: intrinsics.cx, cy: intrinsics.cy)
    }
}

/// A frame's own hair, parsed, with its faces resized to the person's heads: what a plate is filled from.
public struct ParsedOwnHair: Sendable {
    public var analyses: [PhotoAnalysis]
    public var hair: OwnHair
    public var persons: [PersonHead?]
}

/// The outcome of a still.
public struct TryOnResult: Sendable {
    public var images: CompositeImages
    /// The own hair's matte and the plate, when the job removed the own hair.
    public var ownHair: OwnHair?
    public var plate: PixelImage?
    public var timing: FrameTiming
    public var levelOfDetail: LevelOfDetail
    public var analysis: PhotoAnalysis
}

/// A style drawn for one face: its strands at a level of detail and its under-layer, on the GPU.
struct HairScene {
    var style: Style
    /// How the style sits on this head: slid to the person's hairline.
    var slide: ScalpSlide?
    var levelOfDetail: LevelOfDetail
    var strands: StrandGeometry
    var shell: ShellGeometry
    var widths: StrandWidths
}

public final class TryOnEngine {
    public let styles: StyleLibrary
    public var head: HeadModel { styles.head }
    public let renderer: HairRenderer
    public let analyzer: FaceAnalyzer
    public let compositor = Compositor()
    /// The face-parsing network, loaded at the first job that removes the own hair (or handed over by
    /// `runOnce`, which loads it beside the GPU start).
    private var parser: FaceParser?
    private let parserPath: String
    /// The last removal's analyses (own hair, plate, and the camera and pose refitted by HeadSizing).
    private var lastPlate: (key: PlateKey, analyses: [PhotoAnalysis])?
    /// The last frame's own-hair parse (seed-free): another seed on the same frame fills a new plate from
    /// it instead of parsing the photo again.
    private var lastParse: (key: PlateKey, parsed: ParsedOwnHair)?
    private let logger: Logger
    private let occluder: OccluderGeometry
    /// The head's vertex normals, for reading the photo's light off the face (PhotoLightEstimate).
    private let headNormals: [Vec3]
    /// Strands on the GPU by (style, level of detail, seed), most recently used last: a sheet or a shot
    /// that alternates a few styles does not interpolate and upload again each time.
    private var strandCache: [(key: String, geometry: StrandGeometry)] = []
    static let strandCacheSlots = 4
    private var shells: [String: ShellGeometry] = [:]
    private var layer = HairLayer()
    /// The layer blur's second buffer, kept between stills.
    private var blurScratch: [Float] = []
    /// The hair's shadow on the skin of the last still (HairRenderer.readSkinLight), storage reused.
    private var skinLight = HairLayer()
    /// Render only the part of the photo the hair can cover (`hairRegion`); off, the whole photo, as
    /// before (tests compare the two).
    public var cropsToHair = true
    /// Keep the render target's storage when a frame's hair crop is smaller than one drawn before (grow
    /// only): for the frames of one shot or a batch, whose crops differ by a few pixels, so they do not
    /// re-allocate ~100 MB of multisampled target each. Same pixels either way.
    public var holdsRenderTarget: Bool {
        get { renderer.target.holdsCapacity }
        set { renderer.target.holdsCapacity = newValue }
    }

    /// Loads every model once: styles, head, dlib, EGL context and shaders. dlib's model loads on a second
    /// thread while this one brings up the GPU and warms its shaders.
    public convenience init(logger: Logger, userStyleDirectories: [String] = [],
                            predictorPath: String = FaceFinder.defaultPredictorPath,
                            parserPath: String = FaceParser.defaultModelPath) throws {
        // The mesh's models before dlib's load, which may write its compact cache: a missing model writes nothing
        // (presence and size; the mesh's load checks the digest on its own thread).
        try FaceMesh.checkModels(digest: false)
        let faceFinder = BackgroundWork(name: "coif.dlib-load") { HandedOver(try FaceFinder(predictorPath: predictorPath)) }
        let faceMesh = BackgroundWork(name: "coif.mesh-load") { HandedOver(try FaceMesh()) }
        let styles = try StyleLibrary.standard(userDirectories: userStyleDirectories)
        try self.init(logger: logger, styles: styles, parserPath: parserPath) {
            let finder: FaceFinder
            do { finder = try faceFinder.wait().value } catch {
                _ = try? faceMesh.wait()
                throw error
            }
            return FaceAnalyzer(faceFinder: finder, headLandmarks: styles.head.landmarks68, faceMesh: try faceMesh.wait().value)
        }
    }

    /// The GPU side on this thread; `analyzer` is asked for last, once the GPU is ready (it may wait on
    /// work that ran beside it).
    private init(logger: Logger, styles: StyleLibrary, parserPath: String, analyzer: () throws -> FaceAnalyzer) throws {
        self.logger = logger
        self.styles = styles
        self.parserPath = parserPath
        let context = try GPUContext()
        renderer = try HairRenderer(context: context, shaderSource: { Assets.text("Shaders/" + $0) })
        occluder = renderer.upload(head: styles.head)
        headNormals = vertexNormals(vertices: styles.head.vertices, indices: styles.head.indices)
        try renderer.warmUp()
        self.analyzer = try analyzer()
        logger.debug("engine ready", metadata: ["renderer": "\(context.renderer)", "platform": "\(context.platform)"])
    }

    /// One still in one process (`coif render`): dlib's model load and then the photo's decode, detection,
    /// landmarks and pose run on a second thread while this one brings up the GPU context and shaders, so
    /// the vision stages cost no wall time when the GPU start is the longer. Same bytes as
    /// `TryOnEngine(logger:).run(job)`. A bad argument or photo is reported before a GPU failure.
    public static func runOnce(_ job: TryOnJob, userStyleDirectories: [String] = [], logger: Logger,
                               predictorPath: String = FaceFinder.defaultPredictorPath,
                               parserPath: String = FaceParser.defaultModelPath) throws -> TryOnOnceOutcome {
        let start = monotonicMs()
        let styles = try StyleLibrary.standard(userDirectories: userStyleDirectories)
        let style = try job.validate(styles: styles)
        let head = styles.head
        typealias Vision = (analyzer: FaceAnalyzer, parser: HandedOver<FaceParser>?, analyses: Result<[PhotoAnalysis], Error>,
                            timing: FrameTiming, doneMs: Double)
        // The GPU's start waits for the photo's decode (a few milliseconds; the vision thread, which decodes
        // first, stays the longer path): a photo refused from its header is then refused before llvmpipe
        // compiles a shader, whose JIT needs far more address space than the refusal (under `ulimit -v`, a
        // 69-byte PNG bomb otherwise ended in LLVM's out-of-memory abort instead of exit 15).
        let photoChecked = Handoff<Void>()
        let work = BackgroundWork(name: "coif.vision") { () -> Vision in
            // The photo first: a file that is no image (or no file) is reported before any model is read,
            // and before the GPU starts (photoChecked).
            var timing = FrameTiming()
            let decoded = Result { try Self.decode(job.input, fieldOfViewDegrees: job.fieldOfViewDegrees, timing: &timing) }
            photoChecked.give(decoded.map { _ in () })
            // The face-parsing network and the face mesh load on their own threads while dlib's model loads
            // and the faces are found; a photo that is not decoded loads neither.
            let photoDecoded = (try? decoded.get()) != nil
            // Every network's file before dlib's load, which may write its compact cache: a missing model is
            // exit 50 with nothing written (dlib's own missing file is still reported first, by its load).
            // Presence and size here; each network's digest is checked by its load on its own thread.
            if photoDecoded && FileManager.default.fileExists(atPath: predictorPath) {
                try FaceMesh.checkModels(digest: false)
                if job.removesOwnHair { try ModelCache.checkSealed(parserPath, what: "face-parsing model", digest: false) }
            }
            let parserWork = job.removesOwnHair && photoDecoded
                ? BackgroundWork(name: "coif.parser-load") { HandedOver(try FaceParser(modelPath: parserPath)) } : nil
            let meshWork = photoDecoded ? BackgroundWork(name: "coif.mesh-load") { HandedOver(try FaceMesh()) } : nil
            let finder: FaceFinder, mesh: FaceMesh?
            do {
                // dlib's failure is reported before the mesh's, as when they loaded one after the other.
                let loadedFinder = Result { try FaceFinder(predictorPath: predictorPath) }
                let loadedMesh = Result { try meshWork?.wait().value }
                finder = try loadedFinder.get()
                mesh = try loadedMesh.get()
            } catch {
                _ = try? parserWork?.wait()
                throw error
            }
            let analyzer = FaceAnalyzer(faceFinder: finder, headLandmarks: head.landmarks68, faceMesh: mesh)
            var parser: HandedOver<FaceParser>?
            let analyses = Result { () -> [PhotoAnalysis] in
                let analyses: [PhotoAnalysis]
                do {
                    analyses = try Self.analyse(try decoded.get(), faces: job.face, analyzer: analyzer, timing: &timing)
                } catch {
                    // The network's load is not left running into the process's exit (OpenCV's and
                    // protobuf's static destructors would run under it).
                    _ = try? parserWork?.wait()
                    throw error
                }
                guard let parserWork else { return analyses }
                parser = try parserWork.wait()
                return try Self.removeOwnHair(analyses, parser: parser!.value, analyzer: analyzer, head: head, seed: job.seed, timing: &timing)
            }
            return (analyzer, parser, analyses, timing, monotonicMs() - start)
        }
        var waited: Result<Vision, Error>?  // BackgroundWork.wait() is called once; its answer kept here
        func vision() -> Result<Vision, Error> {
            if let waited { return waited }
            let answer = Result { try work.wait() }
            waited = answer
            return answer
        }
        var engineMs = 0.0
        let engine = Result {
            try photoChecked.wait()
            return try TryOnEngine(logger: logger, styles: styles, parserPath: parserPath) {
                engineMs = monotonicMs() - start
                return try vision().get().analyzer
            }
        }
        let done = try vision().get()
        if let parser = done.parser { try engine.get().parser = parser.value }
        let analyses = try done.analyses.get()
        let result = try engine.get().finish(job, style: style, analyses: analyses, timing: done.timing, start: start)
        return TryOnOnceOutcome(result: result, engineMs: engineMs, visionMs: done.doneMs)
    }

    public var rendererDescription: String { renderer.context.renderer }

    /// The style `nameOrFile` names (nil = the default); `unknownStyle` when there is none.
    public func style(named nameOrFile: String?) throws -> Style { try styles.resolve(nameOrFile) }

    // MARK: - Stages

    /// decode: a job's input as a frame, with the user's field of view (a frame in memory is taken as it is,
    /// its own field of view kept unless the job names one).
    public static func decode(_ input: JobInput, fieldOfViewDegrees: Double?, timing: inout FrameTiming) throws -> Frame {
        switch input {
        case .file(let path):
            return try timing.measure(.decode) { try Frame.read(path: path) }.withFieldOfView(fieldOfViewDegrees)
        case .frame(let frame):
            return fieldOfViewDegrees == nil ? frame : frame.withFieldOfView(fieldOfViewDegrees)
        }
    }

    /// analyse: detect → landmarks → pose for the faces `choice` asks for (see FaceAnalyzer).
    public func analyse(_ frame: Frame, faces choice: FaceChoice = .largest, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        try Self.analyse(frame, faces: choice, analyzer: analyzer, timing: &timing)
    }

    static func analyse(_ frame: Frame, faces choice: FaceChoice, analyzer: FaceAnalyzer, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        try analyzer.analyse(frame, faces: choice, timing: &timing).map { PhotoAnalysis(frame: frame, face: $0) }
    }

    /// The face-parsing network (loaded on first use).
    public func faceParser() throws -> FaceParser {
        if let parser { return parser }
        let loaded = try FaceParser(modelPath: parserPath)
        parser = loaded
        return loaded
    }

    /// parse + plate: every analysed face's own hair (the face-parsing network on a crop around it, a soft
    /// matte at the photo's resolution), merged, and the plate: the photo with that hair taken away (skin
    /// inside the heads' silhouettes, background outside). Once per frame: a sheet or golden suite of many
    /// styles on one photo parses it once. Returns the analyses with `ownHair` and `plate` set.
    public func removeOwnHair(_ analyses: [PhotoAnalysis], seed: UInt64, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        try Self.removeOwnHair(analyses, parser: try faceParser(), analyzer: analyzer, head: head, seed: seed, timing: &timing)
    }

    static func removeOwnHair(_ analyses: [PhotoAnalysis], parser: FaceParser, analyzer: FaceAnalyzer, head: HeadModel, seed: UInt64,
                              timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        guard !analyses.isEmpty else { return analyses }
        let parsed = try parseOwnHair(analyses, parser: parser, analyzer: analyzer, head: head, timing: &timing)
        return try fillPlate(parsed, head: head, seed: seed, timing: &timing)
    }

    /// parse: the own hair of a frame's analysed faces, and each face resized to the person's head and given
    /// its own hairline. Seed-free: a batch keeps it per photo and fills a plate per seed from it.
    public func parseOwnHair(_ analyses: [PhotoAnalysis], timing: inout FrameTiming) throws -> ParsedOwnHair {
        try Self.parseOwnHair(analyses, parser: try faceParser(), analyzer: analyzer, head: head, timing: &timing)
    }

    static func parseOwnHair(_ analyses: [PhotoAnalysis], parser: FaceParser, analyzer: FaceAnalyzer, head: HeadModel,
                             timing: inout FrameTiming) throws -> ParsedOwnHair {
        let frame = analyses[0].frame
        let hair = try parser.parse(frame, boxes: analyses.map(\.chosen.box), timing: &timing)
        var sized = analyses
        for i in sized.indices {
            let face = sized[i]
            sized[i] = HeadSizing.fit(face, hair: hair, head: head) { try analyzer.solvePose(for: face.face, intrinsics: $0) }
        }
        let persons = sized.map { analysis in
            PersonHead(landmarks: analysis.chosen.landmarks)?.fittingHairline(matte: hair.matte, width: frame.image.width,
                                                                               height: frame.image.height)
        }
        return ParsedOwnHair(analyses: sized, hair: hair, persons: persons)
    }

    /// plate: the photo with the parsed own hair taken away (its fill depends on the seed), and the scalp hair.
    public func fillPlate(_ parsed: ParsedOwnHair, seed: UInt64, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        try Self.fillPlate(parsed, head: head, seed: seed, timing: &timing)
    }

    static func fillPlate(_ parsed: ParsedOwnHair, head: HeadModel, seed: UInt64, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        let sized = parsed.analyses, persons = parsed.persons, hair = parsed.hair
        let frame = sized[0].frame
        let plate = try timing.measure(.plate) { () -> (image: PixelImage, scalp: [Float], skin: [Float], heads: [PersonHead]) in
            let heads = zip(sized, persons).compactMap { analysis, person -> (person: PersonHead, skull: [UInt8])? in
                guard let person else { return nil }
                return (person, headSilhouette([analysis], head: head))
            }
            let filled = try HairPlate.fill(frame, hair: hair, heads: heads, others: otherFaces(sized), seed: seed)
            return (filled.image, filled.scalp, filled.skin, heads.map(\.person))
        }
        let scalpHair = timing.measure(.plate) {
            ScalpHair(weights: plate.scalp, texture: HairPlate.scalpTexture(frame.image, scalp: plate.scalp, heads: plate.heads, seed: seed),
                      width: frame.image.width)
        }
        return zip(sized, persons).map { analysis, person in
            var a = analysis
            a.ownHair = hair
            a.plate = plate.image
            a.scalpHair = scalpHair
            a.filledSkin = plate.skin
            a.person = person
            return a
        }
    }

    /// The photo's faces that `analyses` leave out (`--face largest` in a couple's photo): their hair stays
    /// theirs (HairPlate.keepOthersHair).
    static func otherFaces(_ analyses: [PhotoAnalysis]) -> [FaceBox] {
        guard let first = analyses.first else { return [] }
        return first.faceBoxes.filter { box in !analyses.contains { FaceAnalyzer.overlap($0.chosen.box, box) > 0.5 } }
    }

    /// Coif's head, posed and sized for each face, filled into one mask of the photo: the skull the new hair
    /// is fitted to, which above eye level is part of the head the plate fills with skin and cropped hair
    /// (grown by 12 mm to reach a real skull's temples, it showed as a bald rim above every short style,
    /// before the scalp was drawn as hair).
    static func headSilhouette(_ analyses: [PhotoAnalysis], head: HeadModel) -> [UInt8] {
        let image = analyses[0].frame.image
        var triangles: [Float] = []
        triangles.reserveCapacity(head.indices.count * 2 * analyses.count)
        for analysis in analyses {
            let camera = analysis.camera, toCamera = analysis.headToCamera
            let projected = head.vertices.map { camera.projectInFront(toCamera.transformPoint($0)) }
            var t = 0
            while t + 2 < head.indices.count {
                if let a = projected[Int(head.indices[t])], let b = projected[Int(head.indices[t + 1])], let c = projected[Int(head.indices[t + 2])] {
                    triangles += [a.x, a.y, b.x, b.y, c.x, c.y]
                }
                t += 3
            }
        }
        return HeadSilhouette.mask(width: image.width, height: image.height, triangles: triangles)
    }

    /// decode + analyse of one face of a photo file (`.all` gives the largest).
    public func analyse(photoPath: String, face choice: FaceChoice = .largest, fieldOfViewDegrees: Double? = nil,
                        timing: inout FrameTiming) throws -> PhotoAnalysis {
        let frame = try Self.decode(.file(path: photoPath), fieldOfViewDegrees: fieldOfViewDegrees, timing: &timing)
        return PhotoAnalysis(frame: frame, face: try analyzer.analyse(frame, face: choice == .all ? .largest : choice, timing: &timing))
    }

    /// scene → layers → composite for analysed faces of one frame, as `job` asks (its style, look, seed,
    /// detail). One face is drawn as it is; several are laid over each other (see `renderAll`).
    public func render(_ analyses: [PhotoAnalysis], job: TryOnJob, timing: inout FrameTiming) throws -> TryOnResult {
        let style = try styles.resolve(job.style)
        return try render(analyses, style: style, job: job, timing: &timing)
    }

    /// scene → layers → composite of one analysed face with a colour (the catalog's looks otherwise).
    public func render(analysis: PhotoAnalysis, style name: String?, color: HairColor, seed: UInt64, detail: Double = 1,
                       strands strandCount: Int? = nil, timing: inout FrameTiming) throws -> TryOnResult {
        var job = TryOnJob(input: .frame(analysis.frame), style: name, look: HairLook(color: color))
        job.seed = seed
        job.detail = detail
        job.strands = strandCount
        return try render([analysis], job: job, timing: &timing)
    }

    private func render(_ analyses: [PhotoAnalysis], style: Style, job: TryOnJob, timing: inout FrameTiming) throws -> TryOnResult {
        guard analyses.first != nil else { throw CoifError.internalError("render: no faces") }
        var analyses = analyses
        if job.removesOwnHair && analyses[0].plate == nil {
            // A caller that did not run `removeOwnHair` (a colour-only re-render, a test) gets the last frame's
            // plate when it is the same frame, faces and seed, else a new one.
            let key = PlateKey(analyses, seed: job.seed)
            if let cached = lastPlate, cached.key == key {
                analyses = cached.analyses
            } else {
                let parseKey = PlateKey(analyses, seed: 0)
                let parsed: ParsedOwnHair
                if let cached = lastParse, cached.key == parseKey { parsed = cached.parsed } else {
                    parsed = try parseOwnHair(analyses, timing: &timing)
                    lastParse = (parseKey, parsed)
                }
                analyses = try fillPlate(parsed, seed: job.seed, timing: &timing)
                lastPlate = (key, analyses)
            }
        }
        var result = try renderOver(analyses, style: style, job: job, timing: &timing)
        if job.removesOwnHair {
            result.ownHair = analyses[0].ownHair
            result.plate = analyses[0].plate
        }
        return result
    }

    /// The hair composited over the plate when the job removes the own hair, else over the photo.
    private func renderOver(_ analyses: [PhotoAnalysis], style: Style, job: TryOnJob, timing: inout FrameTiming) throws -> TryOnResult {
        let first = analyses[0]
        let image = job.removesOwnHair ? first.plate! : first.frame.image
        if analyses.count == 1 {
            let finish = photoFinish(job, analysis: first, timing: &timing)
            let region = holdingScalpHair(try hairRegion(analysis: first, style: style, extraMarginPx: finish?.blurRadiusPx ?? 0),
                                          job: job, analysis: first)
            let scene = try timing.measure(.scene) { try self.scene(for: first, style: style, job: job) }
            // The face's skin, read once for the light and for the filled skin's shading (when either is wanted).
            let skin = job.lightsFromPhoto || job.removesOwnHair ? faceSkin(first, timing: &timing) : []
            let look = look(job, skin: skin, timing: &timing)
            try drawLayer(scene, analysis: first, region: region, look: look, timing: &timing)
            let shadowed = try timing.measure(.readback) { try renderer.readSkinLight(into: &skinLight) }
            let images = timing.measure(.composite) { () -> CompositeImages in
                if let finish { layer.blur(sigmaPx: finish.layerBlurSigmaPx, scratch: &blurScratch) }
                let under = coveredOwnHairKept(job, plate: image, analysis: first, layer: layer, region: region)
                return compositor.composite(layer: layer, at: region, over: under, grain: finish.map { Grain(sigma: $0.grainSigma, seed: job.seed) },
                                            lightLeft: shadowed ? skinLight : nil,
                                            filledSkin: shadowed && job.removesOwnHair ? filledSkinShading(first, skin: skin, lighting: look.lighting) : nil,
                                            scalpHair: job.removesOwnHair ? scalpHair(first, style: style) : nil)
            }
            record(&timing, image: image, strands: scene.strands.strandCount, segments: scene.strands.segmentCount, faceWidthPx: first.faceWidthPx)
            return TryOnResult(images: images, timing: timing, levelOfDetail: scene.levelOfDetail, analysis: first)
        }
        return try renderAll(analyses, style: style, job: job, over: image, timing: &timing)
    }

    /// Hair on every analysed face of one frame. Each face's hair layer is drawn as one face's is, then the
    /// layers are laid over each other farthest first (decreasing tvec z: the head origin's depth in the
    /// camera), so a nearer head's hair covers a farther one's: `acc = layer + (1 − α_layer)·acc` in
    /// premultiplied linear light, then composited over the photo once, exactly as a single layer is. The
    /// result's analysis and level of detail are the first (largest) face's; the timing's strand and
    /// segment counts are the sums over faces.
    private func renderAll(_ analyses: [PhotoAnalysis], style: Style, job: TryOnJob, over image: PixelImage,
                           timing: inout FrameTiming) throws -> TryOnResult {
        let first = analyses[0]
        // The largest face's grain and softness for every face's hair.
        let finish = photoFinish(job, analysis: first, timing: &timing)
        let margin = finish?.blurRadiusPx ?? 0
        // One crop holding every face's hair, so the layers line up pixel for pixel.
        let region = holdingScalpHair(try analyses.dropFirst().map { try hairRegion(analysis: $0, style: style, extraMarginPx: margin) }
            .reduce(try hairRegion(analysis: first, style: style, extraMarginPx: margin)) { $0.union($1) }, job: job, analysis: first)
        var accumulated = HairLayer(width: region.width, height: region.height)
        // Every face's hair shadow on its own skin, multiplied (R); and the filled skin's shading (G): each
        // face's head shading under its own light over its own skin's mean (as one face's is), the nearest
        // head's where heads overlap (the loop runs farthest first), 0 where no head is or where a face
        // shows too little skin to normalise by (no shading there).
        var lightLeft: HairLayer?
        var strandCount = 0, segmentCount = 0
        var firstLod: LevelOfDetail?
        let farthestFirst = analyses.enumerated().sorted { a, b in
            a.element.pose.tvec[2] != b.element.pose.tvec[2] ? a.element.pose.tvec[2] > b.element.pose.tvec[2] : a.offset < b.offset
        }
        for (index, analysis) in farthestFirst {
            let scene = try timing.measure(.scene) { try self.scene(for: analysis, style: style, job: job) }
            let skin = job.lightsFromPhoto || job.removesOwnHair ? faceSkin(analysis, timing: &timing) : []
            let faceLook = look(job, skin: skin, timing: &timing)
            try drawLayer(scene, analysis: analysis, region: region, look: faceLook, timing: &timing)
            if index == 0 { firstLod = scene.levelOfDetail }
            if try timing.measure(.readback, { try renderer.readSkinLight(into: &skinLight) }) {
                if lightLeft == nil {
                    var all = HairLayer(width: region.width, height: region.height)
                    for p in 0..<(region.width * region.height) { all.rgba[p * 4] = 1 }
                    lightLeft = all
                }
                let fillScale = job.removesOwnHair ? filledSkinShading(analysis, skin: skin, lighting: faceLook.lighting)?.scale ?? 0 : 0
                for p in 0..<(region.width * region.height) {
                    lightLeft!.rgba[p * 4] *= skinLight.rgba[p * 4]
                    let shading = skinLight.rgba[p * 4 + 1]
                    if shading > 0 { lightLeft!.rgba[p * 4 + 1] = shading * fillScale }
                }
            }
            strandCount += scene.strands.strandCount
            segmentCount += scene.strands.segmentCount
            timing.measure(.composite) {
                layer.rgba.withUnsafeBufferPointer { near in
                    accumulated.rgba.withUnsafeMutableBufferPointer { acc in
                        for p in 0..<(region.width * region.height) {
                            let alpha = min(max(near[p * 4 + 3], 0), 1)
                            if alpha == 0 { continue }
                            for c in 0..<4 { acc[p * 4 + c] = near[p * 4 + c] + (1 - alpha) * acc[p * 4 + c] }
                        }
                    }
                }
            }
        }
        let images = timing.measure(.composite) { () -> CompositeImages in
            if let finish { accumulated.blur(sigmaPx: finish.layerBlurSigmaPx, scratch: &blurScratch) }
            let under = coveredOwnHairKept(job, plate: image, analysis: first, layer: accumulated, region: region)
            // G already holds each face's shading over its own skin's mean: the scale is 1.
            let filledSkin = job.removesOwnHair ? first.filledSkin.map { FilledSkinShading(weights: $0, scale: 1) } : nil
            return compositor.composite(layer: accumulated, at: region, over: under, grain: finish.map { Grain(sigma: $0.grainSigma, seed: job.seed) },
                                        lightLeft: lightLeft, filledSkin: filledSkin,
                                        scalpHair: job.removesOwnHair ? scalpHair(first, style: style) : nil)
        }
        record(&timing, image: image, strands: strandCount, segments: segmentCount, faceWidthPx: first.faceWidthPx)
        return TryOnResult(images: images, timing: timing, levelOfDetail: firstLod!, analysis: first)
    }

    /// `region` grown to hold the cropped scalp hair, which is composited in the same pass as the new hair.
    private func holdingScalpHair(_ region: PixelRect, job: TryOnJob, analysis: PhotoAnalysis) -> PixelRect {
        guard job.removesOwnHair, cropsToHair, let scalp = analysis.scalpHair?.bounds else { return region }
        return region.union(scalp)
    }

    /// The analysis's cropped scalp hair as `style` wears it: stubble under a style with shaved sides.
    private func scalpHair(_ analysis: PhotoAnalysis, style: Style) -> ScalpHair? {
        guard var scalp = analysis.scalpHair else { return nil }
        if style.entry.tags.contains(ScalpHair.shavedSidesTag) { scalp.density = ScalpHair.stubbleDensity }
        return scalp
    }

    /// The plate with the own hair put back where the new hair covers it densely (`CoveredOwnHair`): only what
    /// would show is removed. The photo as it is when the job keeps the own hair.
    private func coveredOwnHairKept(_ job: TryOnJob, plate: PixelImage, analysis: PhotoAnalysis, layer: HairLayer,
                                    region: PixelRect) -> PixelImage {
        guard job.removesOwnHair else { return plate }
        // Blurred over ~3% of the face's width: a gap between strands is "covered", the style's edge is not.
        return CoveredOwnHair.restore(plate: plate, photo: analysis.frame.image, layer: layer, at: region,
                                      sigmaPx: max(1, Float(analysis.faceWidthPx) * 0.03), scratch: &blurScratch)
    }

    private func record(_ timing: inout FrameTiming, image: PixelImage, strands: Int, segments: Int, faceWidthPx: Double) {
        timing.renderer = renderer.context.renderer
        timing.imageWidth = image.width
        timing.imageHeight = image.height
        timing.strandCount = strands
        timing.segmentCount = segments
        timing.faceWidthPx = faceWidthPx
    }

    /// How far (mm) drawn strands may stray outside their guides' box: children are blended from nearby
    /// guides with 1.2 mm of noise and pushed out of the head by a few mm; ribbons are ≤ ~2 mm wide; a
    /// child between a front guide combed aside and its neighbours reaches a few mm farther (15 mm left
    /// long-straight's children 9 px outside on astronaut).
    static let hairBoxMarginMm: Float = 20
    /// Pixels added around the projected box: the one-pixel minimum width of thin strands and the
    /// multisampled edge.
    static let hairRegionMarginPx = 3

    /// The part of the photo a face's hair (strands and scalp under-layer) can cover: the projection of the
    /// style's head-space box. Only that crop is rendered and read back: a 12 MP photo with a 550-px face
    /// drew, resolved and read 12 MP of 4×MSAA for a 1.4 MP crop. Pixels outside it keep the photo's bytes.
    /// (1×1 at the corner when the hair is entirely outside the photo: nothing shows.)
    public func hairRegion(analysis: PhotoAnalysis, style name: String?) throws -> PixelRect {
        // As a job renders it by default: with room for the photo finish's blur.
        try hairRegion(analysis: analysis, style: try styles.resolve(name), extraMarginPx: PhotoFinish.estimate(analysis)?.blurRadiusPx ?? 0)
    }

    /// - Parameter extraMarginPx: more room around the hair (the reach of the layer's blur).
    func hairRegion(analysis: PhotoAnalysis, style: Style, extraMarginPx: Int = 0) throws -> PixelRect {
        let camera = analysis.camera
        guard cropsToHair else { return PixelRect(x: 0, y: 0, width: camera.widthPx, height: camera.heightPx) }
        let box = try styles.headSpaceBox(style, marginMm: Self.hairBoxMarginMm, slid: try hairlineFit(analysis, style: style))
        return camera.pixelsCovering(low: box.low, high: box.high, headToCamera: analysis.headToCamera,
                                     marginPx: Self.hairRegionMarginPx + extraMarginPx) ?? PixelRect(x: 0, y: 0, width: 1, height: 1)
    }

    /// The photo's grain and softness at `analysis`'s face when the job matches them (timed with the scene).
    private func photoFinish(_ job: TryOnJob, analysis: PhotoAnalysis, timing: inout FrameTiming) -> PhotoFinish? {
        guard job.matchesPhotoFinish else { return nil }
        let finish = timing.measure(.scene) { PhotoFinish.estimate(analysis) }
        if let finish {
            logger.debug("finish from the photo", metadata: ["noise": "\(finish.noiseSigma)", "blur": "\(finish.blurSigmaPx)"])
        }
        return finish
    }

    /// scene: the style's strands at the level of detail of this face (or the job's pinned one) and its
    /// under-layer, on the GPU.
    func scene(for analysis: PhotoAnalysis, style: Style, job: TryOnJob) throws -> HairScene {
        let lod = try job.levelOfDetail ?? LevelOfDetail.choose(
            faceWidthPx: analysis.faceWidthPx, guideCount: style.entry.guides, detail: job.detail,
            resamplingErrorsMm: try styles.resamplingErrors(style), strands: job.strands)
        let slide = try hairlineFit(analysis, style: style)
        if let slide {
            logger.debug("hairline fit", metadata: ["style": "\(style.name)", "tiltDegrees": "\(slide.tilt * 180 / .pi)",
                                                    "hairlinePx": "\(analysis.person?.hairlineHeight ?? 0)"])
        }
        let strands = try strandGeometry(style: style, lod: lod, seed: job.seed, slide: slide)
        let widths = StrandWidths(rootMm: style.entry.rootWidthMm * lod.widthScale, tipMm: style.entry.tipWidthMm * lod.widthScale)
        return HairScene(style: style, slide: slide, levelOfDetail: lod, strands: strands,
                         shell: try shellGeometry(style: style, slide: slide), widths: widths)
    }

    /// How `style` sits on `analysis`'s head: its front slid to the person's own hairline where the plate
    /// found the person's head (HairlineFit), as grown otherwise. A bisection over one projected point (the
    /// hair's region and the scene each ask; cheaper than carrying it between them).
    func hairlineFit(_ analysis: PhotoAnalysis, style: Style) throws -> ScalpSlide? {
        guard let person = analysis.person, let front = try styles.frontHairline(style) else { return nil }
        return HairlineFit.fit(front: front, person: person, analysis: analysis, head: head)
    }

    /// The face's skin as Coif's posed head sees it (PhotoLightEstimate.skinSamples), timed with the scene.
    private func faceSkin(_ analysis: PhotoAnalysis, timing: inout FrameTiming) -> [PhotoLightEstimate.SkinSample] {
        timing.measure(.scene) { PhotoLightEstimate.skinSamples(analysis, head: head, normals: headNormals) }
    }

    /// Shading for the skin the plate filled in flat where `analysis`'s own hair was: the head's shading
    /// under `lighting` (the skin target's G) over its mean on the face's own `skin`, weighted by how much of
    /// each pixel the plate filled with skin. nil without a plate or when too little skin shows to take the mean.
    private func filledSkinShading(_ analysis: PhotoAnalysis, skin: [PhotoLightEstimate.SkinSample], lighting: Lighting) -> FilledSkinShading? {
        guard let filled = analysis.filledSkin, let mean = PhotoLightEstimate.meanSkinShading(skin, lighting: lighting), mean > 0 else { return nil }
        return FilledSkinShading(weights: filled, scale: 1 / mean)
    }

    /// The job's look, lit as the face whose `skin` this is when the job asks for the photo's light and the
    /// face shows enough skin to read it (timed with the scene).
    private func look(_ job: TryOnJob, skin: [PhotoLightEstimate.SkinSample], timing: inout FrameTiming) -> HairLook {
        var look = job.look
        guard job.lightsFromPhoto else { return look }
        if let estimate = timing.measure(.scene, { PhotoLightEstimate.estimate(skin) }) {
            look.lighting = estimate.lighting(base: look.lighting)
            logger.debug("light from the photo", metadata: [
                "samples": "\(estimate.sampleCount)", "direction": "\(estimate.dominantDirection)",
                "keyShare": "\(estimate.keyShare)", "color": "\(estimate.color)", "exposure": "\(estimate.exposure)"])
        }
        return look
    }

    /// layers: render and read back one face's hair, over `region` of the photo, into `layer`.
    private func drawLayer(_ scene: HairScene, analysis: PhotoAnalysis, region: PixelRect, look: HairLook,
                           timing: inout FrameTiming) throws {
        let camera = analysis.camera.cropped(to: region)
        try timing.measure(.render) {
            try renderer.draw(camera: camera, headToCamera: analysis.headToCamera, occluder: occluder,
                              shell: scene.shell, strands: scene.strands, widths: scene.widths, shading: look.shading,
                              lighting: look.lighting)
            renderer.finish()
        }
        try timing.measure(.readback) { try renderer.readBack(into: &layer) }
        // GPU time of the passes where the driver's timer queries can be trusted (off on llvmpipe).
        if let gpuMs = renderer.lastFrameGPUMs { timing.gpuRenderMs = (timing.gpuRenderMs ?? 0) + gpuMs }
    }

    /// The whole job: validate, decode, analyse, render, then encode and write its outputs.
    @discardableResult
    public func run(_ job: TryOnJob) throws -> TryOnResult {
        let start = monotonicMs()
        let style = try job.validate(styles: styles)
        var timing = FrameTiming()
        let frame = try Self.decode(job.input, fieldOfViewDegrees: job.fieldOfViewDegrees, timing: &timing)
        var analyses = try analyse(frame, faces: job.face, timing: &timing)
        if job.removesOwnHair { analyses = try removeOwnHair(analyses, seed: job.seed, timing: &timing) }
        return try finish(job, style: style, analyses: analyses, timing: timing, start: start)
    }

    /// Render, encode and write a job whose faces are analysed; `timing` holds the vision stages.
    private func finish(_ job: TryOnJob, style: Style, analyses: [PhotoAnalysis], timing vision: FrameTiming,
                        start: Double) throws -> TryOnResult {
        var timing = vision
        var result = try render(analyses, style: style, job: job, timing: &timing)
        try write(&result, job: job, timing: &timing, start: start)
        return result
    }

    /// encode + write: the job's outputs from a result. The PNGs are independent: encoded on all cores.
    /// Nothing is written until every encode succeeded, and nothing is put in place until every output is
    /// staged (AtomicFile.Batch).
    public func write(_ result: inout TryOnResult, job: TryOnJob, timing: inout FrameTiming, start: Double) throws {
        try Self.write(&result, job: job, timing: &timing, start: start)
    }

    /// `write` without an engine: it touches no engine state, so a batch encodes and writes one item on its
    /// own thread while the engine renders the next.
    public static func write(_ result: inout TryOnResult, job: TryOnJob, timing: inout FrameTiming, start: Double) throws {
        let outputs = job.outputs
        var images: [(path: String, image: PixelImage)] = []
        if let composite = outputs.composite { images.append((composite, result.images.composite)) }
        if let directory = outputs.layersDirectory {
            images += [(directory + "/hair.png", result.images.hair), (directory + "/matte.png", result.images.matte)]
            if let ownHair = result.ownHair, let plate = result.plate {
                images += [(directory + "/own-hair-matte.png", ownHair.matteImage), (directory + "/filled.png", plate)]
            }
        }
        let encoded = try timing.measure(.encode) { try PNGFile.encodeConcurrently(images.map(\.image), compression: outputs.compression) }
        // Every output is staged whole before any is put in place, so they succeed or fail together: a full
        // layers folder once left the composite and three of the four layers behind an exit 30.
        var batch = AtomicFile.Batch()
        try timing.measure(.write) {
            // The layers directory is made when missing (as `groom import --out DIR` makes its catalog); the
            // composite's directory is the user's to give.
            let layerPaths = outputs.layerPaths
            for (target, bytes) in zip(images, encoded) {
                try batch.stage(bytes, to: target.path, createDirectories: layerPaths.contains(target.path))
            }
        }
        timing.totalMs = monotonicMs() - start
        if let timingPath = outputs.timingPath {
            try batch.stage(text: TimingReport.json(timing, levelOfDetail: result.levelOfDetail, job: job, style: job.style ?? ""),
                            to: timingPath)
        }
        try batch.commit()
        result.timing = timing
    }

    // MARK: - GPU caches

    /// Guides + children for a style at a level of detail, on the GPU (see `strandCache`).
    private func strandGeometry(style: Style, lod: LevelOfDetail, seed: UInt64, slide: ScalpSlide?) throws -> StrandGeometry {
        let key = "\(style.key)|\(lod.strandCount)|\(lod.pointsPerStrand)|\(seed)" + StyleLibrary.slideKey(slide)
        if let i = strandCache.firstIndex(where: { $0.key == key }) {
            let hit = strandCache.remove(at: i)
            strandCache.append(hit)
            return hit.geometry
        }
        let groom = try styles.groom(style)
        let interpolation = ChildInterpolation.standard(strands: lod.strandCount, groom: groom,
                                                        pointsPerStrand: lod.pointsPerStrand, seed: seed)
        // Slid after interpolation: children are rooted on Coif's scalp, so sliding the guides alone would
        // leave the children's roots behind.
        var strands = interpolation.apply(guides: groom.guides, head: head)
        if let slide { strands = slide.apply(to: strands, shape: head.shape) }
        if strandCache.count >= Self.strandCacheSlots { strandCache.removeFirst() }
        let geometry = renderer.upload(strands: strands, seed: seed)
        strandCache.append((key, geometry))
        return geometry
    }

    /// The style's under-layer on the GPU: scalp triangles within `Groom.underLayerRadiusMm` of a guide root.
    private func shellGeometry(style: Style, slide: ScalpSlide?) throws -> ShellGeometry {
        let key = style.key + StyleLibrary.slideKey(slide)
        if let shell = shells[key] { return shell }
        let shell = renderer.upload(try styles.underLayer(style, slid: slide), over: occluder)
        // Slid shells differ per photo: a long batch keeps the last few dozen, not one per photo.
        if shells.count >= 32 { shells.removeAll() }
        shells[key] = shell
        return shell
    }
}

/// Which frame, faces and seed a plate was made for: the pixels by a 64-bit hash (so two frames with the
/// same label but other pixels differ), the face boxes and the seed.
struct PlateKey: Equatable {
    var pixels: UInt64
    var width: Int, height: Int
    var boxes: [FaceBox]
    /// The camera the faces were solved with: HeadSizing refits it, so another field of view is another plate.
    var intrinsics: [CameraIntrinsics]
    var seed: UInt64

    init(_ analyses: [PhotoAnalysis], seed: UInt64) {
        let image = analyses[0].frame.image
        width = image.width
        height = image.height
        boxes = analyses.map(\.chosen.box)
        intrinsics = analyses.map(\.intrinsics)
        self.seed = seed
        // Four multiply–rotate lanes over 8-byte words (a few GB/s), then the tail bytes.
        var lanes: SIMD4<UInt64> = [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5]
        pixels = image.pixels.withUnsafeBytes { raw -> UInt64 in
            let words = raw.count / 8
            var i = 0
            while i + 4 <= words {
                var v = SIMD4<UInt64>(raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self),
                                      raw.loadUnaligned(fromByteOffset: (i + 1) * 8, as: UInt64.self),
                                      raw.loadUnaligned(fromByteOffset: (i + 2) * 8, as: UInt64.self),
                                      raw.loadUnaligned(fromByteOffset: (i + 3) * 8, as: UInt64.self))
                v &*= 0x87C37B91114253D5
                lanes = (lanes ^ v) &* 0x4CF5AD432745937F
                lanes = (lanes &<< 31) | (lanes &>> 33)
                i += 4
            }
            var h = lanes[0] ^ (lanes[1] &* 3) ^ (lanes[2] &* 5) ^ (lanes[3] &* 7)
            for b in (i * 8)..<raw.count { h = (h ^ UInt64(raw[b])) &* 0x100000001B3 }
            return h
        }
    }
}
