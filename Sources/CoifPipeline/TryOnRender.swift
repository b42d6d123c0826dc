// TryOnRender: scene → layers → composite for the analysed faces of one frame: one face drawn as it is,
// several laid over each other farthest first; the hair's region, the photo's finish and light, the scalp
// hair over the filled skin.
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Foundation
import Logging

/// What a shot holds steady, decided from its first frame (`TryOnEngine.shot(opening:style:job:)`): the strands'
/// level of detail and the style's slide onto the person's hairline. A still is a one-frame shot.
public struct Shot: Sendable, Equatable {
    public var levelOfDetail: LevelOfDetail
    public var slide: ScalpSlide?

    public init(levelOfDetail: LevelOfDetail, slide: ScalpSlide?) {
        self.levelOfDetail = levelOfDetail
        self.slide = slide
    }

    /// The face width's step (px) the level of detail is chosen at.
    public static let faceWidthStepPx = 16.0
}

extension TryOnEngine {
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

    /// scene → layers → composite for analysed faces of one frame in `style`. `shots` (one per face) holds what
    /// a shot keeps steady from its first frame, and each face's `light` the light it settled on (RenderStage,
    /// which calls this for every frame it draws); without them the frame is a one-frame shot of its own, drawn
    /// through a RenderStage, which is what a still is.
    public func render(_ analyses: [PhotoAnalysis], style: Style, job: TryOnJob, shots: [Shot]? = nil,
                       timing: inout FrameTiming) throws -> TryOnResult {
        guard analyses.first != nil else { throw CoifError.internalError("render: no faces") }
        guard let shots else { return try RenderStage(engine: self, style: style, job: job).process(analyses, shot: 0, timing: &timing) }
        guard shots.count == analyses.count else { throw CoifError.internalError("render: a shot for each face") }
        let analyses = try prepared(analyses, job: job, timing: &timing)
        var result = try renderOver(analyses, style: style, job: job, shots: shots, timing: &timing)
        if job.removesOwnHair {
            result.ownHair = analyses[0].ownHair
            result.plate = analyses[0].plate
        }
        return result
    }

    /// `analyses` with what `job` draws over: faces brought as analysed only (a one-off, a test) are parsed and
    /// filled for this job and kept by nothing. Many jobs over one photo go through an AnalysedPhoto, which keeps
    /// the parse and the plate; a clip's frames come with theirs.
    func prepared(_ analyses: [PhotoAnalysis], job: TryOnJob, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        guard (job.removesOwnHair && analyses[0].plate == nil) || (job.look.matchesOwnHair && analyses[0].ownHair == nil) else { return analyses }
        return try AnalysedPhoto(analyses).faces(for: job, engine: self, timing: &timing)
    }

    /// The hair composited over the plate when the job removes the own hair, else over the photo.
    func renderOver(_ analyses: [PhotoAnalysis], style: Style, job: TryOnJob, shots: [Shot], timing: inout FrameTiming) throws -> TryOnResult {
        let first = analyses[0]
        let image = job.removesOwnHair ? first.plate! : first.frame.image
        if analyses.count == 1 {
            let finish = photoFinish(job, analysis: first, timing: &timing)
            let region = holdingScalpHair(try hairRegion(analysis: first, style: style, slide: shots[0].slide, extraMarginPx: finish?.blurRadiusPx ?? 0),
                                          job: job, analysis: first)
            let scene = try timing.measure(.scene) { try self.scene(for: first, style: style, job: job, shot: shots[0]) }
            let look = try drawLook(job, scene: scene, analysis: first, region: region, timing: &timing)
            let shadowed = try timing.measure(.readback) { try renderer.readSkinLight(into: &skinLight) }
            let images = timing.measure(.composite) { () -> CompositeImages in
                if shadowed {
                    occludeSkin(&skinLight, under: layer, faceWidthPx: first.faceWidthPx)
                    keepShadowOnSkin(&skinLight, region: region, analysis: first)
                }
                if let finish { layer.blur(sigmaPx: finish.layerBlurSigmaPx, scratch: &blurScratch) }
                let under = coveredOwnHairKept(job, plate: image, analysis: first, layer: layer, region: region)
                return compositor.composite(layer: layer, at: region, over: under, grain: finish.map { Grain(sigma: $0.grainSigma, seed: job.seed) },
                                            lightLeft: shadowed ? skinLight : nil,
                                            scalpHair: job.removesOwnHair ? scalpHair(first, style: style) : nil)
            }
            record(&timing, image: image, strands: scene.strands.strandCount, segments: scene.strands.segmentCount, faceWidthPx: first.faceWidthPx)
            return TryOnResult(images: images, timing: timing, levelOfDetail: scene.levelOfDetail, analysis: first, look: look)
        }
        return try renderAll(analyses, style: style, job: job, shots: shots, over: image, timing: &timing)
    }

    /// Hair on every analysed face of one frame. Each face's hair layer is drawn as one face's is, then the
    /// layers are laid over each other farthest first (decreasing tvec z: the head origin's depth in the
    /// camera), so a nearer head's hair covers a farther one's: `acc = layer + (1 − α_layer)·acc` in
    /// premultiplied linear light, then composited over the photo once, exactly as a single layer is. The
    /// result's analysis and level of detail are the first (largest) face's; the timing's strand and
    /// segment counts are the sums over faces.
    func renderAll(_ analyses: [PhotoAnalysis], style: Style, job: TryOnJob, shots: [Shot], over image: PixelImage,
                   timing: inout FrameTiming) throws -> TryOnResult {
        let first = analyses[0]
        // The largest face's grain and softness for every face's hair.
        let finish = photoFinish(job, analysis: first, timing: &timing)
        let margin = finish?.blurRadiusPx ?? 0
        // One crop holding every face's hair, so the layers line up pixel for pixel.
        let region = holdingScalpHair(try zip(analyses, shots).dropFirst().map { try hairRegion(analysis: $0, style: style, slide: $1.slide, extraMarginPx: margin) }
            .reduce(try hairRegion(analysis: first, style: style, slide: shots[0].slide, extraMarginPx: margin)) { $0.union($1) }, job: job, analysis: first)
        var accumulated = HairLayer(width: region.width, height: region.height)
        // Every face's hair shadow on its own skin, multiplied (R).
        var lightLeft: HairLayer?
        var strandCount = 0, segmentCount = 0
        var firstLod: LevelOfDetail?
        var firstLook: HairLook?
        let farthestFirst = analyses.enumerated().sorted { a, b in
            a.element.pose.tvec[2] != b.element.pose.tvec[2] ? a.element.pose.tvec[2] > b.element.pose.tvec[2] : a.offset < b.offset
        }
        for (index, analysis) in farthestFirst {
            let scene = try timing.measure(.scene) { try self.scene(for: analysis, style: style, job: job, shot: shots[index]) }
            let faceLook = try drawLook(job, scene: scene, analysis: analysis, region: region, timing: &timing)
            if index == 0 { firstLod = scene.levelOfDetail; firstLook = faceLook }
            if try timing.measure(.readback, { try renderer.readSkinLight(into: &skinLight) }) {
                if lightLeft == nil {
                    var all = HairLayer(width: region.width, height: region.height)
                    for p in 0..<(region.width * region.height) { all.rgba[p * 4] = 1 }
                    lightLeft = all
                }
                for p in 0..<(region.width * region.height) {
                    lightLeft!.rgba[p * 4] *= skinLight.rgba[p * 4]
                    lightLeft!.rgba[p * 4 + 3] = max(lightLeft!.rgba[p * 4 + 3], skinLight.rgba[p * 4 + 3])   // any head
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
            if lightLeft != nil {
                occludeSkin(&lightLeft!, under: accumulated, faceWidthPx: first.faceWidthPx)
                keepShadowOnSkin(&lightLeft!, region: region, analysis: first)
            }
            if let finish { accumulated.blur(sigmaPx: finish.layerBlurSigmaPx, scratch: &blurScratch) }
            let under = coveredOwnHairKept(job, plate: image, analysis: first, layer: accumulated, region: region)
            return compositor.composite(layer: accumulated, at: region, over: under, grain: finish.map { Grain(sigma: $0.grainSigma, seed: job.seed) },
                                        lightLeft: lightLeft,
                                        scalpHair: job.removesOwnHair ? scalpHair(first, style: style) : nil)
        }
        record(&timing, image: image, strands: strandCount, segments: segmentCount, faceWidthPx: first.faceWidthPx)
        return TryOnResult(images: images, timing: timing, levelOfDetail: firstLod!, analysis: first, look: firstLook)
    }

    /// `region` grown to hold the cropped scalp hair, which is composited in the same pass as the new hair.
    func holdingScalpHair(_ region: PixelRect, job: TryOnJob, analysis: PhotoAnalysis) -> PixelRect {
        guard job.removesOwnHair, cropsToHair, let scalp = analysis.scalpHair?.bounds else { return region }
        return region.union(scalp)
    }

    /// The analysis's cropped scalp hair as `style` wears it: stubble under a style with shaved sides.
    func scalpHair(_ analysis: PhotoAnalysis, style: Style) -> ScalpHair? {
        guard var scalp = analysis.scalpHair else { return nil }
        if style.entry.tags.contains(ScalpHair.shavedSidesTag) { scalp.density = ScalpHair.stubbleDensity }
        return scalp
    }

    /// The plate with the own hair put back where the new hair covers it densely (`CoveredOwnHair`): only what
    /// would show is removed. The photo as it is when the job keeps the own hair.
    func coveredOwnHairKept(_ job: TryOnJob, plate: PixelImage, analysis: PhotoAnalysis, layer: HairLayer,
                                    region: PixelRect) -> PixelImage {
        guard job.removesOwnHair else { return plate }
        // Blurred over ~3% of the face's width: a gap between strands is "covered", the style's edge is not.
        return CoveredOwnHair.restore(plate: plate, photo: analysis.frame.image, layer: layer, at: region,
                                      sigmaPx: max(1, Float(analysis.faceWidthPx) * 0.03), scratch: &blurScratch)
    }

    func record(_ timing: inout FrameTiming, image: PixelImage, strands: Int, segments: Int, faceWidthPx: Double) {
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
        let style = try styles.resolve(name)
        return try hairRegion(analysis: analysis, style: style, slide: try hairlineFit(analysis, style: style),
                              extraMarginPx: PhotoFinish.estimate(analysis)?.blurRadiusPx ?? 0)
    }

    /// - Parameters:
    ///   - slide: the style's slide onto the person's hairline (the shot's).
    ///   - extraMarginPx: more room around the hair (the reach of the layer's blur).
    func hairRegion(analysis: PhotoAnalysis, style: Style, slide: ScalpSlide?, extraMarginPx: Int = 0) throws -> PixelRect {
        let camera = analysis.camera
        guard cropsToHair else { return PixelRect(x: 0, y: 0, width: camera.widthPx, height: camera.heightPx) }
        let box = try styles.headSpaceBox(style, marginMm: Self.hairBoxMarginMm, slid: slide)
        return camera.pixelsCovering(low: box.low, high: box.high, headToCamera: analysis.headToCamera,
                                     marginPx: Self.hairRegionMarginPx + extraMarginPx) ?? PixelRect(x: 0, y: 0, width: 1, height: 1)
    }

    /// The hair's occlusion of the skin beside and under it (HairOcclusion), over a reach in pixels from the
    /// face's width, into the skin's light left; before the layer's blur, from the hair as drawn.
    func occludeSkin(_ lightLeft: inout HairLayer, under hair: HairLayer, faceWidthPx: Double) {
        let reachPx = HairOcclusion.reachMm * Float(faceWidthPx / LevelOfDetail.faceWidthMm)
        HairOcclusion.apply(to: &lightLeft, hair: hair, reachPx: reachPx, scratch: &occlusionScratch)
    }

    /// The hair's shadow and occlusion (`lightLeft`'s R, over `region`) kept to the person's skin: the parse's
    /// skin classes (`OwnHair.isSkin`) and the skin the plate filled. Drawn on Coif's head mesh alone, they
    /// darkened whatever that mesh's silhouette covered past the person's own outline: under a bob, a rectangle
    /// of the wall beside insightface 1423's neck, 162 → 127 of 255, with a square corner. Without a parse
    /// (the own hair kept and not parsed) the mesh's silhouette stays the guide.
    func keepShadowOnSkin(_ lightLeft: inout HairLayer, region: PixelRect, analysis: PhotoAnalysis) {
        guard let hair = analysis.ownHair, hair.width == analysis.frame.image.width else { return }
        let filled = analysis.filledSkin
        for row in 0..<region.height {
            for column in 0..<region.width {
                let i = (region.y + row) * hair.width + region.x + column
                if OwnHair.isSkin(hair.classes[i]) || (filled.map { $0[i] > 0 } ?? false) { continue }
                lightLeft.rgba[(row * region.width + column) * 4] = 1
            }
        }
    }

    /// The photo's grain and softness at `analysis`'s face when the job matches them (timed with the scene).
    func photoFinish(_ job: TryOnJob, analysis: PhotoAnalysis, timing: inout FrameTiming) -> PhotoFinish? {
        guard job.matchesPhotoFinish else { return nil }
        let finish = timing.measure(.scene) { PhotoFinish.estimate(analysis) }
        if let finish {
            logger.debug("finish from the photo", metadata: ["noise": "\(finish.noiseSigma)", "blur": "\(finish.blurSigmaPx)"])
        }
        return finish
    }

    /// What a shot holds steady from its first frame, `first`: the strands' level of detail (the job's pinned
    /// one, else the one a face of `first`'s width deserves for `style`, the width rounded to 16 px so segments of
    /// one clip, whose first frames differ by a pixel, pick the same) and the style's slide onto the person's
    /// hairline. A still is a one-frame shot: a clip's frame and a still of it draw the same strands.
    public func shot(opening first: PhotoAnalysis, style: Style, job: TryOnJob) throws -> Shot {
        let faceWidthPx = max(Shot.faceWidthStepPx, (first.faceWidthPx / Shot.faceWidthStepPx).rounded() * Shot.faceWidthStepPx)
        let lod = try job.levelOfDetail ?? styles.levelOfDetail(style, faceWidthPx: faceWidthPx, detail: job.detail, strands: job.strands)
        return Shot(levelOfDetail: lod, slide: try hairlineFit(first, style: style))
    }

    /// scene: the style's strands at the shot's level of detail, slid as the shot slides them, and its
    /// under-layer, on the GPU.
    func scene(for analysis: PhotoAnalysis, style: Style, job: TryOnJob, shot: Shot) throws -> HairScene {
        let lod = shot.levelOfDetail, slide = shot.slide
        if let slide {
            logger.debug("hairline fit", metadata: ["style": "\(style.name)", "tiltDegrees": "\(slide.tilt * 180 / .pi)",
                                                    "hairlinePx": "\(analysis.person?.hairlineHeight ?? 0)"])
        }
        let strands = try strandGeometry(style: style, lod: lod, seed: job.seed, slide: slide)
        let widths = StrandWidths(style: style.entry, widthScale: lod.widthScale)
        return HairScene(style: style, slide: slide, levelOfDetail: lod, strands: strands,
                         shell: try shellGeometry(style: style, slide: slide), widths: widths)
    }

    /// How `style` sits on `analysis`'s head: its front slid to the person's own hairline where the plate
    /// found the person's head (HairlineFit), as grown otherwise. Once per shot (`shot(opening:)`).
    func hairlineFit(_ analysis: PhotoAnalysis, style: Style) throws -> ScalpSlide? {
        guard let person = analysis.person, let front = try styles.frontHairline(style) else { return nil }
        return HairlineFit.fit(front: front, person: person, analysis: analysis, head: head)
    }

    /// The photo's light read off `analysis`'s face: its skin as Coif's posed head sees it
    /// (PhotoLightEstimate.skinSamples), fitted (PhotoLightEstimate.estimate); nil where the face shows too little
    /// skin to read. Timed with the scene. A still lights its hair by it; a clip eases it across the shot.
    public func photoLight(_ analysis: PhotoAnalysis, timing: inout FrameTiming) -> PhotoLightEstimate? {
        timing.measure(.scene) { analysis.readLight(head: head, normals: plateStage.normals).estimate }
    }

    /// The job's look, lit by the light the shot settled on for `analysis`'s face (RenderStage: the photo's light
    /// read off the face, eased across a clip's shot) when the job asks for the photo's light.
    func look(_ job: TryOnJob, analysis: PhotoAnalysis) -> HairLook {
        var look = job.look
        if job.lightsFromPhoto, let settled = analysis.light?.shotLighting { look.lighting = settled }
        return look
    }

    /// The job's look for this face (lit by its skin, `look`) drawn into `layer`; returns it. With `--color
    /// own` its recipe is solved from the face's own hair under that light (OwnHairColor), drawn, the solid
    /// pixels measured against the own hair and, where they differ, solved once more and drawn again.
    /// Throws `noOwnHair` when the face shows no own hair to read.
    func drawLook(_ job: TryOnJob, scene: HairScene, analysis: PhotoAnalysis, region: PixelRect,
                  timing: inout FrameTiming) throws -> HairLook {
        var look = look(job, analysis: analysis)
        guard look.matchesOwnHair else {
            try drawLayer(scene, analysis: analysis, region: region, look: look, timing: &timing)
            return look
        }
        guard let own = timing.measure(.scene, { OwnHairColor.tone(analysis) }) else { throw CoifError.noOwnHair(path: job.input.name) }
        let target = own.linear
        look = timing.measure(.scene) { OwnHairColor.solved(look, targetLinear: target) }
        try drawLayer(scene, analysis: analysis, region: region, look: look, timing: &timing)
        var shown: [Vec3] = []
        var draws: [OwnHairColor.Draw] = []
        var lastTarget = target
        let faceExposure = look.lighting.exposure
        for _ in 0..<OwnHairColor.maximumRedraws {
            guard let rendered = HairTone(layer: layer) else { break }
            shown.append(rendered.lab)
            guard rendered.deltaE76(own) > OwnHairColor.redrawAboveDeltaE else { break }
            draws.append(OwnHairColor.Draw(look, rendered: rendered))
            let wanted = OwnHairColor.wantedTarget(own: own, draws: draws)
            look = OwnHairColor.lit(look, toShow: wanted, over: faceExposure)
            let next = OwnHairColor.withinReach(wanted, lights: look.lighting)
            // The same target again draws the same hair (a dark own hair whose response is held at its bound:
            // deepface couple's drew seven identical redraws, 5 s).
            if next == lastTarget { break }
            lastTarget = next
            look = timing.measure(.scene) { OwnHairColor.solved(look, targetLinear: next) }
            try drawLayer(scene, analysis: analysis, region: region, look: look, timing: &timing)
        }
        logger.debug("own hair colour", metadata: [
            "ownLab": "\(own.lab)", "pixels": "\(own.pixelCount)", "rendersLab": "\(shown)",
            "melanin": "\(look.shading.recipe.base.melanin)", "redness": "\(look.shading.recipe.base.redness)",
            "dye": "\(look.shading.recipe.base.dyeSigmaA)"])
        look.matchesOwnHair = false
        return look
    }

    /// layers: render and read back one face's hair, over `region` of the photo, into `layer`.
    func drawLayer(_ scene: HairScene, analysis: PhotoAnalysis, region: PixelRect, look: HairLook,
                           timing: inout FrameTiming) throws {
        try renderer.drawAndReadBack(camera: analysis.camera.cropped(to: region), headToCamera: analysis.headToCamera,
                                     occluder: occluder, shell: scene.shell, strands: scene.strands, widths: scene.widths,
                                     shading: look.shading, lighting: look.lighting, into: &layer, timing: &timing)
    }
}
