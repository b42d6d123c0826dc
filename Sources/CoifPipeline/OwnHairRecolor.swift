// OwnHairRecolor: `coif recolor`: the person's own hair recoloured in linear light, nothing else touched.
// decode → analyse (the faces, for the parse's crop) → parse (or a matte given) → recolour → encode + write.
import CoifCore
import CoifMedia
import CoifRender
import CoifVision
import Foundation

public struct RecolorJob: Sendable {
    public var photoPath: String
    public var color: HairColor
    public var outputPath: String
    /// A gray PNG of the photo's size to use as the hair's matte instead of the network's.
    public var mattePath: String?
    /// 0…1: how far toward the target colour.
    public var strength: Float = 1
    public var face: FaceChoice = .largest

    public init(photoPath: String, color: HairColor, outputPath: String) {
        self.photoPath = photoPath
        self.color = color
        self.outputPath = outputPath
    }

    /// Checks the strength and the output (not an input) before any work.
    public func validate() throws {
        guard strength >= 0 && strength <= 1 else {
            throw CoifError.invalidOption(name: "--strength", reason: "must be between 0 and 1, got \(strength)")
        }
        if case .index(let i) = face, i < 0 {
            throw CoifError.invalidOption(name: "--face", reason: "must be 'largest', 'all' or a 0-based index, got \(i)")
        }
        try OutputPaths.checkWritable([outputPath], inputs: [photoPath] + (mattePath.map { [$0] } ?? []))
    }
}

public struct RecolorResult: Sendable {
    public var image: PixelImage
    /// The matte used (0…1 per pixel).
    public var matte: [Float]
    /// CIEDE2000 between the target and the mean recoloured hair (pixels with matte ≥ 0.5; linear mean).
    public var deltaE00: Double
    /// Pixels whose bytes changed.
    public var changedPixels: Int
    public var timing: FrameTiming
}

public enum OwnHairRecolor {
    /// Recolours and writes `job.outputPath` (whole or not at all).
    public static func run(_ job: RecolorJob, analyzer: FaceAnalyzer, parser: () throws -> FaceParser) throws -> RecolorResult {
        try job.validate()
        var timing = FrameTiming()
        let frame = try TryOnEngine.decode(.file(path: job.photoPath), fieldOfViewDegrees: nil, timing: &timing)
        let image = frame.image
        let matte: [Float]
        if let mattePath = job.mattePath {
            let gray = try PNGFile.read(path: mattePath, channels: 1)
            guard gray.width == image.width && gray.height == image.height else {
                throw CoifError.imageSizeMismatch(a: job.photoPath, b: mattePath,
                                                  detail: "\(image.width)x\(image.height) vs \(gray.width)x\(gray.height)")
            }
            matte = gray.pixels.map { Float($0) / 255 }
        } else {
            let faces = try analyzer.analyse(frame, faces: job.face, timing: &timing)
            matte = try parser().parse(frame, boxes: faces.map(\.chosen.box), timing: &timing).matte
        }
        let recoloured = try timing.measure(.composite) {
            try HairRecolor.apply(image, matte: matte, targetLinear: job.color.linear, strength: job.strength)
        }
        let png = try timing.measure(.encode) { try PNGFile.encode(recoloured) }
        try timing.measure(.write) { try AtomicFile.write(png, to: job.outputPath) }
        // The mean recoloured hair in linear light against the target.
        var sum = SIMD3<Double>(0, 0, 0), count = 0.0, changed = 0
        for i in 0..<matte.count {
            let p = i * 3
            if recoloured.pixels[p] != image.pixels[p] || recoloured.pixels[p + 1] != image.pixels[p + 1]
                || recoloured.pixels[p + 2] != image.pixels[p + 2] { changed += 1 }
            guard matte[i] >= 0.5 else { continue }
            sum += SIMD3(Double(srgbToLinear(Float(recoloured.pixels[p]) / 255)), Double(srgbToLinear(Float(recoloured.pixels[p + 1]) / 255)),
                         Double(srgbToLinear(Float(recoloured.pixels[p + 2]) / 255)))
            count += 1
        }
        let target = job.color.linear
        let mean = count > 0 ? sum / count : SIMD3(Double(target.x), Double(target.y), Double(target.z))
        let deltaE = CIEDE2000.difference(LabColor(linearR: mean.x, g: mean.y, b: mean.z),
                                          LabColor(linearR: Double(target.x), g: Double(target.y), b: Double(target.z)))
        return RecolorResult(image: recoloured, matte: matte, deltaE00: deltaE, changedPixels: changed, timing: timing)
    }
}
