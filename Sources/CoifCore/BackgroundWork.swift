// BackgroundWork: runs one piece of start-up work on its own OS thread while the caller does another,
// then hands the result over. Used to load dlib's 99 MB model while the GPU context and shaders come up
// (the GL work must stay on the caller's thread, where its context is current).
import Foundation

public final class BackgroundWork<Value>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // Written once by the worker before `done` is signalled, read only after waiting on it.
    private var result: Result<Value, Error>?
    private let finishedLock = NSLock()
    private var finished = false

    public init(name: String, _ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            result = Result { try work() }
            finishedLock.withLock { finished = true }
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Whether the work has finished (`wait()` will then not block). Never blocks.
    public var isFinished: Bool { finishedLock.withLock { finished } }

    /// Blocks until the work has finished; returns its value or rethrows its error. Call once.
    public func wait() throws -> Value {
        done.wait()
        return try result!.get()
    }
}
