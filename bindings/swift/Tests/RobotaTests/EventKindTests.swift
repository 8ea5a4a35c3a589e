import Foundation
import XCTest

@testable import Robota

/// `Event` has a case for every `ROBOTA_EVENT_*` kind of include/robota.h: a kind added to the
/// header fails this test until the binding decodes it.
final class EventKindTests: XCTestCase {
    /// The repository root (this file is Tests/RobotaTests/EventKindTests.swift under bindings/swift).
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The header's event names in Swift's convention: upper snake case to lower camel case, the
    /// first word lower case, each later word capitalized (acronyms such as IO stay upper case):
    /// TEXT_DELTA → textDelta, HOST_IO → hostIO.
    static func caseName(_ upperSnake: String) -> String {
        let acronyms: Set<String> = ["IO", "ID", "URL", "JSON", "MCP", "HTTP"]
        return upperSnake.split(separator: "_").enumerated().map { i, w in
            i == 0 ? w.lowercased() : acronyms.contains(String(w)) ? String(w) : String(w.prefix(1)) + w.dropFirst().lowercased()
        }.joined()
    }

    /// Every `#define ROBOTA_EVENT_<NAME> <n>` of the header.
    static func headerKinds() throws -> [(name: String, kind: UInt32)] {
        let header = try String(contentsOf: repository.appendingPathComponent("include/robota.h"), encoding: .utf8)
        let regex = try NSRegularExpression(pattern: #"^#define ROBOTA_EVENT_([A-Z0-9_]+)\s+(\d+)\s*$"#, options: .anchorsMatchLines)
        return regex.matches(in: header, range: NSRange(header.startIndex..., in: header)).map { m in
            (String(header[Range(m.range(at: 1), in: header)!]), UInt32(header[Range(m.range(at: 2), in: header)!])!)
        }
    }

    /// The first JSON example of each kind's section (`## <type>`) of docs/events.md.
    static func documentedPayloads() throws -> [String: String] {
        let doc = try String(contentsOf: repository.appendingPathComponent("docs/events.md"), encoding: .utf8)
        let regex = try NSRegularExpression(pattern: "^## ([a-z_]+)\\n(?:(?!^## )[\\s\\S])*?```json\\n(.*)\\n```", options: .anchorsMatchLines)
        var payloads: [String: String] = [:]
        for m in regex.matches(in: doc, range: NSRange(doc.startIndex..., in: doc)) {
            let name = String(doc[Range(m.range(at: 1), in: doc)!])
            if payloads[name] == nil { payloads[name] = String(doc[Range(m.range(at: 2), in: doc)!]) }
        }
        return payloads
    }

    func testEveryHeaderEventKindDecodesToItsOwnCase() throws {
        let kinds = try Self.headerKinds()
        XCTAssertGreaterThanOrEqual(kinds.count, 20, "the header defines at least 20 event kinds")
        let payloads = try Self.documentedPayloads()
        var seen: [String: UInt32] = [:]
        for (name, kind) in kinds {
            let type = name.lowercased()
            // Text kinds carry their text; every other kind its documented example.
            var doc: [String: JSONValue] = ["text": "x"]
            if name != "TEXT_DELTA" && name != "THINKING_DELTA" {
                guard let example = payloads[type],
                    case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: Data(example.utf8))
                else {
                    XCTFail("docs/events.md has no JSON example for \(type)")
                    continue
                }
                doc = object
            }
            doc["kind"] = .integer(Int64(kind))
            doc["type"] = .string(type)
            let event = Event(pulled: .object(doc), decoder: JSONDecoder())
            // The case's name: `textDelta("x")` → textDelta, `sessionClosed` → sessionClosed.
            let label = String(String(describing: event).prefix { $0 != "(" })
            XCTAssertEqual(label, Self.caseName(name), "ROBOTA_EVENT_\(name) (\(kind)) decodes to .\(label)")
            XCTAssertEqual(event.kind, EventKind(rawValue: kind), ".\(label)'s kind")
            // A delivered event keeps its payload and decodes it when read, as it would have been at once.
            var payload = name.hasSuffix("_DELTA") ? "x" : (payloads[type] ?? "")
            payload.withUTF8 { bytes in
                let delivered = TurnEvent(turnID: 3, kind: kind, payload: UnsafeRawBufferPointer(bytes))
                XCTAssertEqual(delivered.kind, event.kind)
                XCTAssertEqual(delivered.event.kind, event.kind, "ROBOTA_EVENT_\(name) delivered")
                XCTAssertEqual(delivered.event, Event(kind: kind, payload: UnsafeRawBufferPointer(bytes), decoder: JSONDecoder()))
            }
            XCTAssertNil(seen.updateValue(kind, forKey: label), "two kinds decode to .\(label)")
        }
        XCTAssertEqual(Set(seen.values), Set(kinds.map(\.kind)), "one case per kind")
    }

    func testServerToolDecodesItsMembers() throws {
        let doc = try JSONDecoder().decode(JSONValue.self, from: Data(
            #"{"v":1,"kind":22,"type":"server_tool","turn_id":1,"tool_name":"web_search","status":"started","query":"weather in Paris","input":{"query":"weather in Paris"}}"#.utf8))
        let event = Event(pulled: doc, decoder: JSONDecoder())
        XCTAssertEqual(event, .serverTool(ServerToolUse(
            toolName: "web_search", status: "started", query: "weather in Paris", input: .object(["query": .string("weather in Paris")]))))
    }
}
