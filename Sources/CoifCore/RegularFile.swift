// RegularFile: a report's input read whole, checked first as a regular file of bounded size: a FIFO would
// block the read, /dev/zero never end, and a file far past what such a report holds is something else.
import Foundation

public enum RegularFile {
    /// The bytes of `path`, a `kind` (named in the refusals: "results file") of at most `maxBytes`.
    /// Missing, a folder or unreadable: `inputMissing`; not a regular file, or too large: `invalidOption`.
    public static func contents(of path: String, maxBytes: Int, kind: String) throws -> Data {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else { throw CoifError.inputMissing(path: path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw CoifError.invalidOption(name: path, reason: "not a regular file (a FIFO, a device or a socket); give a \(kind)")
        }
        guard info.st_size <= maxBytes else {
            throw CoifError.invalidOption(name: path, reason: "\(info.st_size) bytes, over \(maxBytes >> 20) MiB: not a \(kind)")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw CoifError.inputMissing(path: path) }
        return data
    }
}
