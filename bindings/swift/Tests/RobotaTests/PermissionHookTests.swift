import XCTest

@testable import Robota

/// Counts calls of a host tool.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() {
        lock.lock()
        n += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return n
    }
}

final class PermissionHookTests: XCTestCase {
    private func twoToolTurns() throws -> Runtime {
        try Fixture.runtime([
            ["tool_calls": [["name": "lookup", "arguments": ["key": "a"]]]], ["text": "ok1"],
            ["tool_calls": [["name": "lookup", "arguments": ["key": "b"]]]], ["text": "ok2"],
        ])
    }

    func testTheAsyncPermissionHandlerAllowsThenDenies() async throws {
        let rt = try twoToolTurns()
        let calls = Counter()
        try rt.registerTool(Fixture.lookupNeedsPermission) { _ in
            calls.increment()
            return "changed"
        }
        let decisions = Mailbox<PermissionDecision>()
        decisions.put(.allow)
        let asked = EventLog()
        let s = try rt.session(config: Fixture.session, onPermission: { request in
            asked.append(TurnEvent(turnID: 0, event: .permissionRequest(request)))
            return (try? await decisions.take()) ?? .deny
        })

        let allowed = try await collect(s.stream("allow it"))
        XCTAssertEqual(calls.value, 1)
        XCTAssertEqual(allowed.toolEnds.first?.result, "success")
        guard case .permissionRequest(let request) = asked.events.first else { return XCTFail("no request") }
        XCTAssertEqual(request.toolName, "lookup")
        XCTAssertEqual(request.arguments, ["key": "a"])
        XCTAssertEqual(request.reason, #"Tool "lookup" needs approval in default mode"#)
        XCTAssertTrue(allowed.contains(.permissionRequest(request)), "the stream shows the request too")

        decisions.put(.deny)
        let denied = try await collect(s.stream("deny it"))
        XCTAssertEqual(calls.value, 1)
        XCTAssertEqual(asked.events.count, 2)
        XCTAssertEqual(denied.toolEnds.first?.result, "denied")
        XCTAssertEqual(denied.completed?.response, "ok2")
        let conversation = try s.messages().map(\.content).joined(separator: "\n")
        XCTAssertTrue(conversation.contains("Permission denied. The user did not approve this action."), conversation)
    }

    func testARequestWithoutHandlerIsAnsweredFromTheStream() async throws {
        let rt = try twoToolTurns()
        try rt.registerTool(Fixture.lookupNeedsPermission) { _ in "changed" }
        let s = try rt.session(config: Fixture.session)
        for try await event in s.stream("ask me") {
            if case .permissionRequest(let request) = event {
                assertRobotaError(.invalidConfig, containing: "permission response must be") {
                    try rt.respond(requestID: request.requestID, json: #"{"decision":"maybe"}"#)
                }
                try rt.respond(to: request, with: .allowAlways)
                assertRobotaError(.stale) { try rt.respond(to: request, with: .deny) }
            }
        }
        XCTAssertTrue(try s.command("permissions").message.contains("Session-approved tools: lookup"))
        // remembered: the second call runs without asking
        let second = try await collect(s.stream("again"))
        XCTAssertFalse(second.contains { if case .permissionRequest = $0 { return true } else { return false } })
        XCTAssertEqual(second.toolEnds.first?.result, "success")
    }

    /// A Bash call's permission request names the sandbox mode its command would run in (the
    /// session's `sandbox.mode`, "workspace-write" by default); another tool's request names none.
    func testABashPermissionRequestNamesItsSandbox() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("robota-swift-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func asked(_ tool: String, _ arguments: JSONValue, sandbox: JSONValue? = nil) async throws -> PermissionRequest {
            let rt = try Fixture.runtime([
                ["tool_calls": [["id": "c1", "name": .string(tool), "arguments": arguments]]],
                ["text": "done"],
            ])
            var config = Fixture.session
            config.cwd = dir.path
            config.tools = ["Bash", "Write"]
            config.sandbox = sandbox
            let requests = EventLog()
            let s = try rt.session(config: config, onPermission: { request in
                requests.append(TurnEvent(turnID: 0, event: .permissionRequest(request)))
                return .deny
            })
            let events = try await collect(s.stream("go"))
            XCTAssertEqual(events.toolEnds.first?.result, "denied")
            XCTAssertEqual(events.completed?.response, "done")
            XCTAssertEqual(requests.events.count, 1)
            let request: PermissionRequest? = requests.events.first.flatMap {
                if case .permissionRequest(let r) = $0 { return r } else { return nil }
            }
            XCTAssertEqual(request?.toolName, tool)
            return try XCTUnwrap(request, "no permission request for \(tool)")
        }
        let bash: JSONValue = ["command": "true"]
        let byDefault = try await asked("Bash", bash)
        XCTAssertEqual(byDefault.sandbox, "workspace-write")
        let readOnly = try await asked("Bash", bash, sandbox: ["mode": "read-only"])
        XCTAssertEqual(readOnly.sandbox, "read-only")
        let write = try await asked("Write", ["filePath": "a.txt", "content": "x"])
        XCTAssertNil(write.sandbox)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("a.txt").path))
    }

    func testAHostHookBlocksTheTool() async throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "secret"))
        let calls = Counter()
        try rt.registerTool(Fixture.lookup) { _ in
            calls.increment()
            return "leaked"
        }
        let hooks: JSONValue = ["PreToolUse": [["matcher": "look", "hooks": [["type": "host"]]]]]
        let seen = Mailbox<HookRequest>()
        let s = try rt.session(
            config: SessionConfig(provider: "s", model: "m", hooks: hooks),
            onHook: { request in
                seen.put(request)
                return .block("not allowed here")
            })
        let events = try await collect(s.stream("go"))
        XCTAssertEqual(calls.value, 0)
        let request = try XCTUnwrap(seen.peek)
        XCTAssertEqual(request.hookEventName, "PreToolUse")
        XCTAssertEqual(request.toolName, "lookup")
        XCTAssertEqual(request.toolInput, ["key": "secret"])
        XCTAssertEqual(events.completed?.response, "Done.")
        let conversation = try s.messages().map(\.content).joined(separator: "\n")
        XCTAssertTrue(conversation.contains("Blocked by hook: not allowed here"), conversation)
    }

    func testAHostHookThatProceedsLetsTheToolRun() async throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "fine"))
        try rt.registerTool(Fixture.lookup) { _ in "ran" }
        let hooks: JSONValue = ["PreToolUse": [["matcher": "lookup", "hooks": [["type": "host"]]]]]
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", hooks: hooks), onHook: { _ in .proceed })
        let events = try await collect(s.stream("go"))
        XCTAssertEqual(events.toolEnds.first?.output, "ran")
    }
}
