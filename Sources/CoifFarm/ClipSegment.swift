// ClipSegment: which frames of a clip one process renders (`coif video --segment I/N|auto`). The same block
// arithmetic as a batch's shards (BatchShard), so one scheduler array splits photos and clips alike.
import CoifCore
import CoifMedia
import Foundation

public struct ClipSegment: Sendable, Equatable {
    /// The segment's frames (0-based, inclusive).
    public let frames: ClosedRange<Int>
    /// Its index, zero-padded to the count's digits, so the parts sort in order for `coif video-join`.
    public let paddedIndex: String

    /// A path with `{segment}` replaced by the padded index.
    public func named(_ path: String) -> String { path.replacingOccurrences(of: "{segment}", with: paddedIndex) }

    /// `text` ("I/N", or "auto": the shard a Slurm job array or a Kubernetes Indexed Job gives this process) over
    /// the frames of the clip at `input`: block I of N of its M frames (⌊I·M/N⌋ … ⌊(I+1)·M/N⌋ − 1). Refusals name
    /// `--segment` (exit 22); an empty block is refused, not rendered as nothing.
    public static func resolve(_ text: String, input: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ClipSegment {
        let shard: BatchShard
        if text == "auto" {
            guard let given = try BatchShard.fromEnvironment(environment) else {
                throw CoifError.invalidOption(name: "--segment", reason: "'auto' needs a Slurm job array or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX with COIF_SHARD_COUNT); none is set")
            }
            shard = given
        } else {
            do { shard = try BatchShard.parse(text) } catch {
                throw CoifError.invalidOption(name: "--segment", reason: "must be I/N with 0 ≤ I < N (0-based) or 'auto', got \"\(text)\"")
            }
        }
        let total = try VideoProbe.countFrames(path: input)
        let block = shard.range(of: total)
        guard !block.isEmpty else {
            throw CoifError.invalidOption(name: "--segment", reason: "segment \(shard) of \(input)'s \(total) frames is empty: use fewer segments")
        }
        let digits = String(shard.count - 1).count
        return ClipSegment(frames: block.lowerBound...(block.upperBound - 1), paddedIndex: String(format: "%0\(digits)d", shard.index))
    }
}
