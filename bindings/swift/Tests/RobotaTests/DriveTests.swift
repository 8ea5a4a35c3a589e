import Foundation
import XCTest

@testable import Robota

/// `Session.drive` (`robota_session_run`): the turn runs on the calling thread, which blocks.
/// These tests are synchronous on purpose (drive is not for async code); they synchronise on
/// semaphores and the recorded events, never on sleeps.
final class DriveTests: XCTestCase {
    /// One session over `Fixture.toolTurns(key: "k")` with the `lookup` tool answered by a
    /// handler task, in `delivery`; `turn` runs the prompt and returns its result.
    private func toolScenario(
        _ delivery: Delivery, turn: (Session, ThreadLog) throws -> TurnResult
    ) throws -> (result: TurnResult, seen: [Seen], calledOn: pthread_t) {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "k"))
        try rt.registerTool(Fixture.lookup) { call in "value of \(call.arguments["key"]?.stringValue ?? "")" }
        let log = ThreadLog()
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", delivery: delivery), onEvent: log.observer)
        let result = try turn(s, log)
        // Read at once: whatever the turn delivered is already here when the call returned.
        return (result, log.seen, pthread_self())
    }

    func testDriveReturnsWhatSubmitAndWaitGiveForATurnWithAHostTool() throws {
        for delivery in [Delivery.inline, .thread] {
            let driven = try toolScenario(delivery) { s, _ in try s.drive("look k up") }
            // The existing path: submit, wait, and the result of the delivered turn_completed.
            let waited = try toolScenario(delivery) { s, log in
                let id = try s.submit("look k up")
                try s.waitBlocking(turn: id)
                guard case .turnCompleted(let r)? = log.seen.last?.event else { throw TestTimeout(what: "turn_completed") }
                return r
            }
            let r = driven.result
            XCTAssertEqual(r.turnID, 1, "\(delivery)")
            XCTAssertEqual(r.response, "Done.", "\(delivery)")
            XCTAssertEqual(r.stopReason, .complete, "\(delivery)")
            XCTAssertEqual(r.error, nil, "\(delivery)")
            XCTAssertEqual(r.toolSummaries, [["name": "lookup", "args": ["key": "k"]]], "\(delivery)")
            XCTAssertEqual(r, waited.result, "drive and submit + wait give the same result (\(delivery))")

            // Every event of the driven turn arrived before drive returned, the same as with
            // submit + wait: started first, completed (with drive's result) last.
            let events = driven.seen.map(\.event)
            XCTAssertEqual(events.map(eventName), waited.seen.map(\.event).map(eventName), "\(delivery)")
            XCTAssertEqual(events.first.map(eventName), "turnStarted", "\(delivery)")
            XCTAssertEqual(events.last, .turnCompleted(r), "\(delivery)")
            XCTAssertEqual(events.text, "Calling.\n\nDone.", "\(delivery)")
            XCTAssertEqual(events.toolEnds.map(\.output), ["value of k"], "\(delivery)")
            XCTAssertTrue(driven.seen.allSatisfy { $0.turnID == r.turnID }, "\(delivery)")

            // inline: every callback ran on the calling thread; thread: none did.
            let onCaller = driven.seen.filter { pthread_equal($0.thread, driven.calledOn) != 0 }.count
            XCTAssertEqual(onCaller, delivery == .inline ? events.count : 0, "\(delivery)")
            XCTAssertEqual(waited.seen.filter { pthread_equal($0.thread, waited.calledOn) != 0 }.count, 0, "\(delivery)")
        }
    }

    func testPumpAndPullSessionsRefuseDriveWithoutRunningATurn() throws {
        let rt = try Fixture.runtime()
        let pump = try rt.session(config: SessionConfig(provider: "s", model: "m", delivery: .pump))
        assertRobotaError(
            .unsupported,
            containing: "drive() needs \"thread\" or \"inline\" delivery; a pump session hands its callbacks to a thread that must keep pumping during the turn: use submit() with dispatch()"
        ) { _ = try pump.drive("pumped") }
        XCTAssertEqual(try pump.dispatch(timeout: 0), 0, "nothing ran")
        XCTAssertNil(try pump.state().currentTurn)

        let pull = try rt.session(config: SessionConfig(provider: "s", model: "m", delivery: .pull))
        assertRobotaError(
            .unsupported,
            containing: "drive() needs \"thread\" or \"inline\" delivery; a pull session hands its callbacks to a thread that must keep reading during the turn: use submit() with nextEvent()"
        ) { _ = try pull.drive("pulled") }
        XCTAssertNil(try pull.nextEvent(timeout: 0), "nothing ran")
        // the same sessions still run turns the way their delivery is made for
        let turn = try pull.submit("pulled")
        var last: TurnEvent?
        while let e = try pull.nextEvent(timeout: Deadline.seconds) {
            last = e
            if case .turnCompleted = e.event { break }
        }
        XCTAssertEqual(turn, 1, "the refused drive issued no turn id")
        XCTAssertEqual(last?.turnID, turn)
        guard case .turnCompleted(let r)? = last?.event else { return XCTFail("\(String(describing: last))") }
        XCTAssertEqual(r.response, "offline:pulled")
    }

    func testAnAbortFromAnotherThreadMakesDriveThrowAborted() throws {
        let rt = try Fixture.runtime([["deltas": ["waiting"], "hang": true]])
        let streaming = DispatchSemaphore(value: 0)
        let log = ThreadLog()
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", delivery: .inline), onEvent: { e in
            log.append(e)
            if case .textDelta = e.event { streaming.signal() }
        })
        let aborted = DispatchSemaphore(value: 0)
        let aborter = Thread {
            if streaming.wait(timeout: .now() + Deadline.seconds) == .success { try? s.abort() }
            aborted.signal()
        }
        aborter.start()
        assertRobotaError(.aborted, containing: "turn 1 was aborted") { _ = try s.drive("hang") }
        XCTAssertEqual(aborted.wait(timeout: .now() + Deadline.seconds), .success)
        guard case .turnCompleted(let done)? = log.seen.last?.event else { return XCTFail("\(log.seen)") }
        XCTAssertEqual(done.turnID, 1)
        XCTAssertEqual(done.stopReason, .aborted)
        XCTAssertEqual(done.response, "waiting")
        XCTAssertEqual(try s.messages().last?.content, "waiting")
        XCTAssertEqual(try s.messages().last?.state, "interrupted")
        // the session drives again
        XCTAssertEqual(try s.drive("next").response, "offline:next")
    }

    func testRefusedDrivesThrowTheLibraryStatus() throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "slow"))
        let called = DispatchSemaphore(value: 0)
        let release = Mailbox<Bool>()
        try rt.registerTool(Fixture.lookup) { _ in
            called.signal()
            _ = try await release.take()
            return "late"
        }
        let holder = WeakRef<Session>()
        let inside = Mailbox<String>()
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", delivery: .inline), onEvent: { e in
            // drive inside a callback is refused, not a deadlock
            guard case .turnStarted = e.event, inside.peek == nil, let s = holder.value else { return }
            do {
                _ = try s.drive("nested")
                inside.put("returned")
            } catch {
                inside.put((error as? RobotaError).map { "\($0.code.rawValue): \($0.message)" } ?? "\(error)")
            }
        })
        holder.value = s

        let first = try s.submit("first")
        XCTAssertEqual(called.wait(timeout: .now() + Deadline.seconds), .success)
        XCTAssertEqual(inside.peek, "\(RobotaError.Code.reentrant.rawValue): robota_session_run_result was called from inside a callback")
        let second = try s.submit("second")
        XCTAssertEqual(second, 2)
        assertRobotaError(.busy, containing: "a prompt is already queued (turn 2); wait for it or drop it with the cancel_queue command") {
            _ = try s.drive("third")
        }
        release.put(true)
        try s.waitBlocking(turn: 0)
        XCTAssertEqual(first, 1)

        assertRobotaError(.invalidJSON) { _ = try s.drive(json: #"{"text":"#) }
        try s.close()
        assertRobotaError(.closed, containing: "the session is closed") { _ = try s.drive("after close") }
    }

    func testADriveWhileATurnRunsIsQueuedAndReturnsItsOwnTurn() throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "q"))
        let called = DispatchSemaphore(value: 0)
        let release = Mailbox<Bool>()
        try rt.registerTool(Fixture.lookup) { _ in
            called.signal()
            _ = try await release.take()
            return "answered"
        }
        let log = ThreadLog()
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", delivery: .thread), onEvent: log.observer)
        let first = try s.submit("first")
        XCTAssertEqual(called.wait(timeout: .now() + Deadline.seconds), .success)
        let outcome = Handoff<Result<TurnResult, RobotaError>>()
        Thread {
            outcome.put(Result { try s.drive("queued one") }.mapError { $0 as? RobotaError ?? RobotaError(code: .internal, message: "\($0)") })
        }.start()
        // The queued prompt shows in the state while the first turn waits for its tool (the
        // library reports no event for queueing, so this one wait checks the state).
        let deadline = Date(timeIntervalSinceNow: Deadline.seconds)
        while try s.state().queuedTurn == nil, Date() < deadline { sched_yield() }
        XCTAssertEqual(try s.state().queuedTurn, 2)
        XCTAssertNil(outcome.peek, "drive waits for its own turn")
        release.put(true)
        let r = try outcome.take().get()
        XCTAssertEqual(r.turnID, 2)
        XCTAssertEqual(r.response, "offline:queued one")
        // both turns were delivered when drive returned
        let completed = log.seen.compactMap { e -> UInt64? in if case .turnCompleted(let c) = e.event { return c.turnID } else { return nil } }
        XCTAssertEqual(completed, [first, 2])
    }

    #if os(macOS) || os(Linux)  // the fake model server is a child process
    func testDriveOverHTTPRunsOnTheCallingThread() throws {
        let server = try FakeModelServer()
        for _ in 0..<2 {
            try server.send([
                "cmd": "enqueue", "kind": "openai", "text": ["Hel", "lo"], "tools": [["call_1", "lookup", #"{"key":"h"}"#]],
                "usage": [10, 5],
            ])
            try server.send(["cmd": "enqueue", "kind": "openai", "text": ["Found ", "it."], "usage": [20, 3]])
        }
        let rt = try Runtime(config: RuntimeConfig(providers: [
            "fake": ProviderConfig(kind: .openaiCompatible, baseURL: server.baseURL + "/v1", apiKey: "test-key", timeoutMs: 30_000, maxRetries: 0),
        ]))
        try rt.registerTool(Fixture.lookup) { call -> JSONValue in ["found": call.arguments["key"] ?? "?"] }
        for round in 1...2 {
            let log = ThreadLog()
            let s = try rt.session(config: SessionConfig(provider: "fake", model: "gpt-test", delivery: .inline), onEvent: log.observer)
            let r = try s.drive("find h")
            XCTAssertEqual(r.response, "Found it.", "round \(round)")
            XCTAssertEqual(r.stopReason, .complete, "round \(round)")
            XCTAssertEqual(r.usage?.inputTokens, 30, "round \(round)")
            XCTAssertEqual(r.usage?.outputTokens, 8, "round \(round)")
            let seen = log.seen
            XCTAssertEqual(seen.map(\.event).toolEnds.map(\.output), [#"{"found":"h"}"#], "round \(round)")
            XCTAssertEqual(seen.last?.event, .turnCompleted(r), "round \(round)")
            let me = pthread_self()
            XCTAssertTrue(seen.allSatisfy { pthread_equal($0.thread, me) != 0 }, "round \(round): inline callbacks on the caller")
            XCTAssertEqual(try s.messages().first { $0.role == "tool" }?.content, #"{"found":"h"}"#, "round \(round)")
        }
        let requests = try server.requests()
        XCTAssertEqual(requests.count, 4)
        XCTAssertEqual(Set(requests.compactMap { $0["path"]?.stringValue }), ["/v1/chat/completions"])
        let secondBody = try XCTUnwrap(requests[1]["body"]).jsonString()
        XCTAssertTrue(secondBody.contains(#""tool_call_id":"call_1""#), secondBody)
    }

    func testAProviderFailureThrowsTheProviderError() throws {
        let server = try FakeModelServer()
        try server.send(["cmd": "enqueue_error", "status": 401, "body": #"{"error":{"message":"bad key"}}"#])
        let rt = try Runtime(config: RuntimeConfig(providers: [
            "fake": ProviderConfig(kind: .openai, baseURL: server.baseURL + "/v1", apiKey: "test-key", timeoutMs: 30_000, maxRetries: 0),
        ]))
        let log = ThreadLog()
        let s = try rt.session(config: SessionConfig(provider: "fake", model: "gpt-test", delivery: .inline), onEvent: log.observer)
        do {
            _ = try s.drive("hi")
            XCTFail("the turn should fail")
        } catch let e as RobotaError {
            XCTAssertEqual(e.code, .provider)
            XCTAssertEqual(e.message, "turn 1 failed: Authentication Error: fake (openai) returned HTTP 401: bad key")
            XCTAssertEqual(e.kind, "AUTHENTICATION_ERROR")
            XCTAssertEqual(e.category, "user")
            XCTAssertEqual(e.recoverable, false)
        }
        guard case .turnCompleted(let done)? = log.seen.last?.event else { return XCTFail("\(log.seen)") }
        XCTAssertEqual(done.stopReason, .error)
        XCTAssertEqual(done.error, "Authentication Error: fake (openai) returned HTTP 401: bad key")
        let errors = log.seen.compactMap { if case .error(let e) = $0.event { return e } else { return nil } }
        XCTAssertEqual(errors.map(\.code), ["AUTHENTICATION_ERROR"])
    }
    #endif
}

/// One event with the thread its callback ran on.
struct Seen: @unchecked Sendable {
    let turnID: UInt64
    let event: Event
    let thread: pthread_t
}

/// Events an `onEvent` observer saw, with their threads.
final class ThreadLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Seen] = []

    var observer: EventObserver { { [self] in self.append($0) } }

    func append(_ e: TurnEvent) {
        let seen = Seen(turnID: e.turnID, event: e.event, thread: pthread_self())
        lock.lock()
        items.append(seen)
        lock.unlock()
    }

    var seen: [Seen] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

/// A value handed from one thread to a blocked one (a semaphore and a slot).
final class Handoff<T>: @unchecked Sendable {
    private let lock = NSLock()
    private let ready = DispatchSemaphore(value: 0)
    private var value: T?

    func put(_ v: T) {
        lock.lock()
        value = v
        lock.unlock()
        ready.signal()
    }

    /// Blocks until `put`; throws `TestTimeout` after `Deadline.seconds`.
    func take() throws -> T {
        guard ready.wait(timeout: .now() + Deadline.seconds) == .success else { throw TestTimeout(what: "a \(T.self)") }
        return try XCTUnwrap(peek)
    }

    var peek: T? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// An event's case name (`textDelta`, `turnCompleted`, ...).
private func eventName(_ e: Event) -> String {
    String(String(describing: e).prefix { $0 != "(" })
}
