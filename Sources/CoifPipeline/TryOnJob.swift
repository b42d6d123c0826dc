// TryOnJob: one try-on as one validated value: the input (a photo file or a decoded frame), the style, the
// look, the seed, the camera and detail flags, and the outputs. The CLI, a golden manifest case, a sheet cell
// and a batch item all decode into it, and `validate` gives the same error whoever calls, before any
// expensive work and before anything is written.
import CoifCore
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Foundation

/// What a job reads: a photo file (decoded by the pipeline's decode stage) or a frame already in memory.
public enum JobInput: Sendable {
    case file(path: String)
    case frame(Frame)

    /// The input's name in messages: the path, or the frame's source label.
    public var name: String {
        switch self {
        case .file(let path): return path
        case .frame(let frame): return frame.source
        }
    }
}

/// Where a job's results go. Every path is written whole or not at all (AtomicFile).
public struct TryOnOutputs: Sendable, Equatable {
    /// The composite PNG; nil = keep the images in memory only (a library caller, a sheet cell).
    public var composite: String?
    /// Writes hair.png and matte.png (and own-hair-matte.png, filled.png) here when set; made if missing.
    public var layersDirectory: String?
    /// The stage timings as JSON.
    public var timingPath: String?
    public var compression: PNGCompression = .fast

    public init(composite: String? = nil, layersDirectory: String? = nil, timingPath: String? = nil,
                compression: PNGCompression = .fast) {
        self.composite = composite
        self.layersDirectory = layersDirectory
        self.timingPath = timingPath
        self.compression = compression
    }

    /// Every file the outputs name, in writing order.
    public var paths: [String] {
        var all: [String] = []
        if let composite { all.append(composite) }
        all += layerPaths
        if let timingPath { all.append(timingPath) }
        return all
    }

    /// The files `--layers DIR` names; their directory is made when missing.
    public var layerPaths: [String] {
        guard let layersDirectory else { return [] }
        return ["hair.png", "matte.png", "own-hair-matte.png", "filled.png"].map { layersDirectory + "/" + $0 }
    }
}

/// One try-on, with the defaults `coif render` gives.
public struct TryOnJob: Sendable {
    public var input: JobInput
    /// A catalog name or a groom file (see `StyleLibrary.resolve`); nil = the catalog's default.
    public var style: String?
    /// The hair's colour and shading, and the lights.
    public var look: HairLook
    /// Child strand placement and per-strand variation.
    public var seed: UInt64 = 1
    /// The photo camera's horizontal field of view; nil = EXIF focal length, else `FaceAnalyzer.defaultFieldOfViewDegrees`.
    public var fieldOfViewDegrees: Double?
    public var face: FaceChoice = .largest
    /// Multiplies the level of detail's strand count (0.05–4).
    public var detail: Double = 1
    /// Replaces the level of detail's strand count (guides plus children) when set (1–500,000).
    public var strands: Int?
    /// When set (the frames of one shot), used as it is instead of being chosen from the face's size, so
    /// the strand count does not flicker as the face moves.
    public var levelOfDetail: LevelOfDetail?
    /// Take the person's own hair away (parse, then fill with skin and background) before the new hair is
    /// composited; off, the new hair is drawn over the photo as it is (`--keep-own-hair`).
    public var removesOwnHair = true
    /// Light the hair as the photo's face is lit (PhotoLightEstimate) instead of with `look.lighting`'s
    /// own directions and colours (its shadow settings are kept either way).
    public var lightsFromPhoto = true
    /// Give the hair the photo's grain and softness at the face (PhotoFinish); off, the render's own
    /// sharpness and no grain (`--sharp-hair`).
    public var matchesPhotoFinish = true
    public var outputs = TryOnOutputs()

    public init(input: JobInput, style: String? = nil, look: HairLook, outputs: TryOnOutputs = TryOnOutputs()) {
        self.input = input
        self.style = style
        self.look = look
        self.outputs = outputs
    }

    /// A photo file, a colour, an output: what `coif render PHOTO --color C -o OUT` asks for.
    public init(photoPath: String, style: String? = nil, color: HairColor, outputPath: String? = nil) {
        self.init(input: .file(path: photoPath), style: style, look: HairLook(color: color),
                  outputs: TryOnOutputs(composite: outputPath))
    }

    /// The smallest and largest `detail`.
    public static let detailRange = 0.05...4.0

    /// Checks every field, resolves the style and checks every output, in that order; throws the first
    /// problem as a CoifError naming the option (or the file). Writes nothing.
    @discardableResult
    public func validate(styles: StyleLibrary) throws -> Style {
        try validateSettings()
        let style = try styles.resolve(style)
        try OutputPaths.checkWritable(outputs.paths, inputs: inputPaths(style: style, styles: styles), creatable: outputs.layerPaths)
        return style
    }

    /// The render's settings alone (field of view, detail, strands, face, a pinned level of detail), before
    /// any style or file is looked at: what a command checks before it loads a model.
    public func validateSettings() throws {
        try FaceAnalyzer.checkFieldOfView(fieldOfViewDegrees)
        guard Self.detailRange.contains(detail) else {
            throw CoifError.invalidOption(name: "--detail", reason: "must be between 0.05 and 4, got \(detail)")
        }
        try LevelOfDetail.checkStrands(strands)
        if case .index(let i) = face, i < 0 {
            throw CoifError.invalidOption(name: "--face", reason: "must be 'largest', 'all' or a 0-based index, got \(i)")
        }
        if let lod = levelOfDetail, lod.strandCount < 1 || lod.pointsPerStrand < 2 || !(lod.widthScale > 0) {
            throw CoifError.invalidOption(name: "levelOfDetail", reason: "needs ≥ 1 strand of ≥ 2 points and a positive width scale")
        }
    }

    /// The files the job reads (a photo, the style's files and every user catalog): no output may be one of them.
    func inputPaths(style: Style, styles: StyleLibrary) -> [String] {
        var paths: [String] = []
        if case .file(let path) = input { paths.append(path) }
        return paths + styles.inputPaths(style)
    }
}
