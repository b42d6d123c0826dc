// BoundedQueue: hands values from one thread to the next stage's thread, at most `capacity` waiting, so a
// fast stage (a video's decode) runs ahead of a slow one (the render) by a few frames and no further: memory
// stays bounded and the throughput is the slowest stage's, not the sum of all of them.
import Foundation

public final class BoundedQueue<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var items: [Value] = []
    private var closed = false
    private var failure: Error?
    public let capacity: Int

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Waits for room, then appends. Returns false (dropping `value`) once the queue is closed: the consumer
    /// stopped, so the producer should too.
    @discardableResult
    public func put(_ value: Value) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed { condition.wait() }
        guard !closed else { return false }
        items.append(value)
        condition.broadcast()
        return true
    }

    /// The next value; nil when the queue is closed and empty. Throws the error the producer closed it with.
    public func take() throws -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        if !items.isEmpty {
            let value = items.removeFirst()
            condition.broadcast()
            return value
        }
        if let failure { throw failure }
        return nil
    }

    /// No more values: `take` drains what is queued, then returns nil (or throws `error`); `put` refuses.
    public func close(throwing error: Error? = nil) {
        condition.lock()
        if failure == nil { failure = error }
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Closes and drops what is queued (the consumer stops early).
    public func cancel() {
        condition.lock()
        closed = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
