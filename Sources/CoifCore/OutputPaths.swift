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
    /// Throws `CoifError.invalidOption(name: output, …)` for the first output that is one of `inputs` or an
    /// earlier output. Special files (/dev/null, a FIFO) may repeat: writing into them replaces nothing.
    public static func check(_ outputs: [String], inputs: [String]) throws {
        var seen: [String: String] = [:]
        for input in inputs { seen[identity(input)] = seen[identity(input)] ?? input }
        let inputKeys = Set(inputs.map(identity))
        for output in outputs {
            if AtomicFile.isSpecialFile(output) { continue }
            let key = identity(output)
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
