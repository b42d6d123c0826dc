// HairColor: what a user asks for with --color: a named preset, a hex sRGB colour or an explicit recipe
// (`melanin=…,redness=…`, see HairRecipe.parse). A preset or hex is the colour hair should *look* under
// neutral light; it is solved for the recipe that gives it (HairRecipe.solve), which the shader renders.
import CoifCore

#if canImport(Glibc)
import Glibc
#endif

public struct HairColor: Sendable, Equatable, CustomStringConvertible {
    /// The colour the hair shows under neutral light, sRGB-encoded, 0…1: the target for a preset or hex,
    /// the recipe's reference colour for a recipe.
    public var srgb: Vec3
    /// The name the user gave (preset name, normalised hex or the recipe's text), for records and file names.
    public var name: String
    /// What the strands absorb with.
    public var recipe: HairRecipe
    /// `own`: the person's own hair colour, measured from the photo and solved into `recipe` per photo
    /// (OwnHairColor in the pipeline); until then `recipe` is dark brown's.
    public var isOwn = false

    /// The name `--color` takes for the person's own colour.
    public static let ownName = "own"

    /// The person's own colour, to be measured from the photo.
    public static var own: HairColor {
        var color = try! parse("dark-brown")
        color.name = ownName
        color.isOwn = true
        return color
    }

    /// The colour `srgb` solved into a recipe.
    public init(srgb: Vec3, name: String) {
        self.srgb = srgb
        self.name = name
        let linear = Vec3(srgbToLinear(srgb.x), srgbToLinear(srgb.y), srgbToLinear(srgb.z))
        recipe = HairRecipe(base: HairRecipe.solve(targetLinear: linear))
    }

    /// A recipe as it is, named `name`; `srgb` is its reference colour.
    public init(recipe: HairRecipe, name: String) {
        let c = recipe.referenceColor
        srgb = Vec3(linearToSrgb(min(c.x, 1)), linearToSrgb(min(c.y, 1)), linearToSrgb(min(c.z, 1)))
        self.name = name
        self.recipe = recipe
    }

    /// Presets, named as salons name them, each by its reference colour: what the hair shows on Coif's head
    /// from the front under Coif's neutral portrait lights (`Lighting()`), as the CIELAB medians of its solid
    /// pixels (LookEvaluation.presetTones measures it; docs/look.md shows them as swatches). Chosen from
    /// real hair in portraits: black and dark brown dark (L* 14 and 21) and warm, not the mid grey (L* 28–32)
    /// that a white cuticle highlight over a too-black fibre gave; auburn, copper and red beyond what
    /// melanin alone reaches, so solved with a dye, as salon colours are.
    public static let presetTargets: [(name: String, hex: String)] = [
        ("black", "#302c2b"),
        ("dark-brown", "#3f302a"),
        ("brown", "#654836"),
        ("auburn", "#6e342a"),
        ("copper", "#9a5228"),
        ("red", "#8c302b"),
        ("blonde", "#a88a62"),
        ("golden-blonde", "#b48c52"),
        ("platinum", "#c9c0ae"),
        ("gray", "#7d7975"),
    ]

    /// Salt and pepper: three in five strands light among darker ones, `grayPepperLevel` of their level, the
    /// two solved so that their mix (a pixel holds several strands) is the reference. Fixed near-white strands
    /// with the dark ones solved for the mean drew gray L* 55–58 for its 51 once the roots no longer darkened
    /// (HairCover): the dark strands were solved to nothing and the white alone set the colour.
    static let grayLightFraction: Float = 0.6
    /// The dark strands' linear level against the light ones': near-black among silver.
    static let grayPepperLevel: Float = 0.12
    /// The mix's median pixel over its mean strand, measured on Coif's head (`coif eval look --presets`, gray
    /// at 44.4 for a mean solved to 51.1): a pixel holds a few strands, and the dark ones in front of the
    /// light weigh more than their share.
    static let grayMedianOverMean: Float = 0.74

    /// The presets as recipes: each reference colour solved (HairRecipe.solve); gray's light and dark strands
    /// solved so that their mix is its reference.
    public static let presetRecipes: [(name: String, recipe: HairRecipe)] = presetTargets.map { preset in
        let (srgb, _) = hexDigits(preset.hex)!
        let target = Vec3(srgbToLinear(srgb.x), srgbToLinear(srgb.y), srgbToLinear(srgb.z))
        guard preset.name == "gray" else { return (preset.name, HairRecipe(base: HairRecipe.solve(targetLinear: target))) }
        let light = target / ((grayLightFraction + (1 - grayLightFraction) * grayPepperLevel) * grayMedianOverMean)
        return (preset.name, HairRecipe(base: HairRecipe.solve(targetLinear: light * grayPepperLevel), highlightFraction: grayLightFraction,
                                        highlight: HairRecipe.solve(targetLinear: light)))
    }

    /// The presets' names and the hex of their colour under neutral light.
    public static var presets: [(name: String, hex: String)] {
        presetRecipes.map { ($0.name, HairColor(recipe: $0.recipe, name: $0.name).hex) }
    }

    /// "#rrggbb" of `srgb`.
    public var hex: String {
        let v = [srgb.x, srgb.y, srgb.z].map { Int((min(max($0, 0), 1) * 255).rounded()) }
        return "#" + v.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// Parses "#rrggbb", "rrggbb", "#rgb", a preset name (case-insensitive) or a recipe (`key=value,…`).
    public static func parse(_ spec: String) throws -> HairColor {
        let lowered = spec.lowercased()
        if lowered.contains("=") {
            let (recipe, reason) = HairRecipe.parse(lowered)
            guard let recipe else { throw CoifError.malformedColor(spec: spec, reason: reason ?? "not a recipe") }
            return HairColor(recipe: recipe, name: lowered)
        }
        if lowered == ownName { return own }
        if let preset = presetRecipes.first(where: { $0.name == lowered }) {
            return HairColor(recipe: preset.recipe, name: preset.name)
        }
        return try parseHex(lowered, original: spec)
    }

    private static func parseHex(_ text: String, original: String) throws -> HairColor {
        guard let (srgb, expanded) = hexDigits(text) else {
            let names = presetRecipes.map(\.name).joined(separator: ", ")
            throw CoifError.malformedColor(spec: original, reason: "expected #rrggbb, #rgb, a recipe (melanin=…,redness=…), own or one of: \(names)")
        }
        return HairColor(srgb: srgb, name: "#" + expanded)
    }

    /// "#rrggbb" / "#rgb" as sRGB 0…1 and the six digits, nil when malformed.
    public static func hexDigits(_ text: String) -> (Vec3, String)? {
        var digits = Substring(text.lowercased())
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6 || digits.count == 3, digits.allSatisfy(\.isHexDigit) else { return nil }
        let expanded = digits.count == 3 ? String(digits.flatMap { [$0, $0] }) : String(digits)
        let value = UInt32(expanded, radix: 16)!
        let r = Float((value >> 16) & 0xff) / 255, g = Float((value >> 8) & 0xff) / 255, b = Float(value & 0xff) / 255
        return (Vec3(r, g, b), expanded)
    }

    /// A hex colour's linear RGB (for dye tints), nil when malformed.
    static func linearHex(_ text: String) -> Vec3? {
        guard let (srgb, _) = hexDigits(text) else { return nil }
        return Vec3(srgbToLinear(srgb.x), srgbToLinear(srgb.y), srgbToLinear(srgb.z))
    }

    /// The colour in linear light.
    public var linear: Vec3 { Vec3(srgbToLinear(srgb.x), srgbToLinear(srgb.y), srgbToLinear(srgb.z)) }

    public var description: String { name }
}
