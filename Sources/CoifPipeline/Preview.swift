// Preview: a groom on Coif's own head with no photo: the head drawn opaque in a neutral skin-grey, the hair
// over it, from the front, the subject's left, the back or the top, on a light grey background. For
// looking at styles (`coif preview`) and at imported grooms before they go into the catalog. Loads the GPU
// context, shaders, head and catalog once; never loads dlib.
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifRender
import Foundation
import Logging

public enum PreviewView: String, Sendable, CaseIterable {
    case front, left, back, top

    /// Head space → OpenCV camera rows (x right, y down, z forward), camera looking at the head.
    var rotationRowMajor: [Double] {
        switch self {
        case .front: return [1, 0, 0, 0, -1, 0, 0, 0, -1]
        case .left: return [0, 0, -1, 0, -1, 0, -1, 0, 0]
        case .back: return [-1, 0, 0, 0, -1, 0, 0, 0, 1]
        case .top: return [-1, 0, 0, 0, 0, -1, 0, -1, 0]
        }
    }
}

/// A preview's CPU side, ready to draw: the camera, the level of detail, every strand (guides and children)
/// and the under-layer's triangles. Made by `PreviewEngine.prepare` without the GPU, so a one-shot preview
/// can make it while the GPU comes up.
public struct PreviewFrame: Sendable {
    public var style: Style
    public var view: PreviewView
    public var camera: PinholeCamera
    public var headToCamera: Mat4
    public var levelOfDetail: LevelOfDetail
    public var strands: StrandSet
    public var underLayer: UnderLayer
    /// Wall milliseconds of the child interpolation and the under-layer's triangles (the `scene` stage).
    public var sceneMs: Double
    /// The projected width each strand stands for (LevelOfDetail.coverWidthMm).
    public var coverWidthMm: Float { LevelOfDetail.coverWidthMm(style.entry, strandCount: strands.strandCount) }
}

/// What one `PreviewEngine.renderOnce` did: the picture, the stage timings and the start-up split.
public struct PreviewOutcome: Sendable {
    public var image: PixelImage
    public var groomName: String
    public var timing: FrameTiming
    /// Wall milliseconds until the GPU was ready (context, shaders, warm-up frame).
    public var engineMs: Double
    /// Wall milliseconds the second thread took for the catalog, head, groom (read and fit) and scene.
    public var groomMs: Double
}

public final class PreviewEngine {
    public let styles: StyleLibrary
    public var head: HeadModel { styles.head }
    public let renderer: HairRenderer
    package let occluder: OccluderGeometry
    private let compositor = Compositor()
    /// Field of the preview camera: this many millimetres of head space span the image (side views).
    public static let spanMm: Double = 480
    /// Neutral skin-grey of the head (sRGB 0…1) and the background (sRGB bytes).
    public static let headSRGB = Vec3(0.72, 0.68, 0.65)
    public static let background: UInt8 = 232

    /// Loads the catalog and the head on a second thread while this one brings up the GPU context and
    /// shaders (the GL work stays on this thread, where the context is current).
    public init(logger: Logger, userStyleDirectories: [String] = []) throws {
        let assets = BackgroundWork(name: "coif.preview-assets") { try StyleLibrary.standard(userDirectories: userStyleDirectories) }
        let renderer = Result { try Self.makeRenderer(warmUpSizePx: nil) }
        styles = try assets.wait()
        self.renderer = try renderer.get()
        occluder = self.renderer.upload(head: styles.head)
        logger.debug("preview engine ready", metadata: ["renderer": "\(self.renderer.context.renderer)"])
    }

    private init(styles: StyleLibrary, renderer: HairRenderer) {
        self.styles = styles
        self.renderer = renderer
        occluder = renderer.upload(head: styles.head)
    }

    /// The GPU side: context, the strand and head programs, and (with a size) a warm-up frame of that size
    /// unless `skipWarmUp` says, once the programs are ready, that the real frame can be drawn at once.
    /// One engine's bring-up at a time in a process (GPUContext.serialized says why).
    private static func makeRenderer(warmUpSizePx: Int?, skipWarmUp: () -> Bool = { false }) throws -> HairRenderer {
        try GPUContext.serialized {
            let renderer = try HairRenderer.standard()
            try renderer.prepareHeadShading(shaderSource: HairRenderer.embeddedShader)
            if let warmUpSizePx, !skipWarmUp() { try renderer.warmUp(sizePx: warmUpSizePx, headShading: true) }
            return renderer
        }
    }

    /// One preview in one process (`coif preview`), start-up included. Everything that needs no GPU (the
    /// catalog, the head, the groom's read and fit, its children) runs on a second thread while this one
    /// brings up the GPU context and shaders and draws a warm-up frame of the preview's size, so the real
    /// frame pays for neither. A bad style or groom file is reported before a GPU failure.
    public static func renderOnce(_ styleOrFile: String, headPath: String? = nil, view: PreviewView, sizePx: Int,
                                  color: HairColor, seed: UInt64 = 1, strands: Int? = nil, userStyleDirectories: [String] = [],
                                  logger: Logger) throws -> PreviewOutcome {
        try checkSize(sizePx)
        try LevelOfDetail.checkStrands(strands)
        let start = monotonicMs()
        let cpu = BackgroundWork(name: "coif.preview-scene") { () -> (StyleLibrary, PreviewFrame, Double) in
            let styles = try StyleLibrary.standard(userDirectories: userStyleDirectories)
            let style = try styles.resolve(styleOrFile, headPath: headPath)
            let frame = try Self.prepare(style, styles: styles, view: view, sizePx: sizePx, seed: seed, strands: strands)
            return (styles, frame, monotonicMs() - start)
        }
        // The warm-up only pays while the groom is still being prepared: it moves the first frame's shader
        // compilation into that wait. If the groom is ready first, the real frame compiles them itself and
        // the warm-up's own draw and read-back would be time added.
        let gpu = Result { try makeRenderer(warmUpSizePx: sizePx, skipWarmUp: { cpu.isFinished }) }
        let engineMs = monotonicMs() - start
        let (styles, frame, groomMs) = try cpu.wait()
        let engine = PreviewEngine(styles: styles, renderer: try gpu.get())
        logger.debug("preview engine ready", metadata: ["renderer": "\(engine.renderer.context.renderer)"])
        var timing = FrameTiming()
        let image = try engine.draw(frame, color: color, seed: seed, timing: &timing)
        return PreviewOutcome(image: image, groomName: frame.style.name, timing: timing, engineMs: engineMs, groomMs: groomMs)
    }

    /// A catalog style by name, else a groom file (.tfx, .data, .obj, .gltf, …) fitted to Coif's head
    /// (with its own head mesh at `headPath` when given): see `StyleLibrary.resolve`.
    public func style(_ styleOrFile: String, headPath: String? = nil) throws -> Style {
        try styles.resolve(styleOrFile, headPath: headPath)
    }

    static func checkSize(_ sizePx: Int) throws {
        guard sizePx >= 32 && sizePx <= 4096 else {
            throw CoifError.invalidOption(name: "--size", reason: "must be 32–4096 pixels, got \(sizePx)")
        }
    }

    /// The CPU side of a preview of `style` at `sizePx`² from `view` (see PreviewFrame).
    /// - Parameter strands: guides plus children, replacing the level of detail's count (nil = automatic).
    public static func prepare(_ style: Style, styles: StyleLibrary, view: PreviewView, sizePx: Int, seed: UInt64 = 1,
                               strands: Int? = nil) throws -> PreviewFrame {
        let distanceMm = 1000.0
        let span = view == .top ? spanMm * 0.85 : spanMm
        let f = Double(sizePx) * distanceMm / span
        let c = Double(sizePx - 1) / 2
        let camera = PinholeCamera(widthPx: sizePx, heightPx: sizePx, fx: f, fy: f, cx: c, cy: c)
        // Look at the head's middle (a little below the cranium centre, so long hair fits), from 1 m.
        let target = view == .top ? SIMD3<Double>(0, 0, 0) : SIMD3<Double>(0, -70, 0)
        let r = view.rotationRowMajor
        let rt = SIMD3<Double>(r[0] * target.x + r[1] * target.y + r[2] * target.z,
                               r[3] * target.x + r[4] * target.y + r[5] * target.z,
                               r[6] * target.x + r[7] * target.y + r[8] * target.z)
        let headToCamera = Mat4.rigid(rotationRowMajor: r, translation: SIMD3(-rt.x, -rt.y, distanceMm - rt.z))
        // The level of detail a photo with this face size would get: the face as wide as the still's level of
        // detail takes a face to be (it assumed 140 mm here, 150 there).
        let faceWidthPx = LevelOfDetail.faceWidthMm * f / distanceMm
        let lod = try styles.levelOfDetail(style, faceWidthPx: max(faceWidthPx, 200), strands: strands)
        let sceneStart = monotonicMs()
        let all = try styles.strands(style, count: lod.strandCount, pointsPerStrand: lod.pointsPerStrand, seed: seed)
        let underLayer = try styles.underLayer(style)
        return PreviewFrame(style: style, view: view, camera: camera, headToCamera: headToCamera, levelOfDetail: lod,
                            strands: all, underLayer: underLayer, sceneMs: monotonicMs() - sceneStart)
    }

    /// Renders `style` at `sizePx`² from `view`; RGB, sRGB.
    /// - Parameter strands: guides plus children, replacing the level of detail's count (nil = automatic).
    public func render(_ style: Style, view: PreviewView, sizePx: Int, color: HairColor, seed: UInt64 = 1,
                       strands: Int? = nil, timing: inout FrameTiming) throws -> PixelImage {
        try Self.checkSize(sizePx)
        let frame = try Self.prepare(style, styles: styles, view: view, sizePx: sizePx, seed: seed, strands: strands)
        return try draw(frame, color: color, seed: seed, timing: &timing)
    }

    /// `style`'s hair alone from the front (the head drawn as depth only, so it hides what is behind it but
    /// adds no colour), shaded with `shading` under `lighting`: the layer whose solid pixels say what colour a
    /// look shows on Coif's head (HairTone; the presets' reference colours are measured this way).
    public func hairLayer(_ style: Style, sizePx: Int = 384, shading: HairShading, lighting: Lighting = Lighting(),
                          seed: UInt64 = 1) throws -> HairLayer {
        try Self.checkSize(sizePx)
        let frame = try Self.prepare(style, styles: styles, view: .front, sizePx: sizePx, seed: seed)
        let strands = renderer.upload(strands: frame.strands, seed: seed, coverWidthMm: frame.coverWidthMm)
        let shell = renderer.upload(frame.underLayer, over: occluder)
        let lod = frame.levelOfDetail
        let widths = StrandWidths(style: frame.style.entry, widthScale: lod.widthScale)
        var layer = HairLayer()
        var timing = FrameTiming()
        try renderer.drawAndReadBack(camera: frame.camera, headToCamera: frame.headToCamera, occluder: occluder, shell: shell,
                                     strands: strands, widths: widths, shading: shading, lighting: lighting, into: &layer, timing: &timing)
        return layer
    }

    /// Uploads and draws a prepared frame; RGB, sRGB. The scene stage is the frame's CPU work plus the upload.
    public func draw(_ frame: PreviewFrame, color: HairColor, seed: UInt64 = 1, timing: inout FrameTiming) throws -> PixelImage {
        let uploadStart = monotonicMs()
        let strands = renderer.upload(strands: frame.strands, seed: seed, coverWidthMm: frame.coverWidthMm)
        let shell = renderer.upload(frame.underLayer, over: occluder)
        timing[.scene] = (timing[.scene] ?? 0) + frame.sceneMs + (monotonicMs() - uploadStart)
        return try draw(frame, strands: strands, shell: shell, headToCamera: frame.headToCamera, color: color, timing: &timing)
    }

    /// A turntable for a catalog page: `count` views of `style` turning once about the head's vertical axis,
    /// from the front (view 0) toward the subject's left side, `360/count` degrees apart, each as the front
    /// view is drawn: view 0 is `--view front`'s picture, view count/4 `--view left`'s, view count/2 `--view
    /// back`'s (tested). The strands are made and uploaded once. `each` gets every view in order.
    public func turntable(_ style: Style, views count: Int, sizePx: Int, color: HairColor, seed: UInt64 = 1, strands: Int? = nil,
                          timing: inout FrameTiming, each: (Int, PixelImage) throws -> Void) throws {
        try Self.checkSize(sizePx)
        guard (1...3600).contains(count) else { throw CoifError.invalidOption(name: "--turntable", reason: "must be 1–3600 views, got \(count)") }
        let frame = try Self.prepare(style, styles: styles, view: .front, sizePx: sizePx, seed: seed, strands: strands)
        let uploadStart = monotonicMs()
        let uploaded = renderer.upload(strands: frame.strands, seed: seed, coverWidthMm: frame.coverWidthMm)
        let shell = renderer.upload(frame.underLayer, over: occluder)
        timing[.scene] = frame.sceneMs + (monotonicMs() - uploadStart)
        for k in 0..<count {
            // A turn of the head about its own y axis (up), head space rotated before the front camera.
            let angle = -2 * Double.pi * Double(k) / Double(count)
            let turn = Mat4.rigid(rotationRowMajor: [cos(angle), 0, sin(angle), 0, 1, 0, -sin(angle), 0, cos(angle)], translation: .zero)
            try each(k, try draw(frame, strands: uploaded, shell: shell, headToCamera: frame.headToCamera * turn, color: color, timing: &timing))
        }
    }

    /// Draws a prepared frame's uploaded strands and under-layer with `headToCamera`; RGB, sRGB.
    func draw(_ frame: PreviewFrame, strands: StrandGeometry, shell: ShellGeometry, headToCamera: Mat4, color: HairColor,
              timing: inout FrameTiming) throws -> PixelImage {
        let lod = frame.levelOfDetail
        let widths = StrandWidths(style: frame.style.entry, widthScale: lod.widthScale)
        let skin = Self.headSRGB
        let albedo = Vec3(srgbToLinear(skin.x), srgbToLinear(skin.y), srgbToLinear(skin.z)) * 0.8
        var layer = HairLayer()
        try renderer.drawAndReadBack(camera: frame.camera, headToCamera: headToCamera, occluder: occluder, shell: shell,
                                     strands: strands, widths: widths, shading: HairShading(color: color), lighting: Lighting(),
                                     headAlbedoLinear: albedo, into: &layer, timing: &timing)
        let size = frame.camera.widthPx
        let backdrop = PixelImage(width: size, height: frame.camera.heightPx, channels: 3, fill: Self.background)
        let image = timing.measure(.composite) { compositor.composite(layer: layer, over: backdrop).composite }
        timing.strandCount = strands.strandCount
        timing.segmentCount = strands.segmentCount
        timing.imageWidth = size
        timing.imageHeight = frame.camera.heightPx
        timing.renderer = renderer.context.renderer
        return image
    }
}
