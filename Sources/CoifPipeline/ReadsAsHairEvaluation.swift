// ReadsAsHairEvaluation: does the new hair read as hair? The face-parsing network (the 512² judge, as in
// OwnHairEvaluation) is asked about the try-on: of the pixels the new style covers (its matte ≥ 0.5),
// what share does it label hair, and what share hat (the network's name for hair that sits on a head like
// a cap, the failure this measures)? Per photo and style, own hair removed (the default), so the old hair
// cannot lend the new its label.
import CoifCore
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Foundation

public struct ReadsAsHairMeasurement: Sendable, Codable {
    public var photo: String
    public var style: String
    /// Pixels the new hair covers (matte ≥ 0.5).
    public var hairPixels: Int
    /// Share of those the network labels hair.
    public var labelledHair: Double
    /// Share labelled hat.
    public var labelledHat: Double
    /// Share labelled background, skin (face, ears, neck) or anything else.
    public var labelledBackground: Double
    public var labelledSkin: Double
    /// How Coif's head was sized to the person's (HeadSizing): the residual scale and the lens factor.
    public var headScale: Float
    public var focalFactor: Double
}

public enum ReadsAsHairEvaluation {
    /// Measures every style in `styles` on every photo (the largest face), composites written to
    /// `outputDirectory` when given (`<photo>-<style>.png`) so the figures can be looked at.
    public static func run(engine: TryOnEngine, photos: [String], styles: [String], color: HairColor,
                           outputDirectory: String? = nil,
                           progress: (ReadsAsHairMeasurement) -> Void = { _ in }) throws -> [ReadsAsHairMeasurement] {
        let parser = try OwnHairEvaluation.judge(engine)
        var rows: [ReadsAsHairMeasurement] = []
        for photo in photos {
            guard let (frame, analyses, _) = try OwnHairEvaluation.analysedWithoutOwnHair(photo, engine: engine) else { continue }
            let box = analyses[0].chosen.box
            let stem = ((photo as NSString).lastPathComponent as NSString).deletingPathExtension
            for style in styles {
                let job = TryOnJob(input: .frame(frame), style: style, look: HairLook(color: color))
                var t = FrameTiming()
                let result = try engine.render(analyses, job: job, timing: &t)
                let matte = result.images.matte.pixels
                let covered = (0..<matte.count).filter { matte[$0] >= 128 }
                let classes = try parser.parse(Frame(image: result.images.composite, source: photo), box: box).classes
                func share(_ test: (UInt8) -> Bool) -> Double {
                    covered.isEmpty ? 0 : Double(covered.filter { test(classes[$0]) }.count) / Double(covered.count)
                }
                let row = ReadsAsHairMeasurement(
                    photo: (photo as NSString).lastPathComponent, style: style, hairPixels: covered.count,
                    labelledHair: share { $0 == OwnHair.hair }, labelledHat: share { $0 == OwnHair.hat },
                    labelledBackground: share { $0 == OwnHair.background },
                    labelledSkin: share { OwnHairEvaluation.skinClasses.contains($0) },
                    headScale: analyses[0].sizing.scale, focalFactor: analyses[0].sizing.focalFactor)
                if let outputDirectory {
                    try AtomicFile.write(try PNGFile.encode(result.images.composite),
                                         to: outputDirectory + "/\(stem)-\(style).png", createDirectories: true)
                }
                progress(row)
                rows.append(row)
            }
        }
        return rows
    }
}
