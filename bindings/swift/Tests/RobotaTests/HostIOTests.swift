import CRobota
import Foundation
import XCTest

@testable import Robota

/// An in-memory file system served through the host I/O port (no shell).
private final class MemFS: @unchecked Sendable {
    private let lock = NSLock()
    private var files: [String: String] = [:]

    func file(_ path: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return files[path]
    }

    func serve(_ r: HostIORequest) throws -> JSONValue {
        lock.lock()
        defer { lock.unlock() }
        let path = r.path ?? ""
        switch r.op {
        case "stat":
            if path == "/vfs" { return ["exists": true, "is_dir": true] }
            guard let c = files[path] else { return ["exists": false] }
            return ["exists": true, "is_dir": false, "size": .integer(Int64(c.utf8.count))]
        case "read":
            guard let c = files[path] else { throw RobotaError(code: .notFound, message: "no such file") }
            return ["content": .string(c)]
        case "write":
            files[path] = r.content ?? ""
            return [:]
        case "list":
            let entries = files.keys.filter { $0.hasPrefix(path + "/") }.map {
                JSONValue.object(["name": .string(String($0.dropFirst(path.count + 1))), "is_dir": false])
            }
            return ["entries": .array(entries)]
        default:
            throw HostIOUnsupported()
        }
    }
}

final class HostIOTests: XCTestCase {
    private static let turns: [JSONValue] = [
        ["tool_calls": [["id": "c1", "name": "Write", "arguments": ["filePath": "a.txt", "content": "alpha\n"]]]],
        ["tool_calls": [["id": "c2", "name": "Read", "arguments": ["filePath": "/vfs/a.txt"]]]],
        ["tool_calls": [["id": "c3", "name": "Bash", "arguments": ["command": "ls"]]]],
        ["text": "Done."],
    ]

    private func check(_ s: Session, _ fs: MemFS) throws {
        let tools = try s.messages().filter { $0.role == "tool" }.map(\.content)
        XCTAssertEqual(tools.count, 3)
        XCTAssertEqual(tools.first, #"{"success":true,"output":"Written 6 bytes to a.txt"}"#)
        XCTAssertEqual(tools.dropFirst().first, #"{"success":true,"output":"[File: /vfs/a.txt (1 lines)]\n1\talpha"}"#)
        XCTAssertEqual(tools.last, #"{"success":false,"output":"","error":"host I/O exec is not supported by the host"}"#)
        XCTAssertEqual(fs.file("/vfs/a.txt"), "alpha\n")
    }

    func testBuiltInToolsRunOnTheHostsFileSystem() async throws {
        let rt = try Fixture.runtime(Self.turns)
        let config = SessionConfig(
            provider: "s", model: "m", cwd: "/vfs", permissionMode: .bypassPermissions, hostIO: true)
        assertRobotaError(.invalidConfig) { _ = try rt.session(config: config) }
        let fs = MemFS()
        try rt.setHostIO { try fs.serve($0) }
        let s = try rt.session(config: config)
        let result = try await s.run("work")
        XCTAssertEqual(result.response, "Done.")
        try check(s, fs)
        assertRobotaError(.stale) { try rt.completeHostIO(1, json: "{}") }
    }

    func testPullSessionsRouteHostIOEventsToTheHandler() throws {
        let rt = try Fixture.runtime(Self.turns)
        let fs = MemFS()
        try rt.setHostIO { try fs.serve($0) }
        let s = try rt.session(
            config: SessionConfig(
                provider: "s", model: "m", cwd: "/vfs", permissionMode: .bypassPermissions, delivery: .pull,
                hostIO: true))
        _ = try s.submit("work")
        var requests = 0
        while let e = try s.nextEvent(timeout: 30) {
            if case .hostIO(let ioID, let request) = e.event {
                requests += 1
                XCTAssertGreaterThan(ioID, 0)
                XCTAssertNotNil(request["op"]?.stringValue)
            }
            if case .turnCompleted = e.event { break }
        }
        XCTAssertGreaterThanOrEqual(requests, 4)
        try check(s, fs)
    }
}
