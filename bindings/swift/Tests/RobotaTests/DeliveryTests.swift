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
}
