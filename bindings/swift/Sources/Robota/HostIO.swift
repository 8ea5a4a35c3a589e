import CRobota
import Foundation

/// One request of the host I/O port: the built-in tools of a session created with
/// `SessionConfig.hostIO` read, write, stat, list and execute through the runtime's handler
/// (`Runtime.setHostIO`) instead of the operating system (iOS, sandboxes, virtual file systems).
/// Paths are absolute, normalized and permission-checked by the library.
public struct HostIORequest: Sendable, Equatable {
    /// The request id (unique per runtime).
    public let ioID: UInt64
    /// `read`, `write`, `stat`, `list` or `exec`.
    public let op: String
    /// The whole request document (`path`, `content`, `command`, `cwd`, `timeout_ms`, `env`).
    public let document: JSONValue

    /// The absolute path of a file operation.
    public var path: String? { document["path"]?.stringValue }
    /// The content of a `write`.
    public var content: String? { document["content"]?.stringValue }
    /// The command line of an `exec`.
    public var command: String? { document["command"]?.stringValue }
}

/// Thrown by a host I/O handler for an op the host does not offer (`{"error":"unsupported"}`).
public struct HostIOUnsupported: Error, Sendable {
    public init() {}
}

/// Answers a host I/O request with its answer document (`["content": …]`, `[:]`,
/// `["exists": …, "is_dir": …, "size": …]`, `["entries": [["name": …, "is_dir": …]]]`,
/// `["exit_code": …, "stdout": …, "stderr": …]`). A thrown error is reported to the model.
public typealias HostIOHandler = @Sendable (HostIORequest) async throws -> JSONValue

/// The runtime's host I/O handler (set once, read from callbacks and pull routing).
final class HostIOSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var handler: HostIOHandler?

    var current: HostIOHandler? {
        lock.lock()
        defer { lock.unlock() }
        return handler
    }

    func set(_ h: @escaping HostIOHandler) {
        lock.lock()
        handler = h
        lock.unlock()
    }
}

/// The `user_data` of the host I/O registration.
final class HostIOBox: CallbackBox, @unchecked Sendable {
    /// Weak: the library owns this box for the runtime's lifetime (sessions hold the runtime).
    weak var runtime: Runtime?
    let handler: HostIOHandler

    init(runtime: Runtime, handler: @escaping HostIOHandler) {
        self.runtime = runtime
        self.handler = handler
    }
}

/// `robota_host_io_fn`: answers the request from a task running the handler.
let hostIOTrampoline: robota_host_io_fn = { userData, _, ioID, request, length in
    guard let box = CallbackBox.from(userData, as: HostIOBox.self), let runtime = box.runtime else { return }
    let text = request.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
    runtime.serveHostIO(ioID: ioID, request: (try? JSONValue(parsing: text)) ?? .null, handler: box.handler)
}

extension Runtime {
    /// Sets the host I/O handler used by sessions created with `hostIO: true`
    /// (`robota_runtime_set_host_io`). Each request runs the handler in its own task.
    public func setHostIO(_ handler: @escaping HostIOHandler) throws {
        let box = HostIOBox(runtime: self, handler: handler)
        try box.register { userData in
            try check { error in robota_runtime_set_host_io(handle, hostIOTrampoline, userData, releaseBox, error) }
        }
        hostIO.set(handler)
    }

    /// Answers host I/O request `ioID` with a JSON object (`robota_host_io_complete`). Throws
    /// `.stale` for a request already answered or withdrawn (turn aborted).
    public func completeHostIO(_ ioID: UInt64, json: String) throws {
        try check { error in json.withCString { robota_host_io_complete(handle, ioID, $0, error) } }
    }

    /// Runs `handler` for one request in a task and answers it.
    func serveHostIO(ioID: UInt64, request: JSONValue, handler: @escaping HostIOHandler) {
        let req = HostIORequest(ioID: ioID, op: request["op"]?.stringValue ?? "", document: request)
        requestTasks.start(.hostIO, ioID) { [self] in
            var answer: JSONValue
            do {
                answer = try await handler(req)
            } catch is HostIOUnsupported {
                answer = ["error": "unsupported"]
            } catch {
                answer = ["error": .string((error as? LocalizedError)?.errorDescription ?? String(describing: error))]
            }
            // `.stale` after an abort is expected: the turn no longer waits.
            try? completeHostIO(ioID, json: (try? JSONCoding.encode(answer)) ?? "{}")
        }
    }

    /// A host I/O request that arrived as an event (pull delivery).
    func hostIOEvent(ioID: UInt64, request: JSONValue) {
        guard let handler = hostIO.current, ioID > 0 else { return }
        serveHostIO(ioID: ioID, request: request, handler: handler)
    }
}
