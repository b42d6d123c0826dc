// BackgroundWork: runs one piece of start-up work on its own OS thread while the caller does another,
// then hands the result over. Used to load dlib's 99 MB model while the GPU context and shaders come up
// (the GL work must stay on the caller's thread, where its context is current). Handoff is the hand-over
// itself: one result, given once by one thread, waited for by another.
import Foundation

/// One result passed from the thread that makes it to the thread that waits for it.
public final class Handoff<Value>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // Written once by `give` before `done` is signalled, read only after waiting on it.
    private var result: Result<Value, Error>?
    private let givenLock = NSLock()
    private var given = false

    public init() {}

    /// Hands `result` over. Call once.
    public func give(_ result: Result<Value, Error>) {
        self.result = result
        givenLock.withLock { given = true }
        done.signal()
    }

    /// Whether the result has been given (`wait()` will then not block). Never blocks.
    public var isGiven: Bool { givenLock.withLock { given } }

    /// Blocks until the result is given; returns its value or rethrows its error. Call once.
    public func wait() throws -> Value {
        done.wait()
        return try result!.get()
    }
}

public final class BackgroundWork<Value>: @unchecked Sendable {
    private let handoff = Handoff<Value>()

    public init(name: String, _ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [handoff] in handoff.give(Result { try work() }) }
        thread.name = name
        thread.start()
    }

    /// Whether the work has finished (`wait()` will then not block). Never blocks.
    public var isFinished: Bool { handoff.isGiven }

    /// Blocks until the work has finished; returns its value or rethrows its error. Call once.
    public func wait() throws -> Value { try handoff.wait() }
}

/// Carries a value that is not Sendable (a loaded model: dlib's, the face mesh, the face-parsing network)
/// from one thread to another that uses it while the first leaves it alone: a model loaded on its own
/// thread and handed to the caller, or the face mesh lent to a worker while the caller fits dlib's points
/// and waits for the worker before touching the mesh again. The unchecked Sendable is sound only under
/// that rule: never two threads using the value at once.
public struct HandedOver<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}
