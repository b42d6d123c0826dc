// coif batch JOB.json --out DIR [--shard I/N] [--workers K] [--resume] [--force] [--dry-run] [--results FILE]
// coif batch-report results.jsonl… -o report.html
import ArgumentParser
import CoifCore
import CoifFarm
import CoifGroom
import CoifPipeline
import CoifReports
import CoifVision
import Foundation

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a job file's photo × style × colour try-ons, or one shard of them (Slurm, Kubernetes), resumably.",
        discussion: """
        Each output gets a sidecar OUT.png.coif holding the hash of its inputs, flags and Coif build; an item whose \
        output and sidecar match is skipped, so a killed or repeated run finishes the job without rendering done \
        items again. The shard comes from --shard, else a Slurm job array (the task's position in it), else a \
        Kubernetes Indexed Job (JOB_COMPLETION_INDEX with COIF_SHARD_COUNT). Exit 0: every item of the shard is \
        done; 3: the shard ran to its end and some items failed (see the results file; retrying will not help); \
        23: the job file was refused before anything rendered; other codes as `coif render`.
        """
    )

    @Argument(help: "The job file (JSON; see docs/batch.md).")
    var jobFile: String

    @Option(help: "The folder outputs go under (made if missing).")
    var out: String

    // Unconditional: `-1/2` is a value to refuse with its reason, not an option the parser then calls missing.
    @Option(parsing: .unconditional, help: "Render only shard I of N (0-based), e.g. 3/8 (default: from Slurm or Kubernetes, else the whole job).")
    var shard: String?

    @Option(help: "Engines rendering at once, each with its own GPU context and models (1–16).")
    var workers: Int = 1

    @Flag(help: "Also skip the items that an earlier run recorded as failed in the results file.")
    var resume = false

    @Flag(help: "Render every item again, whatever its sidecar says.")
    var force = false

    @Flag(help: "Print the item count and the first output paths, render nothing.")
    var dryRun = false

    @Option(help: "Append each item's result here as a JSON line (default: OUT/results.jsonl, or OUT/results-I-of-N.jsonl for a shard).")
    var results: String?

    @Option(help: "Progress: 'auto' (a bar on a terminal, lines otherwise), 'bar' (on standard error), 'lines' (Open Job Description's openjd_progress and openjd_status on standard output) or 'none'.")
    var progress: ProgressOption = .auto

    @OptionGroup var styleDirectories: StyleDirectoryOptions
    @OptionGroup var global: GlobalOptions

    /// The options alone, before anything is read: each refusal keeps its CoifError (22, naming the flag).
    func validate() throws {
        guard BatchOptions.workerRange.contains(workers) else {
            throw CoifError.invalidOption(name: "--workers", reason: "must be between 1 and 16, got \(workers)")
        }
        _ = try shard.map(BatchShard.parse)
    }

    func run() throws {
        try runReportingErrors {
            let mode = progress.mode
            let farm = mode == .lines && !dryRun ? FarmProgress() : nil
            farm?.status("reading the job \(jobFile)")
            let shard = try shard.map(BatchShard.parse) ?? BatchShard.fromEnvironment(ProcessInfo.processInfo.environment) ?? .whole
            // Checked here, made only once the job is accepted: a refused job leaves no folder behind.
            try AtomicFile.checkDirectory(out)
            // One results file per shard by default: a farm's shared volume (NFS) does not promise that
            // appends from several machines to one file stay whole.
            let defaultResults = shard.count == 1 ? "results.jsonl" : "results-\(shard.index)-of-\(shard.count).jsonl"
            let resultsPath = results ?? (out as NSString).appendingPathComponent(defaultResults)
            let job = try BatchJob.load(path: jobFile, outputDirectory: out, build: BuildFingerprint.current(version: coifVersion),
                                        userStyleDirectories: styleDirectories.directories,
                                        reserved: [resultsPath]) { try StyleLibrary.standard(userDirectories: $0) }
            var options = BatchOptions(resultsPath: resultsPath)
            options.shard = shard
            options.workers = workers
            options.resume = resume
            options.force = force
            options.userStyleDirectories = job.styleDirectories
            let bar = BatchProgressBar()
            switch mode {
            case .lines: options.progress = { settled, total in farm?.progress(settled, of: total) }
            case .bar: options.progress = { settled, total in bar.show(settled, of: total) }
            case .none: break
            }
            let directories = job.styleDirectories
            let logger = global.makeLogger()
            let runner = BatchRunner(job: job, options: options, logger: logger) {
                try TryOnEngine(logger: logger, userStyleDirectories: directories)
            }
            let mine = runner.shardItems
            if !dryRun { try OutputPaths.makeDirectory(out) }
            if dryRun {
                let done = mine.reduce(0) { $0 + (BatchRunner.isDone($1) ? 1 : 0) }
                print("\(job.items.count) items in the job; shard \(shard): \(mine.count) items (\(mine.first.map { "\($0.index)" } ?? "-")…\(mine.last.map { "\($0.index)" } ?? "-")), \(done) already done, \(mine.count - done) to render")
                for item in mine.prefix(10) { print("  \(item.index)  \(item.output)") }
                if mine.count > 10 { print("  … \(mine.count - 10) more") }
                return
            }
            farm?.status("rendering shard \(shard): \(mine.count) items, \(workers) worker(s)")
            let summary = try runner.run()
            if mode == .bar && !mine.isEmpty { FileHandle.standardError.write(Data("\n".utf8)) }
            farm?.status("shard \(shard) finished: \(summary.rendered) rendered, \(summary.done) already done, \(summary.failed) failed")
            print("shard \(shard): \(summary.items) items: \(summary.rendered) rendered, \(summary.done) already done, \(summary.failed) failed; \(summary.photosAnalysed) photos analysed; \(String(format: "%.1f", summary.wallMs / 1000)) s; results in \(options.resultsPath)")
            if let fatal = summary.fatal { throw fatal }
            if summary.failed > 0 { throw ExitCode(Self.someItemsFailed) }
        }
    }

    /// A bar on standard error, redrawn as each item is settled.
    final class BatchProgressBar: @unchecked Sendable {
        private let lock = NSLock()
        func show(_ settled: Int, of total: Int) {
            lock.withLock { FileHandle.standardError.write(Data("\r[\(progressBar(settled, of: total))] \(settled)/\(total) items ".utf8)) }
        }
    }

    /// The exit code of a shard that ran to its end with failed items: a farm should not retry it.
    static let someItemsFailed: Int32 = 3
}

struct BatchReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch-report",
        abstract: "Summarise batch results (one or more results.jsonl) as one self-contained HTML page."
    )

    @Argument(help: "Results files written by `coif batch`.")
    var results: [String]

    @Option(name: [.short, .long], help: "The HTML page to write.")
    var output: String

    @Option(help: "Thumbnails in the grid, at most.")
    var thumbnails: Int = 200

    /// The options alone, before a results file is read: each refusal keeps its CoifError (22, naming the flag).
    func validate() throws {
        guard thumbnails >= 0 && thumbnails <= 100_000 else {
            throw CoifError.invalidOption(name: "--thumbnails", reason: "must be between 0 and 100000, got \(thumbnails)")
        }
    }

    func run() throws {
        try runReportingErrors {
            try OutputPaths.checkWritable([output], inputs: results)
            let report = try BatchReport(resultsFiles: results)
            // The PNGs it reads for thumbnails are inputs too: the page is not written over one of them.
            try OutputPaths.check([output], inputs: results + report.thumbnailPaths(thumbnails))
            try AtomicFile.write(text: report.html(thumbnails: thumbnails), to: output)
            let damaged = report.damagedLines.isEmpty ? "" : "; \(report.damagedLines.count) damaged line(s) skipped: " + report.damagedLines.prefix(3).joined(separator: ", ")
            print("wrote \(output) (\(report.latest.count) items: \(report.count(.rendered) + report.count(.done)) done, \(report.count(.failed)) failed\(damaged))")
        }
    }
}
