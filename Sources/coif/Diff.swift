// coif diff A.png B.png: compare two PNGs (8/16-bit, gray/RGB/RGBA) and print one line or every figure.
// Exit 0 within tolerance, 1 when they differ; bad input exits with its CoifError code (README).
import ArgumentParser
import CoifCore
import CoifDiff
import CoifMedia
import Foundation

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two PNGs: differing pixels, errors, PSNR, SSIM, CIEDE2000, anti-aliasing, a heatmap.",
        discussion: """
        A pixel differs when any channel differs by more than --threshold (8-bit steps; 16-bit differences are
        divided by 257). The images are within tolerance when at most --max-differing-pixels pixels differ
        (a count, or a percentage such as 0.5%). Exit codes: 0 within tolerance, 1 different, 10 missing file,
        11 not a PNG, 12 damaged PNG, 14 sizes differ, 15 over 200 megapixels or 1 GiB, 22 invalid option,
        30 heatmap not writable.
        """
    )

    @Argument(help: "The reference PNG.")
    var reference: String

    @Argument(help: "The PNG to compare with it.")
    var actual: String

    @Flag(help: "Print every figure as JSON instead of one line.")
    var json = false

    @Option(help: "Write a heatmap PNG: the reference faded, differences yellow→red, anti-aliasing blue, a legend below.")
    var heatmap: String?

    @Option(help: "Per-channel difference (0–255, 8-bit steps) above which a pixel differs.")
    var threshold: Double = 0

    @Option(help: "How many pixels may differ: a count (N) or a percentage (P%).")
    var maxDifferingPixels: String = "0"

    @Flag(help: "Do not count pixels recognised as anti-aliased edges.")
    var ignoreAntialiasing = false

    @Option(help: "Compare only where this gray PNG (e.g. Coif's matte.png) is non-zero.")
    var mask: String?

    /// The options alone, before an image is read: each refusal keeps its CoifError (22, naming the flag).
    func validate() throws {
        guard threshold >= 0 && threshold <= 255 else {
            throw CoifError.invalidOption(name: "--threshold", reason: "must be 0…255, got \(threshold)")
        }
        _ = try PixelBudget.parse(maxDifferingPixels)
    }

    func run() throws {
        var within = true
        try runReportingErrors {
            let budget = try PixelBudget.parse(maxDifferingPixels)
            if let heatmap { try OutputPaths.checkWritable([heatmap], inputs: [reference, actual] + (mask.map { [$0] } ?? [])) }
            let (a, b) = try DiffImage.loadPair(reference, actual)
            let maskImage = try mask.map(DiffImage.loadMask)
            let options = DiffOptions(threshold: threshold, ignoreAntialiasing: ignoreAntialiasing, mask: maskImage,
                                      keepMap: heatmap != nil)
            let (difference, map) = try ImageDiff.compare(a, b, options: options)
            within = budget.allows(difference)
            if let heatmap, let map {
                try AtomicFile.write(try PNGFile.encode(Heatmap.render(map, threshold: threshold)), to: heatmap)
            }
            if json {
                var object = difference.jsonObject
                object["reference"] = reference
                object["actual"] = actual
                object["mask"] = mask ?? NSNull()
                object["maxDifferingPixels"] = budget.description
                object["withinTolerance"] = within
                let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(difference.summary(within: within))
            }
        }
        if !within { throw ExitCode(1) }
    }
}
