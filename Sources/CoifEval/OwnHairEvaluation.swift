// OwnHairEvaluation: does a try-on still show the person's own hair? The face-parsing network is asked
// about the output: of the own hair that the new style does not cover (the photo's own-hair matte ≥ 0.5
// where the new hair's matte < 0.1), what share does it label hair or hat? Measured with the own hair kept
// (the old behaviour) and removed, per photo and style. The judge is the network at its 512² input, so this
// says the hair is gone to a parser of that kind; the pictures in docs/own-hair.md say what a person sees.
import CoifCore
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation

public struct OwnHairMeasurement: Sendable, Codable {
    public var photo: String
    public var style: String
    /// Pixels of own hair the new style leaves uncovered.
    public var uncoveredPixels: Int
    /// Share of those the network labels hair or hat in the output, own hair kept.
    public var labelledHairKept: Double
    /// The same with the own hair removed (the default).
    public var labelledHairRemoved: Double
    /// What the removed region is labelled instead: background, skin (face, neck, ears), other.
    public var removedAsBackground: Double
    public var removedAsSkin: Double
    /// Milliseconds of parse and plate for the photo (once per photo, whatever the style).
    public var parseMs: Double
    public var plateMs: Double
}

public enum OwnHairEvaluation {
    /// `key` over `rows`, each weighted by its uncovered pixels (a large photo counts for more than a small
    /// one); 0 with none.
    public static func pixelWeighted(_ rows: [OwnHairMeasurement], _ key: (OwnHairMeasurement) -> Double) -> Double {
        let total = rows.reduce(0) { $0 + $1.uncoveredPixels }
        return total == 0 ? 0 : rows.reduce(0) { $0 + key($1) * Double($1.uncoveredPixels) } / Double(total)
    }

    /// The network that judges outputs: always the 512² one, whichever size removed the hair (a smaller
    /// input sees less hair to begin with and would flatter its own removal); the engine's when it is that.
    static func judge(_ engine: TryOnEngine) throws -> FaceParser {
        let removing = try engine.faceParser()
        return removing.inputSize == 512
            ? removing : try FaceParser(modelPath: ModelCache.path(FaceParser.modelFile(size: 512)))
    }

    /// The parse's classes counted as skin in a judged output: face, ears, earrings, neck.
    static let skinClasses: Set<UInt8> = [1, 7, 8, 9, 14]

    /// `photo` decoded, its largest face analysed and its own hair removed (seed 1: `analyses`, over that
    /// plate; `photo` gives another seed's), with the stages' timing; nil for a photo with no face (a video's
    /// title frame, say: no hair to measure).
    static func analysedWithoutOwnHair(_ photo: String, engine: TryOnEngine) throws
        -> (frame: Frame, photo: AnalysedPhoto, analyses: [PhotoAnalysis], timing: FrameTiming)? {
        var timing = FrameTiming()
        let frame = try TryOnEngine.decode(.file(path: photo), fieldOfViewDegrees: nil, timing: &timing)
        let found: [PhotoAnalysis]
        do { found = try engine.analyse(frame, faces: .largest, timing: &timing) } catch CoifError.noFace { return nil }
        let analysed = AnalysedPhoto(found)
        return (frame, analysed, try analysed.plated(seed: 1, engine: engine, timing: &timing), timing)
    }

    /// Measures every style in `styles` on every photo (the largest face).
    public static func run(engine: TryOnEngine, photos: [String], styles: [String], color: HairColor,
                           progress: (OwnHairMeasurement) -> Void = { _ in }) throws -> [OwnHairMeasurement] {
        let parser = try judge(engine)
        var rows: [OwnHairMeasurement] = []
        for photo in photos {
            guard let (frame, _, analyses, timing) = try analysedWithoutOwnHair(photo, engine: engine),
                  let own = analyses[0].ownHair else { continue }
            let box = analyses[0].chosen.box
            for style in styles {
                var job = TryOnJob(input: .frame(frame), style: style, look: HairLook(color: color))
                var t = FrameTiming()
                let removed = try engine.render(analyses, job: job, timing: &t)
                job.removesOwnHair = false
                let kept = try engine.render(analyses, job: job, timing: &t)
                let newHair = removed.images.matte.pixels
                let uncovered = (0..<own.matte.count).filter { own.matte[$0] >= 0.5 && newHair[$0] < 26 }
                func labels(_ image: PixelImage) throws -> [UInt8] {
                    try parser.parse(Frame(image: image, source: photo), box: box).classes
                }
                let keptClasses = try labels(kept.images.composite), removedClasses = try labels(removed.images.composite)
                func share(_ classes: [UInt8], _ test: (UInt8) -> Bool) -> Double {
                    uncovered.isEmpty ? 0 : Double(uncovered.filter { test(classes[$0]) }.count) / Double(uncovered.count)
                }
                let isHair: (UInt8) -> Bool = { $0 == OwnHair.hair || $0 == OwnHair.hat }
                let row = OwnHairMeasurement(
                    photo: (photo as NSString).lastPathComponent, style: style, uncoveredPixels: uncovered.count,
                    labelledHairKept: share(keptClasses, isHair), labelledHairRemoved: share(removedClasses, isHair),
                    removedAsBackground: share(removedClasses) { $0 == OwnHair.background },
                    removedAsSkin: share(removedClasses) { skinClasses.contains($0) },
                    parseMs: timing[.parse] ?? 0, plateMs: timing[.plate] ?? 0)
                progress(row)
                rows.append(row)
            }
        }
        return rows
    }
}
