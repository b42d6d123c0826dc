// BatchRunner: renders one shard of a batch job, resumably and idempotently.
//
// - Done is a file on disk: an item's PNG, then beside it `OUT.png.coif`, a sidecar holding the item's input
//   hash (the build, the photo's bytes, the style, the colour, the settings). An item whose output exists
//   with a sidecar of the same hash is skipped; any other renders. Both files are written whole or not at
//   all (AtomicFile: a temporary file, then rename), the sidecar after the PNG, so a process killed at any
//   moment (SIGKILL included) leaves each item either done or to be done, never a partial file. Two
//   processes on one shard (a Kubernetes index run twice) both render and rename; each rename puts a whole
//   file in place.
// - A photo is analysed once per shard: its items are grouped by photo, faces and camera; the faces, the
//   pose and the own-hair parse are kept for the group, and a plate is filled once per seed.
// - Work beside work: a worker analyses the next photo on a second thread while it renders the current
//   photo's items on its GPU context; `workers` > 1 runs that many engines (each its own GPU context and
//   models), taking photos from one queue.
// - An item that fails (an unreadable photo, no face) is recorded with its reason in the results file
//   and the job goes on; a failure no item can survive (no GPU, a shader, a model, a full disk) stops it.
import CoifCore
import CoifPipeline
import CoifGroom
import CoifMedia
import CoifVision
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

public struct BatchOptions: Sendable {
    public var shard: BatchShard = .whole
    /// Engines rendering at once (each with its own GPU context and models), 1–16.
    public var workers = 1
    /// Also skip the items this shard's earlier runs recorded as failed (they count as failed again).
    public var resume = false
    /// Render every item again, whatever its sidecar says.
    public var force = false
    /// Where each item's result is appended as one JSON line.
    public var resultsPath: String
    /// User catalog directories for the engines (the job's own are added).
    public var userStyleDirectories: [String] = []
    /// Called as each item of the shard is settled (done, rendered, failed or stopped), from any thread,
    /// with the count settled and the shard's item count.
    public var progress: (@Sendable (_ settled: Int, _ total: Int) -> Void)?

    public init(resultsPath: String) { self.resultsPath = resultsPath }

    public static let workerRange = 1...16
}

/// One item's outcome: a line of results.jsonl.
public struct BatchItemResult: Codable, Sendable {
    public enum Status: String, Codable, Sendable {
        /// Rendered in this run.
        case rendered
        /// Its output and sidecar were already there with the same input hash.
        case done
        /// It failed (now, or in an earlier run when `--resume` skips it).
        case failed
        /// An error no item could escape (no GPU, a full disk) stopped the shard before this item was done:
        /// not the item's fault, so `--resume` tries it again.
        case stopped
    }
    public var index: Int
    public var status: Status
    public var output: String
    public var photo: String
    public var style: String
    public var color: String
    public var variant: String?
    public var inputHash: String
    public var shard: String
    /// Why it failed, in one line, and the exit code `coif render` would give it.
    public var reason: String?
    public var exitCode: Int32?
    /// Wall time of the item's render and write (its photo's shared analysis not included).
    public var ms: Double?
    /// The item's stage times; the first item of a photo also carries the photo's analysis stages.
    public var stages: [String: Double]?
    public var strands: Int?
    public var renderer: String?
    public var host: String
    public var pid: Int32
}

public struct BatchSummary: Sendable {
    public var items = 0
    public var rendered = 0
    public var done = 0
    public var failed = 0
    public var photosAnalysed = 0
    public var wallMs = 0.0
    /// The error that stopped the job, when one did.
    public var fatal: CoifError?
}

public final class BatchRunner: @unchecked Sendable {
    public let job: BatchJob
    public let options: BatchOptions
    private let logger: Logger
    private let makeEngine: @Sendable () throws -> TryOnEngine
    private let lock = NSLock()
    private var summary = BatchSummary()
    private var queue: [PhotoGroup] = []
    private var stopped = false
    private var resultsFD: Int32 = -1
    private var settled = 0
    private let host = ProcessInfo.processInfo.hostName
    private let pid = getpid()

    /// `makeEngine` is called once on each worker's thread (its GPU context is current there).
    public init(job: BatchJob, options: BatchOptions, logger: Logger, makeEngine: @escaping @Sendable () throws -> TryOnEngine) {
        self.job = job
        self.options = options
        self.logger = logger
        self.makeEngine = makeEngine
    }

    /// This shard's items.
    public var shardItems: Slice<BatchItems> { job.items[options.shard.range(of: job.items.count)] }

    /// Whether `item`'s output is in place for its inputs: its sidecar names the item's input hash and the
    /// SHA-256 of the PNG beside it (two processes of different builds, or a kill between the PNG's rename
    /// and the sidecar's, can leave a sidecar beside a PNG it does not describe).
    public static func isDone(_ item: BatchItem) -> Bool {
        // Regular files only, checked before they are opened: a FIFO at either path would block the read.
        guard isRegularFile(item.output), isRegularFile(item.sidecarPath),
              let data = FileManager.default.contents(atPath: item.sidecarPath),
              let sidecar = try? JSONDecoder().decode(BatchSidecar.self, from: data),
              sidecar.inputHash == item.inputHash,
              let digest = try? Digest.sha256(file: item.output) else { return false }
        return sidecar.outputSHA256 == digest
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Why `item` cannot be written, when something other than a regular file stands at its output or its
    /// sidecar (a folder, a FIFO, a device: a write would fail on it, block on it, or go into it): that
    /// item's failure, recorded, not the shard's.
    static func outputBlocked(_ item: BatchItem) -> CoifError? {
        for path in [item.output, item.sidecarPath] {
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            if kind == S_IFREG { continue }
            if kind == S_IFLNK, isRegularFile(path) { continue }
            let what = kind == S_IFDIR ? "a folder" : kind == S_IFLNK ? "a link to no regular file" : "a FIFO, device or socket"
            return .outputNotWritable(path: path, reason: "\(what) stands there; an item's output is a regular file")
        }
        return nil
    }

    /// Renders the shard; returns what happened. Throws only when the results file cannot be opened.
    public func run() throws -> BatchSummary {
        let start = monotonicMs()
        try openResults()
        defer { if resultsFD >= 0 { close(resultsFD) } }
        let failedBefore = options.resume ? Self.failedHashes(options.resultsPath) : [:]
        // The items to render as groups of item indices (one per photo analysis), in the order their photos
        // first appear; a group holds runs of consecutive indices, so the memory does not grow with a photo's items.
        var order: [PathKey] = []
        var groups: [PathKey: PhotoGroup] = [:]
        for item in shardItems {
            summary.items += 1
            if !options.force && Self.isDone(item) {
                summary.done += 1
                record(result(item, .done))
            } else if let reason = failedBefore[item.inputHash] {
                summary.failed += 1
                var r = result(item, .failed)
                r.reason = reason.reason + " (an earlier run; --resume skips it)"
                r.exitCode = reason.code
                record(r)
            } else {
                let key = item.analysisKey
                if groups[key] == nil { order.append(key) }
                groups[key, default: PhotoGroup()].append(item.index)
            }
        }
        queue = order.reversed().map { groups[$0]! }
        let workers = min(options.workers, max(1, queue.count))
        if !queue.isEmpty {
            // Each worker's thread is joined (not only its result waited for): no worker is still in its
            // GPU driver's teardown when the process exits.
            let threads = (0..<workers).map { w in BackgroundWork(name: "coif.batch-\(w)") { [self] in self.work(worker: w) } }
            for thread in threads { try? thread.wait() }
        }
        summary.wallMs = monotonicMs() - start
        return summary
    }

    // MARK: - Workers

    private func take() -> PhotoGroup? {
        lock.withLock { stopped ? nil : queue.popLast() }
    }

    private func stop(_ error: CoifError) {
        lock.withLock {
            if summary.fatal == nil { summary.fatal = error }
            stopped = true
        }
    }

    /// A photo's analysis, ready for its items' renders.
    struct Analysed {
        var items: PhotoGroup
        var analyses: Result<[PhotoAnalysis], Error>
        /// The own-hair parse, when an item removes the own hair.
        var parsed: ParsedOwnHair?
        var timing: FrameTiming
    }

    /// One worker's thread: its engine (GPU context, models) is made, used and destroyed here, before the
    /// thread ends and is joined; the analysis thread it starts is joined before it returns.
    private func work(worker: Int) {
        let engine: TryOnEngine
        do { engine = try makeEngine() } catch {
            stop(Self.coifError(error))
            return
        }
        work(worker: worker, engine: engine)
        // `engine` is released here, its context destroyed on the thread where it is current.
    }

    private func work(worker: Int, engine: TryOnEngine) {
        engine.holdsRenderTarget = true
        // The parser for any item that takes the own hair away or reads its colour (`own`).
        let needsParser = job.items.anyRemovesOwnHair || job.items.indices.contains { job.items[$0].hairColor.isOwn }
        let ownHair: OwnHairStage?
        do { ownHair = needsParser ? try engine.ownHairStage() : nil } catch {
            stop(Self.coifError(error))
            return
        }
        // The analyzer, the parser and the head are lent to the analysis thread while this thread renders
        // (the render stages use none of them): one analysis runs at a time, always on that thread.
        let lent = HandedOver((analysis: engine.analysisStage, ownHair: ownHair))
        let all = job.items
        func analyse(_ items: PhotoGroup) -> BackgroundWork<Analysed> {
            BackgroundWork(name: "coif.batch-analyse") { [lent] in
                var timing = FrameTiming()
                let first = all[items.first]
                let analyses = Result { () -> [PhotoAnalysis] in
                    let job = try first.tryOnJob()
                    let frame = try TryOnEngine.decode(job.input, fieldOfViewDegrees: job.fieldOfViewDegrees, timing: &timing)
                    return try lent.value.analysis.analyse(frame, faces: job.face, timing: &timing)
                }
                var parsed: ParsedOwnHair?
                // Parsed here, never on the render thread: the two share the one network, which runs one
                // image at a time (an `own` item over kept hair would otherwise be parsed there while the
                // next photo's parse runs).
                if case .success(let found) = analyses, let ownHair = lent.value.ownHair,
                   items.indices.contains(where: { all.settings(at: $0).keepOwnHair != true || all[$0].hairColor.isOwn }) {
                    do {
                        parsed = try ownHair.parse(found, timing: &timing)
                    } catch {
                        return Analysed(items: items, analyses: .failure(error), parsed: nil, timing: timing)
                    }
                }
                return Analysed(items: items, analyses: analyses, parsed: parsed, timing: timing)
            }
        }
        let writer = ItemWriter(name: "coif.batch-write-\(worker)")
        var next = take().map(analyse)
        while let current = next {
            guard let analysed = try? current.wait() else { break }
            next = take().map(analyse)
            render(analysed, engine: engine, writer: writer)
        }
        // An analysis started before a stop is waited for (its thread joined), so it does not outlive the
        // engine; the writes in flight finish before the worker returns.
        _ = try? next?.wait()
        next = nil
        writer.drain()
    }

    private func render(_ analysed: Analysed, engine: TryOnEngine, writer: ItemWriter) {
        lock.withLock { summary.photosAnalysed += 1 }
        let analyses: [PhotoAnalysis]
        switch analysed.analyses {
        case .failure(let error):
            let failure = Self.coifError(error)
            for index in analysed.items.indices { settle(job.items[index], failure) }
            return
        case .success(let found): analyses = found
        }
        // One plate at a time (AnalysedPhoto keeps the last seed's): the group's items in seed order, so each
        // seed's plate is filled once and dropped before the next.
        let photo = AnalysedPhoto(analyses, parsed: analysed.parsed)
        var first = true
        let seeds = Set(analysed.items.indices.map { job.items.settings(at: $0).seed ?? 1 }).sorted()
        let bySeed = seeds.lazy.flatMap { seed in analysed.items.indices.lazy.filter { self.job.items.settings(at: $0).seed ?? 1 == seed } }
        for index in bySeed {
            let item = job.items[index]
            if lock.withLock({ stopped }) { return }
            if let blocked = Self.outputBlocked(item) {
                fail(item, blocked)
                continue
            }
            let start = monotonicMs()
            var timing = first ? analysed.timing : FrameTiming()
            first = false
            do {
                var job = try item.tryOnJob()
                let faces = try photo.faces(for: job, engine: engine, timing: &timing)
                job.input = .frame(faces[0].frame)
                let rendered = try engine.render(faces, job: job, timing: &timing)
                // Encode and write on the writer's thread while this one renders the next item.
                writer.submit { [self, timing, job] in self.write(rendered, job: job, item: item, timing: timing, start: start) }
            } catch {
                settle(item, Self.coifError(error))
            }
        }
    }

    /// encode + write of one rendered item, then its sidecar and its result line.
    private func write(_ rendered: TryOnResult, job: TryOnJob, item: BatchItem, timing: FrameTiming, start: Double) {
        var rendered = rendered, timing = timing
        let directory = (item.output as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            // This item's folder (a file stands where the template wants a folder): its failure, not the shard's.
            fail(item, .outputNotWritable(path: item.output, reason: "cannot create directory \(directory)"))
            return
        }
        // The folder as the file system resolves it (a symbolic link inside `--out` pointing elsewhere) must
        // still be inside `--out`: the template's check sees only the names.
        if let escape = Self.outsideOutputRoot(directory, root: self.job.outputRoot) {
            fail(item, .outputNotWritable(path: item.output, reason: escape))
            return
        }
        do {
            // The old sidecar goes before the new PNG comes: a kill between the PNG's rename and the new
            // sidecar's then leaves the item undone, never marked done by a sidecar of other inputs.
            if unlink(item.sidecarPath) != 0 && errno != ENOENT {
                throw CoifError.outputNotWritable(path: item.sidecarPath, reason: String(cString: strerror(errno)))
            }
            try TryOnEngine.write(&rendered, job: job, timing: &timing, start: start)
            let digest = try Digest.sha256(file: item.output)
            try AtomicFile.write(text: BatchSidecar(item: item, outputSHA256: digest).json, to: item.sidecarPath)
            var r = result(item, .rendered)
            r.ms = monotonicMs() - start
            r.stages = timing.stageMs
            r.strands = rendered.timing.strandCount
            r.renderer = rendered.timing.renderer
            lock.withLock { summary.rendered += 1 }
            record(r)
        } catch {
            settle(item, Self.coifError(error))
        }
    }

    /// Why `directory` (which exists) is not inside `root` once links are resolved, or nil when it is.
    static func outsideOutputRoot(_ directory: String, root: String) -> String? {
        guard !root.isEmpty, let real = realpath(directory, nil) else { return nil }
        defer { free(real) }
        guard let realRoot = realpath(root, nil) else { return nil }
        defer { free(realRoot) }
        let folder = Array(String(cString: real).utf8), top = Array(String(cString: realRoot).utf8)
        if folder == top || (folder.count > top.count && folder.starts(with: top) && folder[top.count] == UInt8(ascii: "/")) || top == [UInt8(ascii: "/")] {
            return nil
        }
        return "its folder \(directory) leads outside the output folder \(root) (a symbolic link in it points to \(String(cString: real)))"
    }

    /// A failed item: recorded; a failure no later item can escape also stops the job.
    private func settle(_ item: BatchItem, _ failure: CoifError) {
        guard Self.isFatal(failure) else { return fail(item, failure) }
        stop(failure)
        var r = result(item, .stopped)
        r.reason = failure.description
        r.exitCode = failure.exitCode
        record(r)
    }

    private func fail(_ item: BatchItem, _ error: CoifError) {
        var r = result(item, .failed)
        r.reason = error.description
        r.exitCode = error.exitCode
        lock.withLock { summary.failed += 1 }
        // In the results file; on stderr only with --verbose (the command's stderr stays one line per error).
        logger.info("item failed", metadata: ["item": "\(item.index)", "reason": "\(error)"])
        record(r)
    }

    /// Errors no later item can escape: stop the job (exit with its code) instead of failing every item.
    static func isFatal(_ error: CoifError) -> Bool {
        switch error {
        case .gpuUnavailable, .shaderFailed, .assetFailed, .outputNotWritable, .internalError: return true
        default: return false
        }
    }

    static func coifError(_ error: Error) -> CoifError {
        if let error = error as? CoifError { return error }
        if let error = error as? CocoaError, error.code == .fileWriteNoPermission || error.code == .fileWriteOutOfSpace {
            return .outputNotWritable(path: (error.userInfo[NSFilePathErrorKey] as? String) ?? "?", reason: error.localizedDescription)
        }
        return .internalError("\(error)")
    }

    // MARK: - Results

    private func result(_ item: BatchItem, _ status: BatchItemResult.Status) -> BatchItemResult {
        BatchItemResult(index: item.index, status: status, output: item.output, photo: item.photo, style: item.style, color: item.color,
                        variant: item.variant, inputHash: item.inputHash, shard: options.shard.description, host: host, pid: pid)
    }

    private func openResults() throws {
        let directory = (options.resultsPath as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        // Opening a FIFO for writing blocks until a reader comes; reading it (--resume) blocks for a writer.
        var info = stat()
        if stat(options.resultsPath, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            throw CoifError.outputNotWritable(path: options.resultsPath, reason: "not a regular file (a folder, a FIFO or a device)")
        }
        resultsFD = open(options.resultsPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard resultsFD >= 0 else {
            throw CoifError.outputNotWritable(path: options.resultsPath, reason: String(cString: strerror(errno)))
        }
        // A last line cut by a full disk or a kill mid-append is ended here, so this run's records start on
        // lines of their own; the cut line stays, unreadable, and is skipped (`failedHashes`, `batch-report`):
        // its item has no record and is tried again.
        if Self.endsInsideALine(options.resultsPath) {
            let newline: [UInt8] = [0x0A]
            guard Glibc.write(resultsFD, newline, 1) == 1 else {
                throw CoifError.outputNotWritable(path: options.resultsPath, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Whether the file's last byte is not a newline (a non-empty file only).
    static func endsInsideALine(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return false }
        var last: UInt8 = 0
        return pread(fd, &last, 1, info.st_size - 1) == 1 && last != 0x0A
    }

    /// One line per item, in one write(2) on an O_APPEND file: lines from several processes on one file
    /// interleave whole, never mixed (local file systems; on NFS give each shard its own `--results`).
    private func record(_ result: BatchItemResult) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = (try? encoder.encode(result)) ?? Data()
        line.append(0x0A)
        let (written, settledNow) = lock.withLock { () -> (Int, Int) in
            settled += 1
            return (line.withUnsafeBytes { Glibc.write(resultsFD, $0.baseAddress, $0.count) }, settled)
        }
        options.progress?(settledNow, shardItems.count)
        if written != line.count {
            // A full disk: the results no longer say what happened, so the shard stops (exit 30).
            stop(.outputNotWritable(path: options.resultsPath, reason: written < 0 ? String(cString: strerror(errno)) : "short write"))
        }
    }

    /// The input hashes a results file records as failed, with the last reason and code of each.
    static func failedHashes(_ path: String) -> [String: (reason: String, code: Int32)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var failed: [String: (reason: String, code: Int32)] = [:]
        for line in text.split(separator: "\n") {
            guard let r = try? JSONDecoder().decode(BatchItemResult.self, from: Data(line.utf8)) else { continue }
            switch r.status {
            case .failed: failed[r.inputHash] = (r.reason ?? "failed", r.exitCode ?? 70)
            case .rendered, .done, .stopped: failed[r.inputHash] = nil
            }
        }
        return failed
    }
}

/// The items of one photo analysis (the same photo, faces and camera) as runs of consecutive item indices:
/// a cross product's photo is one run, however many styles, colours and variants it has.
struct PhotoGroup: Sendable {
    private(set) var runs: [Range<Int>] = []

    mutating func append(_ index: Int) {
        if let last = runs.last, last.upperBound == index { runs[runs.count - 1] = last.lowerBound..<index + 1 } else { runs.append(index..<index + 1) }
    }

    var first: Int { runs[0].lowerBound }
    var indices: FlattenSequence<[Range<Int>]> { runs.joined() }
}

/// One thread that encodes and writes items in the order they are submitted, at most `depth` waiting: a
/// worker renders the next item while the last is encoded, and a slow disk holds the renders back rather
/// than piling finished images up in memory.
final class ItemWriter: @unchecked Sendable {
    private let queue: DispatchQueue
    private let slots: DispatchSemaphore

    init(name: String, depth: Int = 2) {
        queue = DispatchQueue(label: name)
        slots = DispatchSemaphore(value: depth)
    }

    func submit(_ work: @escaping @Sendable () -> Void) {
        slots.wait()
        queue.async { [slots] in
            work()
            slots.signal()
        }
    }

    /// Blocks until every submitted write has finished.
    func drain() { queue.sync {} }
}

/// The file beside an item's output that names the inputs it was made from.
public struct BatchSidecar: Codable, Sendable {
    public var inputHash: String
    /// The PNG's own SHA-256, as written.
    public var outputSHA256: String
    public var photo: String
    public var style: String
    public var color: String
    public var variant: String?
    public var settings: RenderSettings

    init(item: BatchItem, outputSHA256: String) {
        inputHash = item.inputHash
        self.outputSHA256 = outputSHA256
        photo = item.photo
        style = item.style
        color = item.color
        variant = item.variant
        settings = item.settings
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return ((try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}") + "\n"
    }
}
