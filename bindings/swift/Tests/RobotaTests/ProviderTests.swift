import XCTest

@testable import Robota

/// A host provider written in Swift for the tests: `answer` builds each call's stream (with
/// the call's index, 0-based); every request is recorded.
private final class HostModel: ModelProvider, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [ModelRequest] = []
    private let answer: @Sendable (ModelRequest, Int) -> AsyncThrowingStream<ModelEvent, Error>

    init(_ answer: @escaping @Sendable (ModelRequest, Int) -> AsyncThrowingStream<ModelEvent, Error>) {
        self.answer = answer
    }

    /// A provider that yields `events` for call `i` (the last list for later calls).
    convenience init(calls: [[ModelEvent]]) {
        self.init { _, i in
            let events = calls[min(i, calls.count - 1)]
            return AsyncThrowingStream { continuation in
                events.forEach { continuation.yield($0) }
                continuation.finish()
            }
        }
    }

    func stream(_ request: ModelRequest) -> AsyncThrowingStream<ModelEvent, Error> {
        lock.lock()
        seen.append(request)
        let index = seen.count - 1
        lock.unlock()
        return answer(request, index)
    }

    var requests: [ModelRequest] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }
}

/// Stream terminations a provider's `onTermination` saw, in order.
private final class Terminations: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [String] = []
    let first = Mailbox<String>()

    func record(_ termination: AsyncThrowingStream<ModelEvent, Error>.Continuation.Termination) {
        let name: String
        switch termination {
        case .cancelled: name = "cancelled"
        case .finished(let error): name = error == nil ? "finished" : "failed"
        @unknown default: name = "unknown"
        }
        lock.lock()
        seen.append(name)
        lock.unlock()
        first.put(name)
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }
}

private struct GatewayDown: LocalizedError {
    var errorDescription: String? { "gateway 10.0.0.7 refused the connection" }
}

final class ProviderTests: XCTestCase {
    /// A runtime with the host provider `model` registered as "local".
    private func runtime(_ model: HostModel, _ capabilities: ProviderCapabilities = ProviderCapabilities()) throws -> Runtime {
        let rt = try Fixture.runtime()
        try rt.register(provider: model, named: "local", capabilities: capabilities)
        return rt
    }

    /// A session on "local" offering no tool (`withLookup`: only `lookup`).
    private func session(withLookup: Bool = false) -> SessionConfig {
        SessionConfig(
            provider: "local", model: "on-device", systemPrompt: "Be brief.", tools: withLookup ? ["lookup"] : [],
            systemPromptMode: "replace")
    }

    func testATurnWithTwoToolRoundsRunsOnASwiftProvider() async throws {
        let model = HostModel(calls: [
            [.text("Looking up k1."), .toolCall(id: "call_1", name: "lookup", arguments: ["key": "k1"])],
            [.toolCall(id: "call_2", name: "lookup", arguments: ["key": "k2"])],
            [.text("k1=v1, "), .text("k2=v2")],
        ])
        let rt = try runtime(model)
        try rt.registerTool(Fixture.lookup) { call in
            ["k1": "v1", "k2": "v2"][try call.decodeArguments([String: String].self)["key"] ?? ""] ?? "none"
        }
        let s = try rt.session(config: session(withLookup: true))
        let events = try await collect(s.stream("find k1 and k2"))

        let requests = model.requests
        XCTAssertEqual(requests.count, 3)
        XCTAssertEqual(requests.map(\.attempt), [1, 1, 1])
        XCTAssertEqual(Set(requests.map(\.callID)).count, 3)
        XCTAssertEqual(requests[1].provider, "local")
        XCTAssertEqual(requests[1].model, "on-device")
        XCTAssertEqual(requests[1].sessionID, s.id)
        XCTAssertEqual(requests[1].toolChoice, .auto)
        XCTAssertEqual(requests[1].tools, [ModelTool(name: "lookup", description: "Looks a key up", inputSchema: Fixture.lookup.inputSchema)])
        // round two sees the first tool call and its result
        XCTAssertEqual(requests[1].messages, [
            .system("Be brief."),
            .user([.text("find k1 and k2")]),
            .assistant("Looking up k1.", toolCalls: [ModelToolCall(id: "call_1", name: "lookup", arguments: ["key": "k1"])]),
            .tool(ModelToolResult(toolCallID: "call_1", name: "lookup", content: "v1")),
        ])
        XCTAssertEqual(requests[2].messages.suffix(2), [
            .assistant("", toolCalls: [ModelToolCall(id: "call_2", name: "lookup", arguments: ["key": "k2"])]),
            .tool(ModelToolResult(toolCallID: "call_2", name: "lookup", content: "v2")),
        ])
        XCTAssertEqual(events.toolEnds.map(\.output), ["v1", "v2"])
        // the library separates the text of two model calls with a blank line
        XCTAssertEqual(events.text, "Looking up k1.\n\nk1=v1, k2=v2")
        XCTAssertEqual(events.completed?.stopReason, .complete)
        XCTAssertEqual(events.completed?.response, "k1=v1, k2=v2")
        let history = try s.messages()
        XCTAssertEqual(history.map(\.role), ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"])
        XCTAssertEqual(history.last?.content, "k1=v1, k2=v2")
    }

    func testTextDeltasAndUsageArriveInOrder() async throws {
        let model = HostModel(calls: [[.text("Hel"), .text("lo, "), .thinking("hmm"), .text("world"), .usage(input: 12, output: 3)]])
        let s = try runtime(model).session(config: session())
        let events = try await collect(s.stream("greet"))
        let deltas = events.compactMap { event -> String? in
            switch event {
            case .textDelta(let t): return "text:" + t
            case .thinkingDelta(let t): return "thinking:" + t
            default: return nil
            }
        }
        XCTAssertEqual(deltas, ["text:Hel", "text:lo, ", "thinking:hmm", "text:world"])
        XCTAssertEqual(events.completed?.response, "Hello, world")
        XCTAssertEqual(events.completed?.usage?.inputTokens, 12)
        XCTAssertEqual(events.completed?.usage?.outputTokens, 3)
    }

    func testTheSessionsCallSettingsReachTheRequest() async throws {
        let model = HostModel(calls: [[.text("ok")]])
        let rt = try runtime(model, ProviderCapabilities(models: ["on-device"], thinking: true))
        var config = session()
        config.temperature = 0.25
        config.maxTokens = 77
        config.thinking = Thinking(budgetTokens: 1024)
        config.toolChoice = ToolChoice.none  // (not Optional.none)
        _ = try await rt.session(config: config).run("hi")
        let request = try XCTUnwrap(model.requests.first)
        XCTAssertEqual(request.temperature, 0.25)
        XCTAssertEqual(request.maxTokens, 77)
        XCTAssertEqual(request.thinkingBudget, 1024)
        XCTAssertEqual(request.toolChoice, .none)
        XCTAssertEqual(request.attempt, 1)
        XCTAssertEqual(request.document["type"], "call")
    }

    func testAStreamedToolCallAndAnExplicitStopReason() async throws {
        let model = HostModel(calls: [
            [.toolCallStart(id: "c", name: "lookup"), .toolCallDelta(id: "c", arguments: #"{"ke"#),
             .toolCallDelta(id: "c", arguments: #"y":"k7"}"#), .toolCallEnd(id: "c")],
            [.text("cut"), .done(.maxTokens), .text("never read")],
        ])
        let rt = try runtime(model)
        try rt.registerTool(Fixture.lookup) { call in try call.decodeArguments([String: String].self)["key"] ?? "" }
        let s = try rt.session(config: session(withLookup: true))
        let events = try await collect(s.stream("go"))
        XCTAssertEqual(events.toolStarts.map(\.arguments), [["key": "k7"]])
        XCTAssertEqual(events.toolEnds.map(\.output), ["k7"])
        XCTAssertEqual(events.text, "cut")
        XCTAssertEqual(events.completed?.stopReason, .maxTokens)
        XCTAssertEqual(model.requests.count, 2)
    }

    func testAnAbortMidStreamCancelsTheProvidersStreamOnce() async throws {
        let terminations = Terminations()
        let model = HostModel { _, i in
            AsyncThrowingStream { continuation in
                continuation.onTermination = { terminations.record($0) }
                if i == 0 {
                    continuation.yield(.text("partial"))  // then nothing: only a cancellation ends it
                } else {
                    continuation.yield(.text("second"))
                    continuation.finish()
                }
            }
        }
        let log = EventLog()
        let s = try runtime(model).session(config: session(), onEvent: log.observer)
        let turn = try s.submit("go")
        try await log.until { $0.contains { $0.event == .textDelta("partial") } }
        try s.abort()
        try await log.untilCompleted()
        XCTAssertEqual(log.events.completed?.stopReason, .aborted)
        await assertRobotaErrorAsync(.aborted) { try await s.wait(turn: turn, timeout: 30) }
        let first = try await terminations.first.take()
        XCTAssertEqual(first, "cancelled")
        // the session goes on; the next call ends normally and the first saw one cancellation
        let next = try await s.run("again")
        XCTAssertEqual(next.response, "second")
        XCTAssertEqual(terminations.all, ["cancelled", "finished"])
        XCTAssertEqual(model.requests.count, 2)
        XCTAssertEqual(try s.messages().map(\.role), ["system", "user", "assistant", "user", "assistant"])
    }

    func testCancellingTheConsumingTaskCancelsTheProvidersTask() async throws {
        let cancelled = Mailbox<Bool>()
        let started = Mailbox<Bool>()
        let model = HostModel { _, _ in
            // An on-device model's token loop: runs until its task is cancelled.
            let tokens = AsyncStream<String> { continuation in
                continuation.yield("tok")
                continuation.onTermination = { _ in cancelled.put(true) }
            }
            return AsyncThrowingStream(textTokens: tokens)
        }
        let s = try runtime(model).session(config: session())
        let consumer = Task {
            for try await event in s.stream("go") where event == .textDelta("tok") { started.put(true) }
        }
        _ = try await started.take()
        consumer.cancel()
        do {
            try await consumer.value
            XCTFail("the iteration should throw CancellationError")
        } catch is CancellationError {}
        let sawCancellation = try await cancelled.take()
        XCTAssertTrue(sawCancellation)
    }

    func testReleasingTheRuntimeMidCallCancelsTheStreamAndReleasesTheBoxOnce() async throws {
        let gone = expectation(description: "provider released")
        let terminations = Terminations()
        var rt: Runtime? = try Fixture.runtime()
        // the probe lives only in the provider: it goes when the library releases the box
        let serial = try rt!.installProvider(HostModel { [probe = Probe { gone.fulfill() }] _, _ in
            _ = probe
            return AsyncThrowingStream { continuation in
                continuation.onTermination = { terminations.record($0) }
                continuation.yield(.text("thinking aloud"))
            }
        }, named: "local", capabilities: ProviderCapabilities()).serial
        ReleaseLedger.watch(serial)
        let log = EventLog()
        var s: Session? = try rt!.session(config: session(), onEvent: log.observer)
        try s!.submit("go")
        try await log.until { $0.contains { $0.event == .textDelta("thinking aloud") } }
        XCTAssertEqual(ReleaseLedger.releases(of: serial), 0, "alive while the runtime is")
        s = nil  // never blocks: the turn is aborted and the call cancelled
        rt = nil
        let termination = try await terminations.first.take()
        XCTAssertEqual(termination, "cancelled")
        await fulfillment(of: [gone], timeout: 30)
        XCTAssertEqual(ReleaseLedger.releases(of: serial), 1)
        XCTAssertEqual(terminations.all, ["cancelled"])
    }

    func testAnAuthenticationErrorFailsTheTurnNamingTheProvider() async throws {
        let model = HostModel { _, _ in
            AsyncThrowingStream { $0.finish(throwing: ModelProviderError(.authentication, "the device key was rejected")) }
        }
        let s = try runtime(model).session(config: session())
        do {
            _ = try await s.run("hi")
            XCTFail("the turn should fail")
        } catch let error as RobotaError {
            XCTAssertEqual(error.code, .provider)
            XCTAssertEqual(error.message, #"Authentication Error: host provider "local": the device key was rejected"#)
            XCTAssertEqual(error.recoverable, false)
        }
        XCTAssertEqual(model.requests.count, 1)  // not retried
    }

    func testARateLimitIsRetriedAsTheNextAttempt() async throws {
        let model = HostModel { _, i in
            AsyncThrowingStream { continuation in
                if i == 0 {
                    continuation.finish(throwing: ModelProviderError(.rateLimit, "busy", retryAfter: 0.001))
                } else {
                    continuation.yield(.text("after the retry"))
                    continuation.finish()
                }
            }
        }
        let s = try runtime(model).session(config: session())
        let result = try await s.run("hi")
        XCTAssertEqual(result.response, "after the retry")
        XCTAssertEqual(model.requests.map(\.attempt), [1, 2])
        XCTAssertNotEqual(model.requests[0].callID, model.requests[1].callID)
    }

    func testAnErrorOfTheHostsOwnIsAProviderError() async throws {
        let model = HostModel { _, _ in AsyncThrowingStream { $0.finish(throwing: GatewayDown()) } }
        let s = try runtime(model, ProviderCapabilities(maxRetries: 0)).session(config: session())
        await assertRobotaErrorAsync(
            .provider, containing: #"Provider Error (local): host provider "local": gateway 10.0.0.7 refused the connection"#
        ) {
            _ = try await s.run("hi")
        }
        XCTAssertEqual(model.requests.count, 1)
    }

    func testAToolCallForAnUnknownToolFailsTheTurn() async throws {
        let terminations = Terminations()
        let model = HostModel { _, _ in
            AsyncThrowingStream { continuation in
                continuation.onTermination = { terminations.record($0) }
                continuation.yield(.toolCall(id: "x", name: "launch_rockets", arguments: [:]))
                continuation.yield(.text("never pushed"))
            }
        }
        let s = try runtime(model).session(config: session())
        var failure: RobotaError?
        do {
            _ = try await s.run("hi")
        } catch let error as RobotaError {
            failure = error
        }
        XCTAssertEqual(model.requests.count, 1)  // not retried
        let callID = model.requests[0].callID
        XCTAssertEqual(failure?.code, .provider)
        XCTAssertEqual(
            failure?.message,
            #"Provider Error (local): host provider "local": bad event for call \#(callID): event_json: tool call "x" names tool "launch_rockets", which the request did not offer (offered: none)"#)
        XCTAssertEqual(failure?.recoverable, false)
        let termination = try await terminations.first.take()
        XCTAssertEqual(termination, "cancelled")  // the binding stopped reading
    }

    func testAQueryRunsOnTheHostProvider() throws {
        let model = HostModel(calls: [[.text("42")]])
        let result = try runtime(model).query("the answer?", config: session())
        XCTAssertEqual(result.response, "42")
        XCTAssertEqual(result.stopReason, .complete)
        XCTAssertEqual(model.requests.map(\.messages), [[.system("Be brief."), .user([.text("the answer?")])]])
        // the query's temporary session
        XCTAssertEqual(model.requests.first?.sessionID?.hasPrefix("session_"), true)
    }

    func testRegistrationErrorsNameTheProvider() throws {
        let rt = try Fixture.runtime()
        try rt.register(provider: HostModel(calls: [[]]), named: "local")
        assertRobotaError(.invalidConfig, containing: "local") {
            try rt.register(provider: HostModel(calls: [[]]), named: "local")
        }
        assertRobotaError(.invalidConfig, containing: "\"s\"") {
            try rt.register(provider: HostModel(calls: [[]]), named: "s")
        }
        assertRobotaError(.invalidConfig, containing: "colour") {
            try rt.register(provider: HostModel(calls: [[]]), named: "other", capabilities: ProviderCapabilities(extra: ["colour": "red"]))
        }
    }

    func testTheRequestDocumentDecodes() throws {
        let doc = try JSONValue(parsing: #"""
            {"v":1,"type":"call","provider":"p","model":"m","session_id":null,
             "messages":[{"role":"system","content":"S"},
               {"role":"user","content":[{"type":"text","text":"look"},{"type":"image","media_type":"image/png","data":"iVBORw=="},
                 {"type":"image","url":"https://example.com/a.png"},{"type":"audio","data":"x"}]},
               {"role":"assistant","content":"ok","tool_calls":[{"id":"t1","name":"f","arguments":{"a":1}}]},
               {"role":"tool","tool_call_id":"t1","name":"f","content":"boom","is_error":true}],
             "tools":[{"name":"f","description":"F","input_schema":{"type":"object"}}],
             "tool_choice":{"name":"f"},"max_tokens":64,"temperature":0.5,"thinking_budget":null,"attempt":3}
            """#)
        let r = try ModelRequest(callID: 9, document: doc)
        XCTAssertEqual(r.callID, 9)
        XCTAssertNil(r.sessionID)
        XCTAssertEqual(r.messages, [
            .system("S"),
            .user([.text("look"), .image(.data(Data([0x89, 0x50, 0x4E, 0x47]), mediaType: "image/png")),
                   .image(.url(URL(string: "https://example.com/a.png")!)), .other(["type": "audio", "data": "x"])]),
            .assistant("ok", toolCalls: [ModelToolCall(id: "t1", name: "f", arguments: ["a": 1])]),
            .tool(ModelToolResult(toolCallID: "t1", name: "f", content: "boom", isError: true)),
        ])
        XCTAssertEqual(r.messages[1].text, "look")
        XCTAssertEqual(r.tools, [ModelTool(name: "f", description: "F", inputSchema: ["type": "object"])])
        XCTAssertEqual(r.toolChoice, .tool("f"))
        XCTAssertEqual(r.maxTokens, 64)
        XCTAssertEqual(r.temperature, 0.5)
        XCTAssertNil(r.thinkingBudget)
        XCTAssertEqual(r.attempt, 3)
        XCTAssertThrowsError(try ModelRequest(callID: 1, document: ["provider": "p", "model": "m", "messages": [["role": "user", "content": "not parts"]]])) {
            XCTAssertEqual(String(describing: $0), #""content" is not an array: "not parts""#)
        }
    }

    func testErrorDocuments() {
        XCTAssertEqual(
            ModelProviderError.document(for: ModelProviderError(.rateLimit, "slow", retryAfter: 1.5, recoverable: true)),
            ["type": "error", "class": "rate_limit", "message": "slow", "retry_after_ms": 1500, "recoverable": true])
        XCTAssertEqual(
            ModelProviderError.document(for: GatewayDown()),
            ["type": "error", "class": "provider", "message": "gateway 10.0.0.7 refused the connection"])
    }
}
