import XCTest

@testable import Robota

final class MisuseTests: XCTestCase {
    func testBadRuntimeConfigsNameTheProblem() {
        assertRobotaError(.invalidJSON, containing: "config_json is not valid JSON") { _ = try Runtime(json: "{not json") }
        assertRobotaError(.invalidConfig, containing: #"missing required field "providers""#) {
            _ = try Runtime(json: #"{"v":1}"#)
        }
        assertRobotaError(.invalidConfig, containing: #"unknown kind "telepathy""#) {
            _ = try Runtime(config: RuntimeConfig(providers: ["x": ProviderConfig(kind: "telepathy")]))
        }
        assertRobotaError(.versionMismatch) { _ = try Runtime(json: #"{"v":2,"providers":{}}"#) }
    }

    func testBadSessionConfigsNameTheProblem() throws {
        let rt = try Fixture.runtime()
        assertRobotaError(.notFound, containing: #"unknown provider "nope""#) {
            _ = try rt.session(config: SessionConfig(provider: "nope", model: "m"))
        }
        assertRobotaError(.invalidJSON) { _ = try rt.session(json: "[") }
    }

    func testAClosedSessionRefusesTurnsAndCloseTwiceIsHarmless() async throws {
        let rt = try Fixture.runtime()
        let log = EventLog()
        let s = try rt.session(config: Fixture.session, onEvent: log.observer)
        let actual = try await s.run("before").response
        XCTAssertEqual(actual, "offline:before")
        try s.close()
        try await log.until { $0.contains { $0.event == .sessionClosed } }
        XCTAssertEqual(log.events.last, .sessionClosed)
        XCTAssertNoThrow(try s.close(), "closing twice is harmless")
        await assertRobotaErrorAsync(.closed) { _ = try await s.run("after") }
        assertRobotaError(.closed) { try s.submit("after") }
        do {
            for try await _ in s.stream("after") { XCTFail("no event expected") }
            XCTFail("the stream should throw")
        } catch let e as RobotaError {
            XCTAssertEqual(e.code, .closed)
        }
        // still readable
        XCTAssertEqual(try s.messages().map(\.content), ["before", "offline:before"])
        XCTAssertTrue(try s.state().closed)
    }

    func testAThirdPromptWhileOneIsQueuedIsBusy() async throws {
        let rt = try Fixture.runtime([["deltas": ["..."], "hang": true]])
        let s = try rt.session(config: Fixture.session)
        let running = try s.submit("one")
        let queued = try s.submit("two")
        XCTAssertEqual(try s.state().queuedTurn, queued)
        assertRobotaError(.busy) { try s.submit("three") }
        try s.abort(turn: running)
        await assertRobotaErrorAsync(.aborted) { try await s.wait(turn: running, timeout: 30) }
        // abort dropped the queued prompt as well
        XCTAssertNil(try s.state().queuedTurn)
    }

    func testDeliveryModeMismatchesAndReentrancyAreErrors() async throws {
        let rt = try Fixture.runtime([["deltas": ["x"]]])
        let reentrant = Mailbox<RobotaError.Code>()
        let session = WeakRef<Session>()
        let s = try rt.session(config: Fixture.session, onEvent: { event in
            guard case .textDelta = event.event, let s = session.value else { return }
            do {
                try s.waitBlocking(turn: 0, timeout: 0.01)
            } catch let e as RobotaError {
                reentrant.put(e.code)
            } catch {}
        })
        session.value = s
        assertRobotaError(.unsupported) { _ = try s.nextEvent(timeout: 0) }
        assertRobotaError(.unsupported) { _ = try s.dispatch() }
        _ = try await s.run("go")
        let actual = try await reentrant.take()
        XCTAssertEqual(actual, .reentrant)

        let pull = try rt.session(config: SessionConfig(provider: "s", model: "m", delivery: .pull))
        do {
            for try await _ in pull.stream("x") {}
            XCTFail("stream on a pull session should throw")
        } catch let e as RobotaError {
            XCTAssertEqual(e.code, .unsupported)
        }
    }
}
