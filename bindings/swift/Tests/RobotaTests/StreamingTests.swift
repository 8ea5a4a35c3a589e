import XCTest

@testable import Robota

final class StreamingTests: XCTestCase {
    func testStreamYieldsTheTurnsEventsInOrderAndEndsAfterCompletion() async throws {
        let rt = try Fixture.runtime([
            ["thinking": ["Let me ", "think."], "deltas": ["Hel", "lo", " wörld 👋"],
             "usage": ["input_tokens": 10, "output_tokens": 3]],
        ])
        let s = try rt.session(config: Fixture.session)
        let events = try await collect(s.stream("greet me"))

        guard case .turnStarted(let started) = events.first else { return XCTFail("first event: \(events)") }
        XCTAssertEqual(started.input?["text"], "greet me")
        let thinking = events.compactMap { if case .thinkingDelta(let t) = $0 { return t } else { return nil } }
        XCTAssertEqual(thinking, ["Let me ", "think."])
        let deltas = events.compactMap { if case .textDelta(let t) = $0 { return t } else { return nil } }
        XCTAssertEqual(deltas, ["Hel", "lo", " wörld 👋"])
        guard case .turnCompleted(let done) = events.last else { return XCTFail("last event: \(events)") }
        XCTAssertEqual(done.turnID, started.turnID)
        XCTAssertEqual(done.stopReason, .complete)
        XCTAssertEqual(done.response, "Hello wörld 👋")
        XCTAssertEqual(done.usage?.inputTokens, 10)
        XCTAssertEqual(done.usage?.outputTokens, 3)
        // the assistant message is committed before the turn completes
        let committed = events.compactMap { if case .message(let m) = $0 { return m } else { return nil } }
        XCTAssertEqual(committed.last?.role, "assistant")
        XCTAssertEqual(committed.last?.content, "Hello wörld 👋")
        let lastDelta = events.lastIndex { if case .textDelta = $0 { return true } else { return false } }
        let message = events.lastIndex { if case .message = $0 { return true } else { return false } }
        XCTAssertLessThan(try XCTUnwrap(lastDelta), try XCTUnwrap(message))
    }

    func testRunReturnsTheResultAndTheHistoryHoldsTheConversation() async throws {
        let rt = try Fixture.runtime([["text": "first answer"]])
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", systemPrompt: "be brief"))
        let first = try await s.run("q1")
        XCTAssertEqual(first.response, "first answer")
        let second = try await s.run("q2")
        XCTAssertEqual(second.response, "offline:q2")
        XCTAssertGreaterThan(second.turnID, first.turnID)

        let conversation = try s.messages()
        XCTAssertEqual(conversation.map(\.role), ["system", "user", "assistant", "user", "assistant"])
        XCTAssertEqual(conversation.map(\.content), ["be brief", "q1", "first answer", "q2", "offline:q2"])
        XCTAssertEqual(try s.state().messageCount, 2, "one per completed answer")
        XCTAssertFalse(try s.state().executing)

        XCTAssertEqual(try s.messages(view: .messages).map(\.content), ["q1", "first answer", "q2", "offline:q2"])
        let timeline = try s.history()
        XCTAssertEqual(timeline.count, 4)
        assertRobotaError(.invalidConfig, containing: "use history()") { _ = try s.messages(view: .history) }
    }

    func testAFailedTurnThrowsTheProvidersErrorWithItsTaxonomy() async throws {
        let rt = try Fixture.runtime([["error": ["kind": "rate_limit", "message": "slow down"]]], fallback: "error")
        let s = try rt.session(config: Fixture.session)
        do {
            _ = try await s.run("hi")
            XCTFail("the turn should fail")
        } catch let e as RobotaError {
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("slow down"), e.message)
            XCTAssertEqual(e.category, "provider")
            XCTAssertEqual(e.recoverable, true)
        }
        // the stream yields the error and the completion, then throws the failure
        var events: [Event] = []
        do {
            for try await event in s.stream("again") { events.append(event) }
            XCTFail("the iteration should throw the turn's failure")
        } catch RobotaError.provider(let message, let details) {
            XCTAssertTrue(message.contains("no turn 2"), message)
            XCTAssertEqual(details.category, "provider")
        }
        XCTAssertEqual(events.completed?.stopReason, .error)
        XCTAssertTrue(events.contains { if case .error(let e) = $0 { return e.message.contains("no turn 2") } else { return false } })
    }

    func testSubmitAndWaitDeliverTheTurnToTheObserver() async throws {
        let rt = try Fixture.runtime([["deltas": ["a", "b"]]])
        let log = EventLog()
        let s = try rt.session(config: Fixture.session, onEvent: log.observer)
        let turn = try s.submit("x")
        try await s.wait(turn: turn, timeout: 30)
        try await log.untilCompleted()
        XCTAssertEqual(log.events.text, "ab")
        XCTAssertEqual(log.events.completed?.turnID, turn)
    }

    func testCommandsAnswerAndUnknownCommandsThrow() throws {
        let rt = try Fixture.runtime()
        let s = try rt.session(config: Fixture.session)
        let help = try s.command("help")
        XCTAssertTrue(help.success)
        XCTAssertFalse(help.message.isEmpty)
        let mode = try s.command("mode", args: "plan")
        XCTAssertTrue(mode.success, mode.message)
        XCTAssertEqual(try s.state().permissionMode, "plan")
        assertRobotaError(.notFound, containing: "frobnicate") { _ = try s.command("frobnicate") }
    }

    func testLibraryFacts() {
        XCTAssertEqual(RobotaLibrary.abiVersion >> 16, RobotaLibrary.headerABIVersion >> 16)
        XCTAssertFalse(RobotaLibrary.version.isEmpty)
        XCTAssertEqual(RobotaError.Code.timeout.rawValue, -8)
        XCTAssertEqual(RobotaLibrary.describe(status: 0), RobotaLibrary.describe(status: 0))
        XCTAssertNotEqual(RobotaLibrary.describe(status: -9), RobotaLibrary.describe(status: -10))
    }

    func testConfigsAreCodableAndKeepUnknownKeys() throws {
        var config = SessionConfig(provider: "s", model: "m", maxRounds: 3, delivery: .pump)
        config.extra["x_future"] = ["max_tool_calls": 2]
        let json = try JSONEncoder().encode(config)
        let text = String(decoding: json, as: UTF8.self)
        XCTAssertTrue(text.contains(#""max_rounds":3"#), text)
        XCTAssertTrue(text.contains(#""x_future":{"max_tool_calls":2}"#), text)
        config.budget = SessionBudget(maxToolCalls: 2)
        let withBudget = String(decoding: try JSONEncoder().encode(config), as: UTF8.self)
        XCTAssertTrue(withBudget.contains(#""budget":{"max_tool_calls":2}"#), withBudget)
        XCTAssertEqual(try JSONDecoder().decode(SessionConfig.self, from: JSONEncoder().encode(config)), config)
        let rtConfig = RuntimeConfig(providers: ["s": .scripted(turns: [["text": "x"]])], workerThreads: 1)
        XCTAssertEqual(try JSONDecoder().decode(RuntimeConfig.self, from: JSONEncoder().encode(rtConfig)), rtConfig)
    }
}
