import Foundation

/// What kind of host request a handler task answers (the `request_kind` of
/// `Event.requestCancelled`). Known kinds are static members; later ones pass through.
public struct RequestKind: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public static let permission: RequestKind = "permission"
    public static let hook: RequestKind = "hook"
    public static let hostIO: RequestKind = "host_io"
    public static let command: RequestKind = "command"
    public static let toolCall: RequestKind = "tool_call"
}

/// Why a host request became void (`Event.requestCancelled`). Known reasons are static
/// members; later ones pass through.
public struct CancelReason: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public static let aborted: CancelReason = "aborted"
    public static let turnEnded: CancelReason = "turn_ended"
    public static let timeout: CancelReason = "timeout"
    public static let sessionClosed: CancelReason = "session_closed"
}

/// `ROBOTA_EVENT_REQUEST_CANCELLED`: request `requestID` of `requestKind` no longer waits for
/// an answer (answering it throws `.stale`).
public struct RequestCancelled: Codable, Sendable, Equatable {
    public let requestID: UInt64
    public let requestKind: RequestKind
    public let reason: CancelReason
    enum CodingKeys: String, CodingKey {
        case requestID = "request_id", requestKind = "request_kind", reason
    }
}

/// The tasks running permission, hook and host I/O handlers, by request, so the request's
/// cancellation (`Event.requestCancelled`) cancels its handler. A task is registered before it
/// can finish (under the lock), and removes itself when done.
final class RequestTasks: @unchecked Sendable {
    private struct Key: Hashable {
        let kind: RequestKind
        let id: UInt64
    }
    private let lock = NSLock()
    private var running: [Key: Task<Void, Never>] = [:]

    /// Runs `body` in a task registered as request `id` of `kind`.
    func start(_ kind: RequestKind, _ id: UInt64, _ body: @escaping @Sendable () async -> Void) {
        let key = Key(kind: kind, id: id)
        lock.lock()
        defer { lock.unlock() }
        running[key] = Task { [self] in
            await body()
            finished(key)
        }
    }

    private func finished(_ key: Key) {
        lock.lock()
        running[key] = nil
        lock.unlock()
    }

    /// Cancels the handler of request `id` of `kind`, if it still runs.
    func cancel(_ kind: RequestKind, _ id: UInt64) {
        lock.lock()
        let task = running[Key(kind: kind, id: id)]
        lock.unlock()
        task?.cancel()
    }

    /// How many handlers are running (tests).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return running.count
    }
}
