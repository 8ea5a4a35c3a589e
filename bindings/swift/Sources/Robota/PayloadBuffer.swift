/// The bytes of one event payload, copied from the callback for a `TurnEvent` (which decodes
/// them when read). The router reuses its last buffer for the next event when no `TurnEvent`
/// kept it (it is then uniquely referenced), so an observer that keeps no events costs no
/// allocation per event. One allocation: the count and the bytes.
final class PayloadBuffer: ManagedBuffer<Int, UInt8>, @unchecked Sendable {
    /// The smallest buffer made (most payloads fit), and the largest one kept for reuse.
    static let minimumCapacity = 1024
    static let maximumKept = 64 * 1024

    /// A buffer holding a copy of `bytes`.
    static func copy(_ bytes: UnsafeRawBufferPointer) -> PayloadBuffer {
        let buffer = unsafeDowncast(
            create(minimumCapacity: max(bytes.count, minimumCapacity)) { _ in 0 }, to: PayloadBuffer.self)
        buffer.write(bytes)
        return buffer
    }

    /// Replaces the contents with `bytes`; only while nothing else refers to this buffer, and
    /// only when they fit (`capacity`).
    func write(_ bytes: UnsafeRawBufferPointer) {
        withUnsafeMutablePointers { count, elements in
            if let base = bytes.baseAddress { UnsafeMutableRawPointer(elements).copyMemory(from: base, byteCount: bytes.count) }
            count.pointee = bytes.count
        }
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { count, elements in try body(UnsafeRawBufferPointer(start: elements, count: count.pointee)) }
    }
}
