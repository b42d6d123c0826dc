// TryOn: one still, end to end: photo → face → pose → fitted strands → hair layer → composite PNG.
// Models (dlib, shaders, head, catalog) load once in `TryOnEngine.init`; a batch or a benchmark renders
// many stills through one engine. Every stage reports into the still's FrameTiming.
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Logging

/// Which face in a photo gets hair.
public enum FaceChoice: Sendable, Equatable {
    case largest
    case index(Int)
    /// Every face found, nearest drawn last (see `TryOnEngine.renderAll`).
    case all

}

/// Everything one still needs, with the defaults a user gets from `coif render`.
public struct TryOnRequest: Sendable {
    public var photoPath: String
    public var style: String?
    public var color: HairColor
    public var outputPath: String
    /// Writes hair.png and matte.png here when set.
    public var layersDirectory: String?
    public var timingPath: String?
    public var seed: UInt64 = 1
    /// Horizontal field of view; nil = EXIF focal length, else `PhotoAnalyzer.defaultFieldOfViewDegrees`.
    public var fieldOfViewDegrees: Double?
    public var face: FaceChoice = .largest
    public var compression: PNGCompression = .fast
    /// Multiplies the level of detail's strand count.
    public var detail: Double = 1
    /// Replaces the level of detail's strand count (guides plus children) when set.
    public var strands: Int?

    public init(photoPath: String, style: String? = nil, color: HairColor, outputPath: String) {
        self.photoPath = photoPath
        self.style = style
        self.color = color
        self.outputPath = outputPath
    }
}

/// A still made by `TryOnEngine.runOnce`: the result (its total is the whole wall time, engine start
/// included), when the GPU side was ready, and when the vision side (model load and the photo's
/// analysis, beside the GPU start) was done, both in ms from the start.
public struct TryOnOnceOutcome: Sendable {
    public var result: TryOnResult
    public var engineMs: Double
    public var visionMs: Double
}

/// What the vision stages found in a photo: reusable when only the style or colour changes.
public struct PhotoAnalysis: Sendable {
    public var photo: Photo
    /// Every face found, largest first.
    public var faceBoxes: [FaceBox]
    public var chosen: Face
    public var intrinsics: CameraIntrinsics
    public var pose: HeadPose
    /// Jaw-to-jaw width in pixels: drives the level of detail.
    public var faceWidthPx: Double

    /// The photo's camera: its size and the intrinsics the pose was solved with.
    public var camera: PinholeCamera {
        PinholeCamera(widthPx: photo.image.width, heightPx: photo.image.height, fx: intrinsics.fx, fy: intrinsics.fy,
                      cx: intrinsics.cx, cy: intrinsics.cy)
    }
}

/// The outcome of a still.
public struct TryOnResult: Sendable {
    public var images: CompositeImages
    public var timing: FrameTiming
    public var levelOfDetail: LevelOfDetail
    public var analysis: PhotoAnalysis
}

public final class TryOnEngine {
    public let catalog: StyleCatalog
    public let head: HeadModel
    public let renderer: HairRenderer
    public let analyzer: PhotoAnalyzer
    public let compositor = Compositor()
    private let logger: Logger
    private let occluder: OccluderGeometry
    private var grooms: [String: Groom] = [:]
    private var resamplingErrorsByStyle: [String: [Float]] = [:]
    private var strandCache: (key: String, geometry: StrandGeometry)?
    private var shells: [String: ShellGeometry] = [:]
    private var hairBoxes: [String: (low: Vec3, high: Vec3)] = [:]
    private var layer = HairLayer()
    /// Render only the part of the photo the hair can cover (`hairRegion`); off, the whole photo, as
    /// before (tests compare the two).
    public var cropsToHair = true

    /// Loads every model once: catalog, head, dlib, EGL context and shaders. dlib's model loads on a
    /// second thread while this one brings up the GPU and warms its shaders.
    public convenience init(logger: Logger, predictorPath: String = FaceFinder.defaultPredictorPath) throws {
        let faceFinder = BackgroundWork(name: "coif.dlib-load") { FaceFinderBox(try FaceFinder(predictorPath: predictorPath)) }
        let head = try HeadModel.standard()
        try self.init(logger: logger, catalog: try StyleCatalog.standard(), head: head) {
            PhotoAnalyzer(faceFinder: try faceFinder.wait().finder, headLandmarks: head.landmarks68)
        }
    }

    /// The GPU side on this thread; `analyzer` is asked for last, once the GPU is ready (it may wait on
    /// work that ran beside it).
    private init(logger: Logger, catalog: StyleCatalog, head: HeadModel, analyzer: () throws -> PhotoAnalyzer) throws {
        self.logger = logger
        self.catalog = catalog
        self.head = head
        let context = try GPUContext()
        renderer = try HairRenderer(context: context, shaderSource: { Assets.text("Shaders/" + $0) })
        occluder = renderer.upload(head: head)
        try renderer.warmUp()
        self.analyzer = try analyzer()
        logger.debug("engine ready", metadata: ["renderer": "\(context.renderer)", "platform": "\(context.platform)"])
    }

    /// One still in one process (`coif render`): dlib's model load and then the photo's decode, detection,
    /// landmarks and pose run on a second thread while this one brings up the GPU context and shaders, so
    /// the vision stages cost no wall time when the GPU start is the longer. Same bytes as
    /// `TryOnEngine(logger:).run(request)`. A bad argument or photo is reported before a GPU failure.
    public static func runOnce(_ request: TryOnRequest, logger: Logger,
                               predictorPath: String = FaceFinder.defaultPredictorPath) throws -> TryOnOnceOutcome {
        let start = monotonicMs()
        let catalog = try StyleCatalog.standard()
        try validate(request, catalog: catalog)
        let head = try HeadModel.standard()
        typealias Vision = (analyzer: PhotoAnalyzer, analyses: Result<[PhotoAnalysis], Error>, timing: FrameTiming, doneMs: Double)
        let work = BackgroundWork(name: "coif.vision") { () -> Vision in
            let analyzer = PhotoAnalyzer(faceFinder: try FaceFinder(predictorPath: predictorPath), headLandmarks: head.landmarks68)
            var timing = FrameTiming()
            let analyses = Result { try Self.analyses(for: request, analyzer: analyzer, timing: &timing) }
            return (analyzer, analyses, timing, monotonicMs() - start)
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
            try TryOnEngine(logger: logger, catalog: catalog, head: head) {
                engineMs = monotonicMs() - start
                return try vision().get().analyzer
            }
        }
        let done = try vision().get()
        let analyses = try done.analyses.get()
        let result = try engine.get().finish(request, analyses: analyses, timing: done.timing, start: start)
        return TryOnOnceOutcome(result: result, engineMs: engineMs, visionMs: done.doneMs)
    }

    public var rendererDescription: String { renderer.context.renderer }

    /// The catalog entry for `name` (nil = the default style); `unknownStyle` when absent.
    public func style(named name: String?) throws -> StyleEntry { try Self.style(named: name, in: catalog) }

    static func style(named name: String?, in catalog: StyleCatalog) throws -> StyleEntry {
        let wanted = name ?? catalog.defaultStyle
        guard let entry = catalog.entry(named: wanted) else {
            throw CoifError.unknownStyle(name: wanted, known: catalog.styles.map(\.name))
        }
        return entry
    }

    // MARK: - Stages

    /// decode → detect → landmarks → pose (see PhotoAnalyzer).
    public func analyse(photoPath: String, face choice: FaceChoice = .largest, fieldOfViewDegrees: Double? = nil,
                        timing: inout FrameTiming) throws -> PhotoAnalysis {
        try analyzer.analyse(photoPath: photoPath, face: choice, fieldOfViewDegrees: fieldOfViewDegrees, timing: &timing)
    }

    /// scene → render → readback → composite, for an analysed photo.
    public func render(analysis: PhotoAnalysis, style name: String?, color: HairColor, seed: UInt64, detail: Double = 1,
                       strands strandCount: Int? = nil, timing: inout FrameTiming) throws -> TryOnResult {
        let image = analysis.photo.image
        let region = try hairRegion(analysis: analysis, style: name)
        let (lod, strands) = try drawLayer(analysis: analysis, region: region, style: name, color: color, seed: seed,
                                           detail: detail, strands: strandCount, timing: &timing)
        let images = timing.measure(.composite) { compositor.composite(layer: layer, at: region, over: image) }
        timing.renderer = renderer.context.renderer
        timing.imageWidth = image.width
        timing.imageHeight = image.height
        timing.strandCount = strands.strandCount
        timing.segmentCount = strands.segmentCount
        timing.faceWidthPx = analysis.faceWidthPx
        return TryOnResult(images: images, timing: timing, levelOfDetail: lod, analysis: analysis)
    }

    /// Hair on every analysed face of one photo (`PhotoAnalyzer.analyseAll`). Each face's hair layer is
    /// drawn as `render` draws one, then the layers are laid over each other farthest first (decreasing
    /// tvec z: the head origin's depth in the camera), so a nearer head's hair covers a farther one's:
    /// `acc = layer + (1 − α_layer)·acc` in premultiplied linear light, then composited over the photo
    /// once, exactly as a single layer is. The result's analysis and level of detail are the first
    /// (largest) face's; the timing's strand and segment counts are the sums over faces.
    public func renderAll(analyses: [PhotoAnalysis], style name: String?, color: HairColor, seed: UInt64, detail: Double = 1,
                          strands asked: Int? = nil, timing: inout FrameTiming) throws -> TryOnResult {
        guard let first = analyses.first else { throw CoifError.internalError("renderAll: no faces") }
        let image = first.photo.image
        // One crop holding every face's hair, so the layers line up pixel for pixel.
        let region = try analyses.map { try hairRegion(analysis: $0, style: name) }.dropFirst()
            .reduce(try hairRegion(analysis: first, style: name)) { $0.union($1) }
        var accumulated = HairLayer(width: region.width, height: region.height)
        var strandCount = 0, segmentCount = 0
        var firstLod: LevelOfDetail?
        let farthestFirst = analyses.enumerated().sorted { a, b in
            a.element.pose.tvec[2] != b.element.pose.tvec[2] ? a.element.pose.tvec[2] > b.element.pose.tvec[2] : a.offset < b.offset
        }
        for (index, analysis) in farthestFirst {
            let (lod, strands) = try drawLayer(analysis: analysis, region: region, style: name, color: color, seed: seed,
                                               detail: detail, strands: asked, timing: &timing)
            if index == 0 { firstLod = lod }
            strandCount += strands.strandCount
            segmentCount += strands.segmentCount
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
        let images = timing.measure(.composite) { compositor.composite(layer: accumulated, at: region, over: image) }
        timing.renderer = renderer.context.renderer
        timing.imageWidth = image.width
        timing.imageHeight = image.height
        timing.strandCount = strandCount
        timing.segmentCount = segmentCount
        timing.faceWidthPx = first.faceWidthPx
        return TryOnResult(images: images, timing: timing, levelOfDetail: firstLod!, analysis: first)
    }

    /// How far (mm) drawn strands may stray outside their guides' box: children are blended from nearby
    /// guides with 1.2 mm of noise and pushed out of the head by a few mm; ribbons are ≤ ~2 mm wide.
    static let hairBoxMarginMm: Float = 15
    /// Pixels added around the projected box: the one-pixel minimum width of thin strands and the
    /// multisampled edge.
    static let hairRegionMarginPx = 3

    /// The part of the photo a face's hair (strands and scalp under-layer) can cover: the projection of the
    /// style's head-space box. Only that crop is rendered and read back: a 12 MP photo with a 550-px face
    /// drew, resolved and read 12 MP of 4×MSAA for a 1.4 MP crop. Pixels outside it keep the photo's bytes,
    /// as they did. (1×1 at the corner when the hair is entirely outside the photo: nothing shows.)
    public func hairRegion(analysis: PhotoAnalysis, style name: String?) throws -> PixelRect {
        let camera = analysis.camera
        guard cropsToHair else { return PixelRect(x: 0, y: 0, width: camera.widthPx, height: camera.heightPx) }
        let box = try hairBox(try style(named: name))
        return camera.pixelsCovering(low: box.low, high: box.high, headToCamera: analysis.pose.modelToCamera,
                                     marginPx: Self.hairRegionMarginPx) ?? PixelRect(x: 0, y: 0, width: 1, height: 1)
    }

    /// The style's guides and under-layer triangles, boxed in head space and grown by `hairBoxMarginMm`.
    private func hairBox(_ entry: StyleEntry) throws -> (low: Vec3, high: Vec3) {
        if let box = hairBoxes[entry.name] { return box }
        let shell = try shellGeometry(entry: entry)
        var low = shell.low, high = shell.high
        for p in try loadGroom(entry).guides.positions { low = pointwiseMin(low, p); high = pointwiseMax(high, p) }
        let box = (low - Vec3(repeating: Self.hairBoxMarginMm), high + Vec3(repeating: Self.hairBoxMarginMm))
        hairBoxes[entry.name] = box
        return box
    }

    /// scene → render → readback of one face's hair, over `region` of the photo, into `layer`.
    private func drawLayer(analysis: PhotoAnalysis, region: PixelRect, style name: String?, color: HairColor, seed: UInt64,
                           detail: Double, strands asked: Int?, timing: inout FrameTiming) throws -> (LevelOfDetail, StrandGeometry) {
        let entry = try style(named: name)
        let lod = LevelOfDetail.choose(faceWidthPx: analysis.faceWidthPx, guideCount: entry.guides, detail: detail,
                                       resamplingErrorsMm: try resamplingErrors(entry), strands: asked)
        let (strands, shell) = try timing.measure(.scene) {
            (try strandGeometry(entry: entry, lod: lod, seed: seed), try shellGeometry(entry: entry))
        }
        let camera = analysis.camera.cropped(to: region)
        // Fixed studio lights, normalised so a lit strand shows about the colour asked for. (Exposure is
        // not estimated from skin brightness: that would tie hair brightness to skin tone.)
        let lighting = Lighting()
        let widths = StrandWidths(rootMm: entry.rootWidthMm * lod.widthScale, tipMm: entry.tipWidthMm * lod.widthScale)
        try timing.measure(.render) {
            try renderer.draw(camera: camera, headToCamera: analysis.pose.modelToCamera, occluder: occluder,
                              shell: shell, strands: strands, widths: widths, shading: HairShading(color: color), lighting: lighting)
            renderer.finish()
        }
        try timing.measure(.readback) { try renderer.readBack(into: &layer) }
        return (lod, strands)
    }

    /// The whole still: analyse, render, encode and write the composite (and layers, timing).
    @discardableResult
    public func run(_ request: TryOnRequest) throws -> TryOnResult {
        let start = monotonicMs()
        try Self.validate(request, catalog: catalog)
        var timing = FrameTiming()
        let analyses = try Self.analyses(for: request, analyzer: analyzer, timing: &timing)
        return try finish(request, analyses: analyses, timing: timing, start: start)
    }

    /// Fails on bad arguments before any expensive work, and before anything is written.
    static func validate(_ request: TryOnRequest, catalog: StyleCatalog) throws {
        _ = try style(named: request.style, in: catalog)
        try AtomicFile.checkWritable(request.outputPath)
        if let directory = request.layersDirectory {
            try AtomicFile.checkWritable(directory + "/hair.png")
        }
        if let timingPath = request.timingPath { try AtomicFile.checkWritable(timingPath) }
    }

    /// The faces the request asks for: every face for `.all`, else the one chosen.
    static func analyses(for request: TryOnRequest, analyzer: PhotoAnalyzer, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        if request.face == .all {
            return try analyzer.analyseAll(photoPath: request.photoPath, fieldOfViewDegrees: request.fieldOfViewDegrees, timing: &timing)
        }
        return [try analyzer.analyse(photoPath: request.photoPath, face: request.face,
                                     fieldOfViewDegrees: request.fieldOfViewDegrees, timing: &timing)]
    }

    /// Render, encode and write a still whose faces are analysed; `timing` holds the vision stages.
    private func finish(_ request: TryOnRequest, analyses: [PhotoAnalysis], timing vision: FrameTiming, start: Double) throws -> TryOnResult {
        var timing = vision
        var result: TryOnResult
        if request.face == .all {
            result = try renderAll(analyses: analyses, style: request.style, color: request.color, seed: request.seed,
                                   detail: request.detail, strands: request.strands, timing: &timing)
        } else {
            result = try render(analysis: analyses[0], style: request.style, color: request.color, seed: request.seed,
                                detail: request.detail, strands: request.strands, timing: &timing)
        }
        var images: [(path: String, image: PixelImage)] = [(request.outputPath, result.images.composite)]
        if let directory = request.layersDirectory {
            images += [(directory + "/hair.png", result.images.hair), (directory + "/matte.png", result.images.matte)]
        }
        // The PNGs are independent: encode them on all cores. Nothing is written until all succeeded.
        let encoded = try timing.measure(.encode) { try PNGFile.encodeConcurrently(images.map(\.image), compression: request.compression) }
        try timing.measure(.write) {
            for (target, bytes) in zip(images, encoded) { try AtomicFile.write(bytes, to: target.path) }
        }
        timing.totalMs = monotonicMs() - start
        if let timingPath = request.timingPath {
            try AtomicFile.write(text: TimingReport.json(timing, levelOfDetail: result.levelOfDetail, request: request), to: timingPath)
        }
        result.timing = timing
        return result
    }

    // MARK: - Helpers

    /// Guides + children for a style at a level of detail, on the GPU; the last one is cached, so a
    /// re-render with another colour skips interpolation and upload.
    private func strandGeometry(entry: StyleEntry, lod: LevelOfDetail, seed: UInt64) throws -> StrandGeometry {
        let key = "\(entry.name)|\(lod.strandCount)|\(lod.pointsPerStrand)|\(seed)"
        if let cached = strandCache, cached.key == key { return cached.geometry }
        let groom = try loadGroom(entry)
        let interpolation = ChildInterpolation(childCount: max(lod.strandCount - groom.guides.strandCount, 0),
                                               pointsPerStrand: lod.pointsPerStrand, seed: seed, clump: 0.35, noiseMm: 1.2)
        let strands = interpolation.apply(guides: groom.guides, head: head)
        let geometry = renderer.upload(strands: strands, seed: seed)
        strandCache = (key, geometry)
        return geometry
    }

    /// The style's `resamplingErrorsMm`, measured once per style per engine (~1 ms).
    private func resamplingErrors(_ entry: StyleEntry) throws -> [Float] {
        if let errors = resamplingErrorsByStyle[entry.name] { return errors }
        let errors = try loadGroom(entry).guides.resamplingErrorsMm()
        resamplingErrorsByStyle[entry.name] = errors
        return errors
    }

    /// The style's under-layer: scalp triangles within `Groom.underLayerRadiusMm` of a guide root.
    private func shellGeometry(entry: StyleEntry) throws -> ShellGeometry {
        if let shell = shells[entry.name] { return shell }
        let triangles = try loadGroom(entry).coveredScalpTriangles(head: head, radiusMm: Groom.underLayerRadiusMm)
        let shell = renderer.upload(shellOf: occluder, triangles: triangles)
        shells[entry.name] = shell
        return shell
    }

    private func loadGroom(_ entry: StyleEntry) throws -> Groom {
        if let groom = grooms[entry.name] { return groom }
        guard let text = Assets.text("Meshes/" + entry.file) else {
            throw CoifError.assetFailed(path: "Meshes/" + entry.file, reason: "not embedded in this build")
        }
        let groom = try Groom.load(objText: text, name: "Meshes/" + entry.file, pointsPerStrand: entry.pointsPerGuide,
                                   rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
        grooms[entry.name] = groom
        return groom
    }
}

/// Carries the freshly loaded FaceFinder from its loading thread to the engine's; nothing else touches it
/// until the hand-over, so the unchecked Sendable is sound.
private struct FaceFinderBox: @unchecked Sendable {
    let finder: FaceFinder
    init(_ finder: FaceFinder) { self.finder = finder }
}
