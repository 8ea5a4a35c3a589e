import XCTest

@testable import Robota

final class QueryTests: XCTestCase {
    func testQueryReturnsTheAnswerUsageAndConversation() throws {
        let rt = try Fixture.runtime([["deltas": ["Hel", "lo"], "usage": ["input_tokens": 4, "output_tokens": 2]]])
        var cfg = SessionConfig(provider: "s", model: "m", systemPrompt: "sys")
        cfg.language = "ko"
        let res = try rt.query("hi", config: cfg)
        XCTAssertEqual(res.response, "Hello")
        XCTAssertEqual(res.stopReason, .complete)
        XCTAssertEqual(res.usage?.totalTokens, 6)
        XCTAssertNil(res.sessionID)
        XCTAssertEqual(res.messages.map(\.content), ["sys\n\n## Response Language\nko", "hi", "Hello"])
        assertRobotaError(.invalidConfig, containing: "query_json: missing required field \"prompt\"") {
            _ = try rt.query(json: #"{"v":1,"provider":"s","model":"m"}"#)
        }
        assertRobotaError(.notFound, containing: "nope") {
            _ = try rt.query("hi", config: SessionConfig(provider: "nope", model: "m"))
        }
    }
}
