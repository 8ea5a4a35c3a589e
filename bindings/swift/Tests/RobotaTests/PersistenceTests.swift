import XCTest

@testable import Robota

final class PersistenceTests: XCTestCase {
    func testSaveResumeAndForkKeepHistoriesApart() async throws {
        let rt = try Runtime(config: RuntimeConfig(providers: [
            // A scripted profile takes no api_key (unknown keys are refused): the secret sits in a
            // second, unused profile the snapshot must not reveal either.
            "s": ProviderConfig(kind: .scripted, extra: ["turns": [["text": "first answer"]]]),
            "h": ProviderConfig(kind: .anthropic, apiKey: "sk-very-secret"),
        ]))
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", systemPrompt: "sys", name: "demo"))
        _ = try await s.run("q1")

        let snapshot = try s.save()
        XCTAssertTrue(snapshot.contains(#""kind":"robota.session""#), snapshot)
        XCTAssertFalse(snapshot.contains("sk-very-secret"))

        let resumed = try rt.resume(snapshot: snapshot)
        XCTAssertEqual(resumed.id, s.id)
        XCTAssertFalse(resumed.id.isEmpty)
        XCTAssertEqual(try resumed.messages(), try s.messages())
        XCTAssertEqual(try resumed.state().name, "demo")
        XCTAssertEqual(try resumed.state().messageCount, 1)
        // a resumed session continues the conversation (on a fresh provider instance: its
        // script starts over)
        let actual = try await resumed.run("q2").response
        XCTAssertEqual(actual, "first answer")
        XCTAssertEqual(try resumed.messages().map(\.content), ["sys", "q1", "first answer", "q2", "first answer"])

        let fork = try s.fork(overrides: ["delivery": "pump"])
        XCTAssertNotEqual(fork.id, s.id)
        XCTAssertEqual(fork.delivery, .pump)
        XCTAssertEqual(try fork.state().delivery, .pump)
        let turn = try fork.submit("only in fork")
        try await fork.wait(turn: turn, timeout: 30)
        XCTAssertTrue(try fork.messages().contains { $0.content == "only in fork" })
        XCTAssertFalse(try s.messages().contains { $0.content == "only in fork" })
        XCTAssertEqual(try s.messages().map(\.content), ["sys", "q1", "first answer"])
    }

    func testInjectedMessagesJoinTheConversation() async throws {
        let rt = try Runtime(config: RuntimeConfig(providers: [
            "s": ProviderConfig(kind: .scripted, extra: ["turns": [["text": "kiwi"]]]),
        ]))
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", systemPrompt: "sys"))
        try s.injectMessage(role: "user", content: "The code word is kiwi.")
        try s.injectMessage(role: "assistant", content: "Noted.")
        assertRobotaError(.invalidConfig, containing: #"role "tool" cannot be injected"#) {
            try s.injectMessage(role: "tool", content: "x")
        }
        _ = try await s.run("word?")
        XCTAssertEqual(
            try s.messages().map { "\($0.role):\($0.content)" },
            ["system:sys", "user:The code word is kiwi.", "assistant:Noted.", "user:word?", "assistant:kiwi"]
        )
    }

    func testResumeOverridesAndBadSnapshotsNameTheProblem() async throws {
        let rt = try Fixture.runtime()
        let s = try rt.session(config: Fixture.session)
        _ = try await s.run("hello")
        let pulled = try rt.resume(snapshot: s.save(), overrides: ["delivery": "pull"])
        XCTAssertEqual(pulled.delivery, .pull)
        assertRobotaError(.invalidConfig, containing: #"snapshot: field "kind" must be "robota.session""#) {
            _ = try rt.resume(snapshot: #"{"kind":"other"}"#)
        }
        assertRobotaError(.invalidJSON, containing: "snapshot is not valid JSON") {
            _ = try rt.resume(snapshot: "not json")
        }
    }

    func testPersistedSessionsResumeByID() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("robota-swift-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rt = try Runtime(config: RuntimeConfig(
            providers: ["s": .scripted(turns: [["text": "kept"]])], sessionDir: dir.path))
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", persist: true))
        _ = try await s.run("remember me")
        let again = try rt.resume(sessionID: s.id)
        XCTAssertEqual(try again.messages().map(\.content), ["remember me", "kept"])
        assertRobotaError(.notFound) { _ = try rt.resume(sessionID: "no-such-session") }
    }

    func testStoreListsAndDeletesSessions() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("robota-swift-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rt = try Runtime(config: RuntimeConfig(
            providers: ["s": .scripted(turns: [["text": "kept"]])], sessionDir: dir.path))
        XCTAssertEqual(try rt.listSessions(), SessionList(sessions: [], skipped: []))
        let s = try rt.session(config: SessionConfig(
            provider: "s", model: "m", sessionID: "sw-1", name: "from Swift", persist: true,
            contextWindow: 100_000, autoCompactThreshold: .number(0.5), compactInstructions: "keep decisions"))
        _ = try await s.run("hello")
        XCTAssertTrue(try s.save().contains(#""compact_instructions":"keep decisions""#))
        try Data("{".utf8).write(to: dir.appendingPathComponent("bad.json"))
        let list = try rt.listSessions(limit: 5)
        XCTAssertEqual(list.sessions.map(\.id), ["sw-1"])
        XCTAssertEqual(list.sessions.first?.name, "from Swift")
        XCTAssertEqual(list.sessions.first?.messageCount, 1)
        XCTAssertEqual(list.skipped.map(\.file), ["bad.json"])
        assertRobotaError(.notFound) { try rt.deleteSession(id: "nope") }
        try rt.deleteSession(id: "sw-1")
        XCTAssertEqual(try rt.listSessions().sessions, [])
    }

    func testCompactCommandReplacesHistory() async throws {
        let rt = try Runtime(config: RuntimeConfig(providers: [
            "s": .scripted(turns: [["text": "answer"], ["text": "the summary"]]),
        ]))
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", systemPrompt: "sys"))
        _ = try await s.run("q")
        let result = try s.command("compact", args: "focus")
        XCTAssertTrue(result.success)
        XCTAssertTrue(result.message.hasPrefix("Context compacted: "), result.message)
        XCTAssertEqual(try s.messages().map(\.content), ["sys", "[Context Summary]\nthe summary"])
    }
}
