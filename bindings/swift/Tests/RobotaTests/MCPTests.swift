import XCTest

@testable import Robota

/// The reason of every server in a library built without the "mcp" cargo feature.
private let noMCP = #"this build of the library has no MCP support (cargo feature "mcp")"#

final class MCPTests: XCTestCase {
    /// A server that cannot start: `state().mcpServers` names it "failed" with the reason, the
    /// `mcp` command says the same, and the session still answers.
    func testAServerThatCannotStartIsFailedInTheStateAndTheSessionWorks() async throws {
        let rt = try Fixture.runtime([["deltas": ["fine"]]])
        var config = Fixture.session
        config.mcpServers = ["gone": ["command": "/nonexistent/robota-mcp-server"]]
        let s = try rt.session(config: config)

        let servers = try s.state().mcpServers
        XCTAssertEqual(servers.count, 1)
        XCTAssertEqual(servers.first?.name, "gone")
        XCTAssertEqual(servers.first?.transport, "stdio")
        XCTAssertEqual(servers.first?.state, "failed")
        XCTAssertEqual(servers.first?.tools, 0)
        // "cannot start …" (a build without the "mcp" cargo feature: the fixed reason below).
        let reason = servers.first?.reason ?? ""
        XCTAssertTrue(reason.hasPrefix(#"cannot start "/nonexistent/robota-mcp-server": "#) || reason == noMCP, reason)

        let shown = try s.command("mcp")
        XCTAssertEqual(shown.message, "MCP servers:\n  gone (stdio) — failed: \(reason)")
        XCTAssertEqual(try shown.data?["servers"]?.decode([MCPServerState].self), servers)

        let result = try await s.run("hi")
        XCTAssertEqual(result.response, "fine")
    }

    /// A session without servers has an empty list.
    func testNoServersIsAnEmptyList() throws {
        let s = try Fixture.runtime().session(config: Fixture.session)
        XCTAssertEqual(try s.state().mcpServers, [])
    }
}
