// The stages before the render, as values holding the models they run and nothing of the renderer:
//   analyse (AnalysisStage)  faces, landmarks and pose;
//   parse (OwnHairStage)     the own hair's parse, each head sized to the person and given its hairline;
//   plate (PlateStage)       the photo with the own hair taken away, per seed.
// The engine runs them for a still; a batch lends an AnalysisStage and an OwnHairStage to a second thread that
// analyses the next photo while the engine renders this one on its GPU context; video fills its plate per frame.
import CoifCore
import CoifGroom
import CoifMedia
import CoifRender
import CoifVision
import Foundation

/// analyse: detect → landmarks → pose for the faces a job asks for (see FaceAnalyzer).
public struct AnalysisStage {
    public let analyzer: FaceAnalyzer

    public init(analyzer: FaceAnalyzer) { self.analyzer = analyzer }

    public func analyse(_ frame: Frame, faces choice: FaceChoice = .largest, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        try analyzer.analyse(frame, faces: choice, timing: &timing).map { PhotoAnalysis(frame: frame, face: $0) }
    }
}

/// parse: the own hair of a frame's analysed faces (the face-parsing network on a crop around each, a soft matte
/// at the photo's resolution), and each face resized to the person's head and given its own hairline (HeadFit).
/// Seed-free: a batch keeps it per photo and fills a plate per seed from it.
public struct OwnHairStage {
    public let parser: FaceParser
    public let fit: HeadFit

    public init(parser: FaceParser, analyzer: FaceAnalyzer, head: HeadModel) {
        self.parser = parser
        fit = HeadFit(analyzer: analyzer, head: head)
    }

    public func parse(_ analyses: [PhotoAnalysis], timing: inout FrameTiming) throws -> ParsedOwnHair {
        let frame = analyses[0].frame
        let hair = try parser.parse(frame, boxes: analyses.map(\.chosen.box), timing: &timing)
        let sized = analyses.map { fit.sized($0, hair: hair) }
        return ParsedOwnHair(analyses: sized, hair: hair, persons: sized.map { fit.person($0, hair: hair) })
    }

    /// parse + plate: every analysed face's own hair, merged, and the plate (skin inside the heads' silhouettes,
    /// background outside). Once per frame: a sheet or golden suite of many styles on one photo parses it once.
    /// Returns the analyses with `ownHair` and `plate` set.
    public func remove(_ analyses: [PhotoAnalysis], plate: PlateStage, seed: UInt64, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        guard !analyses.isEmpty else { return analyses }
        return try plate.fill(try parse(analyses, timing: &timing), seed: seed, timing: &timing)
    }
}

/// The head fitted to the person once their own hair is parsed: sized to the head the hair shows, its pose
/// solved again under the lens that size implies (the one place a pose is solved after the analysis), and the
/// person's hairline. A still sizes each face on its own (`sized`); a clip measures the size so on its
/// keyframes and draws every frame of the shot at their median (`underShot`), its pose solved as a clip's
/// (PoseContinuity).
public struct HeadFit {
    public let analyzer: FaceAnalyzer
    public let head: HeadModel

    public init(analyzer: FaceAnalyzer, head: HeadModel) {
        self.analyzer = analyzer
        self.head = head
    }

    /// `analysis` resized to the person's head as `hair` shows it, its pose solved again under the lens that
    /// size implies (HeadSizing.fit).
    public func sized(_ analysis: PhotoAnalysis, hair: OwnHair) -> PhotoAnalysis {
        HeadSizing.fit(analysis, hair: hair, head: head) { try pose(analysis, intrinsics: $0, continuity: .still) }
    }

    /// A clip's frame `analysis` drawn at its shot's size: its lens lengthened by the size's focal factor and
    /// its pose solved again under it, as a clip's.
    public func underShot(_ analysis: PhotoAnalysis, sizing: HeadSizing) throws -> PhotoAnalysis {
        var out = analysis
        out.face.intrinsics = analysis.face.intrinsics.lengthened(by: sizing.focalFactor)
        out.face.pose = try pose(analysis, intrinsics: out.face.intrinsics, continuity: .clip)
        out.sizing = sizing
        return out
    }

    /// The person's head from `analysis`'s landmarks, with the hairline their own hair shows (nil: the
    /// landmarks give no head).
    public func person(_ analysis: PhotoAnalysis, hair: OwnHair) -> PersonHead? {
        PersonHead(landmarks: analysis.chosen.landmarks)?.fittingHairline(matte: hair.matte, width: hair.width, height: hair.height)
    }

    func pose(_ analysis: PhotoAnalysis, intrinsics: PinholeCamera, continuity: PoseContinuity) throws -> HeadPose {
        try analyzer.solvePose(for: analysis.face, intrinsics: intrinsics, continuity: continuity)
    }
}

/// plate: the photo with the parsed own hair taken away (its fill depends on the seed), and the scalp hair.
public struct PlateStage {
    public let head: HeadModel
    /// The head's vertex normals (`vertexNormals`), made once: for reading each face's light and drawing the
    /// head; the render reads the light with the same.
    public let normals: [Vec3]

    public init(head: HeadModel) {
        self.head = head
        normals = vertexNormals(vertices: head.vertices, indices: head.indices)
    }

    public func fill(_ parsed: ParsedOwnHair, seed: UInt64, timing: inout FrameTiming) throws -> [PhotoAnalysis] {
        let sized = parsed.analyses, persons = parsed.persons
        let frame = sized[0].frame
        // An ear darker than hair could be is hair the parse misread: removed with it, not kept or joined.
        let hair = parsed.hair.withDarkEarsAsHair(photo: frame.image, persons: persons.compactMap { $0 })
        // Each face's light, read once with its own hair known (PhotoAnalysis.readLight): the plate shades the
        // hidden skin by it, and the render lights the hair by it.
        let lit = timing.measure(.plate) {
            sized.map { analysis in
                var a = analysis
                a.ownHair = hair
                a.light = a.readLight(head: head, normals: normals)
                return a
            }
        }
        let plate = try timing.measure(.plate) { () -> (image: PixelImage, scalp: [Float], skin: [Float], removal: [Float], heads: [PersonHead]) in
            // Every face's head drawn once at the photo's camera; each person's skin region read from it, and
            // the skin it fills lit by it (the light read from the face's skin, which the parse locates).
            let width = frame.image.width, height = frame.image.height
            var drawn = HeadRender.draw(lit, head: head, normals: normals)
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
            let filled = try HairPlate.fill(frame, hair: hair, heads: heads, shade: drawn.shade, others: Self.otherFaces(sized), seed: seed)
            return (filled.image, filled.scalp, filled.skin, filled.removal, heads.map(\.person))
        }
        let scalpHair = timing.measure(.plate) {
            ScalpHair(weights: plate.scalp, texture: HairPlate.scalpTexture(frame.image, scalp: plate.scalp, heads: plate.heads, seed: seed),
                      width: frame.image.width)
        }
        return zip(lit, persons).map { analysis, person in
            var a = analysis
            a.plate = plate.image
            a.scalpHair = scalpHair
            a.filledSkin = plate.skin
            a.removal = plate.removal
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
}
