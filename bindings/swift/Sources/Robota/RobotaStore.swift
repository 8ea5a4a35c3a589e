import CRobota
import Foundation

/// A session as a store holds it: its version (1 after the first save) and its snapshot object.
public struct StoredSnapshot: Sendable, Equatable {
    public var version: Int64
    public var snapshot: JSONValue

    public init(version: Int64, snapshot: JSONValue) {
        self.version = version
        self.snapshot = snapshot
    }
}

/// One save of a session: store `snapshot` as version `expectedVersion + 1` only if the store
/// still holds `expectedVersion` (0: the session is new and must not exist yet).
public struct StoreSaveRequest: Sendable, Equatable {
    public var sessionID: String
    /// The version this node loaded (0 when it created the session).
    public var expectedVersion: Int64
    /// The snapshot object (what `Session.save()` returns).
    public var snapshot: JSONValue
    /// The listing columns, copied from the snapshot.
    public var summary: StoredSession

    public init(sessionID: String, expectedVersion: Int64, snapshot: JSONValue, summary: StoredSession) {
        self.sessionID = sessionID
        self.expectedVersion = expectedVersion
        self.snapshot = snapshot
        self.summary = summary
    }
}

/// What `RobotaStore.save` did.
public enum StoreSaveResult: Sendable, Equatable {
    /// Saved: the store now holds `version` (the expected version + 1).
    case saved(version: Int64)
    /// Not saved: the store holds `storedVersion` instead of the expected one (0: deleted).
    case conflict(storedVersion: Int64)
}

/// A session store the host plugs into a runtime (`Runtime.setStore`): a database shared by
/// several nodes instead of the local session directory. Sessions with `persist: true` save
/// through it after each turn, `resume(sessionID:)` loads through it, `listSessions` and
/// `deleteSession` go through it, and transcripts are appended to it. Each request runs in its
/// own task; a thrown error fails the operation with `.io` carrying its description (a failed
/// save after a turn is a `.warning` event), and an answer later than the runtime's
/// `requestTimeoutMs` fails it with `.timeout`.
public protocol RobotaStore: Sendable {
    /// The stored session, or nil when there is none (the resume throws `.notFound`).
    func load(sessionID: String) async throws -> StoredSnapshot?
    /// Saves atomically with an optimistic version check: insert for `expectedVersion` 0
    /// (exists already: a conflict), otherwise update only while the store holds that version
    /// (`UPDATE … WHERE id = $1 AND version = $2`; no row: a conflict). A conflict fails the
    /// turn that saved with `RobotaError.conflict`.
    func save(_ request: StoreSaveRequest) async throws -> StoreSaveResult
    /// Deletes a session; false when there was none (`.notFound`).
    func delete(sessionID: String) async throws -> Bool
    /// The sessions of `cwd` (nil: all), newest `updatedAt` first, at most `limit` (nil: all).
    func list(cwd: String?, limit: Int?) async throws -> [StoredSession]
    /// Appends transcript lines (complete JSONL lines, each ending in "\n") of a session.
    func append(sessionID: String, lines: String) async throws
}

/// The `user_data` of the store registration.
final class StoreBox: CallbackBox, @unchecked Sendable {
    /// Weak: the library owns this box for the runtime's lifetime.
    weak var runtime: Runtime?
    let store: any RobotaStore

    init(runtime: Runtime, store: any RobotaStore) {
        self.runtime = runtime
        self.store = store
    }
}

/// `robota_store_fn`: answers the request from a task running the store.
let storeTrampoline: robota_store_fn = { userData, requestID, request, length in
    guard let box = CallbackBox.from(userData, as: StoreBox.self), let runtime = box.runtime else { return }
    let text = request.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
    let store = box.store
    Task { await runtime.serveStore(requestID: requestID, request: (try? JSONValue(parsing: text)) ?? .null, store: store) }
}

extension Runtime {
    /// Sets the runtime's session store (`robota_runtime_set_store`); nil removes it (back to
    /// the session directory).
    public func setStore(_ store: (any RobotaStore)?) throws {
        guard let store else {
            try check { error in robota_runtime_set_store(handle, nil, nil, nil, error) }
            return
        }
        let box = StoreBox(runtime: self, store: store)
        try box.register { userData in
            try check { error in robota_runtime_set_store(handle, storeTrampoline, userData, releaseBox, error) }
        }
    }

    /// Answers store request `requestID` with a JSON object (`robota_store_complete`). Throws
    /// `.stale` when it was answered already or timed out, `.notFound` for an id never issued.
    public func completeStoreRequest(_ requestID: UInt64, json: String) throws {
        try check { error in json.withCString { robota_store_complete(handle, requestID, $0, error) } }
    }

    /// Runs one store request and answers it; an answer the library refuses fails the
    /// operation at once, naming why.
    func serveStore(requestID: UInt64, request: JSONValue, store: any RobotaStore) async {
        var answer: JSONValue
        do {
            answer = try await Self.storeAnswer(request, store)
        } catch {
            answer = ["error": .string((error as? LocalizedError)?.errorDescription ?? String(describing: error))]
        }
        do {
            try completeStoreRequest(requestID, json: answer.jsonString())
        } catch let e as RobotaError where e.code == .invalidJSON || e.code == .invalidConfig {
            let refused: JSONValue = ["error": .string("the store's answer was refused: \(e.message)")]
            try? completeStoreRequest(requestID, json: refused.jsonString())
        } catch {
            // `.stale` after a timeout: nobody waits for the answer any more.
        }
    }

    private static func storeAnswer(_ request: JSONValue, _ store: any RobotaStore) async throws -> JSONValue {
        let op = request["op"]?.stringValue ?? ""
        let id = request["session_id"]?.stringValue
        func sessionID() throws -> String {
            guard let id else { throw RobotaError(code: .invalidConfig, message: "store request \"\(op)\" has no \"session_id\"") }
            return id
        }
        switch op {
        case "load":
            guard let stored = try await store.load(sessionID: try sessionID()) else { return ["found": false] }
            return ["version": .integer(stored.version), "snapshot": stored.snapshot]
        case "save":
            let id = try sessionID()
            let s = request["summary"] ?? [:]
            let summary = StoredSession(
                id: id, name: s["name"]?.stringValue, cwd: s["cwd"]?.stringValue ?? "",
                createdAt: s["created_at"]?.stringValue ?? "", updatedAt: s["updated_at"]?.stringValue ?? "",
                messageCount: UInt64(max(0, s["message_count"]?.intValue ?? 0)))
            let save = StoreSaveRequest(
                sessionID: id, expectedVersion: request["expected_version"]?.intValue ?? 0,
                snapshot: request["snapshot"] ?? .null, summary: summary)
            switch try await store.save(save) {
            case .saved(let version): return ["version": .integer(version)]
            case .conflict(let stored): return ["conflict": true, "version": .integer(stored)]
            }
        case "delete":
            return ["deleted": .bool(try await store.delete(sessionID: try sessionID()))]
        case "list":
            let limit = request["limit"]?.intValue.map { Int(clamping: $0) }
            let rows = try await store.list(cwd: request["cwd"]?.stringValue, limit: limit)
            return ["sessions": try JSONValue(parsing: JSONCoding.encode(rows))]
        case "append":
            try await store.append(sessionID: try sessionID(), lines: request["lines"]?.stringValue ?? "")
            return [:]
        default:
            throw RobotaError(code: .unsupported, message: "unknown store op \"\(op)\"")
        }
    }
}
