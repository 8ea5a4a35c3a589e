import XCTest

@testable import Robota

final class CancellationTests: XCTestCase {
    func testCancellingTheConsumingTaskAbortsTheTurnMidStream() async throws {
        let rt = try Fixture.runtime([["deltas": ["part", "ial"], "hang": true]])
        let s = try rt.session(config: Fixture.session)
        let twoDeltas = Mailbox<UInt64>()
        let consumer = Task {
            var turn: UInt64 = 0
            var deltas = 0
            for try await event in s.stream("stall") {
                if case .turnStarted(let t) = event { turn = t.turnID }
                if case .textDelta = event {
                    deltas += 1
                    if deltas == 2 { twoDeltas.put(turn) }
                }
            }
            return deltas
        }
        let turn = try await twoDeltas.take()
        consumer.cancel()
        do {
            let deltas = try await consumer.value
            XCTFail("the iteration should throw CancellationError, it ended after \(deltas) deltas")
        } catch is CancellationError {}
        await assertRobotaErrorAsync(.aborted) { try await s.wait(turn: turn, timeout: 30) }
        let last = try s.messages().last
        XCTAssertEqual(last?.role, "assistant")
        XCTAssertEqual(last?.content, "partial")
        XCTAssertEqual(last?.state, "interrupted")
        // the session is usable again
        let next = try await s.run("next").response
        XCTAssertEqual(next, "offline:next")
    }

    func testCancellingTheConsumingTaskMidToolCancelsTheHandlerAndAbortsTheTurn() async throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "slow"))
        let started = Mailbox<UInt64>()
        let handlerSawCancellation = Mailbox<Bool>()
        let parked = Parked()
        try rt.registerTool(Fixture.lookup) { call -> String in
            // Suspends until cancelled; never answers on its own.
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    parked.park(c)
                    started.put(call.callID)
                }
            } onCancel: {
                parked.resumeAll()
            }
            handlerSawCancellation.put(Task.isCancelled)
            throw CancellationError()
        }
        let log = EventLog()
        let s = try rt.session(config: Fixture.session, onEvent: log.observer)
        let consumer = Task { try await s.run("find slowly") }
        let callID = try await started.take()
        consumer.cancel()
        do {
            _ = try await consumer.value
            XCTFail("run should throw CancellationError")
        } catch is CancellationError {}
        let sawCancellation = try await handlerSawCancellation.take()
        XCTAssertTrue(sawCancellation)
        try await log.untilCompleted()
        let events = log.events
        XCTAssertTrue(events.contains(.toolCallCancelled(callID: callID)), "\(events)")
        XCTAssertEqual(events.toolEnds.first?.output, "Error: Execution interrupted by user")
        XCTAssertEqual(events.completed?.stopReason, .aborted)
        assertRobotaError(.stale) { try rt.completeToolCall(callID, result: "too late") }
    }

    func testAbortFromAnotherTaskEndsTheStreamWithAnAbortedResult() async throws {
        let rt = try Fixture.runtime([["deltas": ["waiting"], "hang": true]])
        let log = EventLog()
        let s = try rt.session(config: Fixture.session, onEvent: log.observer)
        let consumer = Task { try await s.run("hang") }
        try await log.until { $0.contains { if case .textDelta = $0.event { return true } else { return false } } }
        Task.detached { try s.abort() }
        let result = try await consumer.value
        XCTAssertEqual(result.stopReason, .aborted)
        XCTAssertEqual(result.response, "waiting")
    }

    func testWaitTimesOutWhileATurnHangs() async throws {
        let rt = try Fixture.runtime([["hang": true]])
        let s = try rt.session(config: Fixture.session)
        let turn = try s.submit("hang")
        await assertRobotaErrorAsync(.timeout) { try await s.wait(turn: turn, timeout: 0) }
        try s.abort(turn: turn)
        await assertRobotaErrorAsync(.aborted) { try await s.wait(turn: turn) }
    }
}

/// Continuations of handlers waiting to be cancelled.
final class Parked: @unchecked Sendable {
    private let lock = NSLock()
    private var parked: [CheckedContinuation<Void, Never>] = []
    private var cancelled = false

    func park(_ c: CheckedContinuation<Void, Never>) {
        lock.lock()
        if cancelled {
            cancelled = false
            lock.unlock()
            c.resume()
            return
        }
        parked.append(c)
        lock.unlock()
    }

    func resumeAll() {
        lock.lock()
        let all = parked
        parked = []
        if all.isEmpty { cancelled = true }
        lock.unlock()
        all.forEach { $0.resume() }
    }
}
