import XCTest

@testable import Robota

final class DeliveryTests: XCTestCase {
    func testAHundredConcurrentSessionsInATaskGroup() async throws {
        let rt = try Fixture.runtime([["deltas": ["Hi ", "there."]]])
        let results = try await withThrowingTaskGroup(of: (Int, String, String, String).self) { group in
            for i in 0..<100 {
                group.addTask {
                    let s = try rt.session(config: Fixture.session)
                    let first = try await collect(s.stream("hello \(i)"))
                    let second = try await s.run("again \(i)")
                    return (i, first.text, second.response, s.id)
                }
            }
            var all: [(Int, String, String, String)] = []
            for try await r in group { all.append(r) }
            return all
        }
        XCTAssertEqual(results.count, 100)
        for (i, first, second, _) in results {
            XCTAssertEqual(first, "Hi there.")
            XCTAssertEqual(second, "offline:again \(i)")
        }
        XCTAssertEqual(Set(results.map(\.3)).count, 100, "every session has its own id")
    }

    func testPullSessionsReadEventsAndRunHandlerBackedTools() throws {
        let rt = try Fixture.runtime(Fixture.toolTurns(key: "p"))
        try rt.registerTool(Fixture.lookup) { call in "pulled \(call.arguments["key"]?.stringValue ?? "")" }
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", delivery: .pull))
        XCTAssertNil(try s.nextEvent(timeout: 0), "nothing before a submit")
        let turn = try s.submit("pull it")
        var events: [TurnEvent] = []
        while let e = try s.nextEvent(timeout: 30) {
            events.append(e)
            if case .turnCompleted = e.event { break }
        }
        XCTAssertTrue(events.allSatisfy { $0.turnID == turn })
        guard case .turnStarted(let started) = events.first?.event else { return XCTFail("\(events)") }
        XCTAssertEqual(started.input?["text"], "pull it")
        XCTAssertTrue(events.contains { if case .toolCall(let c) = $0.event { return c.arguments == ["key": "p"] } else { return false } })
        XCTAssertEqual(events.map(\.event).toolEnds.first?.output, "pulled p")
        XCTAssertEqual(events.map(\.event).completed?.response, "Done.")
        XCTAssertEqual(events.map(\.event).text, "Calling.\n\nDone.", "rounds are separated by a blank line")

        try s.close()
        var last: TurnEvent?
        while let e = try s.nextEvent(timeout: 30) {
            last = e
            if e.event == .sessionClosed { break }
        }
        XCTAssertEqual(last?.event, .sessionClosed)
        assertRobotaError(.closed) { _ = try s.nextEvent(timeout: 0.1) }
    }

    func testPumpSessionsDeliverOnlyWhenPumpedAndStreamThroughIt() async throws {
        let rt = try Fixture.runtime([["deltas": ["a", "b", "c"]]])
        let log = EventLog()
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", delivery: .pump), onEvent: log.observer)
        let turn = try s.submit("x")
        try await s.wait(turn: turn, timeout: 30)
        XCTAssertTrue(log.events.isEmpty, "nothing is delivered until the host pumps")
        var delivered = 0
        while !log.events.contains(where: { if case .turnCompleted = $0 { return true } else { return false } }) {
            let n = try s.dispatch(maxEvents: 2, timeout: 1)
            XCTAssertLessThanOrEqual(n, 2)
            delivered += n
        }
        XCTAssertEqual(delivered, log.events.count)
        XCTAssertEqual(log.events.text, "abc")

        // a stream on a pump session receives what the host pumps
        let consumer = Task { try await collect(s.stream("y")) }
        let done = Mailbox<Bool>()
        let pump = Thread {
            while done.peek == nil { _ = try? s.dispatch(timeout: 0.05) }
        }
        pump.start()
        let events = try await consumer.value
        done.put(true)
        XCTAssertEqual(events.completed?.response, "offline:y")
    }

    /// One streamed turn with a host tool answered later (from the handler's task, after the
    /// test saw the call), then `run`, `submit` + `wait`, and `close`, in `delivery`.
    /// Returns the streamed turn's event kinds and text.
    private func inlineScenario(_ delivery: Delivery) async throws -> (kinds: [String], text: String) {
        let rt = try Fixture.runtime([
            ["thinking": ["hm"], "deltas": ["Call", "ing."],
             "tool_calls": [["id": "call_0", "name": "lookup", "arguments": ["key": "k"]]]],
            ["deltas": ["Do", "ne ", "wörld."]],
        ])
        let called = Mailbox<String>()
        let release = Mailbox<Bool>()
        try rt.registerTool(Fixture.lookup) { call in
            let key = call.arguments["key"]?.stringValue ?? ""
            called.put(key)
            _ = try await release.take()
            return "value of \(key)"
        }
        let log = EventLog()
        let reentrant = Mailbox<String>()
        let holder = SessionHolder()
        let s = try rt.session(config: SessionConfig(provider: "s", model: "m", delivery: delivery), onEvent: { e in
            log.append(e)
            // A blocking call inside a callback is refused, not a deadlock.
            if case .turnStarted = e.event, reentrant.peek == nil, let s = holder.session {
                do {
                    try s.waitBlocking(turn: 0, timeout: 0)
                    reentrant.put("returned")
                } catch let error as RobotaError {
                    reentrant.put("\(error.code)")
                } catch {
                    reentrant.put("\(error)")
                }
            }
        })
        holder.session = s
        XCTAssertEqual(s.delivery, delivery)
        XCTAssertEqual(try s.state().delivery, delivery)

        let consumer = Task { try await collect(s.stream("look k up")) }
        let key = try await called.take()
        XCTAssertEqual(key, "k", "the tool got the model's arguments")
        release.put(true)
        let events = try await consumer.value
        let inside = try await reentrant.take()
        XCTAssertEqual(inside, "\(RobotaError.Code.reentrant)", "waitBlocking inside a callback")
        XCTAssertEqual(events.completed?.response, "Done wörld.")
        XCTAssertEqual(events.completed?.stopReason, .complete)
        XCTAssertEqual(events.toolEnds.map(\.output), ["value of k"])

        let second = try await s.run("again")
        XCTAssertEqual(second.response, "offline:again")

        // `wait` returns once the turn's events were delivered: the observer already saw its
        // turn_completed, with no further synchronisation.
        let third = try s.submit("third")
        try await s.wait(turn: third, timeout: 30)
        let completedTurns = log.events.compactMap { e -> UInt64? in
            if case .turnCompleted(let r) = e { return r.turnID } else { return nil }
        }
        XCTAssertEqual(completedTurns.last, third, "\(completedTurns)")
        XCTAssertEqual(completedTurns.count, 3)

        try s.close()
        try await log.until { $0.last?.event == .sessionClosed }
        return (events.map(eventName), events.text)
    }

    func testInlineDeliveryStreamsTheSameEventsAsThreadDelivery() async throws {
        let inline = try await inlineScenario(.inline)
        let thread = try await inlineScenario(.thread)
        XCTAssertEqual(inline.text, "Calling.\n\nDone wörld.")
        XCTAssertEqual(inline.text, thread.text)
        XCTAssertEqual(inline.kinds, thread.kinds)
        // started, thinking, the first round's text, the tool, the second round's text, completed
        let k = inline.kinds
        let order = [
            k.firstIndex(of: "turnStarted"), k.firstIndex(of: "thinkingDelta"), k.firstIndex(of: "textDelta"),
            k.firstIndex(of: "toolStart"), k.firstIndex(of: "toolEnd"), k.lastIndex(of: "textDelta"),
            k.firstIndex(of: "turnCompleted"),
        ]
        XCTAssertFalse(order.contains(nil), "\(k)")
        let positions = order.compactMap { $0 }
        XCTAssertEqual(positions, positions.sorted(), "event order: \(k)")
        XCTAssertEqual(Set(positions).count, positions.count, "event order: \(k)")
        XCTAssertEqual(positions.first, 0, "turnStarted first: \(k)")
        XCTAssertEqual(positions.last, k.count - 1, "turnCompleted last: \(k)")
    }
}

/// The session an observer needs, set right after its creation (weak: the observer must not
/// keep its own session alive).
private final class SessionHolder: @unchecked Sendable {
    private let lock = NSLock()
    private weak var value: Session?
    var session: Session? {
        get { lock.lock(); defer { lock.unlock() }; return value }
        set { lock.lock(); value = newValue; lock.unlock() }
    }
}

/// An event's case name (`textDelta`, `turnCompleted`, ...).
private func eventName(_ e: Event) -> String {
    String(String(describing: e).prefix { $0 != "(" })
}
