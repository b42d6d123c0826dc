// StopSignals: the one SIGINT and SIGTERM handler of the process. Whatever a command has in flight that
// would outlive it (a temporary file, ffmpeg's log, an ffmpeg or ffprobe child) is registered here while it
// exists; a signal runs every registered clean-up, prints one line and ends the process with 130 (SIGINT) or
// 143 (SIGTERM). Outputs written through AtomicFile need nothing: their unnamed temporaries go with the
// process. Not for SIGKILL, which nothing can catch: a killed process's named temporaries and logs are
// cleared by the next process that writes beside them.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public enum StopSignals {
    /// One registered clean-up; `cancel()` (or the registration's end) unregisters it.
    public final class Registration: @unchecked Sendable {
        fileprivate let id: Int
        fileprivate init(id: Int) { self.id = id }
        public func cancel() { StopSignals.state.withLock { $0.actions[id] = nil } }
        deinit { cancel() }
    }

    fileprivate struct State {
        var actions: [Int: @Sendable () -> Void] = [:]
        var next = 0
        var sources: [DispatchSourceSignal] = []
        var stopping = false
    }

    fileprivate static let state = Locked(State())

    /// Installs the handler for SIGINT and SIGTERM (once; later calls do nothing). `command` names the
    /// process in the line it prints.
    public static func install(command: String = "coif") {
        state.withLock { state in
            guard state.sources.isEmpty else { return }
            state.sources = [SIGINT, SIGTERM].map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { stop(signal: number, command: command) }
                source.resume()
                return source
            }
        }
    }

    /// Registers `action` to run if a signal stops the process; it runs on the signal's thread while the
    /// command's threads still run, so it must only kill, unlink or flag (never close what another thread
    /// reads). Keep the registration while the thing exists; cancel it after.
    public static func register(_ action: @escaping @Sendable () -> Void) -> Registration {
        state.withLock { state in
            state.next += 1
            state.actions[state.next] = action
            return Registration(id: state.next)
        }
    }

    /// Registers the removal of `path` (a temporary file or a log) on a signal.
    public static func removeOnStop(_ path: String) -> Registration { register { unlink(path) } }

    /// Registers SIGKILL for child `pid` on a signal (it is not left running, orphaned, after Coif).
    public static func killOnStop(_ pid: pid_t) -> Registration {
        register { if pid > 0 { kill(pid, SIGKILL) } }
    }

    private static func stop(signal number: Int32, command: String) {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            if state.stopping { return [] }
            state.stopping = true
            return state.actions.keys.sorted().map { state.actions[$0]! }
        }
        for action in actions { action() }
        let name = number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)"
        let line = "\(command): stopped by \(name); its temporary files removed, nothing half-written left\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        // _exit: no atexit handlers or static destructors (OpenCV's, protobuf's, llvmpipe's) run under the
        // threads still going.
        _exit(128 + number)
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
