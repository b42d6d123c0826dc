// HairColor: what a user asks for with --color: a hex sRGB colour or a named preset. It is the colour
// hair should *look* (its diffuse albedo); HairShading derives the highlights from it.
import CoifCore

#if canImport(Glibc)
import Glibc
#endif

public struct HairColor: Sendable, Equatable, CustomStringConvertible {
    /// The fibre colour, sRGB-encoded, 0…1.
    public var srgb: Vec3
    /// The name the user gave (preset name or normalised hex), for records and file names.
    public var name: String

    public init(srgb: Vec3, name: String) {
        self.srgb = srgb
        self.name = name
    }

    /// Presets: typical fibre colours measured from photos, named as salons name them.
    public static let presets: [(name: String, hex: String)] = [
        ("black", "#1b1512"), ("dark-brown", "#3b2519"), ("brown", "#5e3c25"), ("auburn", "#7c3420"),
        ("copper", "#a4522b"), ("red", "#8f2418"), ("blonde", "#c39a62"), ("golden-blonde", "#d4a85a"),
        ("platinum", "#e3dccb"), ("gray", "#9a9690"),
    ]

    /// Parses "#rrggbb", "rrggbb", "#rgb" or a preset name (case-insensitive).
    public static func parse(_ spec: String) throws -> HairColor {
        let lowered = spec.lowercased()
        if let preset = presets.first(where: { $0.name == lowered }) {
            var color = try parseHex(preset.hex, original: spec)
            color.name = preset.name
            return color
        }
        return try parseHex(lowered, original: spec)
    }

    private static func parseHex(_ text: String, original: String) throws -> HairColor {
        var digits = Substring(text)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6 || digits.count == 3, digits.allSatisfy(\.isHexDigit) else {
            let names = presets.map(\.name).joined(separator: ", ")
            throw CoifError.malformedColor(spec: original, reason: "expected #rrggbb, #rgb or one of: \(names)")
        }
        let expanded = digits.count == 3 ? String(digits.flatMap { [$0, $0] }) : String(digits)
        let value = UInt32(expanded, radix: 16)!
        let r = Float((value >> 16) & 0xff) / 255, g = Float((value >> 8) & 0xff) / 255, b = Float(value & 0xff) / 255
        return HairColor(srgb: Vec3(r, g, b), name: "#" + expanded)
    }

    /// The albedo in linear light.
    public var linear: Vec3 { Vec3(srgbToLinear(srgb.x), srgbToLinear(srgb.y), srgbToLinear(srgb.z)) }

    public var description: String { name }
}

/// IEC 61966-2-1 sRGB decode.
@inlinable public func srgbToLinear(_ c: Float) -> Float {
    c <= 0.04045 ? c / 12.92 : powf((c + 0.055) / 1.055, 2.4)
}

/// IEC 61966-2-1 sRGB encode.
@inlinable public func linearToSrgb(_ c: Float) -> Float {
    c <= 0.0031308 ? c * 12.92 : 1.055 * powf(c, 1 / 2.4) - 0.055
}
