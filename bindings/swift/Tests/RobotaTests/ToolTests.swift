import XCTest

@testable import Robota

private struct LookupArgs: Decodable, Sendable { let key: String }

private enum LookupError: LocalizedError {
    case missing(String)
    var errorDescription: String? {
        if case .missing(let key) = self { return "no entry for \(key)" }
        return nil
    }
}

final class ToolTests: XCTestCase {
    func testAHandlersResultAnswersTheCall() async throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "k1"))
        let seen = Mailbox<String>()
        try rt.registerTool(Fixture.lookup) { call in
            seen.put(try call.decodeArguments(LookupArgs.self).key)
            return ["value": 42] as JSONValue
        }
        let s = try rt.session(config: Fixture.session)
        let events = try await collect(s.stream("find k1"))

        XCTAssertEqual(seen.peek, "k1")
        XCTAssertEqual(events.toolStarts.first?.toolName, "lookup")
        XCTAssertEqual(events.toolStarts.first?.firstArg, "k1")
        XCTAssertEqual(events.toolEnds.first?.result, "success")
        XCTAssertEqual(events.toolEnds.first?.output, #"{"value":42}"#)
        XCTAssertEqual(events.completed?.response, "Done.")
        XCTAssertEqual(events.completed?.toolSummaries, [["args": ["key": "k1"], "name": "lookup"]])
        let tool = try s.messages().first { $0.role == "tool" }
        XCTAssertEqual(tool?.content, #"{"value":42}"#)
    }

    func testAStringResultIsPlainText() async throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "k"))
        try rt.registerTool(Fixture.lookup) { _ in "plain \"quoted\" text" }
        let s = try rt.session(config: Fixture.session)
        _ = try await s.run("go")
        XCTAssertEqual(try s.messages().first { $0.role == "tool" }?.content, "plain \"quoted\" text")
    }

    func testAHandlerCompletedLaterFromAnotherTask() async throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "k2"))
        let answer = Mailbox<String>()
        let started = Mailbox<UInt64>()
        try rt.registerTool(Fixture.lookup) { call in
            started.put(call.callID)
            return try await answer.take()
        }
        let s = try rt.session(config: Fixture.session)
        let consumer = Task { try await collect(s.stream("find k2")) }
        let callID = try await started.take()
        XCTAssertGreaterThan(callID, 0)
        XCTAssertEqual(try s.state().executing, true)
        Task.detached { answer.put("answered later") }
        let events = try await consumer.value
        XCTAssertEqual(events.toolEnds.first?.output, "answered later")
        XCTAssertEqual(events.completed?.response, "Done.")
        // the call is answered: answering again is stale
        assertRobotaError(.stale) { try rt.completeToolCall(callID, result: "again") }
    }

    func testAToolWithoutHandlerIsAnsweredFromTheStreamByAnotherTask() async throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "k3"))
        try rt.registerTool(Fixture.lookup)
        let s = try rt.session(config: Fixture.session)
        var answered: [Task<Void, Error>] = []
        var events: [Event] = []
        for try await event in s.stream("find k3") {
            events.append(event)
            if case .toolCall(let call) = event {
                XCTAssertEqual(call.toolName, "lookup")
                XCTAssertEqual(call.arguments, ["key": "k3"])
                answered.append(Task.detached { try rt.completeToolCall(call.callID, result: ["found": true] as JSONValue) })
            }
        }
        XCTAssertEqual(answered.count, 1)
        try await answered.first?.value
        XCTAssertEqual(events.toolEnds.first?.output, #"{"found":true}"#)
        XCTAssertEqual(events.completed?.response, "Done.")
    }

    func testAnErrorThrownByTheHandlerBecomesTheToolsFailure() async throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "k9"))
        try rt.registerTool(Fixture.lookup) { call -> String in
            throw LookupError.missing(try call.decodeArguments(LookupArgs.self).key)
        }
        let s = try rt.session(config: Fixture.session)
        let events = try await collect(s.stream("find k9"))
        XCTAssertEqual(events.toolEnds.first?.result, "error")
        XCTAssertEqual(events.toolEnds.first?.output, "Error: no entry for k9")
        XCTAssertEqual(events.completed?.stopReason, .complete)
        XCTAssertEqual(try s.messages().first { $0.role == "tool" }?.content, "Error: no entry for k9")
    }

    func testAnInlineHandlersResultAndErrorAnswerTheCall() async throws {
        for (key, result, output) in [("k1", "success", "value of k1"), ("k9", "error", "Error: no entry for k9")] {
            let rt = try Fixture.runtime(Fixture.toolTurns(key: key))
            try rt.registerInlineTool(Fixture.lookup) { call -> String in
                let key = try call.decodeArguments(LookupArgs.self).key
                guard key == "k1" else { throw LookupError.missing(key) }
                return "value of \(key)"
            }
            let s = try rt.session(config: Fixture.session)
            let events = try await collect(s.stream("find \(key)"))
            XCTAssertEqual(events.toolEnds.first?.result, result)
            XCTAssertEqual(events.toolEnds.first?.output, output)
            XCTAssertEqual(events.completed?.stopReason, .complete)
        }
    }

    func testRegistrationErrorsNameTheProblem() throws {
        let rt = try Fixture.runtime()
        try rt.registerTool(Fixture.lookup) { _ in "x" }
        assertRobotaError(.invalidConfig, containing: "tool \"lookup\" is already registered") {
            try rt.registerTool(Fixture.lookup) { _ in "y" }
        }
        assertRobotaError(.notFound) { try rt.completeToolCall(987_654, result: "nobody asked") }
        assertRobotaError(.notFound) { try rt.respond(requestID: 987_655, json: #"{"decision":"allow"}"#) }
    }
}
