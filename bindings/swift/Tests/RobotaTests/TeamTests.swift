import XCTest

@testable import Robota

final class TeamTests: XCTestCase {
    func testARegisteredTemplateRunsThroughAssignTask() async throws {
        let rt = try Runtime(config: RuntimeConfig(providers: [
            "s": .scripted(turns: [
                ["tool_calls": [["id": "a1", "name": "assignTask",
                                 "arguments": ["templateId": "greeter", "jobDescription": "greet"]]]],
                ["text": "done"],
            ], fallback: "echo"),
            "c": .scripted(turns: [["text": "hello from the child"]], fallback: "echo"),
        ]))
        let greeter = TeamTemplate(
            id: "greeter", name: "Greeter", provider: "c", model: "m", temperature: 0.5, systemMessage: "You greet.")
        try rt.registerTemplate(greeter)
        assertRobotaError(.invalidConfig, containing: "template \"greeter\" is already registered") {
            try rt.registerTemplate(greeter)
        }
        assertRobotaError(.invalidConfig, containing: "missing required field \"systemMessage\"") {
            try rt.registerTemplate(json: #"{"id":"x","name":"X","provider":"c","model":"m"}"#)
        }
        assertRobotaError(.invalidJSON, containing: "") { try rt.registerTemplate(json: #"{"id":"#) }
        let s = try rt.session(
            config: SessionConfig(provider: "s", model: "m", permissionMode: .bypassPermissions, team: true))
        let r = try await s.run("delegate")
        XCTAssertEqual(r.response, "done")
        let messages = try s.messagesJSON()
        XCTAssertTrue(
            messages.contains(#""content":"{\"response\":\"hello from the child\",\"templateId\":\"greeter\"}""#),
            messages)
    }

    /// A session-defined agent (`agents`): the parent calls Agent, the child echoes its
    /// task; every child event arrives wrapped as `.subagent` with the agent's type and the call.
    func testSubagentEventsWrapTheChildsEvents() async throws {
        let rt = try Runtime(config: RuntimeConfig(providers: [
            "s": .scripted(turns: [
                ["tool_calls": [["id": "call_1", "name": "Agent",
                                 "arguments": ["prompt": "sub-task", "subagent_type": "helper"]]]],
            ], fallback: "echo"),
        ]))
        let s = try rt.session(config: SessionConfig(
            provider: "s", model: "m", permissionMode: .bypassPermissions,
            agents: ["helper": ["description": "Helps", "prompt": "You help."]]))
        var subs: [SubagentEvent] = []
        for try await e in s.stream("go") {
            if case .subagent(let sub) = e { subs.append(sub) }
        }
        XCTAssertGreaterThanOrEqual(subs.count, 3)
        XCTAssertEqual(subs.first?.event["type"]?.stringValue, "turn_started")
        XCTAssertEqual(subs.last?.event["type"]?.stringValue, "turn_completed")
        XCTAssertEqual(subs.last?.event["response"]?.stringValue, "offline:sub-task")
        for sub in subs {
            XCTAssertEqual(sub.agentType, "helper")
            XCTAssertEqual(sub.parentToolCallID, "call_1")
            XCTAssertEqual(sub.agentID, subs[0].agentID)
        }
    }
}
