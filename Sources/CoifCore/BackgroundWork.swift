// BackgroundWork: runs one piece of start-up work on its own OS thread while the caller does another,
// then hands the result over. Used to load dlib's 99 MB model while the GPU context and shaders come up
// (the GL work must stay on the caller's thread, where its context is current). Handoff is the hand-over
// itself: one result, given once by one thread, waited for by another.
import CSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

/// One piece of work on its own POSIX thread, joined before its result is handed over: when `wait()`
/// returns, the thread has ended, its thread-locals are destroyed (EGL's and Mesa's per-thread state
/// among them) and everything the work captured has been released on it. A thread that ran past its
/// result (Foundation's `Thread`, whose teardown went on after the waiter was told) could still be in
/// llvmpipe's teardown when the main thread reached `exit()`, and the heap was corrupted under both
/// (`coif batch --workers 2`, about one run in eight). Not waited for, the work is joined when this
/// object goes, so no thread outlives its owner.
public final class BackgroundWork<Value>: @unchecked Sendable {
    /// What the thread runs and what it leaves; the result is read by the owner only after the join.
    private final class Body: ThreadBody, @unchecked Sendable {
        var work: (() throws -> Value)?
        var result: Result<Value, Error>?

        init(_ work: @escaping () throws -> Value, name: String) {
            self.work = work
            super.init(name: name)
        }

        override func main() {
            let outcome = Result { try work!() }
            // The captures go on this thread, before the owner can be told the work is done.
            work = nil
            result = outcome
        }
    }

    private let body: Body
    private var thread: pthread_t?
    private let joinLock = NSLock()

    public init(name: String, _ work: @escaping @Sendable () throws -> Value) {
        body = Body(work, name: name)
        thread = startThread(body)
    }

    deinit { join() }

    /// Waits for the thread to end (once; later calls return at once).
    private func join() {
        joinLock.withLock {
            guard let running = thread else { return }
            thread = nil
            // The work's last reference to its owner released on the thread itself: the thread cannot join
            // itself, and it is ending anyway.
            if pthread_equal(running, pthread_self()) != 0 { pthread_detach(running) } else { pthread_join(running, nil) }
        }
    }

    /// Whether the work has finished (`wait()` will then block only for the thread's last instructions).
    /// Never blocks.
    public var isFinished: Bool { body.isFinished }

    /// Blocks until the work has finished and its thread has ended; returns its value or rethrows its error.
    public func wait() throws -> Value {
        join()
        return try body.result!.get()
    }
}

/// A thread's body, not generic, so a C thread entry can call it.
class ThreadBody: @unchecked Sendable {
    let name: String
    private let finishedLock = NSLock()
    private var finished = false

    init(name: String) { self.name = name }

    /// The work; overridden.
    func main() {}

    func run() {
        main()
        finishedLock.withLock { finished = true }
    }

    var isFinished: Bool { finishedLock.withLock { finished } }
}

/// Starts a POSIX thread (8 MiB of stack, as a process's main thread gets: dlib's and OpenCV's loaders
/// recurse) that runs `body`; nil when none can be had (the address space spent under `ulimit -v`): then
/// `body` has run here, in turn.
private func startThread(_ body: ThreadBody) -> pthread_t? {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, 8 << 20)
    var made = pthread_t()
    let retained = Unmanaged.passRetained(body).toOpaque()
    let started = pthread_create(&made, &attributes, { argument in
        let body = Unmanaged<ThreadBody>.fromOpaque(argument!).takeRetainedValue()
        coif_name_this_thread(body.name)
        body.run()
        return nil
    }, retained)
    guard started == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(retained).release()
        body.run()
        return nil
    }
    return made
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
