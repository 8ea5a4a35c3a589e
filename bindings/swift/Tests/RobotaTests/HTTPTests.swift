#if os(macOS) || os(Linux)
import XCTest

@testable import Robota

/// The same API against real HTTP providers: the project's fake model server on 127.0.0.1.
final class HTTPTests: XCTestCase {
    private func runtime(_ server: FakeModelServer, kind: ProviderConfig.Kind, path: String) throws -> Runtime {
        try Runtime(config: RuntimeConfig(providers: [
            "fake": ProviderConfig(kind: kind, baseURL: server.baseURL + path, apiKey: "test-key", timeoutMs: 30_000, maxRetries: 0),
        ]))
    }

    func testOpenAIStreamingWithAHostToolAnsweredByAnotherTask() async throws {
        let server = try FakeModelServer()
        try server.enqueue("openai", text: ["Hel", "lo"], tools: [["call_1", "lookup", #"{"key":"h"}"#]])
        try server.enqueue("openai", text: ["Found ", "it."])
        let rt = try runtime(server, kind: .openaiCompatible, path: "/v1")
        let answer = Mailbox<String>()
        try rt.registerTool(Fixture.lookup) { call -> JSONValue in
            XCTAssertEqual(call.arguments, ["key": "h"])
            return ["found": .string(try await answer.take())]
        }
        let s = try rt.session(config: SessionConfig(provider: "fake", model: "gpt-test"))
        var events: [Event] = []
        for try await event in s.stream("find h") {
            events.append(event)
            if case .toolStart = event { Task.detached { answer.put("yes") } }
        }
        let deltas = events.compactMap { if case .textDelta(let t) = $0 { return t } else { return nil } }
        XCTAssertEqual(deltas.filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }, ["Hel", "lo", "Found ", "it."])
        XCTAssertEqual(events.toolEnds.first?.output, #"{"found":"yes"}"#)
        XCTAssertEqual(events.completed?.response, "Found it.")
        XCTAssertEqual(try s.messages().first { $0.role == "tool" }?.content, #"{"found":"yes"}"#)

        let requests = try server.requests()
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests.first?["path"], "/v1/chat/completions")
        let secondBody = try XCTUnwrap(requests.last?["body"]).jsonString()
        XCTAssertTrue(secondBody.contains(#""tool_call_id":"call_1""#), secondBody)
    }

    func testAnthropicCancellingTheConsumerDropsTheConnection() async throws {
        let server = try FakeModelServer()
        try server.enqueue("anthropic", text: ["part", "ial", "never"], hangAfter: 5)  // message_start, block start, ping, 2 deltas
        let rt = try runtime(server, kind: .anthropic, path: "")
        let s = try rt.session(config: SessionConfig(provider: "fake", model: "claude-test"))
        let got = Mailbox<UInt64>()
        let consumer = Task {
            var turn: UInt64 = 0
            var text = ""
            for try await event in s.stream("stall") {
                if case .turnStarted(let t) = event { turn = t.turnID }
                if case .textDelta(let d) = event { text += d }
                if text == "partial" { got.put(turn) }
            }
        }
        let turn = try await got.take()
        consumer.cancel()
        do {
            try await consumer.value
            XCTFail("the iteration should throw CancellationError")
        } catch is CancellationError {}
        await assertRobotaErrorAsync(.aborted) { try await s.wait(turn: turn, timeout: 30) }
        XCTAssertEqual(try s.messages().last?.content, "partial")
        XCTAssertEqual(try s.messages().last?.state, "interrupted")
        XCTAssertEqual(try server.requests().first?["path"], "/v1/messages")
    }

    func testAnHTTPErrorFailsTheTurnWithATaxonomyError() async throws {
        let server = try FakeModelServer()
        try server.send(["cmd": "enqueue_error", "status": 401, "body": #"{"error":{"message":"bad key"}}"#])
        let rt = try runtime(server, kind: .openai, path: "/v1")
        let s = try rt.session(config: SessionConfig(provider: "fake", model: "gpt-test"))
        do {
            _ = try await s.run("hi")
            XCTFail("the turn should fail")
        } catch let e as RobotaError {
            XCTAssertEqual(e.code, .provider)
            XCTAssertTrue(e.message.contains("returned HTTP 401: bad key"), e.message)
            // the taxonomy of the turn's ERROR event is passed through
            XCTAssertEqual(e.kind, "AUTHENTICATION_ERROR")
            XCTAssertEqual(e.category, "user")
            XCTAssertEqual(e.recoverable, false)
        }
    }

    func testToolChoiceReachesTheServer() async throws {
        let server = try FakeModelServer()
        try server.send(["cmd": "enqueue", "kind": "openai", "text": ["a"]])
        try server.send(["cmd": "enqueue", "kind": "openai", "text": ["b"]])
        let rt = try runtime(server, kind: .openai, path: "/v1")
        XCTAssertThrowsError(try rt.session(config: SessionConfig(
            provider: "fake", model: "gpt-test", tools: ["Read"], toolChoice: .tool("Deploy")))) { e in
            XCTAssertEqual((e as? RobotaError)?.code, .invalidConfig)
            XCTAssertTrue((e as? RobotaError)?.message.contains("no tool named \"Deploy\"") ?? false)
        }
        let s = try rt.session(config: SessionConfig(
            provider: "fake", model: "gpt-test", tools: ["Read"], contextWindow: 4096, toolChoice: .required))
        _ = try await s.run("one")
        _ = try await s.run(PromptInput("two", toolChoice: .tool("Read")))
        let requests = try server.requests()
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests[0]["body"]?["tool_choice"]?.stringValue, "required")
        XCTAssertEqual(requests[1]["body"]?["tool_choice"]?["function"]?["name"]?.stringValue, "Read")
    }

    func testTypedModelFieldsReachTheServer() async throws {
        let server = try FakeModelServer()
        try server.send(["cmd": "enqueue", "kind": "openai", "text": ["a"]])
        let rt = try runtime(server, kind: .openai, path: "/v1")
        let config = SessionConfig(
            provider: "fake", model: "o3-mini", systemPrompt: "S", tools: [], temperature: 0.25, maxTokens: 77,
            thinking: Thinking(budgetTokens: 5000), language: "ko", systemPromptMode: "append",
            nativeWebSearch: false, toolConfig: .object(["limits": .object([:])]),
            commands: [HostCommand(name: "deploy", description: "Ship it", argumentHint: "<env>")])
        let s = try rt.session(config: config)
        _ = try await s.run("one")
        let body = try server.requests()[0]["body"]
        XCTAssertEqual(body?["temperature"], .number(0.25))
        XCTAssertEqual(body?["max_completion_tokens"]?.intValue, 77)
        XCTAssertEqual(body?["reasoning_effort"]?.stringValue, "medium")
        guard case .array(let messages)? = body?["messages"] else { return XCTFail("no messages") }
        XCTAssertEqual(messages.first?["content"]?.stringValue, "S\n\n## Response Language\nko")
        let help = try s.command("help")
        XCTAssertTrue(help.message.hasSuffix("Host commands:\n  /deploy — Ship it"), help.message)
        // Every typed field round-trips through the document.
        let again = try JSONDecoder().decode(SessionConfig.self, from: JSONEncoder().encode(config))
        XCTAssertEqual(again, config)
        XCTAssertTrue(again.extra.isEmpty)
        let withTranscript = SessionConfig(
            provider: "p", model: "m", budget: SessionBudget(maxCostUSD: 1.5), transcript: .bool(true))
        let doc = String(decoding: try JSONEncoder().encode(withTranscript), as: UTF8.self)
        XCTAssertTrue(doc.contains("\"transcript\":true"), doc)
        XCTAssertTrue(doc.contains("\"max_cost_usd\":1.5"), doc)
    }
}
#endif
