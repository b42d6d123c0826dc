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

/// A groom ready to preview: guides in head space plus rendered widths.
public struct PreviewGroom: Sendable {
    public var name: String
    public var guides: StrandSet
    public var widths: StrandWidths
}

public final class PreviewEngine {
    public let catalog: StyleCatalog
    public let head: HeadModel
    public let renderer: HairRenderer
    let occluder: OccluderGeometry
    private let compositor = Compositor()
    /// Field of the preview camera: this many millimetres of head space span the image (side views).
    public var spanMm: Double = 480
    /// Neutral skin-grey of the head (sRGB 0…1) and the background (sRGB bytes).
    public var headSRGB = Vec3(0.72, 0.68, 0.65)
    public var background: UInt8 = 232

    public init(logger: Logger) throws {
        catalog = try StyleCatalog.standard()
        head = try HeadModel.standard()
        renderer = try HairRenderer(context: try GPUContext(), shaderSource: { Assets.text("Shaders/" + $0) })
        try renderer.prepareHeadShading(shaderSource: { Assets.text("Shaders/" + $0) })
        occluder = renderer.upload(head: head)
        logger.debug("preview engine ready", metadata: ["renderer": "\(renderer.context.renderer)"])
    }

    /// A catalog style by name, else a groom file (.tfx, .data, .obj, .gltf, …) fitted to Coif's head
    /// (with its own head mesh at `headPath` when given).
    public func groom(_ styleOrFile: String, headPath: String? = nil) throws -> PreviewGroom {
        if let entry = catalog.entry(named: styleOrFile) {
            guard let text = Assets.text("Meshes/" + entry.file) else {
                throw CoifError.assetFailed(path: "Meshes/" + entry.file, reason: "not embedded in this build")
            }
            let groom = try Groom.load(objText: text, name: "Meshes/" + entry.file, pointsPerStrand: entry.pointsPerGuide,
                                       rootWidthMm: entry.rootWidthMm, tipWidthMm: entry.tipWidthMm)
            return PreviewGroom(name: entry.name, guides: groom.guides,
                                widths: StrandWidths(rootMm: entry.rootWidthMm, tipMm: entry.tipWidthMm))
        }
        guard FileManager.default.fileExists(atPath: styleOrFile) else {
            throw CoifError.unknownStyle(name: styleOrFile, known: catalog.styles.map(\.name))
        }
        let placed = try GroomImport.load(path: styleOrFile, headPath: headPath, head: head)
        return PreviewGroom(name: (styleOrFile as NSString).lastPathComponent, guides: placed.strands,
                            widths: StrandWidths(rootMm: 0.3, tipMm: 0.1))
    }

    /// Renders `groom` at `sizePx`² from `view`; RGB, sRGB.
    /// - Parameter strands: guides plus children, replacing the level of detail's count (nil = automatic).
    public func render(_ groom: PreviewGroom, view: PreviewView, sizePx: Int, color: HairColor, seed: UInt64 = 1,
                       strands: Int? = nil, timing: inout FrameTiming) throws -> PixelImage {
        guard sizePx >= 32 && sizePx <= 4096 else {
            throw CoifError.invalidOption(name: "--size", reason: "must be 32–4096 pixels, got \(sizePx)")
        }
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
        // The level of detail a photo with this face size would get (face ≈ 140 mm across).
        let faceWidthPx = 140 * f / distanceMm
        let lod = LevelOfDetail.choose(faceWidthPx: max(faceWidthPx, 200), guideCount: groom.guides.strandCount,
                                       resamplingErrorsMm: groom.guides.resamplingErrorsMm(), strands: strands)
        let (strands, shell) = timing.measure(.scene) { () -> (StrandGeometry, ShellGeometry) in
            let children = ChildInterpolation(childCount: max(lod.strandCount - groom.guides.strandCount, 0),
                                              pointsPerStrand: lod.pointsPerStrand, seed: seed, clump: 0.35, noiseMm: 1.2)
            let all = children.apply(guides: groom.guides, head: head)
            let g = Groom(name: groom.name, guides: groom.guides, rootWidthMm: groom.widths.rootMm, tipWidthMm: groom.widths.tipMm)
            return (renderer.upload(strands: all, seed: seed),
                    renderer.upload(shellOf: occluder, triangles: g.coveredScalpTriangles(head: head, radiusMm: 6)))
        }
        let widths = StrandWidths(rootMm: groom.widths.rootMm * lod.widthScale, tipMm: groom.widths.tipMm * lod.widthScale)
        let albedo = Vec3(srgbToLinear(headSRGB.x), srgbToLinear(headSRGB.y), srgbToLinear(headSRGB.z)) * 0.8
        var layer = HairLayer()
        try timing.measure(.render) {
            try renderer.draw(camera: camera, headToCamera: headToCamera, occluder: occluder, shell: shell, strands: strands,
                              widths: widths, shading: HairShading(color: color), lighting: Lighting(), headAlbedoLinear: albedo)
            renderer.finish()
        }
        try timing.measure(.readback) { try renderer.readBack(into: &layer) }
        let backdrop = PixelImage(width: sizePx, height: sizePx, channels: 3, fill: background)
        let image = timing.measure(.composite) { compositor.composite(layer: layer, over: backdrop).composite }
        timing.strandCount = strands.strandCount
        timing.segmentCount = strands.segmentCount
        timing.imageWidth = sizePx
        timing.imageHeight = sizePx
        timing.renderer = renderer.context.renderer
        return image
    }
}
