// RenderSettings: the flags of a try-on beyond its photo, style and colour, as one Codable value with the
// command line's names: what `coif render`'s flags set, what a batch job file's "settings" (and each
// variant's and item's) say, and what a golden case's "flags" say. Every field is optional: nil keeps
// `coif render`'s default, and a later layer (an item over its job) overrides an earlier one field by field.
// Unknown keys are refused, so a misspelt "noShadow" is not silently ignored across a thousand renders.
import CoifCore
import CoifMedia
import CoifVision
import Foundation

public struct RenderSettings: Codable, Sendable, Equatable, Hashable {
    /// Child strand placement and per-strand variation (`--seed`, default 1).
    public var seed: UInt64?
    /// Strand count multiplier (`--detail`, 0.05–4, default 1).
    public var detail: Double?
    /// Exact strand count (`--strands`, 1–500,000).
    public var strands: Int?
    /// "largest", "all" or a 0-based index (`--face`).
    public var face: FaceSetting?
    /// Horizontal field of view in degrees (`--fov-degrees`).
    public var fovDegrees: Double?
    public var keepOwnHair: Bool?
    public var noShadows: Bool?
    public var studioLight: Bool?
    public var sharpHair: Bool?
    public var flatClumps: Bool?
    /// "fast" or "small" (`--png-compression`).
    public var pngCompression: String?

    public init(seed: UInt64? = nil, detail: Double? = nil, strands: Int? = nil, face: FaceSetting? = nil,
                fovDegrees: Double? = nil, keepOwnHair: Bool? = nil, noShadows: Bool? = nil, studioLight: Bool? = nil,
                sharpHair: Bool? = nil, flatClumps: Bool? = nil, pngCompression: String? = nil) {
        self.seed = seed
        self.detail = detail
        self.strands = strands
        self.face = face
        self.fovDegrees = fovDegrees
        self.keepOwnHair = keepOwnHair
        self.noShadows = noShadows
        self.studioLight = studioLight
        self.sharpHair = sharpHair
        self.flatClumps = flatClumps
        self.pngCompression = pngCompression
    }

    /// `--face` as JSON: the strings "largest" and "all", or a whole number.
    public enum FaceSetting: Codable, Sendable, Hashable {
        case largest, all, index(Int)

        public init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let index = try? c.decode(Int.self) {
                self = .index(index)
                return
            }
            switch try c.decode(String.self) {
            case "largest": self = .largest
            case "all": self = .all
            case let other:
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "face must be \"largest\", \"all\" or an index, got \"\(other)\"")
            }
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .largest: try c.encode("largest")
            case .all: try c.encode("all")
            case .index(let i): try c.encode(i)
            }
        }

        public init(_ choice: FaceChoice) {
            switch choice {
            case .largest: self = .largest
            case .all: self = .all
            case .index(let i): self = .index(i)
            }
        }

        public var choice: FaceChoice {
            switch self {
            case .largest: return .largest
            case .all: return .all
            case .index(let i): return .index(i)
            }
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case seed, detail, strands, face, fovDegrees, keepOwnHair, noShadows, studioLight, sharpHair, flatClumps, pngCompression
    }

    public init(from decoder: Decoder) throws {
        try StrictDecoding.refuseUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        do { seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) } catch {
            throw DecodingError.dataCorruptedError(forKey: .seed, in: c,
                                                   debugDescription: "bad seed: must be a whole number 0…18446744073709551615")
        }
        detail = try c.decodeIfPresent(Double.self, forKey: .detail)
        strands = try c.decodeIfPresent(Int.self, forKey: .strands)
        face = try c.decodeIfPresent(FaceSetting.self, forKey: .face)
        fovDegrees = try c.decodeIfPresent(Double.self, forKey: .fovDegrees)
        keepOwnHair = try c.decodeIfPresent(Bool.self, forKey: .keepOwnHair)
        noShadows = try c.decodeIfPresent(Bool.self, forKey: .noShadows)
        studioLight = try c.decodeIfPresent(Bool.self, forKey: .studioLight)
        sharpHair = try c.decodeIfPresent(Bool.self, forKey: .sharpHair)
        flatClumps = try c.decodeIfPresent(Bool.self, forKey: .flatClumps)
        pngCompression = try c.decodeIfPresent(String.self, forKey: .pngCompression)
    }

    /// Every field of `other` that is set, over this.
    public func overridden(by other: RenderSettings?) -> RenderSettings {
        guard let other else { return self }
        var s = self
        s.seed = other.seed ?? seed
        s.detail = other.detail ?? detail
        s.strands = other.strands ?? strands
        s.face = other.face ?? face
        s.fovDegrees = other.fovDegrees ?? fovDegrees
        s.keepOwnHair = other.keepOwnHair ?? keepOwnHair
        s.noShadows = other.noShadows ?? noShadows
        s.studioLight = other.studioLight ?? studioLight
        s.sharpHair = other.sharpHair ?? sharpHair
        s.flatClumps = other.flatClumps ?? flatClumps
        s.pngCompression = other.pngCompression ?? pngCompression
        return s
    }

    /// The settings on a job (the job's own values where a field is nil). The numeric ranges are checked
    /// by `TryOnJob.validate`; the PNG effort here.
    public func apply(to job: inout TryOnJob) throws {
        if let seed { job.seed = seed }
        if let detail { job.detail = detail }
        if let strands { job.strands = strands }
        if let face { job.face = face.choice }
        if let fovDegrees { job.fieldOfViewDegrees = fovDegrees }
        if let keepOwnHair { job.removesOwnHair = !keepOwnHair }
        if noShadows == true { job.look.lighting.keyShadow = nil }
        if let studioLight { job.lightsFromPhoto = !studioLight }
        if let sharpHair { job.matchesPhotoFinish = !sharpHair }
        if flatClumps == true { job.look.shading.clumpVariation = 0 }
        if let pngCompression {
            guard let compression = PNGCompression(rawValue: pngCompression) else {
                throw CoifError.invalidOption(name: "pngCompression", reason: "must be \"fast\" or \"small\", got \"\(pngCompression)\"")
            }
            job.outputs.compression = compression
        }
    }

    /// The settings as compact JSON with sorted keys: the same settings give the same bytes (a batch item's
    /// input hash includes them).
    public var canonicalJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }
}
