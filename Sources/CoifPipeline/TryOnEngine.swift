// TryOnEngine: one try-on, as stages with one owner each, in order:
//   decode (CoifMedia: file → Frame) → analyse (CoifVision: Frame → faces, pose) → parse + plate (the own
//   hair) → scene (the style at a level of detail, on the GPU) → layers (CoifRender passes: render, read
//   back) → composite (CoifRender) → encode + write (CoifMedia, AtomicFile).
// Each stage is a method that can be called on its own, so a video frame, a batch item or a test's
// in-memory image enters at `analyse` and a sheet re-enters at `render`. Models (dlib, shaders, head, styles)
// load once in `TryOnEngine.init`; every stage reports into the frame's FrameTiming. This file holds the
// engine's start-up and the whole job; the stages are in TryOnStages (decode, analyse, parse, plate),
// TryOnRender (scene, layers, composite), TryOnWrite (encode, write) and TryOnCaches (the GPU's strands and
// under-layers, kept between stills); the values they pass in PhotoAnalysis. What many try-ons of one photo
// share (its analysis, parse and plate) is an AnalysedPhoto's.
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Foundation
import Logging

public final class TryOnEngine {
    public let styles: StyleLibrary
    public var head: HeadModel { styles.head }
    public let renderer: HairRenderer
    public let analyzer: FaceAnalyzer
    public let compositor = Compositor()
    /// The face-parsing network, loaded at the first job that removes the own hair (or handed over by
    /// `runOnce`, which loads it beside the GPU start).
    var parser: FaceParser?
    let parserPath: String
    let logger: Logger
    let occluder: OccluderGeometry
    /// The plate stage on this engine's head, made once (the head's normals with it: the render reads the
    /// photo's light with them too).
    public let plateStage: PlateStage
    /// Strands on the GPU by (style, level of detail, seed), most recently used last: a sheet or a shot
    /// that alternates a few styles does not interpolate and upload again each time.
    var strandCache: [(key: String, geometry: StrandGeometry)] = []
    static let strandCacheSlots = 4
    var shells: [String: ShellGeometry] = [:]
    var layer = HairLayer()
    /// The layer blur's second buffer, kept between stills.
    var blurScratch: [Float] = []
    /// HairOcclusion's blurred coverage, reused from frame to frame.
    var occlusionScratch: [Float] = []
    /// The hair's shadow on the skin of the last still (HairRenderer.readSkinLight), storage reused.
    var skinLight = HairLayer()
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
        // The GPU's bring-up, one engine at a time in a process (GPUContext.serialized says why).
        (renderer, occluder) = try GPUContext.serialized {
            let renderer = try HairRenderer.standard()
            let occluder = renderer.upload(head: styles.head)
            try renderer.warmUp()
            return (renderer, occluder)
        }
        plateStage = PlateStage(head: styles.head)
        self.analyzer = try analyzer()
        // A turned face's ear is found by the engine's own face-parsing network (FaceAnalyzer.earParserProvider).
        self.analyzer.earParserProvider = { [unowned self] in try? self.faceParser() }
        logger.debug("engine ready", metadata: ["renderer": "\(renderer.context.renderer)", "platform": "\(renderer.context.platform)"])
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
            // A turned face's ear is found by the network loading beside the analysis for the own hair.
            if let parserWork { analyzer.earParserProvider = { (try? parserWork.wait())?.value } }
            var parser: HandedOver<FaceParser>?
            let analyses = Result { () -> [PhotoAnalysis] in
                let analyses: [PhotoAnalysis]
                do {
                    analyses = try AnalysisStage(analyzer: analyzer).analyse(try decoded.get(), faces: job.face, timing: &timing)
                } catch {
                    // The network's load is not left running into the process's exit (OpenCV's and
                    // protobuf's static destructors would run under it).
                    _ = try? parserWork?.wait()
                    throw error
                }
                guard let parserWork else { return analyses }
                parser = try parserWork.wait()
                return try OwnHairStage(parser: parser!.value, analyzer: analyzer, head: head)
                    .remove(analyses, plate: PlateStage(head: head), seed: job.seed, timing: &timing)
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
    /// What decides the engine's pixels (`GPUContext.pixelIdentity`): a golden is matched exactly only where
    /// this is the one it was recorded with.
    public var pixelIdentity: String { renderer.context.pixelIdentity }

    /// The style `nameOrFile` names (nil = the default); `unknownStyle` when there is none.
    public func style(named nameOrFile: String?) throws -> Style { try styles.resolve(nameOrFile) }

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
    func finish(_ job: TryOnJob, style: Style, analyses: [PhotoAnalysis], timing vision: FrameTiming,
                        start: Double) throws -> TryOnResult {
        var timing = vision
        // A still is a one-frame shot (render draws it through a RenderStage).
        var result = try render(analyses, style: style, job: job, timing: &timing)
        try write(&result, job: job, timing: &timing, start: start)
        return result
    }
}
