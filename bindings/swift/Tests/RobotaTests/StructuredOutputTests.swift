import XCTest

@testable import Robota

final class StructuredOutputTests: XCTestCase {
    struct City: Decodable, Equatable {
        let city: String
        let days: Int
    }

    static let schema: JSONValue = [
        "type": "object",
        "properties": ["city": ["type": "string"], "days": ["type": "integer"]],
        "required": ["city", "days"], "additionalProperties": false,
    ]

    func testRunAsDecodesTheValidatedAnswer() async throws {
        // The scripted provider has no native form: a matching text needs no extra call; any
        // other text is followed by one call forcing the final_answer tool (its input is the answer).
        let rt = try Fixture.runtime([
            ["text": #"{"city":"Oslo","days":3}"#],
            ["text": "Bergen, two days."],
            ["tool_calls": [["name": "final_answer", "arguments": ["city": "Bergen", "days": 2]]]],
        ])
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", outputSchema: Self.schema))
        let first = try await s.run(PromptInput("Where?"), as: City.self)
        XCTAssertEqual(first, City(city: "Oslo", days: 3))
        let second = try await s.run(PromptInput("Next?"), as: City.self)
        XCTAssertEqual(second, City(city: "Bergen", days: 2))
    }

    func testAnAnswerThatNeverMatchesIsASchemaError() async throws {
        let rt = try Fixture.runtime([
            ["text": "Oslo"],
            ["tool_calls": [["name": "final_answer", "arguments": ["city": "Oslo"]]]],
            ["text": "Oslo!"],
            ["tool_calls": [["name": "final_answer", "arguments": ["city": 7, "days": 1]]]],
        ])
        let s = try rt.session(config: Fixture.session)
        do {
            _ = try await s.run(PromptInput("Where?", outputSchema: Self.schema), as: City.self)
            XCTFail("the turn should fail")
        } catch let e as RobotaError {
            XCTAssertEqual(e.code, .provider)
            XCTAssertEqual(e.kind, "SCHEMA_ERROR")
            XCTAssertTrue(e.message.contains("Parameter \"city\" must be a string, got number"), e.message)
        }
    }
}
