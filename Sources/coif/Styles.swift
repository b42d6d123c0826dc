// coif styles [--json] [--styles DIR]: the built-in catalog and any user catalogs, saying which is which.
import ArgumentParser
import CoifGroom
import CoifPipeline
import Foundation

struct Styles: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the hairstyles: the built-in catalog and user catalogs (--styles DIR, COIF_STYLES).",
        discussion: "A user style with a built-in style's name replaces it wherever a style is named; the listing marks it. Any groom file can also be named directly with --style FILE."
    )

    @Flag(help: "Print the styles as JSON.")
    var json = false

    @OptionGroup var styleDirectories: StyleDirectoryOptions

    /// One style in `--json`: the catalog entry's fields and where it comes from.
    struct Row: Encodable {
        var entry: StyleEntry
        var origin: String
        var directory: String?
        var overridesBuiltIn: Bool
        var isDefault: Bool

        func encode(to encoder: Encoder) throws {
            try entry.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(origin, forKey: .origin)
            try container.encodeIfPresent(directory, forKey: .directory)
            try container.encode(overridesBuiltIn, forKey: .overridesBuiltIn)
            try container.encode(isDefault, forKey: .isDefault)
        }
        enum Keys: String, CodingKey { case origin, directory, overridesBuiltIn, isDefault }
    }

    func run() throws {
        try runReportingErrors {
            let library = try StyleLibrary.standard(userDirectories: styleDirectories.directories)
            let rows = library.listing
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                let out = rows.map { row -> Row in
                    var directory: String?
                    if case .user(let d) = row.style.origin { directory = d }
                    return Row(entry: row.style.entry, origin: row.style.origin == .builtIn ? "built-in" : "user", directory: directory,
                               overridesBuiltIn: row.overridesBuiltIn, isDefault: row.isDefault)
                }
                struct Listing: Encodable {
                    var `default`: String
                    var styles: [Row]
                }
                print(String(decoding: try encoder.encode(Listing(default: library.defaultStyle, styles: out)), as: UTF8.self))
                return
            }
            for row in rows {
                let entry = row.style.entry
                var marks: [String] = []
                if row.isDefault { marks.append("default") }
                switch row.style.origin {
                case .builtIn: marks.append("built-in")
                case .user(let directory): marks.append("user: \(directory)" + (row.overridesBuiltIn ? ", replaces the built-in style" : ""))
                case .file: break
                }
                print("\(entry.name) (\(marks.joined(separator: "; "))): \(entry.description) [\(entry.tags.joined(separator: ", "))] \(entry.guides) guides × \(entry.pointsPerGuide) points")
            }
        }
    }
}
