// OwnHair: the person's own hair, per pixel. A face-parsing network (FaceParser, over CVision's OpenCV dnn)
// labels a head-centred crop: hair, skin, background and the rest; its hair probability, back at the photo's
// resolution and refined by a guided filter with the photo as guide, is a soft matte. From it: the plate
// (the photo with the hair taken away, `HairPlate`) and recolouring (`HairRecolor`).
import CVision
import CoifCore
import Foundation

/// The face-parsing network, loaded once per process. Not thread-safe: one frame at a time.
public final class FaceParser {
    /// The input sides the set-up exports (each its own ONNX file: OpenCV 4.6's dnn runs fixed shapes).
    public static let inputSizes = [256, 512]
    /// The network's input side: COIF_PARSE_SIZE (256 or 512), else 512. At 256² the network loses hair
    /// (fringes, wild and fair hair) that then survives removal, for ~1/4 of the time (docs/measurements.md,
    /// "Does the output still show the own hair?": measured side by side).
    public static func defaultInputSize(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        environment["COIF_PARSE_SIZE"].flatMap(Int.init).flatMap { inputSizes.contains($0) ? $0 : nil } ?? 512
    }
    /// The model's file name in the model cache for an input side.
    public static func modelFile(size: Int) -> String { "face-parsing-\(size).onnx" }

    public static var defaultModelPath: String { ModelCache.path(modelFile(size: defaultInputSize())) }

    private let handle: OpaquePointer
    public let modelPath: String
    /// The side of the square the network sees (from the file's name, `modelFile(size:)`).
    public let inputSize: Int

    /// Loads the network. `assetFailed` (exit 50) naming the file and how to install it when it is missing,
    /// does not match its sidecar (size and SHA-256 recorded by the set-up), or OpenCV cannot read it.
    public init(modelPath: String = FaceParser.defaultModelPath) throws {
        self.modelPath = modelPath
        let name = (modelPath as NSString).lastPathComponent
        inputSize = Self.inputSizes.first { Self.modelFile(size: $0) == name } ?? 512
        try ModelCache.checkSealed(modelPath, what: "face-parsing model")
        var message = [CChar](repeating: 0, count: 512)
        guard let parser = cv_face_parser_open(modelPath, Int32(inputSize), &message, message.count) else {
            throw CoifError.assetFailed(path: modelPath, reason: "\(String(nulTerminated: message)); \(ModelCache.installHint)")
        }
        handle = parser
    }

    deinit { cv_face_parser_free(handle) }

    /// The square crop the network sees for a face: the detector's box grown `cropScale` times around a
    /// centre raised by a fifth of the box (hair sits above the face), so hair, forehead, ears and the
    /// background around them are in view, as in the CelebAMask-HQ portraits it was trained on.
    public static func crop(for box: FaceBox, cropScale: Float = 2.6) -> (x: Float, y: Float, side: Float) {
        let side = max(box.width, box.height) * cropScale
        let centre = Vec2(box.center.x, box.center.y - 0.2 * box.height)
        return (centre.x - side / 2, centre.y - side / 2, side)
    }

    public static let matteFloor: Float = 0.25
    public static let matteFull: Float = 0.75

    /// The network's answer for the face's crop of `frame`, at the network's side (not yet on the photo).
    public func parseCrop(_ frame: Frame, box: FaceBox) throws -> CropParse {
        try parseCrop(frame, crop: Self.crop(for: box))
    }

    /// The network's answer for `crop` (photo pixels) of `frame`.
    public func parseCrop(_ frame: Frame, crop: (x: Float, y: Float, side: Float)) throws -> CropParse {
        let image = frame.image
        let n = inputSize * inputSize
        var classes = [UInt8](repeating: 0, count: n)
        var hair = [Float](repeating: 0, count: n)
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { rgb in
            cv_face_parser_run(handle, rgb.baseAddress, Int32(image.width), Int32(image.height), crop.x, crop.y, crop.side,
                               &classes, &hair, &message, message.count)
        }
        guard status == 0 else { throw CoifError.assetFailed(path: modelPath, reason: "parse failed: \(String(nulTerminated: message))") }
        return CropParse(side: inputSize, crop: crop, classes: classes, hair: hair)
    }

    /// Parses the face's crop of `frame` and brings the result back onto the photo.
    public func parse(_ frame: Frame, box: FaceBox) throws -> OwnHair {
        try parse(frame, crop: Self.crop(for: box))
    }

    /// Parses `crop` (photo pixels) of `frame` and brings the result back onto the photo.
    public func parse(_ frame: Frame, crop: (x: Float, y: Float, side: Float)) throws -> OwnHair {
        let image = frame.image
        let parsed = try parseCrop(frame, crop: crop)
        let crop = parsed.crop, classes = parsed.classes, hair = parsed.hair
        let count = image.width * image.height
        var photoClasses = [UInt8](repeating: 0, count: count)
        var matte = [Float](repeating: 0, count: count)
        // Guided filter: a window of ~1/100 of the crop (2–3 px on a 512² portrait) and a small ε keep edges
        // sharp where the photo has them and let the matte fade where it does not.
        let radius = Int32(max(2, (crop.side / 100).rounded()))
        let refined = image.pixels.withUnsafeBufferPointer { rgb in
            cv_parse_to_photo(rgb.baseAddress, Int32(image.width), Int32(image.height), crop.x, crop.y, crop.side,
                              Int32(inputSize), classes, hair, radius, 1e-3, &photoClasses, &matte)
        }
        guard refined == 0 else { throw CoifError.internalError("own hair: resampling the parse failed") }
        // Probability at or below `matteFloor` is not hair: the guided filter leaves a haze of 0.1–0.3 over
        // dark backgrounds and skin (dark hair and a dark backdrop look alike to it). The matte ramps from
        // there to full at `matteFull`.
        for i in matte.indices { matte[i] = min(max((matte[i] - Self.matteFloor) / (Self.matteFull - Self.matteFloor), 0), 1) }
        return OwnHair(width: image.width, height: image.height, crop: crop, classes: photoClasses, matte: matte)
    }
}

extension FaceParser {
    /// The share of a crop edge (within the photo) that is hair, over which the hair is followed past it.
    public static let hairPastCropShare: Float = 0.04
    /// The crop round the whole head, where hair runs past the face's crop above or beside it: this many times
    /// the face's crop's side, its foot on the face crop's foot, centred across.
    public static let aroundTheHeadScale: Float = 1.5

    /// A side of the face's crop the hair may run past: long hair over the shoulders (below), an updo or an
    /// afro over the head (above), big hair beside it (left, right).
    enum CropSide: CaseIterable {
        case below, above, left, right
    }

    /// The face's own hair, followed past the sides of its crop where it reaches them (over `hairPastCropShare`
    /// of that edge's pixels within the photo): removed only up to the crop, it left a cut straight across.
    /// - **Below** (long hair over the shoulders): a second crop of the same size below the first (overlapping it
    ///   by a quarter) is parsed, and its hair taken where the first crop did not reach. What it calls hair in
    ///   colours the hair in the face's crop never takes is not hair (`cv_hair_colour_plausible`): without the
    ///   head in view, the network called a light sweater's shoulders hair, and the plate painted them over.
    /// - **Above or beside** (an updo, an afro, big hair): one crop round the whole head (`aroundTheHeadScale`
    ///   of the face's, its foot on the face crop's foot), parsed with the face in view: a crop above the head
    ///   alone showed the network dark spikes on a dark wall with no face, and it called them background (a
    ///   clip's updo was cut flat across the top of the head).
    /// Across the overlap the mattes are cross-faded, the second's share rising from 0 to 1 at the face's crop's
    /// last row or column on that side (each network is least sure at its crop's edge; switching at the last
    /// row drew that row into the removal as a straight cut).
    public func parseFollowingHair(_ frame: Frame, box: FaceBox) throws -> OwnHair {
        let first = try parse(frame, box: box)
        let crop = first.crop
        let reached = CropSide.allCases.filter { Self.hairReaches(first, past: $0) }
        var out = first
        if reached.contains(.below) {
            var below = box
            below.top += 0.75 * crop.side
            below.bottom += 0.75 * crop.side
            let second = try parse(frame, box: below)
            let secondTop = max(0, Int(second.crop.y.rounded(.up))), lastRow = Int((crop.y + crop.side).rounded(.down)) - 1
            try take(second, into: &out, first: first, frame: frame, notHair: OwnHair.cloth) { i in
                Self.ramp(i / first.width, from: secondTop, to: lastRow)
            }
        }
        let around = reached.filter { $0 != .below }
        if !around.isEmpty {
            let side = Self.aroundTheHeadScale * crop.side
            let wider = (x: crop.x + 0.5 * (crop.side - side), y: crop.y + crop.side - side, side: side)
            let second = try parse(frame, crop: wider)
            // The share rises over a quarter of the face's crop inside each side the hair reached.
            let band = Int((0.25 * crop.side).rounded())
            let firstRow = Int(crop.y.rounded(.up)), firstColumn = Int(crop.x.rounded(.up))
            let lastColumn = Int((crop.x + crop.side).rounded(.down)) - 1
            try take(second, into: &out, first: first, frame: frame, notHair: OwnHair.background) { i in
                let x = i % first.width, y = i / first.width
                return around.reduce(0) { share, side in
                    switch side {
                    case .above: max(share, Self.ramp(-y, from: -(firstRow + band), to: -firstRow))
                    case .left: max(share, Self.ramp(-x, from: -(firstColumn + band), to: -firstColumn))
                    case .right: max(share, Self.ramp(x, from: lastColumn - band, to: lastColumn))
                    case .below: share
                    }
                }
            }
        }
        return out
    }

    /// 0 before `from`, rising to 1 at `to`, 1 past it.
    static func ramp(_ t: Int, from: Int, to: Int) -> Float {
        t > to ? 1 : t < from ? 0 : (Float(t - from) + 0.5) / Float(to - from + 1)
    }

    /// Whether `first`'s hair reaches `side` of its crop, that side inside the photo.
    static func hairReaches(_ first: OwnHair, past side: CropSide) -> Bool {
        let crop = first.crop, width = first.width, height = first.height
        let lastRow = Int((crop.y + crop.side).rounded(.down)) - 1, firstRow = Int(crop.y.rounded(.up))
        let lastColumn = Int((crop.x + crop.side).rounded(.down)) - 1, firstColumn = Int(crop.x.rounded(.up))
        let edge: [Int]
        switch side {
        case .below, .above:
            let row = side == .below ? lastRow : firstRow
            guard row > 0, row < height - 1 else { return false }
            edge = (max(0, firstColumn)..<min(width, lastColumn + 1)).map { row * width + $0 }
        case .left, .right:
            let column = side == .right ? lastColumn : firstColumn
            guard column > 0, column < width - 1 else { return false }
            edge = (max(0, firstRow)..<min(height, lastRow + 1)).map { $0 * width + column }
        }
        guard !edge.isEmpty else { return false }
        return Float(edge.filter { first.matte[$0] >= 0.5 }.count) > hairPastCropShare * Float(edge.count)
    }

    /// `second`'s parse taken into `out` by `share` (0…1 per pixel; 1 wherever the face's crop did not reach),
    /// what it calls hair in colours `first`'s hair never takes being `notHair`.
    func take(_ second: OwnHair, into out: inout OwnHair, first: OwnHair, frame: Frame, notHair: UInt8,
              share secondShare: (Int) -> Float) throws {
        let width = first.width
        // The hair the face's crop sees with confidence is the model of this person's hair colour.
        var model = [Float](repeating: 0, count: first.matte.count), judge = [UInt8](repeating: 0, count: first.matte.count)
        for i in model.indices {
            if first.classes[i] == OwnHair.hair { model[i] = first.matte[i] }
            if second.classes[i] != OwnHair.unknown, second.matte[i] > 0, secondShare(i) > 0 || first.classes[i] == OwnHair.unknown {
                judge[i] = 255
            }
        }
        var plausible = [UInt8](repeating: 255, count: first.matte.count)
        let radius = Int32(max(2, (first.crop.side / 64).rounded()))
        let status = frame.image.pixels.withUnsafeBufferPointer { rgb in
            cv_hair_colour_plausible(rgb.baseAddress, Int32(width), Int32(first.height), model, judge, radius, &plausible)
        }
        guard status == 0 else { throw CoifError.internalError("own hair: judging the hair past the crop by colour failed (\(status))") }
        for i in out.classes.indices where second.classes[i] != OwnHair.unknown {
            let share = first.classes[i] == OwnHair.unknown ? 1 : secondShare(i)
            guard share > 0 else { continue }
            var secondClass = second.classes[i], secondMatte = second.matte[i]
            if plausible[i] == 0 {
                secondMatte = 0
                if secondClass == OwnHair.hair || secondClass == OwnHair.hat { secondClass = notHair }
            }
            out.matte[i] = out.matte[i] * (1 - share) + secondMatte * share
            if share >= 0.5 { out.classes[i] = secondClass }
        }
    }

    /// Every face's own hair in one frame, followed past its crop where it is long, merged (`OwnHair.merged`),
    /// each parse timed as `.parse`.
    public func parse(_ frame: Frame, boxes: [FaceBox], timing: inout FrameTiming) throws -> OwnHair {
        var hair: OwnHair?
        for box in boxes {
            let parsed = try timing.measure(.parse) { try parseFollowingHair(frame, box: box) }
            hair = hair.map { $0.merged(with: parsed) } ?? parsed
        }
        guard let hair else { throw CoifError.internalError("own hair: no face to parse") }
        return hair
    }
}

/// The parse of one face's crop at the network's side: `classes` and `hair` (the probability of hair or hat)
/// are `side`² in the crop's rows, the crop in photo pixels.
public struct CropParse: Sendable {
    public var side: Int
    public var crop: (x: Float, y: Float, side: Float)
    public var classes: [UInt8]
    public var hair: [Float]

    /// The photo pixel at the centre of the crop's cell (column, row).
    public func photoPoint(column: Int, row: Int) -> Vec2 {
        let cell = crop.side / Float(side)
        return Vec2(crop.x + (Float(column) + 0.5) * cell, crop.y + (Float(row) + 0.5) * cell)
    }
}

/// The own hair of one face (or several, merged), at the photo's resolution.
public struct OwnHair: Sendable {
    public var width: Int
    public var height: Int
    /// The crop the network saw (photo pixels; the union's first for merged faces).
    public var crop: (x: Float, y: Float, side: Float)
    /// The parse's class per photo pixel (CV_PARSE_*; 255 where no crop reached).
    public var classes: [UInt8]
    /// The soft matte of hair (and hat), 0…1 per photo pixel.
    public var matte: [Float]

    public init(width: Int, height: Int, crop: (x: Float, y: Float, side: Float), classes: [UInt8], matte: [Float]) {
        precondition(classes.count == width * height && matte.count == width * height)
        self.width = width
        self.height = height
        self.crop = crop
        self.classes = classes
        self.matte = matte
    }

    /// The classes, as the network numbers them.
    public static let background: UInt8 = 0, skin: UInt8 = 1, brows: ClosedRange<UInt8> = 2...3, neck: UInt8 = 14, cloth: UInt8 = 16,
                      hair: UInt8 = 17, hat: UInt8 = 18, rightEar: UInt8 = 8, leftEar: UInt8 = 7, glasses: UInt8 = 6,
                      unknown: UInt8 = 255

    /// Whether a class is the person's skin as the photo shows it: skin, brows, eyes, ears, nose, mouth, lips and
    /// neck (not glasses, earrings, clothes, hair, a hat or the background).
    public static func isSkin(_ c: UInt8) -> Bool { c == skin || (2...5).contains(c) || c == leftEar || c == rightEar || (10...14).contains(c) }

    /// Several faces' parses in one photo: the larger matte and, where a parse says more than "background"
    /// or unknown, its class.
    public func merged(with other: OwnHair) -> OwnHair {
        var out = self
        for i in 0..<classes.count {
            out.matte[i] = max(matte[i], other.matte[i])
            if out.classes[i] == Self.unknown || (out.classes[i] == Self.background && other.classes[i] != Self.unknown) {
                out.classes[i] = other.classes[i]
            }
        }
        return out
    }

    /// The matte as an 8-bit gray image.
    public var matteImage: PixelImage {
        PixelImage(width: width, height: height, channels: 1,
                   pixels: matte.map { UInt8((min(max($0, 0), 1) * 255).rounded()) })
    }

    /// The fraction of the photo's pixels the matte covers at half or more.
    public var coverage: Double { Double(matte.filter { $0 >= 0.5 }.count) / Double(max(matte.count, 1)) }
}

/// The photo with the own hair taken away (see cv_hair_fill).
public enum HairPlate {
    /// How far (as a fraction of the parse crop's side) the matte is grown before removal: hair's fringe
    /// mixes with what is behind it for a pixel or two beyond where the network stops, and a halo of the
    /// old colour there reads as hair.
    public static let growFraction: Float = 0.025

    /// The removal's growth in pixels for `hair` (`growFraction` of its crop's side, at least one).
    public static func growRadius(_ hair: OwnHair) -> Int { max(1, Int((hair.crop.side * growFraction).rounded())) }
    /// Below the cheekbones the removal's edge is read by colour (`atTheEdge`), taking over from the grown ring
    /// over this share of the face's middle third.
    static let edgeRampToMiddleThird: Float = 0.25

    /// The removal weight per pixel: the matte grown by `growFraction` of the crop (a max filter), then, where
    /// hair meets skin below the cheekbones of `faces` (every pixel with none), each pixel's hair share by its
    /// colour (`atTheEdge`).
    public static func removal(_ hair: OwnHair, photo: PixelImage, faces: [PersonHead]) -> [Float] {
        atTheEdge(hair, photo: photo, faces: faces, unmixing: false).remove
    }

    /// The removal, and with `unmixing` the photo with the skin that shows through the hair's edge (see
    /// cv_removal_at_skin). The grown ring alone ended the kept skin in a ramp as wide as the growth (~15 px on
    /// a 600-px portrait): where long hair framed a face, the cheek and jaw blurred into the background laid
    /// beside them. Read below the cheekbones only: above, a sparse fringe over the forehead is hair over skin
    /// too, and unmixed it showed as a pale band under the new hairline where the scalp's crop had been drawn.
    static func atTheEdge(_ hair: OwnHair, photo: PixelImage, faces: [PersonHead], unmixing: Bool) -> (remove: [Float], shown: [UInt8]?) {
        let width = hair.width, height = hair.height
        let radius = growRadius(hair)
        var remove = maxFilter(hair.matte, width: width, height: height, radius: radius)
        precondition(photo.width == width && photo.height == height && photo.channels == 3)
        // Each face's cheekbones as a line (the height above its brows is affine in the pixel), the colour taking
        // over below it within a quarter of the face's middle third.
        let below: [Float] = faces.flatMap { face -> [Float] in
            let origin = face.local(Vec2(0.5, 0.5)).up
            return [origin, face.local(Vec2(1.5, 0.5)).up - origin, face.local(Vec2(0.5, 1.5)).up - origin,
                    min(face.local(face.jaw[1]).up, face.local(face.jaw[15]).up), Self.edgeRampToMiddleThird * face.middleThird]
        }
        var shown = unmixing ? photo.pixels : []
        let status = photo.pixels.withUnsafeBufferPointer { rgb in
            shown.withUnsafeMutableBufferPointer { out in
                cv_removal_at_skin(rgb.baseAddress, Int32(width), Int32(height), hair.classes, hair.matte, below, Int32(faces.count),
                                   Int32(radius), &remove, unmixing ? out.baseAddress : nil)
            }
        }
        // The grown ring stands where the edge could not be read (it fails only on OpenCV's own errors).
        if status != 0 { return (maxFilter(hair.matte, width: width, height: height, radius: radius), nil) }
        return (remove, unmixing ? shown : nil)
    }

    /// The plate: `frame`'s photo with `hair` removed: skin inside each of `heads` (`region`: where that
    /// person's skin may go, HeadRegion.skin: the face inside its jaw line and forehead, the drawn head's
    /// cranium and neck; non-zero inside), background elsewhere; never over their eyes and brows (landmarks)
    /// or what the parse calls brows, eyes, glasses, ears, earrings, nose or mouth, where the own hair stays (a
    /// fringe over the eyes is kept, not painted into an eyeless mask). `scalp`: how much of each pixel was
    /// filled on the heads' hair-bearing scalp (the head off the bare face and the forehead below the natural
    /// hairline), which the composite covers with close-cropped hair; `skin`: how much of each pixel was filled
    /// with skin (where the head's shading applies). `others`: the photo's other faces, whose hair is theirs: a
    /// hair pixel nearer (in face widths) to one of them than to every head is kept, not removed (the parse's
    /// crop around a face in a couple's photo takes in the partner's hair too). `shade`: the heads' shading
    /// under the photo's light over the face's mean (HeadRender; 0 where unknown), which lights the skin the
    /// fill continues. `removal`: how much of each pixel was taken away, after what the features and the other
    /// faces keep (a clip's background memory reads it). Deterministic for a seed.
    public static func fill(_ frame: Frame, hair: OwnHair, heads: [(person: PersonHead, region: [UInt8])], shade: [Float]? = nil,
                            others: [FaceBox] = [], seed: UInt64) throws
        -> (image: PixelImage, scalp: [Float], skin: [Float], removal: [Float]) {
        let image = frame.image
        let width = image.width, height = image.height
        precondition(hair.matte.count == width * height && heads.allSatisfy { $0.region.count == width * height })
        // Skin, per head: its region; the bare face (no crop drawn over it) is the face and forehead alone, the
        // forehead between the brows' ends (PersonHead.bareFaceMask).
        var headMask = [UInt8](repeating: 0, count: width * height), bareMask = headMask
        var featureTriangles: [Float] = [], eyeTriangles: [Float] = []
        for (person, region) in heads {
            let face = person.bareFaceMask(width: width, height: height, margin: PersonHead.plateContourMargin)
            for i in headMask.indices {
                if region[i] != 0 { headMask[i] = 255 }
                if face[i] != 0 { bareMask[i] = 255 }
            }
            featureTriangles += person.featureTriangles
            eyeTriangles += person.eyeTriangles
        }
        // The landmark windows are softened (cv_soften) so the kept fringe fades into the fill, not a block;
        // filtered over the windows' box only, grown by the filters' reach (the max filter's, and three σ of the
        // blur's), where the whole frame is zero: the same values, and on a 10-megapixel photo the whole-frame
        // filters and a set lookup per pixel had taken 1.5 s.
        let reach = max(1, Int((hair.crop.side * 0.008).rounded()))
        var protect = [Float](repeating: 0, count: width * height)
        if let box = Self.box(of: featureTriangles, grownBy: reach + 6 * reach + 2, width: width, height: height) {
            /// `triangles`' windows over the box (rasterised there, not over the whole frame), grown by `reach`
            /// and softened.
            func softened(_ triangles: [Float]) -> [Float] {
                var shifted = triangles
                for k in stride(from: 0, to: shifted.count, by: 2) {
                    shifted[k] -= Float(box.x)
                    shifted[k + 1] -= Float(box.y)
                }
                var local = HeadSilhouette.mask(width: box.width, height: box.height, triangles: shifted).map { Float($0) / 255 }
                local = maxFilter(local, width: box.width, height: box.height, radius: reach)
                cv_soften(&local, Int32(box.width), Int32(box.height), Float(2 * reach))
                return local
            }
            // The eyes keep their windows whole; the brows keep only what is not hair: a fringe over the brows
            // kept in their windows read as orange streaks and dark smudges, eye make-up gone wrong. Brows are
            // drawn back where the fill takes the fringe away (`drawBrows`).
            let all = softened(featureTriangles), eyes = softened(eyeTriangles)
            for y in 0..<box.height {
                for x in 0..<box.width {
                    let i = (box.y + y) * width + box.x + x, j = y * box.width + x
                    protect[i] = max(eyes[j], all[j] * (1 - min(hair.matte[i] * 1.5, 1)))
                }
            }
        }
        // Glasses pushed up onto the head (the parse's glasses `glassesOnTheHead` middle thirds or more above
        // every head's brows) are worn in the hair and go with it: kept as a feature's bytes, they floated beside
        // the skull where the hair round them was taken away (insightface 1561's sunglasses).
        var classes = hair.classes
        var (remove, shown) = atTheEdge(hair, photo: image, faces: heads.map(\.person), unmixing: true)
        func onTheHead(_ i: Int) -> Bool {
            let p = Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5)
            return heads.allSatisfy { $0.person.local(p).up > Self.glassesOnTheHead * $0.person.middleThird }
        }
        for i in classes.indices where protectedClasses.contains(classes[i]) {
            if classes[i] == OwnHair.glasses && onTheHead(i) {
                classes[i] = OwnHair.hair
                remove[i] = 1
            } else {
                protect[i] = 1
            }
        }
        let atEdge = remove
        for i in remove.indices { remove[i] *= 1 - min(protect[i], 1) }
        keepOthersHair(&remove, width: width, heads: heads.map(\.person), others: others)
        // What the edge unmixed is shown only as far as it is removed: a protected eye keeps the photo's bytes.
        if shown != nil {
            for i in remove.indices where remove[i] < atEdge[i] {
                for c in 0..<3 { shown![3 * i + c] = image.pixels[3 * i + c] }
            }
        }
        var out = [UInt8](repeating: 0, count: image.pixels.count)
        var scalp = [Float](repeating: 0, count: width * height)
        precondition(shade.map { $0.count == width * height } ?? true)
        let status = (shown ?? image.pixels).withUnsafeBufferPointer { rgb in
            (shade ?? []).withUnsafeBufferPointer { shading in
                cv_hair_fill(rgb.baseAddress, Int32(width), Int32(height), classes, remove, headMask, bareMask,
                             shade == nil ? nil : shading.baseAddress, seed, &out, &scalp)
            }
        }
        guard status == 0 else { throw CoifError.internalError("own hair: the fill failed (\(status))") }
        for (k, (person, _)) in heads.enumerated() {
            drawBrows(person, photo: image.pixels, hair: hair, removed: remove, width: width, height: height,
                      seed: seed ^ (UInt64(k) &* 0x9E37_79B9_7F4A_7C15), into: &out)
        }
        // Sideburns taper: the most any head allows over each scalp pixel. Over the back of a turned head the
        // hair runs on down to the nape instead; the two meet softly (over 2% of the face's width), not along the
        // drawn head's triangles.
        var back: [Float] = []
        if heads.contains(where: { $0.region.contains(HeadRegion.backOfHeadValue) }) {
            back = (0..<(width * height)).map { i in heads.contains { $0.region[i] == HeadRegion.backOfHeadValue } ? 1 : 0 }
            let faceWidth = 2 * (heads.map(\.person.halfWidth).max() ?? 0)
            cv_soften(&back, Int32(width), Int32(height), max(1, 0.02 * faceWidth))
        }
        for i in scalp.indices where scalp[i] > 0 {
            let p = Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5)
            let w = back.isEmpty ? 0 : min(max(back[i], 0), 1)
            scalp[i] *= heads.reduce(0) { max($0, w * $1.person.napeTaper(p) + (1 - w) * $1.person.scalpTaper(p)) }
        }
        // Where the fill is skin (the removal inside the head): the share the head's shading applies to.
        let skin = remove.indices.map { headMask[$0] != 0 ? min(remove[$0], 1) : 0 }
        return (PixelImage(width: width, height: height, channels: 3, pixels: out), scalp, skin, remove)
    }

    /// Brows where the fill replaced a fringe over them, drawn as brows grow: a faint base tone over each
    /// brow's shape (up to 0.13 of the face's half-width thick a third of the way out from the inner end, thin
    /// at the tail, along its five landmarks) and over it short single hairs, rooted inside the shape, that
    /// stand up at the inner end and lie along the brow toward the tail, each with its own length, tilt, shade
    /// and opacity, tapering to the tip. The colour is the darker part of the person's own visible brow pixels
    /// (the parse's brow classes, matte under 0.3: the hairs, not the skin between them) or, where fewer than
    /// 30 show, the own hair's at 70%. Laid by twice how much of each pixel the fill replaced (a fringe's soft
    /// edge still gets its brow); nothing is drawn where the fill changed nothing, so a visible brow keeps its
    /// bytes, and a brow whose box the fill did not touch costs nothing. Same inputs and `seed`, same hairs:
    /// each brow draws from its own stream, so a hair more or less on one (its length moving with the
    /// landmarks, frame to frame) moves none on the other. A flat stroke with a blocky grain, drawn before,
    /// read as painted on; without any, the fringe's removal left a browless mask.
    static func drawBrows(_ person: PersonHead, photo: [UInt8], hair: OwnHair, removed: [Float], width: Int, height: Int,
                          seed: UInt64, into out: inout [UInt8]) {
        func linear(_ pixels: [UInt8], _ i: Int) -> Vec3 {
            let r = srgbToLinear(Float(pixels[3 * i]) / 255), g = srgbToLinear(Float(pixels[3 * i + 1]) / 255)
            return Vec3(r, g, srgbToLinear(Float(pixels[3 * i + 2]) / 255))
        }
        func norm(_ v: Vec2) -> Float { (v * v).sum().squareRoot() }
        // Over the head's neighbourhood (four half-widths of the face about the brows), not the whole frame:
        // the same colours, and a 10-megapixel photo's loop stays small.
        var browPixels: [Vec3] = [], hairSum = Vec3(), hairCount: Float = 0
        let reach = 4 * person.halfWidth
        let left = max(0, Int(person.browCentre.x - reach)), right = min(width, Int(person.browCentre.x + reach) + 1)
        let top = max(0, Int(person.browCentre.y - reach)), bottom = min(height, Int(person.browCentre.y + reach) + 1)
        guard left < right, top < bottom else { return }
        for y in top..<bottom {
            for x in left..<right {
                let i = y * width + x, c = hair.classes[i]
                if OwnHair.brows.contains(c) && hair.matte[i] < 0.3 { browPixels.append(linear(photo, i)) }
                if hair.matte[i] > 0.9 { hairSum += linear(photo, i); hairCount += 1 }
            }
        }
        let colour: Vec3
        if browPixels.count >= 30 {
            // The darker two fifths: a brow's pixels are its hairs and the skin showing between them.
            func luma(_ v: Vec3) -> Float { 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z }
            let darker = browPixels.sorted { luma($0) < luma($1) }.prefix(max(1, browPixels.count * 2 / 5))
            colour = darker.reduce(Vec3(), +) / Float(darker.count)
        } else if hairCount >= 30 {
            colour = hairSum / hairCount * 0.7
        } else {
            return
        }
        for (index, brow) in person.features[0...1].enumerated() {
            var random = SeededRandom(seed: seed ^ 0xB5A1_0E5E_ED00_0001, stream: UInt64(index))
            // Inner end first: the right brow runs 17 (outer) → 21 (inner), the left 22 (inner) → 26 (outer).
            let points = brow == person.features[0] ? Array(brow.reversed()) : brow
            var lengths: [Float] = [0]
            for k in 1..<points.count { lengths.append(lengths[k - 1] + norm(points[k] - points[k - 1])) }
            let total = max(lengths.last!, 1)
            let thick = 0.13 * person.halfWidth
            // Thickest a third of the way out from the inner end, thin at the tail (half-thickness at `along`).
            func half(_ along: Float) -> Float { thick * (along < 0.3 ? 0.38 + 0.4 * along : 0.5 - 0.38 * (along - 0.3) / 0.7) }
            // The brow's point, its direction outward and its up (toward the forehead) at `along`.
            func frame(_ along: Float) -> (point: Vec2, outward: Vec2, up: Vec2) {
                let at = along * total
                var k = 1
                while k < points.count - 1 && lengths[k] < at { k += 1 }
                let d = points[k] - points[k - 1], length = max(norm(d), 1e-6)
                let t = min(max((at - lengths[k - 1]) / length, 0), 1)
                let outward = d / length
                var up = Vec2(outward.y, -outward.x)
                if up.y > 0 { up = -up }  // image y grows downward
                return (points[k - 1] + d * t, outward, up)
            }
            let xs = points.map(\.x), ys = points.map(\.y)
            let margin = thick + 0.12 * person.halfWidth + 2
            let x0 = max(0, Int(xs.min()! - margin)), x1 = min(width - 1, Int(xs.max()! + margin))
            let y0 = max(0, Int(ys.min()! - margin)), y1 = min(height - 1, Int(ys.max()! + margin))
            guard x0 <= x1, y0 <= y1 else { continue }
            // Nothing to draw where the fill changed nothing: most photos' brows.
            var touched = false
            for y in y0...y1 where !touched {
                for x in x0...x1 where removed[y * width + x] > 0.02 { touched = true; break }
            }
            guard touched else { continue }
            let boxWidth = x1 - x0 + 1
            // One layer over the box, premultiplied: the base tone, then each hair over it.
            var layer = [Vec3](repeating: Vec3(), count: boxWidth * (y1 - y0 + 1))
            var alpha = [Float](repeating: 0, count: layer.count)
            func lay(_ x: Int, _ y: Int, _ c: Vec3, _ a: Float) {
                let j = (y - y0) * boxWidth + (x - x0)
                layer[j] = c * a + layer[j] * (1 - a)
                alpha[j] = a + alpha[j] * (1 - a)
            }
            // The base tone: the skin under a brow is shaded by its hairs (three tenths, soft-edged).
            for y in y0...y1 {
                for x in x0...x1 where removed[y * width + x] > 0.02 {
                    let p = Vec2(Float(x) + 0.5, Float(y) + 0.5)
                    var best = Float.infinity, along: Float = 0
                    for k in 1..<points.count {
                        let a = points[k - 1], d = points[k] - a
                        let t = min(max(((p - a) * d).sum() / max((d * d).sum(), 1e-6), 0), 1)
                        let e = norm(p - (a + d * t))
                        if e < best { best = e; along = (lengths[k - 1] + t * norm(d)) / total }
                    }
                    let edge = min(max((half(along) - best) / max(1, 0.3 * half(along)) + 0.5, 0), 1)
                    if edge > 0 { lay(x, y, colour, 0.3 * edge) }
                }
            }
            // The hairs: about two and a half layers of them over the shape.
            let hairLength = 0.08 * person.halfWidth, hairWidth = max(0.7, 0.014 * person.halfWidth)
            let count = min(4000, max(24, Int(2.5 * total * thick * 0.75 / (hairLength * hairWidth))))
            for _ in 0..<count {
                let along = random.unitFloat()
                let (point, outward, up) = frame(along)
                let root = point + up * (random.uniform(-0.9, 0.7) * half(along))
                // Standing up at the inner end, lying along the brow from a third of the way out.
                let ramp = min(max((along - 0.1) / 0.3, 0), 1)
                let tilt = (70 - 55 * ramp + 8 * random.gaussian()) * Float.pi / 180
                let direction = outward * cos(tilt) + up * sin(tilt)
                let length = hairLength * random.uniform(0.6, 1.3)
                let tip = root + direction * length
                let shade = colour * random.uniform(0.7, 1.25), opacity = random.uniform(0.45, 0.85)
                let hx0 = max(x0, Int(min(root.x, tip.x) - hairWidth - 1)), hx1 = min(x1, Int(max(root.x, tip.x) + hairWidth + 1))
                let hy0 = max(y0, Int(min(root.y, tip.y) - hairWidth - 1)), hy1 = min(y1, Int(max(root.y, tip.y) + hairWidth + 1))
                guard hx0 <= hx1, hy0 <= hy1 else { continue }
                for y in hy0...hy1 {
                    for x in hx0...hx1 {
                        let p = Vec2(Float(x) + 0.5, Float(y) + 0.5)
                        let t = min(max(((p - root) * direction).sum() / length, 0), 1)
                        let distance = norm(p - (root + direction * (t * length)))
                        // Tapering to the tip: full width at the root, 0.4 of it at the end.
                        let halfWidth = 0.5 * hairWidth * (1 - 0.6 * t)
                        let coverage = min(max(halfWidth + 0.5 - distance, 0), 1)
                        if coverage > 0 { lay(x, y, shade, opacity * coverage) }
                    }
                }
            }
            for y in y0...y1 {
                for x in x0...x1 {
                    let i = y * width + x, j = (y - y0) * boxWidth + (x - x0)
                    guard removed[i] > 0.02, alpha[j] > 0 else { continue }
                    let w = min(2 * removed[i], 1)
                    let blended = linear(out, i) * (1 - alpha[j] * w) + layer[j] * w
                    out[3 * i] = UInt8(min(max(linearToSrgb(blended.x) * 255, 0), 255).rounded())
                    out[3 * i + 1] = UInt8(min(max(linearToSrgb(blended.y) * 255, 0), 255).rounded())
                    out[3 * i + 2] = UInt8(min(max(linearToSrgb(blended.z) * 255, 0), 255).rounded())
                }
            }
        }
    }

    /// Zeroes the removal where a hair pixel is nearer to another face than to every head: distances from
    /// the brows' centre (a head's, or a box's centre raised by a quarter of its height) over the face's
    /// width (twice the head's half-width, or the box's), so a small face in the back does not claim the hair
    /// beside a large one in front.
    public static func keepOthersHair(_ remove: inout [Float], width: Int, heads: [PersonHead], others: [FaceBox]) {
        guard !others.isEmpty, !heads.isEmpty else { return }
        let own = heads.map { (centre: $0.browCentre, scale: max(2 * $0.halfWidth, 1)) }
        let theirs = others.map { (centre: Vec2(($0.left + $0.right) / 2, $0.top + 0.25 * ($0.bottom - $0.top)),
                                   scale: max($0.right - $0.left, 1)) }
        func nearest(_ p: Vec2, _ faces: [(centre: Vec2, scale: Float)]) -> Float {
            faces.reduce(Float.infinity) { best, face in
                let d = p - face.centre
                return min(best, (d * d).sum().squareRoot() / face.scale)
            }
        }
        for i in remove.indices where remove[i] > 0 {
            let p = Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5)
            if nearest(p, theirs) < nearest(p, own) { remove[i] = 0 }
        }
    }

    /// The cropped hair's texture over the scalp the plate filled (1 where `scalp` is 0), the product of two:
    /// - the own hair's linear luminance relative to its mean there, to the power 0.4 (its light and shade
    ///   kept, its long strands' highlights softened: cropped hair shows none);
    /// - stubble: seeded value noise at about a 250th of the face's width, smeared along the direction short
    ///   hair lies (away from the crown, a point 1.2 middle thirds above the brows; line-integral
    ///   convolution over 3% of the face's width), at ±`stubbleContrast`. A flat tone reads as a cap; fine
    ///   streaks along the skull read as hair.
    /// Within 0.35…2.2. Deterministic for a seed.
    public static func scalpTexture(_ image: PixelImage, scalp: [Float], heads: [PersonHead], seed: UInt64) -> [Float] {
        precondition(image.channels == 3 && scalp.count == image.width * image.height)
        let decode = srgbDecodeTable
        let width = image.width
        var luminance = [Float](repeating: 0, count: scalp.count)
        var sum: Float = 0, weight: Float = 0
        for i in scalp.indices where scalp[i] > 0 {
            let p = image.pixels
            luminance[i] = 0.2126 * decode[Int(p[3 * i])] + 0.7152 * decode[Int(p[3 * i + 1])] + 0.0722 * decode[Int(p[3 * i + 2])]
            sum += scalp[i] * luminance[i]
            weight += scalp[i]
        }
        guard weight > 0, sum > 0, let largest = heads.max(by: { $0.halfWidth < $1.halfWidth }) else {
            return [Float](repeating: 1, count: scalp.count)
        }
        let mean = sum / weight
        let faceWidth = 2 * largest.halfWidth
        let cell = max(1, faceWidth / 250), reach = max(2, 0.03 * faceWidth)
        // The noise's lattice values over the scalp's box (and the streaks' reach), once: sampled below with
        // ValueNoise's own smoothstep blend in the z = 0 plane, so each sample is 4 table reads, not 8 seeded
        // draws.
        let noise = ValueNoise(seed: seed)
        var low = (x: Int.max, y: Int.max), high = (x: Int.min, y: Int.min)
        for i in scalp.indices where scalp[i] > 0 {
            low = (min(low.x, i % width), min(low.y, i / width))
            high = (max(high.x, i % width), max(high.y, i / width))
        }
        let g0x = Int(((Float(low.x) - reach) / cell).rounded(.down)) - 1, g0y = Int(((Float(low.y) - reach) / cell).rounded(.down)) - 1
        let g1x = Int(((Float(high.x) + 1 + reach) / cell).rounded(.up)) + 1, g1y = Int(((Float(high.y) + 1 + reach) / cell).rounded(.up)) + 1
        let gw = g1x - g0x + 1
        var lattice = [Float](repeating: 0, count: gw * (g1y - g0y + 1))
        for gy in g0y...g1y { for gx in g0x...g1x { lattice[(gy - g0y) * gw + gx - g0x] = noise(Vec3(Float(gx), Float(gy), 0)) } }
        func sample(_ q: Vec2) -> Float {
            let cx = Int(q.x.rounded(.down)), cy = Int(q.y.rounded(.down))
            var fx = q.x - Float(cx), fy = q.y - Float(cy)
            fx = fx * fx * (3 - 2 * fx)
            fy = fy * fy * (3 - 2 * fy)
            let x = min(max(cx - g0x, 0), gw - 2), y = min(max(cy - g0y, 0), g1y - g0y - 1)
            let a = lattice[y * gw + x], b = lattice[y * gw + x + 1], c = lattice[(y + 1) * gw + x], d = lattice[(y + 1) * gw + x + 1]
            return (a + (b - a) * fx) + ((c + (d - c) * fx) - (a + (b - a) * fx)) * fy
        }
        // The streak at each scalp pixel: the noise averaged along the line the hair lies on, `reach` each way,
        // sampled every `streakStepCells` of a cell (line-integral convolution). Seven samples 2.5 cells apart
        // were a comb, not a smear: the noise came back as a lattice repeating every 2.5 cells along the hair, and
        // where the direction turned over the temples the lattices crossed into a woven net (u2net img_1588).
        let taps = max(3, Int((2 * reach / (Self.streakStepCells * cell)).rounded(.up))) + 1
        // Scalp pixels only, in the photo's order (a 12 MP photo's full-sized array was 48 MB for a few percent).
        var streaks: [Float] = []
        var streakSum: Double = 0, streakSquares: Double = 0
        for i in scalp.indices where scalp[i] > 0 {
            let p = Vec2(Float(i % width) + 0.5, Float(i / width) + 0.5)
            // The nearest head's crown sets the direction the hair lies in.
            let head = heads.min { (($0.browCentre - p) * ($0.browCentre - p)).sum() < (($1.browCentre - p) * ($1.browCentre - p)).sum() }!
            let crown = head.browCentre + head.up * (1.2 * head.middleThird)
            var d = p - crown
            let length = (d * d).sum().squareRoot()
            d = length > 1e-3 ? d / length : head.up
            var streak: Float = 0
            for k in 0..<taps {
                let q = (p + d * (reach * (2 * Float(k) / Float(taps - 1) - 1))) / cell
                streak += sample(Vec2(q.x, q.y))
            }
            streak /= Float(taps)
            streaks.append(streak)
            streakSum += Double(streak)
            streakSquares += Double(streak) * Double(streak)
        }
        // Centred on the streaks' own mean and scaled to a spread of `streakSpread`, as one sample of the noise
        // has: a mean over a line is far flatter than one sample (at ±13% of the tone the crop read as a flat
        // dark patch at 1080p).
        let streakMean = streakSum / Double(streaks.count)
        let streakDeviation = (max(streakSquares / Double(streaks.count) - streakMean * streakMean, 0)).squareRoot()
        let scale = streakDeviation > 1e-6 ? Float(Double(Self.streakSpread) / streakDeviation) : 0
        var out = [Float](repeating: 1, count: scalp.count)
        var next = 0
        for i in scalp.indices where scalp[i] > 0 {
            let streak = (streaks[next] - Float(streakMean)) * scale
            next += 1
            let shade = powf(max(luminance[i], 1e-5) / mean, 0.4)
            out[i] = min(max(shade * (1 + stubbleContrast * 2 * streak), 0.35), 2.2)
        }
        return out
    }

    /// The stubble's light and dark streaks, as a share of the cropped hair's tone.
    public static let stubbleContrast: Float = 0.45
    /// The streaks' spread before `stubbleContrast` (their standard deviation over the scalp): as the seven-sample
    /// streaks before them were scaled, about one sample of the noise's own.
    static let streakSpread: Float = 0.49
    /// The line integral's step along the hair, in the noise's cells: under one, so no cell is skipped.
    static let streakStepCells: Float = 0.75

    /// The parse's classes a fill never paints over: brows (2, 3), eyes (4, 5), glasses (6), ears (7, 8),
    /// earrings (9), nose (10), mouth and lips (11–13); the same range cv_hair_fill keeps the bytes of.
    public static let protectedClasses: ClosedRange<UInt8> = UInt8(CV_PARSE_FIRST_FEATURE)...UInt8(CV_PARSE_LAST_FEATURE)

    /// How far above the brows (in middle thirds) glasses are worn on the head, not over the eyes: a frame's
    /// top lies at about the brows, sunglasses pushed up sit at the hairline (one middle third up) or higher.
    public static let glassesOnTheHead: Float = 0.6

    /// The box (in a `width`×`height` photo) around triangles' points (xy pairs), grown by `grownBy` px and
    /// clamped; nil for none.
    static func box(of xy: [Float], grownBy: Int, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard xy.count >= 2 else { return nil }
        var minX = Float.infinity, minY = Float.infinity, maxX = -Float.infinity, maxY = -Float.infinity
        for i in stride(from: 0, to: xy.count - 1, by: 2) {
            minX = min(minX, xy[i]); maxX = max(maxX, xy[i])
            minY = min(minY, xy[i + 1]); maxY = max(maxY, xy[i + 1])
        }
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else { return nil }
        let x0 = max(0, Int(minX.rounded(.down)) - grownBy), y0 = max(0, Int(minY.rounded(.down)) - grownBy)
        let x1 = min(width, Int(maxX.rounded(.up)) + grownBy + 1), y1 = min(height, Int(maxY.rounded(.up)) + grownBy + 1)
        guard x1 > x0, y1 > y0 else { return nil }
        return (x0, y0, x1 - x0, y1 - y0)
    }

    /// A square max filter (the matte grown by `radius` pixels), as OpenCV's dilation.
    public static func maxFilter(_ values: [Float], width: Int, height: Int, radius: Int) -> [Float] {
        var out = [Float](repeating: 0, count: values.count)
        cv_max_filter(values, Int32(width), Int32(height), Int32(radius), &out)
        return out
    }
}

/// Recolouring the own hair in linear light (see cv_hair_recolor).
public enum HairRecolor {
    /// `image` with its hair (`matte`) recoloured toward `targetLinear`; outside the matte, the same bytes.
    public static func apply(_ image: PixelImage, matte: [Float], targetLinear: Vec3, strength: Float) throws -> PixelImage {
        precondition(image.channels == 3 && matte.count == image.width * image.height)
        var out = [UInt8](repeating: 0, count: image.pixels.count)
        let status = image.pixels.withUnsafeBufferPointer { rgb in
            cv_hair_recolor(rgb.baseAddress, Int32(image.width), Int32(image.height), matte, targetLinear.x, targetLinear.y,
                            targetLinear.z, strength, &out)
        }
        guard status == 0 else { throw CoifError.internalError("recolour failed (\(status))") }
        return PixelImage(width: image.width, height: image.height, channels: 3, pixels: out)
    }
}

/// The head's silhouette in the photo: triangles already projected to pixels, filled.
public enum HeadSilhouette {
    /// A width×height mask, 255 inside any of `triangles` (6 floats each: three pixel corners).
    public static func mask(width: Int, height: Int, triangles: [Float]) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: width * height)
        cv_fill_triangles(&mask, Int32(width), Int32(height), triangles, Int32(triangles.count / 6))
        return mask
    }
}

extension OwnHair {
    /// An ear is skin: one the parse finds darker than this share of its face's skin (median linear
    /// luminance), and nearer the own hair's luminance than the face's (in log luminance, as the eye
    /// compares), is the hair round it misread (facerec alex-lacamoire's curls beside his jaw: 0.09 of his face,
    /// the hair's own tone). Kept as a feature's bytes, and joined to the face as a visible ear, it floated
    /// beside the face as a dark blob once the hair round it was taken away. An ear in its head's shadow is
    /// about as dark as a neck in the jaw's, 0.6 of the face, and in a hard key light darker still
    /// (deep3dfacerecon 015316's, 0.17 of his face, but a hundred times his black hair's luminance): the two
    /// tests together keep it. The plate takes skin under 0.2 of the face for clothes (kClothesUnderSkin) on the
    /// same grounds.
    public static let earUnderFaceSkin: Float = 0.2

    /// This parse with every ear it finds (each 4-connected piece of an ear class) that `earUnderFaceSkin`
    /// calls hair taken as hair: its class hair, its matte 1. Each piece is judged against the nearest of
    /// `persons`' faces: its skin (the parse's skin on its bare face) and its own hair (the parse's hair at
    /// matte ≥ 0.8 within two face widths of the brows). A face showing no skin or no hair judges no ear.
    public func withDarkEarsAsHair(photo: PixelImage, persons: [PersonHead]) -> OwnHair {
        precondition(photo.width == width && photo.height == height && photo.channels == 3)
        guard !persons.isEmpty, classes.contains(where: { $0 == Self.rightEar || $0 == Self.leftEar }) else { return self }
        let pixels = photo.pixels
        func luminance(_ i: Int) -> Float {
            0.2126 * srgbToLinear(Float(pixels[3 * i]) / 255) + 0.7152 * srgbToLinear(Float(pixels[3 * i + 1]) / 255)
                + 0.0722 * srgbToLinear(Float(pixels[3 * i + 2]) / 255)
        }
        func median(_ values: [Float]) -> Float? { values.isEmpty ? nil : values.sorted()[values.count / 2] }
        // Per person: the face's skin and the hair round it (every other pixel of every other row).
        let tones = persons.map { person -> (skin: Float, hair: Float)? in
            let reach = 4 * person.halfWidth
            let x0 = max(0, Int(person.browCentre.x - reach)), x1 = min(width, Int(person.browCentre.x + reach) + 1)
            let y0 = max(0, Int(person.browCentre.y - reach)), y1 = min(height, Int(person.browCentre.y + reach) + 1)
            guard x1 > x0, y1 > y0 else { return nil }
            // The bare face drawn over this window only (not the whole photo: the plate draws it again there).
            let face = person.bareFaceMask(margin: PersonHead.plateContourMargin, window: (x0, y0, x1 - x0, y1 - y0))
            var skin: [Float] = [], hair: [Float] = []
            for y in stride(from: y0, to: y1, by: 2) {
                for x in stride(from: x0, to: x1, by: 2) {
                    let i = y * width + x
                    if face[(y - y0) * (x1 - x0) + (x - x0)] != 0 && classes[i] == Self.skin { skin.append(luminance(i)) }
                    if classes[i] == Self.hair && matte[i] >= 0.8 { hair.append(luminance(i)) }
                }
            }
            guard let s = median(skin), let h = median(hair), s > 0, h > 0 else { return nil }
            return (s, h)
        }
        var out = self
        var seen = [Bool](repeating: false, count: classes.count)
        for start in classes.indices where !seen[start] && (classes[start] == Self.rightEar || classes[start] == Self.leftEar) {
            let ear = classes[start]
            var piece: [Int] = [], stack = [start]
            seen[start] = true
            while let i = stack.popLast() {
                piece.append(i)
                let x = i % width, y = i / width
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && ny >= 0 && nx < width && ny < height {
                    let j = ny * width + nx
                    if !seen[j] && classes[j] == ear {
                        seen[j] = true
                        stack.append(j)
                    }
                }
            }
            let centre = piece.reduce(Vec2()) { $0 + Vec2(Float($1 % width) + 0.5, Float($1 / width) + 0.5) } / Float(piece.count)
            let nearest = persons.indices.min { a, b in
                let da = persons[a].browCentre - centre, db = persons[b].browCentre - centre
                return (da * da).sum() < (db * db).sum()
            }!
            guard let tone = tones[nearest], let earTone = median(piece.map(luminance)), earTone > 0 else { continue }
            let nearerHair = abs(logf(earTone / tone.hair)) < abs(logf(earTone / tone.skin))
            guard earTone < Self.earUnderFaceSkin * tone.skin, nearerHair else { continue }
            for i in piece {
                out.classes[i] = Self.hair
                out.matte[i] = 1
            }
        }
        return out
    }
}
