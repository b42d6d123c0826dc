// coif styles [--json]
import ArgumentParser
import CoifGroom
import CoifPipeline
import Foundation

struct Styles: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the hairstyles in the catalog.")

    @Flag(help: "Print the catalog as JSON.")
    var json = false

    func run() throws {
        try runReportingErrors {
            let catalog = try StyleCatalog.standard()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(catalog), as: UTF8.self))
                return
            }
            for entry in catalog.styles {
                let marker = entry.name == catalog.defaultStyle ? " (default)" : ""
                print("\(entry.name)\(marker): \(entry.description) [\(entry.tags.joined(separator: ", "))] \(entry.guides) guides × \(entry.pointsPerGuide) points")
            }
        }
    }
}
