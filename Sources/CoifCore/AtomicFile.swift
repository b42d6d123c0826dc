// AtomicFile: the one output writer. Every command that writes a file (PNGs, timing JSON, reports,
// meshes, catalogs) writes a whole file or nothing, and leaves nothing behind even when killed: data goes
// to an unnamed O_TMPFILE file in the target's directory (same file system), which is linked in as
// ".NAME.tmp-PID" only once whole and then renamed over the target. Where the file system refuses
// O_TMPFILE the data goes to ".NAME.tmp-PID" directly; a temporary whose process is gone (killed mid-write)
// is removed by the next write of the same output. A command's several outputs are staged together and
// renamed in only when all are whole (`write(all:)`, `Batch`): they succeed or fail together.
import CSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

public enum AtomicFile {
    /// Checks, before any work is done, that `path`'s directory exists and is writable. With
    /// `createsDirectories` (a write that makes missing parents), a missing directory passes when its nearest
    /// existing ancestor is a writable directory.
    public static func checkWritable(_ path: String, createsDirectories: Bool = false) throws {
        guard !path.isEmpty, !path.hasSuffix("/") else {
            throw CoifError.outputNotWritable(path: path, reason: path.isEmpty ? "an empty path names no file" : "the path names a directory")
        }
        if createsDirectories {
            var ancestor = directoryOf(path)
            var info = stat()
            while stat(ancestor, &info) != 0 && ancestor != "/" && ancestor != "." { ancestor = directoryOf(ancestor) }
            if ancestor != directoryOf(path) {
                guard (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw CoifError.outputNotWritable(path: path, reason: "\(ancestor) is not a directory")
                }
                guard access(ancestor, W_OK | X_OK) == 0 else {
                    throw CoifError.outputNotWritable(path: path, reason: "directory \(ancestor) is not writable")
                }
                return
            }
        }
        if isSpecialFile(path) {
            guard access(path, W_OK) == 0 else { throw CoifError.outputNotWritable(path: path, reason: "not writable") }
            return
        }
        let directory = directoryOf(path)
        var info = stat()
        guard stat(directory, &info) == 0 else {
            throw CoifError.outputNotWritable(path: path, reason: "directory \(directory) does not exist")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CoifError.outputNotWritable(path: path, reason: "\(directory) is not a directory")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw CoifError.outputNotWritable(path: path, reason: "directory \(directory) is not writable")
        }
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw CoifError.outputNotWritable(path: path, reason: "it is a directory")
        }
    }

    /// Checks, before any work is done, that `directory` is a writable directory or can be made as one:
    /// its nearest existing ancestor is a writable directory.
    public static func checkDirectory(_ directory: String) throws {
        guard !directory.isEmpty else { throw CoifError.outputNotWritable(path: directory, reason: "an empty path names no directory") }
        var existing = directory
        var info = stat()
        while stat(existing, &info) != 0 {
            guard errno == ENOENT, existing != "/", existing != "." else {
                throw CoifError.outputNotWritable(path: directory, reason: String(cString: strerror(errno)))
            }
            existing = directoryOf(existing)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CoifError.outputNotWritable(path: directory, reason: existing == directory ? "not a directory" : "\(existing) is not a directory")
        }
        guard access(existing, W_OK | X_OK) == 0 else {
            throw CoifError.outputNotWritable(path: directory, reason: "directory \(existing) is not writable")
        }
    }

    /// Writes `bytes` to `path` whole or not at all. With `createDirectories`, missing parent directories
    /// are made first (a catalog directory a user names for the first time).
    public static func write(_ bytes: [UInt8], to path: String, createDirectories: Bool = false) throws {
        try write(all: [(path, bytes, createDirectories)])
    }

    /// Writes several outputs of one command so that they succeed or fail together: each is staged whole in
    /// a temporary beside its target first, and only when every one is staged are they renamed in (in
    /// order). A failure while staging (a full file system, a file size limit) removes every temporary and
    /// every directory the staging made, so nothing of the command's output is left; a rename in one
    /// directory does not fail once its temporary is linked there. An existing FIFO or device is written
    /// into at that step, never replaced (there is no half-written state to hide there).
    public static func write(all files: [(path: String, bytes: [UInt8], createDirectories: Bool)]) throws {
        var batch = Batch()
        for file in files { try batch.stage(file.bytes, to: file.path, createDirectories: file.createDirectories) }
        try batch.commit()
    }

    /// Outputs staged one by one (`stage`: a failure discards every one staged before it) and put in place
    /// together (`commit`), for a command whose last output is made after the others are staged (a timing
    /// report that counts the writes). A batch neither committed nor failed must be `discard`ed.
    public struct Batch {
        private var staged: [Staged] = []

        public init() {}

        public mutating func stage(_ bytes: [UInt8], to path: String, createDirectories: Bool = false) throws {
            do { staged.append(try AtomicFile.stage(bytes, to: path, createDirectories: createDirectories)) } catch {
                discard()
                throw error
            }
        }

        public mutating func stage(text: String, to path: String, createDirectories: Bool = false) throws {
            try stage(Array(text.utf8), to: path, createDirectories: createDirectories)
        }

        /// Takes in a file another program wrote whole at `temporary` (ffmpeg's MP4, at `temporaryPath(for:
        /// path)`), to be renamed over `path` with the others at `commit`, or removed at `discard`.
        public mutating func adopt(_ temporary: String, as path: String) {
            staged.append(Staged(path: path, temporary: temporary, bytes: [], createdDirectories: [],
                                 onStop: StopSignals.removeOnStop(temporary)))
        }

        /// Renames every staged file in, in order (an existing FIFO or device is written into instead).
        public mutating func commit() throws {
            defer { staged = [] }
            for (i, file) in staged.enumerated() {
                do {
                    if let temporary = file.temporary {
                        guard rename(temporary, file.path) == 0 else {
                            throw CoifError.outputNotWritable(path: file.path, reason: String(cString: strerror(errno)))
                        }
                    } else {
                        try writeInPlace(file.bytes, to: file.path)
                    }
                } catch {
                    staged.removeFirst(i)
                    discard()
                    throw error
                }
            }
        }

        /// Removes every staged temporary, and the directories staging made where they are empty.
        public mutating func discard() {
            for file in staged { if let temporary = file.temporary { unlink(temporary) } }
            for file in staged.reversed() { for directory in file.createdDirectories { rmdir(directory) } }
            staged = []
        }
    }

    /// One output staged: its bytes whole in `temporary` beside `path` (nil for an existing FIFO or device,
    /// written in place on commit), and the directories its staging made, deepest first.
    struct Staged {
        var path: String
        var temporary: String?
        var bytes: [UInt8]
        var createdDirectories: [String]
        /// The named temporary removed if a signal stops the process before the rename.
        var onStop: StopSignals.Registration?
    }

    /// `bytes` whole in a named temporary `.NAME.tmp-PID` in `path`'s directory: written to an unnamed
    /// O_TMPFILE file and linked in once whole (killed before the link, the file never had a name and the
    /// kernel frees it with the process); where the file system refuses O_TMPFILE, written to the named
    /// temporary directly.
    static func stage(_ bytes: [UInt8], to path: String, createDirectories: Bool) throws -> Staged {
        var created: [String] = []
        if createDirectories {
            let directory = directoryOf(path)
            var missing = directory
            while !missing.isEmpty, missing != "/", missing != ".", access(missing, F_OK) != 0 {
                created.append(missing)
                missing = directoryOf(missing)
            }
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                for made in created { rmdir(made) }
                throw CoifError.outputNotWritable(path: path, reason: "cannot create directory \(directory)")
            }
        }
        let staged = Staged(path: path, temporary: nil, bytes: bytes, createdDirectories: created, onStop: nil)
        do {
            try checkWritable(path)
            if isSpecialFile(path) { return staged }
        } catch {
            for made in created { rmdir(made) }
            throw error
        }
        let temporary = temporaryPath(for: path)
        let onStop = StopSignals.removeOnStop(temporary)
        var failure: String?
        if let unnamed = openUnnamed(in: directoryOf(path)) {
            failure = writeAll(bytes, to: unnamed)
            unlink(temporary)  // a file of this name can only be a killed process's whose PID this one reuses
            if failure == nil, linkat(AT_FDCWD, "/proc/self/fd/\(unnamed)", AT_FDCWD, temporary, AT_SYMLINK_FOLLOW) != 0 {
                failure = String(cString: strerror(errno))
            }
            if close(unnamed) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        } else {
            let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd < 0 {
                failure = String(cString: strerror(errno))
            } else {
                failure = writeAll(bytes, to: fd)
                if close(fd) != 0, failure == nil { failure = String(cString: strerror(errno)) }
            }
        }
        if let failure {
            unlink(temporary)
            for made in created { rmdir(made) }
            throw CoifError.outputNotWritable(path: path, reason: failure)
        }
        return Staged(path: path, temporary: temporary, bytes: [], createdDirectories: created, onStop: onStop)
    }

    /// An unnamed regular file in `directory` (Linux O_TMPFILE), or nil where the C library or the file
    /// system has none (then the caller writes a named temporary).
    static func openUnnamed(in directory: String) -> Int32? {
        let flag = coif_o_tmpfile()
        guard flag != 0 else { return nil }
        let fd = open(directory, flag | O_WRONLY | O_CLOEXEC, 0o644)
        return fd >= 0 ? fd : nil
    }

    /// This process's part of a named temporary: `HOST-PID`. Two processes with one PID on one shared folder
    /// (two Kubernetes pods, each its own PID 1, writing the same output over NFS) differ by host name.
    static let temporaryTag: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, 255)
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let safe = String(host.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "-" }.prefix(32))
        return (safe.isEmpty ? "host" : safe) + "-\(getpid())"
    }()

    /// A named temporary beside `path` (`.NAME.tmp-HOST-PID`, which `removeStaleTemporaries` clears once its
    /// process is gone): what `stage` links a whole output in as, and what an output another program writes
    /// (ffmpeg's MP4) is written to before it is renamed in.
    public static func temporaryPath(for path: String) -> String {
        let directory = directoryOf(path)
        removeStaleTemporaries(in: directory)
        let name = String(path.split(separator: "/").last ?? Substring(path))
        return directory + "/.\(name).tmp-\(temporaryTag)"
    }

    /// The longest file name an output may have: a named temporary `.NAME.tmp-HOST-PID` must fit in 255 bytes.
    public static let maxNameBytes = 255 - (".".utf8.count + ".tmp-".utf8.count + 32 + 1 + 10)

    private static let scanned = NSLock()
    nonisolated(unsafe) private static var scannedDirectories: Set<String> = []

    /// Removes the temporaries in `directory` that a killed write of this host left (`.NAME.tmp-HOST-PID`
    /// whose PID no longer runs here, and the older `.NAME.tmp-PID`): what a write killed between its link
    /// and its rename, or a named temporary's write killed midway, left behind. Another host's are left
    /// alone (its processes cannot be seen from here). Each directory is listed once per process, not once
    /// per write: a batch writing 100,000 files into one folder had listed it 100,000 times.
    static func removeStaleTemporaries(in directory: String) {
        let first = scanned.withLock { scannedDirectories.insert(directory).inserted }
        guard first, let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let host = temporaryTag[..<temporaryTag.lastIndex(of: "-")!]
        for entry in entries where entry.hasPrefix(".") {
            guard let marker = entry.range(of: ".tmp-", options: .backwards) else { continue }
            let tag = entry[marker.upperBound...]
            let pidText: Substring
            if let dash = tag.lastIndex(of: "-") {
                guard tag[..<dash] == host else { continue }
                pidText = tag[tag.index(after: dash)...]
            } else {
                pidText = tag
            }
            guard let pid = Int32(pidText), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory + "/" + entry) }
        }
    }

    /// Writes all of `bytes` to `fd`; the error text, or nil.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        var offset = 0
        var failure: String?
        bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += n
            }
        }
        return failure
    }

    /// An existing FIFO, character or block device or socket: written into, not replaced.
    public static func isSpecialFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }

    private static func writeInPlace(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CoifError.outputNotWritable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        if let failure = writeAll(bytes, to: fd) { throw CoifError.outputNotWritable(path: path, reason: failure) }
    }

    public static func write(text: String, to path: String, createDirectories: Bool = false) throws {
        try write(Array(text.utf8), to: path, createDirectories: createDirectories)
    }

    static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
