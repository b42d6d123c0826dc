// BatchShard: which part of a job's items one process renders. A farm's scheduler runs N copies of the same
// command; each takes one contiguous block of the job's item order (block k of N holds items
// ⌊k·M/N⌋ ..< ⌊(k+1)·M/N⌋), so the blocks are disjoint, cover the job, and keep a photo's items together
// (its analysis is paid once per block that holds it). The shard comes from `--shard I/N`, else a Slurm
// job array, else a Kubernetes Indexed Job.
import CoifCore
import CoifPipeline

public struct BatchShard: Sendable, Equatable, CustomStringConvertible {
    /// 0-based.
    public var index: Int
    public var count: Int

    public static let whole = BatchShard(index: 0, count: 1)
    /// The most shards a job is split into, whichever way the count comes.
    public static let maxCount = 1_000_000

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }

    /// The item indices of this shard among `total`.
    public func range(of total: Int) -> Range<Int> {
        (total * index / count)..<(total * (index + 1) / count)
    }

    /// "I/N" with 0 ≤ I < N (`--shard`).
    public static func parse(_ text: String) throws -> BatchShard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, count <= maxCount,
              (0..<count).contains(index) else {
            throw CoifError.invalidOption(name: "--shard", reason: "must be I/N with 0 ≤ I < N ≤ 1000000 (0-based), got \"\(text)\"")
        }
        return BatchShard(index: index, count: count)
    }

    /// The shard a scheduler gave this process through its environment, nil when none did.
    ///
    /// - Slurm job array: the task's *position* in the array, not its ID: `--array=1,3,5,7` runs IDs 1, 3, 5
    ///   and 7 with `SLURM_ARRAY_TASK_COUNT` 4, so ID % 4 would give shards 1, 3, 1, 3 and leave 0 and 2
    ///   undone. The position is (ID − MIN) / STEP, with STEP from `SLURM_ARRAY_TASK_STEP` where it spans
    ///   MIN…MAX in COUNT tasks, else (MAX − MIN) / (COUNT − 1): a real Slurm 22.05 exports STEP 1 for
    ///   `--array=1,3,5,7` (scripts/slurm-check.sh). An array whose IDs are not evenly spaced
    ///   (`--array=0,1,5`) has no position Coif can compute from its environment: refused, naming `--shard`.
    /// - Kubernetes Indexed Job: `JOB_COMPLETION_INDEX`, with the completions count in `COIF_SHARD_COUNT`
    ///   (Kubernetes does not export it; the manifest sets it, see examples/kubernetes/).
    public static func fromEnvironment(_ environment: [String: String]) throws -> BatchShard? {
        // Every number within ±10⁹ (Slurm's MaxArraySize is far below), so no sum or product below overflows.
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = Int(text), abs(value) <= 1_000_000_000 else {
                throw CoifError.invalidOption(name: name, reason: "not a whole number within ±10⁹: \"\(text)\"")
            }
            return value
        }
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            guard let count = try number("SLURM_ARRAY_TASK_COUNT"), count >= 1, count <= maxCount else {
                throw CoifError.invalidOption(name: "SLURM_ARRAY_TASK_COUNT", reason: "missing beside SLURM_ARRAY_TASK_ID, or not 1…1000000")
            }
            let low = try number("SLURM_ARRAY_TASK_MIN") ?? id
            let high = try number("SLURM_ARRAY_TASK_MAX") ?? id
            if count == 1 { return BatchShard(index: 0, count: 1) }
            // Slurm 22.05 exports STEP 1 for a comma list (`--array=1,3,5,7`): a step is trusted only when it
            // spans MIN…MAX in COUNT tasks; else the even spacing that does, if there is one.
            var step = try number("SLURM_ARRAY_TASK_STEP") ?? 0
            if step <= 0 || low + step * (count - 1) != high {
                step = (high - low) % (count - 1) == 0 ? (high - low) / (count - 1) : 0
            }
            guard step > 0, low + step * (count - 1) == high, id >= low, id <= high, (id - low) % step == 0 else {
                throw CoifError.invalidOption(name: "SLURM_ARRAY_TASK_ID",
                                              reason: "array IDs \(low)…\(high) (\(count) tasks) are not evenly spaced, so task \(id)'s position is unknown: submit an evenly spaced --array, or pass --shard I/N")
            }
            return BatchShard(index: (id - low) / step, count: count)
        }
        if let index = try number("JOB_COMPLETION_INDEX") {
            guard let count = try number("COIF_SHARD_COUNT") else {
                throw CoifError.invalidOption(name: "COIF_SHARD_COUNT", reason: "missing beside JOB_COMPLETION_INDEX: set it to the Job's completions")
            }
            guard count >= 1, count <= maxCount, (0..<count).contains(index) else {
                throw CoifError.invalidOption(name: "JOB_COMPLETION_INDEX", reason: "\(index) is not below COIF_SHARD_COUNT \(count)")
            }
            return BatchShard(index: index, count: count)
        }
        return nil
    }
}
