// TryOnStages: the engine's stages before the render: decode (file → Frame), analyse (faces, landmarks,
// pose), and the own hair: parse (the network's matte, seed-free), plate (the photo with it taken away, per
// seed), the heads' silhouettes the plate fills. Each can be called on its own (a batch, a sheet, a test).
import CoifAssets
import CoifCore
import CoifGPU
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Foundation
import Logging

extension TryOnEngine {
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

    /// The analysis stage with this engine's face analyzer.
    public var analysisStage: AnalysisStage { AnalysisStage(analyzer: analyzer) }

    /// The own-hair stage with this engine's models (the face-parsing network loaded on first use).
    public func ownHairStage() throws -> OwnHairStage { OwnHairStage(parser: try faceParser(), analyzer: analyzer, head: head) }


    /// analyse: detect → landmarks → pose for the faces `choice` asks for (see FaceAnalyzer).
    public func analyse(_ frame: Frame, faces choice: FaceChoice = .largest, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        try analysisStage.analyse(frame, faces: choice, timing: &timing)
    }

    /// The face-parsing network (loaded on first use).
    public func faceParser() throws -> FaceParser {
        if let parser { return parser }
        let loaded = try FaceParser(modelPath: parserPath)
        parser = loaded
        return loaded
    }

    /// parse + plate (OwnHairStage.remove).
    public func removeOwnHair(_ analyses: [PhotoAnalysis], seed: UInt64, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        try ownHairStage().remove(analyses, plate: plateStage, seed: seed, timing: &timing)
    }

    /// parse (OwnHairStage.parse).
    public func parseOwnHair(_ analyses: [PhotoAnalysis], timing: inout FrameTiming) throws -> ParsedOwnHair {
        try ownHairStage().parse(analyses, timing: &timing)
    }

    /// plate (PlateStage.fill).
    public func fillPlate(_ parsed: ParsedOwnHair, seed: UInt64, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        try plateStage.fill(parsed, seed: seed, timing: &timing)
    }

    /// decode + analyse of one face of a photo file (`.all` gives the largest).
    public func analyse(photoPath: String, face choice: FaceChoice = .largest, fieldOfViewDegrees: Double? = nil,
                        timing: inout FrameTiming) throws -> PhotoAnalysis {
        let frame = try Self.decode(.file(path: photoPath), fieldOfViewDegrees: fieldOfViewDegrees, timing: &timing)
        return PhotoAnalysis(frame: frame, face: try analyzer.analyse(frame, face: choice == .all ? .largest : choice, timing: &timing))
    }
}
