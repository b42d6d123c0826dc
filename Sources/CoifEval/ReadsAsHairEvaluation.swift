// ReadsAsHairEvaluation: does the new hair read as hair? The face-parsing network (the 512² judge, as in
// OwnHairEvaluation) is asked about the try-on: of the pixels the new style covers (its matte ≥ 0.5),
// what share does it label hair, and what share hat (the network's name for hair that sits on a head like
// a cap, the failure this measures)? Per photo and style, own hair removed (the default), so the old hair
// cannot lend the new its label.
import CoifCore
import CoifGroom
import CoifMedia
import CoifPipeline
import CoifRender
import CoifVision
import Foundation

public struct ReadsAsHairMeasurement: Sendable, Codable {
    public var photo: String
    public var style: String
    /// The render's seed (its child strands and their dither).
    public var seed: UInt64
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

    public init(photo: String, style: String, seed: UInt64, hairPixels: Int, labelledHair: Double, labelledHat: Double,
                labelledBackground: Double, labelledSkin: Double, headScale: Float, focalFactor: Double) {
        self.photo = photo
        self.style = style
        self.seed = seed
        self.hairPixels = hairPixels
        self.labelledHair = labelledHair
        self.labelledHat = labelledHat
        self.labelledBackground = labelledBackground
        self.labelledSkin = labelledSkin
        self.headScale = headScale
        self.focalFactor = focalFactor
    }
}


public enum ReadsAsHairEvaluation {
    /// Where `--images` puts a composite: `<photo's stem>-<style>.png`, `-s<seed>` added past the first seed.
    static func imagePath(_ directory: String, photo: String, style: String, seed: UInt64, first: UInt64?) -> String {
        let stem = ((photo as NSString).lastPathComponent as NSString).deletingPathExtension
        return directory + "/\(stem)-\(style)\(seed == first ? "" : "-s\(seed)").png"
    }

    /// Measures every style in `styles` on every photo (the largest face), once per render seed in `seeds`,
    /// composites written to `outputDirectory` when given (`<photo>-<style>.png`, `-s<seed>` added past
    /// the first seed) so the figures can be looked at. The network's verdict on a style is close to
    /// all-or-nothing per picture and can flip between two renders that differ only in their child strands,
    /// so a figure over several seeds says more than one render.
    public static func run(engine: TryOnEngine, photos: [String], styles: [String], color: HairColor,
                           seeds: [UInt64] = [1], outputDirectory: String? = nil,
                           progress: (ReadsAsHairMeasurement) -> Void = { _ in }) throws -> [ReadsAsHairMeasurement] {
        // A photo named like a composite (`a-bob.png` beside `a.png`) would be written over.
        if let outputDirectory {
            try OutputPaths.check(photos.flatMap { photo in styles.flatMap { style in seeds.map { seed in
                imagePath(outputDirectory, photo: photo, style: style, seed: seed, first: seeds.first)
            } } }, inputs: photos)
        }
        let parser = try OwnHairEvaluation.judge(engine)
        var rows: [ReadsAsHairMeasurement] = []
        for photo in photos {
            guard let (frame, analysed, analyses, _) = try OwnHairEvaluation.analysedWithoutOwnHair(photo, engine: engine) else { continue }
            let box = analyses[0].chosen.box
            // Seed by seed, each over its own plate (one at a time, as AnalysedPhoto keeps it), reported style by
            // style as before.
            var photoRows = [[ReadsAsHairMeasurement?]](repeating: [ReadsAsHairMeasurement?](repeating: nil, count: seeds.count),
                                                         count: styles.count)
            for (k, seed) in seeds.enumerated() {
                var t = FrameTiming()
                let plated = try analysed.plated(seed: seed, engine: engine, timing: &t)
                for (j, style) in styles.enumerated() {
                    var job = TryOnJob(input: .frame(frame), style: style, look: HairLook(color: color))
                    job.seed = seed
                    let result = try engine.render(plated, job: job, timing: &t)
                    let matte = result.images.matte.pixels
                    let covered = (0..<matte.count).filter { matte[$0] >= 128 }
                    let classes = try parser.parse(Frame(image: result.images.composite, source: photo), box: box).classes
                    func share(_ test: (UInt8) -> Bool) -> Double {
                        covered.isEmpty ? 0 : Double(covered.filter { test(classes[$0]) }.count) / Double(covered.count)
                    }
                    photoRows[j][k] = ReadsAsHairMeasurement(
                        photo: (photo as NSString).lastPathComponent, style: style, seed: seed, hairPixels: covered.count,
                        labelledHair: share { $0 == OwnHair.hair }, labelledHat: share { $0 == OwnHair.hat },
                        labelledBackground: share { $0 == OwnHair.background },
                        labelledSkin: share { OwnHairEvaluation.skinClasses.contains($0) },
                        headScale: plated[0].sizing.scale, focalFactor: plated[0].sizing.focalFactor)
                    if let outputDirectory {
                        try AtomicFile.write(try PNGFile.encode(result.images.composite),
                                             to: imagePath(outputDirectory, photo: photo, style: style, seed: seed, first: seeds.first),
                                             createDirectories: true)
                    }
                }
            }
            for row in photoRows.joined().compactMap({ $0 }) {
                progress(row)
                rows.append(row)
            }
        }
        return rows
    }

    /// One style's figures over its rows: the mean share labelled hair over every photo and seed; the worst
    /// photo's mean over the seeds; and the lowest and highest of the per-seed means over the photos.
    public struct Summary: Sendable, Equatable {
        public var mean: Double
        public var worstPhoto: Double
        public var seedMeans: ClosedRange<Double>
    }

    public static func summary(_ rows: [ReadsAsHairMeasurement]) -> Summary? {
        guard !rows.isEmpty else { return nil }
        func mean(_ group: [ReadsAsHairMeasurement]) -> Double { group.reduce(0) { $0 + $1.labelledHair } / Double(group.count) }
        let byPhoto = Dictionary(grouping: rows, by: \.photo).values.map(mean)
        let bySeed = Dictionary(grouping: rows, by: \.seed).values.map(mean)
        return Summary(mean: mean(rows), worstPhoto: byPhoto.min() ?? 0, seedMeans: (bySeed.min() ?? 0)...(bySeed.max() ?? 0))
    }
}
