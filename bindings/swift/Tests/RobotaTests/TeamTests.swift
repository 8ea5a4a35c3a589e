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
}
