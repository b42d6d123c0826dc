// AnalysedPhoto: one photo's analysed faces and what every try-on of it shares, the one per-photo cache of the
// pipeline. A contact sheet, a golden suite, a batch worker's photo group, the still benchmark and the
// evaluations render many jobs over one photo through one of these; the engine keeps nothing between stills
// but its GPU caches (strands, under-layers), so no render depends on what an earlier one left behind.
import CoifCore
import Foundation

public final class AnalysedPhoto {
    /// The faces as the analysis found them (decode, detection, landmarks, pose), without own hair or plate.
    public let analyses: [PhotoAnalysis]
    /// The own hair's parse, made at the first job that needs it (or handed over by a caller that parsed
    /// ahead, as a batch worker's analysis thread does). Seed-free: every seed's plate is filled from it.
    public private(set) var parsed: ParsedOwnHair?
    /// The plate of the seed last asked for. One at a time: a 9-megapixel plate with its skin and scalp
    /// weights is ~140 MB, so a batch renders a photo's items in seed order and each seed's plate is filled once.
    private var plate: (seed: UInt64, faces: [PhotoAnalysis])?

    public init(_ analyses: [PhotoAnalysis], parsed: ParsedOwnHair? = nil) {
        precondition(!analyses.isEmpty, "a photo with no face has nothing to render over")
        self.analyses = analyses
        self.parsed = parsed
    }

    /// The own hair's parse (made now the first time).
    public func parse(engine: TryOnEngine, timing: inout FrameTiming) throws -> ParsedOwnHair {
        if let parsed { return parsed }
        let made = try engine.parseOwnHair(analyses, timing: &timing)
        parsed = made
        return made
    }

    /// The faces `job` renders over: with the plate of its seed when it removes the own hair (filled from the
    /// kept parse when the seed changes), with the own hair read when it asks for `own` over the own hair,
    /// else as analysed.
    public func faces(for job: TryOnJob, engine: TryOnEngine, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        if job.removesOwnHair { return try plated(seed: job.seed, engine: engine, timing: &timing) }
        if job.look.matchesOwnHair {
            let own = try parse(engine: engine, timing: &timing).hair
            return analyses.map { analysis in
                var analysis = analysis
                analysis.ownHair = own
                return analysis
            }
        }
        return analyses
    }

    /// The faces over the plate of `seed` (the own hair taken away; the camera and pose as the parse refitted
    /// them), filled from the kept parse unless it is the seed last asked for.
    public func plated(seed: UInt64, engine: TryOnEngine, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        if let plate, plate.seed == seed { return plate.faces }
        plate = nil  // dropped before the next is filled
        let faces = try engine.fillPlate(try parse(engine: engine, timing: &timing), seed: seed, timing: &timing)
        plate = (seed, faces)
        return faces
    }

    /// `job` rendered over this photo (its input is this photo's frame whatever the job names).
    public func render(_ job: TryOnJob, engine: TryOnEngine, timing: inout FrameTiming) throws -> TryOnResult {
        try engine.render(try faces(for: job, engine: engine, timing: &timing), job: job, timing: &timing)
    }
}
