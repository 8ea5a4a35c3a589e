import CRobota
import XCTest

@testable import Robota

/// Every registration's box is released by the library's `free_fn`, exactly once.
final class LifetimeTests: XCTestCase {
    func testTheToolBoxIsReleasedOnceWhenTheRuntimeIsGone() async throws {
        let gone = expectation(description: "tool handler released")
        var rt: Runtime? = try Fixture.runtime(Fixture.toolTurns(key: "k"))
        // the probe lives only in the handler: it goes when the library releases the box
        let serial = try rt!.installTool(Fixture.lookup) { [probe = Probe { gone.fulfill() }] _ in
            _ = probe
            return "\"ok\""
        }.serial
        ReleaseLedger.watch(serial)
        var s: Session? = try rt!.session(config: Fixture.session)
        let actual = try await s!.run("use the tool").response
        XCTAssertEqual(actual, "Done.")
        XCTAssertEqual(ReleaseLedger.releases(of: serial), 0, "alive while the runtime is")
        s = nil
        rt = nil
        await fulfillment(of: [gone], timeout: 30)
        XCTAssertEqual(ReleaseLedger.releases(of: serial), 1)
    }

    func testTheSessionBoxIsReleasedOnceWhenTheSessionIsReleasedMidTurn() async throws {
        let gone = expectation(description: "session handlers released")
        let rt = try Fixture.runtime([["deltas": ["..."], "hang": true]])
        let log = EventLog()
        var s: Session? = try rt.session(config: Fixture.session, onPermission: { [probe = Probe { gone.fulfill() }] _ in
            _ = probe
            return .deny
        }, onEvent: log.observer)
        let serial = s!.router.serial
        ReleaseLedger.watch(serial)
        try s!.submit("hang")
        try await log.until { $0.contains { if case .textDelta = $0.event { return true } else { return false } } }
        s = nil  // releases a session with a running turn: never blocks
        await fulfillment(of: [gone], timeout: 30)
        XCTAssertEqual(ReleaseLedger.releases(of: serial), 1)
    }

    func testAStreamKeepsItsSessionAliveUntilTheTurnEnds() async throws {
        let rt = try Fixture.runtime([["deltas": ["a", "b", "c"]]])
        let stream = try rt.session(config: Fixture.session).stream("x")
        let actual = try await collect(stream).text
        XCTAssertEqual(actual, "abc")
    }

    func testARefusedRegistrationReleasesItsBoxOnce() throws {
        let rt = try Fixture.runtime()
        try rt.registerTool(Fixture.lookup) { _ in "first" }
        var released = false
        var serial: UInt64 = 0
        do {
            let probe = Probe { released = true }
            let box = ToolBox(runtime: rt, handler: { [probe] _ in
                _ = probe
                return "\"second\""
            })
            serial = box.serial
            ReleaseLedger.watch(serial)
            XCTAssertThrowsError(try box.register { userData in
                try check { error in
                    #"{"name":"lookup","description":"d","input_schema":{"type":"object"}}"#.withCString {
                        robota_runtime_register_tool(rt.handle, $0, toolTrampoline, userData, releaseBox, error)
                    }
                }
            })
        }
        XCTAssertTrue(released)
        XCTAssertEqual(ReleaseLedger.releases(of: serial), 1)
    }

    func testTheLogHandlerReceivesLinesAndIsReleasedOnceWhenReplaced() async throws {
        let gone = expectation(description: "log handler released")
        let line = Mailbox<String>()
        let serial: UInt64
        do {
            let probe = Probe { gone.fulfill() }
            serial = try RobotaLibrary.installLogHandler(minLevel: .info) { [probe] level, target, message in
                _ = probe
                if target == "robota::runtime", level == .info { line.put(message) }
            }.serial
        }
        ReleaseLedger.watch(serial)
        _ = try Runtime(config: RuntimeConfig(providers: ["a": .scripted(turns: []), "b": .scripted(turns: [])], workerThreads: 1))
        let message = try await line.take()
        XCTAssertEqual(message, "runtime started: 2 provider(s), 1 worker thread(s)")
        try RobotaLibrary.removeLogHandler()
        await fulfillment(of: [gone], timeout: 30)
        XCTAssertEqual(ReleaseLedger.releases(of: serial), 1)
    }
}
