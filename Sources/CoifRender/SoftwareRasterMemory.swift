// SoftwareRasterMemory: what a frame will cost a software rasteriser (llvmpipe), checked before it is drawn.
// llvmpipe keeps everything in this process's memory: the strands' vertices as it shades them, its binned
// scene and the multisampled target. When an allocation fails inside the driver it crashes (SIGSEGV at about
// 2.2 GB under `ulimit -v 3000000`, `preview afro --strands 500000 --size 2048`), so a frame that cannot fit
// is refused first with one line (exit 22). A GPU keeps its buffers in its own memory: not checked.
//
// The cost was measured (2026-11-26, Mesa llvmpipe 15, `preview afro` at 20,000–250,000 strands and 512–2048
// px, peak address space and peak resident size read from /proc): each strand segment adds ~174 bytes and
// each target pixel ~233, to both, within 3% of every measured point. The check adds that to the process's
// size now (which holds the models, the context and the JIT already) and compares it with the address-space
// limit (`ulimit -v`) and with the memory the system has available.
import CoifCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public enum SoftwareRasterMemory {
    /// Bytes a segment and a pixel add to a frame on llvmpipe (measured; see the file comment), with 5% kept
    /// in hand for what the measurement did not vary.
    static let bytesPerSegment = 174.0 * 1.05
    static let bytesPerPixel = 233.0 * 1.05

    /// Throws `invalidOption("--strands")` when drawing `segments` at `pixels` would pass the address-space
    /// limit or the memory available.
    public static func check(segments: Int, pixels: Int, status: String? = nil, meminfo: String? = nil,
                             addressLimit: UInt64? = currentAddressLimit()) throws {
        let frameBytes = Double(segments) * bytesPerSegment + Double(pixels) * bytesPerPixel
        let status = status ?? ((try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? "")
        let meminfo = meminfo ?? ((try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? "")
        func gib(_ bytes: Double) -> String { String(format: "%.1f GB", bytes / 1_073_741_824) }
        let what = "drawing \(segments) strand segments at \(pixels) pixels on a software rasteriser takes about \(gib(frameBytes)) more"
        let advice = "draw fewer strands (--strands, --detail) or a smaller image, or use a GPU"
        if let limit = addressLimit, let size = kilobytes("VmSize", in: status) {
            let needed = size + frameBytes
            if needed > Double(limit) {
                throw CoifError.invalidOption(name: "--strands", reason: "\(what) address space, \(gib(needed)) in all, over this process's limit of \(gib(Double(limit))) (ulimit -v): \(advice)")
            }
        }
        if let available = kilobytes("MemAvailable", in: meminfo), frameBytes > available {
            throw CoifError.invalidOption(name: "--strands", reason: "\(what) memory, over the \(gib(available)) this machine has available: \(advice)")
        }
    }

    /// The address-space limit (RLIMIT_AS) in bytes, nil when there is none.
    public static func currentAddressLimit() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// A "Name:  N kB" line of /proc/self/status or /proc/meminfo, in bytes.
    static func kilobytes(_ name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let value = Double(fields[1]) { return value * 1024 }
        }
        return nil
    }
}
