// StyleAdvice: the catalog's styles ranked for a face shape, from what Meshes/catalog.json says each cut
// suits. Deterministic: the same catalog and shape give the same order. Lists only catalog styles.
import CoifGroom
import CoifVision

/// One style's place in a recommendation.
public struct StyleSuggestion: Sendable, Codable, Equatable {
    public var name: String
    public var description: String
    /// 1 when the catalog lists the face shape for this style (see `StyleAdvice.shapes(of:)`), else 0.
    public var score: Int
    /// How many face shapes the catalog lists for the style (the first tie-break).
    public var shapesSuited: Int
}

public enum StyleAdvice {
    /// Face shapes the catalog says a style suits: its `faceShapes` when present; otherwise the face-shape
    /// words among its `tags` ("oval", "round", "square", "heart", "diamond", and "oblong" or "long-face"
    /// for long). A bare "long" tag is not read as a face shape: the catalog uses it for hair length, and
    /// long hair is what stylists steer long faces away from.
    public static func shapes(of entry: StyleEntry) -> Set<FaceShape> {
        if let listed = entry.faceShapes { return Set(listed.compactMap(FaceShape.init(rawValue:))) }
        return Set(entry.tags.compactMap { tag -> FaceShape? in
            switch tag.lowercased() {
            case "oblong", "long-face": return .long
            case "long": return nil
            default: return FaceShape(rawValue: tag.lowercased())
            }
        })
    }

    /// Every catalog style, best first: score (shape listed) descending; then, among equals, styles listed
    /// for fewer shapes first (a cut recommended for few shapes including this one is the more specific
    /// advice; a style with no shape data counts as suiting all six, so it sorts last); then catalog order.
    public static func rank(catalog: StyleCatalog, for shape: FaceShape) -> [StyleSuggestion] {
        let rows = catalog.styles.enumerated().map { index, entry -> (Int, StyleSuggestion) in
            let suited = shapes(of: entry)
            return (index, StyleSuggestion(name: entry.name, description: entry.description, score: suited.contains(shape) ? 1 : 0,
                                           shapesSuited: suited.isEmpty ? FaceShape.allCases.count : suited.count))
        }
        return rows.sorted { a, b in
            if a.1.score != b.1.score { return a.1.score > b.1.score }
            if a.1.shapesSuited != b.1.shapesSuited { return a.1.shapesSuited < b.1.shapesSuited }
            return a.0 < b.0
        }.map(\.1)
    }
}
