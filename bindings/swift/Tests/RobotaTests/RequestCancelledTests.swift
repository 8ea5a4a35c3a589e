import Foundation
import XCTest

@testable import Robota

/// ABI 1.2: `.requestCancelled` cancels the handler task of a void request; aborting one turn
/// leaves the others; `run`/`result(of:)` return the library's result document.
final class RequestCancelledTests: XCTestCase {
    /// A handler body that parks until its task is cancelled, then reports whether it was.
    private static func parkUntilCancelled(_ parked: Parked, started: @escaping @Sendable () -> Void) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                parked.park(c)
                started()
            }
        } onCancel: {
            parked.resumeAll()
        }
        return Task.isCancelled
    }

    func testAPermissionHandlerAwaitingCancellationReturnsWhenItsTurnIsAborted() async throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "k"))
        try rt.registerTool(Fixture.lookupNeedsPermission) { _ in "never runs" }
        let asked = Mailbox<UInt64>()
        let cancelled = Mailbox<Bool>()
        let parked = Parked()
        let log = EventLog()
        let s = try rt.session(
            config: Fixture.session,
            onPermission: { request in
                cancelled.put(await Self.parkUntilCancelled(parked) { asked.put(request.requestID) })
                return .allow
            }, onEvent: log.observer)
        let turn = try s.submit("look it up")
        let requestID = try await asked.take()
        try s.abort(turn: turn)
        let sawCancellation = try await cancelled.take()
        XCTAssertTrue(sawCancellation, "the handler's task is cancelled")
        try await log.untilCompleted()
        let events = log.events
        let request = events.firstIndex { if case .permissionRequest = $0 { return true } else { return false } }
        let void = events.firstIndex(of: .requestCancelled(RequestCancelled(requestID: requestID, requestKind: .permission, reason: .aborted)))
        let completed = events.firstIndex { if case .turnCompleted = $0 { return true } else { return false } }
        XCTAssertLessThan(try XCTUnwrap(request), try XCTUnwrap(void, "\(events)"))
        XCTAssertLessThan(try XCTUnwrap(void), try XCTUnwrap(completed))
        XCTAssertEqual(events.completed?.stopReason, .aborted)
        assertRobotaError(.stale) { try rt.respond(requestID: requestID, json: #"{"decision":"allow"}"#) }
    }

    func testAHostIOHandlerAwaitingCancellationReturnsWhenItsTurnIsAborted() async throws {
        let rt = try Fixture.runtime([["tool_calls": [["id": "c1", "name": "Read", "arguments": ["filePath": "/vfs/a.txt"]]]]])
        let asked = Mailbox<UInt64>()
        let cancelled = Mailbox<Bool>()
        let parked = Parked()
        try rt.setHostIO { request in
            cancelled.put(await Self.parkUntilCancelled(parked) { asked.put(request.ioID) })
            return ["content": "too late"]
        }
        let log = EventLog()
        let s = try rt.session(
            config: SessionConfig(provider: "s", model: "m", cwd: "/vfs", permissionMode: .bypassPermissions, hostIO: true),
            onEvent: log.observer)
        let turn = try s.submit("read it")
        let ioID = try await asked.take()
        try s.abort(turn: turn)
        let sawCancellation = try await cancelled.take()
        XCTAssertTrue(sawCancellation)
        try await log.untilCompleted()
        XCTAssertTrue(
            log.events.contains(.requestCancelled(RequestCancelled(requestID: ioID, requestKind: .hostIO, reason: .aborted))),
            "\(log.events)")
    }

    func testCancellingAStreamAbortsItsTurnOnlyAndTheQueuedTurnRuns() async throws {
        let rt = try Fixture.runtime([["deltas": ["stuck"], "hang": true]])
        let s = try rt.session(config: Fixture.session)
        let streaming = Mailbox<UInt64>()
        let consumer = Task {
            var turn: UInt64 = 0
            for try await event in s.stream("first") {
                if case .turnStarted(let t) = event { turn = t.turnID }
                if case .textDelta = event { streaming.put(turn) }
            }
        }
        let first = try await streaming.take()
        let second = try s.submit("second")
        consumer.cancel()
        do {
            try await consumer.value
            XCTFail("the iteration should throw CancellationError")
        } catch is CancellationError {}
        await assertRobotaErrorAsync(.aborted) { try await s.wait(turn: first, timeout: 30) }
        let next = try await s.result(of: second, timeout: 30)
        XCTAssertEqual(next.stopReason, .complete)
        XCTAssertEqual(next.response, "offline:second")
    }

    func testAbortingAQueuedTurnDropsItAloneAndTheRunningOneGoesOn() async throws {
        let rt = try Fixture.runtime([["deltas": ["stuck"], "hang": true]])
        let log = EventLog()
        let s = try rt.session(config: Fixture.session, onEvent: log.observer)
        let running = try s.submit("running")
        try await log.until { $0.contains { if case .textDelta = $0.event { return true } else { return false } } }
        let queued = try s.submit("queued")
        try s.abort(turn: queued)
        let dropped = try await s.result(of: queued, timeout: 30)
        XCTAssertEqual(dropped.stopReason, .aborted)
        XCTAssertTrue(try s.state().executing, "the running turn goes on")
        try s.abort(turn: running)
        await assertRobotaErrorAsync(.aborted) { try await s.wait(turn: running, timeout: 30) }
        assertRobotaError(.notFound) { try s.abort(turn: queued + 100) }
    }

    func testRunAndResultReturnTheLibrarysResultDocument() async throws {
        let rt = try Fixture.runtime()
        let s = try rt.session(config: Fixture.session)
        let first = try await s.run("q0")
        XCTAssertEqual(first.response, "offline:q0")
        let again = try await s.result(of: first.turnID)
        XCTAssertEqual(again, first)
        for i in 1...TurnWaiters.kept { _ = try await s.run("q\(i)") }
        await assertRobotaErrorAsync(.notFound, containing: "dropped") { _ = try await s.result(of: first.turnID) }
        await assertRobotaErrorAsync(.invalidConfig) { _ = try await s.result(of: 0) }
    }

    /// Runs a blocking call on a thread of its own (not a Swift concurrency thread).
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let done = Mailbox<Result<T, RobotaError>>()
        Thread {
            done.put(Result { try body() }.mapError { $0 as? RobotaError ?? RobotaError(code: .internal, message: "\($0)") })
        }.start()
        return try await done.take().get()
    }

    func testACommandHandlerAnswersAndIsCancelledWhenItsRequestTimesOut() async throws {
        let rt = try Fixture.runtime()
        var config = Fixture.session
        config.commands = [HostCommand(name: "deploy", description: "Ship it"), HostCommand(name: "stall", description: "Hangs")]
        config.requestTimeoutMs = 300
        let cancelled = Mailbox<Bool>()
        let parked = Parked()
        let log = EventLog()
        let s = try rt.session(
            config: config,
            onCommand: { request in
                guard request.name == "stall" else {
                    return CommandReply(message: "shipped \(request.args)", data: ["env": .string(request.args)])
                }
                cancelled.put(await Self.parkUntilCancelled(parked) {})
                return CommandReply(message: "too late")
            }, onEvent: log.observer)
        let deployed = try await Self.onThread { try s.command("deploy", args: "prod") }
        XCTAssertEqual(deployed, CommandResult(message: "shipped prod", success: true, data: ["env": "prod"]))
        let stalled = try await Self.onThread { try s.command("stall") }
        XCTAssertFalse(stalled.success)
        XCTAssertTrue(stalled.message.hasSuffix("was not answered within 300 ms"), stalled.message)
        let sawCancellation = try await cancelled.take()
        XCTAssertTrue(sawCancellation)
        try await log.until { events in
            events.contains { if case .requestCancelled(let r) = $0.event { return r.requestKind == .command } else { return false } }
        }
        let void = log.events.compactMap { if case .requestCancelled(let r) = $0 { return r } else { return nil } }
        XCTAssertEqual(void.map(\.reason), [.timeout])
    }
}
