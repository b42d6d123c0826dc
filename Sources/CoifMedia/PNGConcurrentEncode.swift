// Encoding several PNGs at once (a composite and its layers): each on its own core.
import CoifCore
import Foundation

extension PNGFile {
    /// Encodes every image, concurrently; results in the same order. Throws the first failure.
    public static func encodeConcurrently(_ images: [PixelImage], compression: PNGCompression) throws -> [[UInt8]] {
        if images.count == 1 { return [try encode(images[0], compression: compression)] }
        let results = ResultSlots<[UInt8]>(count: images.count)
        DispatchQueue.concurrentPerform(iterations: images.count) { i in
            results.set(i, Result { try encode(images[i], compression: compression) })
        }
        return try results.values()
    }
}

/// One result slot per concurrent task, each written by exactly one task, read after all have finished.
private final class ResultSlots<Value>: @unchecked Sendable {
    private var slots: [Result<Value, Error>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ result: Result<Value, Error>) { lock.withLock { slots[i] = result } }
    func values() throws -> [Value] { try slots.map { try $0!.get() } }
}
