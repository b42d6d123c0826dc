// PhotoAnalysis: the values that travel between the engine's stages: a frame's analysed faces (and, once
// the plate has run, its own hair, plate and the person's head), the parsed own hair, a still's result.
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
    /// How much of each photo pixel the plate filled with skin (0…1), lit by the drawn head (HeadRender).
    public var filledSkin: [Float]?
    /// How much of each photo pixel the plate took away (0…1; HairPlate.fill's removal, after the features and
    /// the other faces keep theirs).
    public var removal: [Float]?
    /// Coif's head resized to the person's (measured from the parse with the own hair; unscaled without it).
    public var sizing: HeadSizing = .unscaled
    /// The person's face frame with their own hairline (from the own hair's matte), once the plate has run:
    /// where each style's front is put (HairlineFit). nil keeps styles as grown.
    public var person: PersonHead?
    /// The photo's light read off this face, once it has been (`readLight`): the plate shades the hidden skin
    /// by it and the render lights the hair by the same reading.
    public var light: PhotoLightReading?

    public init(frame: Frame, face: FaceAnalysis) {
        self.frame = frame
        self.face = face
    }

    /// Every face kept in the frame, largest first.
    public var faceBoxes: [FaceBox] { face.faceBoxes }
    public var chosen: Face { face.chosen }
    public var intrinsics: PinholeCamera { face.intrinsics }
    public var pose: HeadPose { face.pose }
    public var faceWidthPx: Double { face.faceWidthPx }
    /// Head space (mm) → camera space (mm): the pose with the head resized to the person's. What the head,
    /// the groom and the plate's skin are drawn with.
    public var headToCamera: Mat4 { pose.modelToCamera * sizing.matrix }

    /// The photo's camera: its size and the intrinsics the pose was solved with.
    public var camera: PinholeCamera { intrinsics }
}

/// The light read off a face's skin: nil `estimate` where the face showed too little skin to read.
public struct PhotoLightReading: Sendable {
    public var estimate: PhotoLightEstimate?
    /// The light the hair is lit by where the shot settled it from its frames' readings (a clip eases each
    /// frame's reading across the shot, so the hair's shading does not flicker with the expression); nil: this
    /// frame's own estimate.
    public var shotLighting: Lighting?

    public init(estimate: PhotoLightEstimate?, shotLighting: Lighting? = nil) {
        self.estimate = estimate
        self.shotLighting = shotLighting
    }
}

extension PhotoAnalysis {
    /// The photo's light read off this face (PhotoLightEstimate.estimate: its skin as Coif's posed head sees it,
    /// fitted), or the reading it already carries. The one place the light is read: the plate (PlateStage) reads
    /// it before it shades the hidden skin, and the render (`TryOnEngine.photoLight`) takes that reading, or
    /// reads it where no plate ran.
    /// - Parameter normals: `head`'s vertex normals (outward, head space), from `vertexNormals`.
    public func readLight(head: HeadModel, normals: [Vec3]) -> PhotoLightReading {
        light ?? PhotoLightReading(estimate: PhotoLightEstimate.estimate(self, head: head, normals: normals))
    }
}

/// A frame's own hair, parsed, with its faces resized to the person's heads: what a plate is filled from.
public struct ParsedOwnHair: Sendable {
    public var analyses: [PhotoAnalysis]
    public var hair: OwnHair
    public var persons: [PersonHead?]

    public init(analyses: [PhotoAnalysis], hair: OwnHair, persons: [PersonHead?]) {
        self.analyses = analyses
        self.hair = hair
        self.persons = persons
    }
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
    /// The look the (first) face's hair was drawn with: its light, and with `own` the recipe solved for it.
    public var look: HairLook?

    public init(images: CompositeImages, ownHair: OwnHair? = nil, plate: PixelImage? = nil, timing: FrameTiming,
                levelOfDetail: LevelOfDetail, analysis: PhotoAnalysis, look: HairLook? = nil) {
        self.images = images
        self.ownHair = ownHair
        self.plate = plate
        self.timing = timing
        self.levelOfDetail = levelOfDetail
        self.analysis = analysis
        self.look = look
    }
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
