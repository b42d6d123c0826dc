// DurationSummary: the one summary of many timings (count, mean, p50, p95, p99, max; nearest-rank percentiles)
// that `coif bench`, `coif video --summary`, the batch report and the groom benchmark all print.

/// Order statistics of a set of durations.
public struct DurationSummary: Sendable, Equatable, Codable {
    public var count: Int
    public var meanMs: Double
    public var p50Ms: Double
    public var p95Ms: Double
    public var p99Ms: Double
    public var maxMs: Double

    public init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        meanMs = sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count)
        func quantile(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            // Nearest rank: the smallest sample with at least q of the samples at or below it.
            let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(rank, 0), sorted.count - 1)]
        }
        p50Ms = quantile(0.50)
        p95Ms = quantile(0.95)
        p99Ms = quantile(0.99)
        maxMs = sorted.last ?? 0
    }
}
