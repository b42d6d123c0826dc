// OutputPaths: no command writes over what it reads. Each command gathers the paths it reads (photos, grooms,
// heads, catalogs and their files, manifests, masks) and the paths it writes, and refuses an overlap before
// any work, exit 22: a heatmap named like the photo it compares, a report named like its manifest, a contact
// sheet over its groom, a reference over the photo it renders.
//
// Files are compared by device and inode where they exist (so a hard link, a symbolic link or `./a.png`
// against `a.png` is one file), else by path with the directory's links resolved (two outputs not written yet).
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public enum OutputPaths {
    /// `directory` and its missing parents, or `outputNotWritable` (30) with the system's reason: a file
    /// standing in the path, a read-only mount.
    public static func makeDirectory(_ directory: String) throws {
        var prefix = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o777) != 0 && errno != EEXIST {
                throw CoifError.outputNotWritable(path: directory, reason: String(cString: strerror(errno)))
            }
            prefix += "/"
        }
        var info = stat()
        guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CoifError.outputNotWritable(path: directory, reason: "not a directory")
        }
    }

    /// Throws `CoifError.invalidOption(name: output, …)` for the first output that is one of `inputs` or an
    /// earlier output. Special files (/dev/null, a FIFO) may repeat: writing into them replaces nothing.
    public static func check(_ outputs: [String], inputs: [String]) throws {
        // Keyed by bytes: two names that differ only in Unicode normalisation are two files.
        var seen: [PathKey: String] = [:]
        for input in inputs { seen[PathKey(identity(input))] = seen[PathKey(identity(input))] ?? input }
        let inputKeys = Set(inputs.map { PathKey(identity($0)) })
        for output in outputs {
            if AtomicFile.isSpecialFile(output) { continue }
            let key = PathKey(identity(output))
            if let other = seen[key] {
                let what = inputKeys.contains(key) ? "it is an input (\(other))" : "another output of this command writes it (\(other))"
                throw CoifError.invalidOption(name: output, reason: "cannot write output: \(what)")
            }
            seen[key] = output
        }
    }

    /// Each output's directory is writable (`AtomicFile.checkWritable`; `creatable`: outputs whose directory
    /// the write makes when missing, such as `--layers`), then `check`: what every command that writes named
    /// outputs runs before any work.
    public static func checkWritable(_ outputs: [String], inputs: [String], creatable: [String] = []) throws {
        for output in outputs { try AtomicFile.checkWritable(output, createsDirectories: creatable.contains(output)) }
        try check(outputs, inputs: inputs)
    }

    /// "inode:DEV:INO" for a file that exists (links followed), else "path:" and the canonical path.
    public static func identity(_ path: String) -> String {
        var info = stat()
        if stat(path, &info) == 0 { return "inode:\(info.st_dev):\(info.st_ino)" }
        return "path:" + canonicalPath(path)
    }

    /// The path with its directory resolved (symbolic links, `.`, `..`) and the file name kept; a link to
    /// another file is that file.
    public static func canonicalPath(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().resolvingSymlinksInPath().path
        let target = (directory as NSString).appendingPathComponent(url.lastPathComponent)
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: target)).map {
            URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: directory, isDirectory: true)).standardizedFileURL.path
        } ?? target
    }
}

/// A path as the file system names it: by its bytes. Swift's `String` compares and hashes canonically
/// equivalent text as equal ("café" with é as U+00E9 equals "cafe" + U+0301), but on Linux those are two
/// names and two files: a batch keyed its photos by `String` and gave both items the first photo's pixels.
/// Every set, dictionary and comparison of paths goes through this.
public struct PathKey: Hashable, Sendable, CustomStringConvertible {
    public let path: String

    public init(_ path: String) { self.path = path }

    public static func == (a: PathKey, b: PathKey) -> Bool { a.path.utf8.elementsEqual(b.path.utf8) }

    public func hash(into hasher: inout Hasher) {
        for byte in path.utf8 { hasher.combine(byte) }
    }

    public var description: String { path }

    /// The path as text that no other byte string gives: '%' and every byte over 0x7F as %XX. For a path
    /// inside a larger `String` key (a cache's), which `String`'s equality would otherwise fold.
    public static func exactText(_ path: String) -> String {
        var text = ""
        for byte in path.utf8 {
            if byte < 0x80 && byte != UInt8(ascii: "%") { text.unicodeScalars.append(Unicode.Scalar(byte)) } else {
                text += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return text
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
