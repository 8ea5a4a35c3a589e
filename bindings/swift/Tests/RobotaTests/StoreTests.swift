import Foundation
import XCTest

@testable import Robota

/// An in-memory `RobotaStore` with a real optimistic version check, recording every call.
private final class MemoryStore: RobotaStore, @unchecked Sendable {
    private let lock = NSLock()
    private var rows: [String: (version: Int64, snapshot: JSONValue, summary: StoredSession)] = [:]
    private var log: [String] = []

    /// Runs `body` under the lock (synchronous: callable from the async methods).
    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    var calls: [String] { locked { log } }

    func row(_ id: String) -> (version: Int64, snapshot: JSONValue)? {
        locked { rows[id].map { ($0.version, $0.snapshot) } }
    }

    private func record(_ call: String) {
        locked { log.append(call) }
    }

    func load(sessionID: String) async throws -> StoredSnapshot? {
        record("load \(sessionID)")
        return row(sessionID).map { StoredSnapshot(version: $0.version, snapshot: $0.snapshot) }
    }

    func save(_ r: StoreSaveRequest) async throws -> StoreSaveResult {
        record("save \(r.sessionID) \(r.expectedVersion)")
        return locked {
            let stored = rows[r.sessionID]?.version ?? 0
            guard stored == r.expectedVersion else { return .conflict(storedVersion: stored) }
            rows[r.sessionID] = (stored + 1, r.snapshot, r.summary)
            return .saved(version: stored + 1)
        }
    }

    func delete(sessionID: String) async throws -> Bool {
        record("delete \(sessionID)")
        return locked { rows.removeValue(forKey: sessionID) != nil }
    }

    func list(cwd: String?, limit: Int?) async throws -> [StoredSession] {
        record("list")
        return locked {
            let all = rows.values.map(\.summary).filter { cwd == nil || $0.cwd == cwd }.sorted { $0.updatedAt > $1.updatedAt }
            return Array(all.prefix(limit ?? all.count))
        }
    }

    func append(sessionID: String, lines: String) async throws {
        record("append \(sessionID)")
    }
}

/// A store whose loads fail.
private struct BrokenStore: RobotaStore {
    struct Offline: LocalizedError {
        var errorDescription: String? { "database offline" }
    }
    func load(sessionID: String) async throws -> StoredSnapshot? { throw Offline() }
    func save(_ request: StoreSaveRequest) async throws -> StoreSaveResult { throw Offline() }
    func delete(sessionID: String) async throws -> Bool { throw Offline() }
    func list(cwd: String?, limit: Int?) async throws -> [StoredSession] { throw Offline() }
    func append(sessionID: String, lines: String) async throws { throw Offline() }
}

final class StoreTests: XCTestCase {
    private func node(_ server: FakeModelServer, _ store: any RobotaStore) throws -> Runtime {
        let rt = try Runtime(config: RuntimeConfig(providers: [
            "fake": ProviderConfig(kind: .openaiCompatible, baseURL: server.baseURL + "/v1", apiKey: "test-key", timeoutMs: 30_000, maxRetries: 0),
        ]))
        try rt.setStore(store)
        return rt
    }

    private func persisted(_ id: String) -> SessionConfig {
        SessionConfig(provider: "fake", model: "gpt-test", sessionID: id, persist: true)
    }

    private func contents(_ snapshot: JSONValue?) -> [String] {
        guard case .array(let messages) = snapshot?["messages"] else { return [] }
        return messages.compactMap { $0["content"]?.stringValue }
    }

    func testTurnsSaveThroughTheStoreAndAnotherNodeResumesByID() async throws {
        let server = try FakeModelServer()
        for text in ["first answer", "second answer", "third answer"] { try server.enqueue("openai", text: [text]) }
        let store = MemoryStore()
        let a = try node(server, store)
        let s = try a.session(config: persisted("sw-store-1"))
        _ = try await s.run("q1")
        XCTAssertEqual(store.row("sw-store-1")?.version, 1)
        _ = try await s.run("q2")
        XCTAssertEqual(store.row("sw-store-1")?.version, 2)
        XCTAssertEqual(contents(store.row("sw-store-1")?.snapshot), ["q1", "first answer", "q2", "second answer"])
        XCTAssertEqual(store.calls, ["save sw-store-1 0", "save sw-store-1 1"])

        let b = try node(server, store)
        let r = try b.resume(sessionID: "sw-store-1")
        XCTAssertEqual(try r.messages(), try s.messages())
        let third = try await r.run("q3")
        XCTAssertEqual(third.response, "third answer")
        XCTAssertEqual(store.row("sw-store-1")?.version, 3)
        // The other node's model request carries the whole history.
        guard case .array(let sent) = try XCTUnwrap(server.requests()[2]["body"])["messages"] else { return XCTFail("no messages sent") }
        XCTAssertEqual(
            sent.filter { $0["role"]?.stringValue != "system" }.compactMap { $0["content"]?.stringValue },
            ["q1", "first answer", "q2", "second answer", "q3"])
        XCTAssertEqual(store.calls, ["save sw-store-1 0", "save sw-store-1 1", "load sw-store-1", "save sw-store-1 2"])

        XCTAssertEqual(try b.listSessions().sessions.map(\.id), ["sw-store-1"])
        try b.deleteSession(id: "sw-store-1")
        XCTAssertNil(store.row("sw-store-1"))
        assertRobotaError(.notFound, containing: "sw-store-1") { _ = try b.resume(sessionID: "sw-store-1") }
    }

    func testAStaleSaveThrowsTheConflictAndKeepsTheOtherVersion() async throws {
        let server = try FakeModelServer()
        for text in ["a1", "b1", "a2", "a3"] { try server.enqueue("openai", text: [text]) }
        let store = MemoryStore()
        let a = try node(server, store)
        let b = try node(server, store)
        let log = EventLog()
        let s = try a.session(config: persisted("sw-conflict"), onEvent: log.observer)
        _ = try await s.run("from A")
        _ = try await b.resume(sessionID: "sw-conflict").run("from B")
        do {
            _ = try await s.run("A again")
            XCTFail("a stale save must fail the turn")
        } catch let e as RobotaError {
            guard case .conflict = e else { return XCTFail("expected .conflict, got \(e)") }
            XCTAssertEqual(e.code, .conflict)
            XCTAssertEqual(e.kind, "CONFLICT")
            XCTAssertEqual(e.details.document?["expected_version"]?.intValue, 1)
            XCTAssertEqual(e.details.document?["stored_version"]?.intValue, 2)
            XCTAssertEqual(e.details.document?["session_id"]?.stringValue, "sw-conflict")
        }
        try await log.untilCompleted(count: 2)
        let errors = log.events.compactMap { if case .error(let e) = $0 { return e } else { return nil } }
        XCTAssertEqual(errors.map(\.code), ["CONFLICT"])
        XCTAssertEqual(errors.first?.storedVersion, 2)
        XCTAssertEqual(store.row("sw-conflict")?.version, 2)
        XCTAssertEqual(contents(store.row("sw-conflict")?.snapshot), ["from A", "a1", "from B", "b1"])
        // The blocking drive reports the conflict status with the library's details.
        assertRobotaError(.conflict, containing: "was saved elsewhere") { _ = try s.drive("A once more") }
        XCTAssertEqual(store.row("sw-conflict")?.version, 2)
    }

    func testAThrowingStoreFailsTheOperationWithItsMessage() throws {
        let rt = try Fixture.runtime()
        try rt.setStore(BrokenStore())
        assertRobotaError(.io, containing: "database offline") { _ = try rt.resume(sessionID: "sw-any") }
        assertRobotaError(.io, containing: "database offline") { _ = try rt.listSessions() }
        assertRobotaError(.notFound, containing: "987654321") { try rt.completeStoreRequest(987_654_321, json: "{}") }
        try rt.setStore(nil)
        assertRobotaError(.notFound, containing: "sw-any") { _ = try rt.resume(sessionID: "sw-any") }
    }
}
