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
            // Every face's head drawn once at the photo's camera; each person's skin region read from it, and
            // the skin it fills lit by it (the light read from the face's skin, which the parse locates).
            let width = frame.image.width, height = frame.image.height
            var drawn = HeadRender.draw(sized.map { var a = $0; a.ownHair = hair; return a }, head: head)
            // Each person's neck band: part of their skin region, and lit as the cylinder it is.
            let necks = persons.map { $0.map { HeadRegion.neckBand($0, classes: hair.classes, width: width, height: height) } }
            let heads = zip(persons, necks).compactMap { person, neck -> (person: PersonHead, region: [UInt8])? in
                guard let person, let neck else { return nil }
                var region = HeadRegion.skin(person, neck: neck, labels: drawn.labels, width: width, height: height)
                HeadRegion.joinVisibleEars(&region, person: person, classes: hair.classes, width: width, height: height)
                return (person, region)
            }
            for ((person, neck), luminance) in zip(zip(persons, necks), drawn.luminance) {
                guard let person, let neck, let luminance else { continue }
                HeadRender.shadeNeck(neck, jaw: Array(person.jaw[3...13]), luminance: luminance, width: width, height: height, buffers: &drawn)
            }
            let filled = try HairPlate.fill(frame, hair: hair, heads: heads, shade: drawn.shade, others: otherFaces(sized), seed: seed)
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
    package static func otherFaces(_ analyses: [PhotoAnalysis]) -> [FaceBox] {
        guard let first = analyses.first else { return [] }
        return first.faceBoxes.filter { box in !analyses.contains { FaceAnalyzer.overlap($0.chosen.box, box) > 0.5 } }
    }

    /// decode + analyse of one face of a photo file (`.all` gives the largest).
    public func analyse(photoPath: String, face choice: FaceChoice = .largest, fieldOfViewDegrees: Double? = nil,
                        timing: inout FrameTiming) throws -> PhotoAnalysis {
        let frame = try Self.decode(.file(path: photoPath), fieldOfViewDegrees: fieldOfViewDegrees, timing: &timing)
        return PhotoAnalysis(frame: frame, face: try analyzer.analyse(frame, face: choice == .all ? .largest : choice, timing: &timing))
    }
}
