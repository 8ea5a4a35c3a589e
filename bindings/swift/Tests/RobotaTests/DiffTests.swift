import Foundation
import XCTest

@testable import Robota

final class DiffTests: XCTestCase {
    private func call(_ id: String, _ tool: String, _ args: JSONValue) -> JSONValue {
        ["tool_calls": [["id": .string(id), "name": .string(tool), "arguments": args]]]
    }

    /// A built-in Write and Edit that change a file carry their exact diff on the typed
    /// `ToolEnd`; a failed Edit carries none.
    func testToolEndCarriesEditAndWriteDiffs() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("robota-swift-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rt = try Fixture.runtime([
            call("w1", "Write", ["filePath": "notes.txt", "content": "a\nb\n"]),
            call("e1", "Edit", ["filePath": "notes.txt", "oldString": "b", "newString": "B\nc"]),
            call("e2", "Edit", ["filePath": "notes.txt", "oldString": "zzz", "newString": "y"]),
            ["text": "done"],
        ])
        var config = Fixture.session
        config.cwd = dir.path
        config.tools = ["Write", "Edit"]
        config.permissionMode = .bypassPermissions
        let s = try rt.session(config: config)
        let events = try await collect(s.stream("go"))

        let ends = events.toolEnds
        XCTAssertEqual(ends.map(\.toolName), ["Write", "Edit", "Edit"])
        guard ends.count == 3 else { return XCTFail("tool ends: \(ends)") }
        XCTAssertEqual(ends.map(\.diffFile), ["notes.txt", "notes.txt", nil])
        XCTAssertEqual(ends[0].diffLines, [
            DiffLine(type: "add", content: "a", lineNumber: 1),
            DiffLine(type: "add", content: "b", lineNumber: 2),
        ])
        XCTAssertEqual(ends[1].diffLines, [
            DiffLine(type: "remove", content: "b", lineNumber: 2),
            DiffLine(type: "add", content: "B", lineNumber: 2),
            DiffLine(type: "add", content: "c", lineNumber: 3),
        ])
        XCTAssertEqual(ends[2].diffLines, [])
        XCTAssertEqual(events.completed?.response, "done")
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("notes.txt"), encoding: .utf8), "a\nB\nc\n")
    }
}
