import Foundation
import XCTest

@testable import Robota

/// `ValueDecoder` (tool arguments straight from the parsed value) decodes what `JSONDecoder`
/// decodes, the same way, or declines (the caller then asks `JSONDecoder`).
final class ValueDecoderTests: XCTestCase {
    private struct Args: Decodable, Equatable {
        enum Mode: String, Decodable { case fast, slow }
        struct Item: Decodable, Equatable {
            let n: Int
            let tags: [String]?
        }
        let a: Int
        let b: Int64?
        let name: String
        let flag: Bool
        let ratio: Double
        let mode: Mode
        let items: [Item]
        let counts: [String: UInt8]
        let extra: JSONValue?
        let small: Int8?
    }

    /// What `ValueDecoder` gives for `text` (nil: declined), checked against `JSONDecoder`.
    private func fast<T: Decodable & Equatable>(_ type: T.Type, _ text: String, file: StaticString = #filePath, line: UInt = #line) -> T? {
        guard let value = FastJSON.parse(text) else {
            XCTFail("FastJSON declined \(text)", file: file, line: line)
            return nil
        }
        let decoded = ValueDecoder.decode(T.self, from: value)
        if let decoded {
            XCTAssertEqual(decoded, try? JSONDecoder().decode(T.self, from: Data(text.utf8)), text, file: file, line: line)
        }
        return decoded
    }

    func testDecodesWhatJSONDecoderDecodes() {
        let full = #"{"a":1,"b":-9007199254740993,"name":"x\"y","flag":true,"ratio":0.1,"mode":"slow","items":[{"n":2,"tags":["p","q"]},{"n":3,"tags":null}],"counts":{"k":255},"extra":{"z":[1,2.5,null]},"small":-128}"#
        XCTAssertNotNil(fast(Args.self, full))
        XCTAssertNotNil(fast(Args.self, #"{"a":2.0,"name":"","flag":false,"ratio":3,"mode":"fast","items":[],"counts":{}}"#))
        XCTAssertNotNil(fast([Int].self, "[1,2,3]"))
        XCTAssertNotNil(fast([String: String].self, #"{"key":"k1"}"#))
        XCTAssertNotNil(fast(String.self, #""text""#))
        XCTAssertNotNil(fast([Int?].self, "[1,null]"))
    }

    func testDeclinesMismatchesAndWhatItDoesNotReproduce() {
        let base = #""name":"","flag":false,"ratio":1.5,"mode":"fast","items":[],"counts":{}"#
        XCTAssertNil(fast(Args.self, #"{"a":"1","# + base + "}"), "a type mismatch")
        XCTAssertNil(fast(Args.self, "{" + base + "}"), "a missing field")
        XCTAssertNil(fast(Args.self, #"{"a":1,"small":128,"# + base + "}"), "out of range")
        XCTAssertNil(fast(Args.self, #"{"a":1.5,"# + base + "}"), "a fraction for an integer")
        XCTAssertNil(fast(Args.self, #"{"a":1,"mode":"other","# + base.replacingOccurrences(of: #""mode":"fast","#, with: "") + "}"), "an unknown case")
        XCTAssertNil(fast([Double].self, "[0]"), "0 may have been written -0")
        XCTAssertNil(fast([Float].self, "[0.1]"))
        XCTAssertNil(fast([Date].self, "[1]"))
        XCTAssertNil(fast([Data].self, #"["AA=="]"#))
        XCTAssertNil(fast([URL].self, #"["https://example.com"]"#))
        XCTAssertNil(fast([Decimal].self, "[1]"))
    }

    /// A type that catches an error (a trial decode) is decoded by `JSONDecoder` instead.
    func testACaughtErrorDeclines() {
        struct Either: Decodable, Equatable {
            let value: String
            init(from decoder: Decoder) throws {
                let c = try decoder.singleValueContainer()
                if let n = try? c.decode(Int.self) { value = String(n) } else { value = try c.decode(String.self) }
            }
        }
        XCTAssertNotNil(fast(Either.self, "7"))
        XCTAssertNil(fast(Either.self, #""seven""#))
    }
}
