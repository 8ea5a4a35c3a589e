import Foundation
import XCTest

@testable import Robota

/// The turn stream's start, failure and cancellation rules; the error enum.
final class TurnStreamTests: XCTestCase {
    func testTheStreamSubmitsItsTurnWhenTheIterationStarts() async throws {
        let rt = try Fixture.runtime()
        let s = try rt.session(config: Fixture.session)
        let later = s.stream("later")
        XCTAssertEqual(try s.messages().count, 0, "creating a stream submits nothing")
        let first = try await s.run("first")
        let events = try await collect(later)
        guard case .turnStarted(let started) = events.first else { return XCTFail("first event: \(events)") }
        XCTAssertEqual(started.turnID, first.turnID + 1)
        XCTAssertEqual(events.completed?.response, "offline:later")
        XCTAssertEqual(try s.messages().map(\.content), ["first", "offline:first", "later", "offline:later"])
    }

    func testAnIterationCancelledBeforeItStartsSubmitsNothing() async throws {
        let rt = try Fixture.runtime()
        let s = try rt.session(config: Fixture.session)
        let go = Mailbox<Bool>()
        let consumer = Task {
            _ = try await go.take()
            for try await _ in s.stream("never") { XCTFail("no event expected") }
        }
        consumer.cancel()
        go.put(true)
        do {
            try await consumer.value
            XCTFail("the iteration should throw CancellationError")
        } catch is CancellationError {}
        XCTAssertEqual(try s.messages().count, 0)
        let next = try await s.run("next")
        XCTAssertEqual(next.response, "offline:next")
    }

    func testAStreamAbortedFromElsewhereEndsWithItsAbortedResult() async throws {
        let rt = try Fixture.runtime([["deltas": ["waiting"], "hang": true]])
        let s = try rt.session(config: Fixture.session)
        var events: [Event] = []
        for try await event in s.stream("hang") {
            events.append(event)
            if case .textDelta = event { try s.abort() }
        }
        XCTAssertEqual(events.completed?.stopReason, .aborted)
        XCTAssertEqual(events.text, "waiting")
    }
}

final class ErrorEnumTests: XCTestCase {
    /// The case of an error, as a host's `switch` sees it.
    private func classify(_ body: () async throws -> Void) async -> String {
        do {
            try await body()
            return "no error"
        } catch let error as RobotaError {
            switch error {
            case .invalidJSON(let message, _): return "invalidJSON: \(message)"
            case .notFound(let message, _): return "notFound: \(message)"
            case .closed(let message, _): return "closed: \(message)"
            case .provider(let message, let details):
                return "provider: \(message) [\(details.category ?? "-") \(details.recoverable.map(String.init) ?? "-")]"
            case .unknown(let code, let message, _): return "unknown \(code): \(message)"
            default: return "other \(error.code.rawValue): \(error.message)"
            }
        } catch {
            return "not a RobotaError: \(error)"
        }
    }

    func testAHostSwitchesOverTheErrorCases() async throws {
        let rt = try Fixture.runtime([["error": ["kind": "rate_limit", "message": "slow down"]]], fallback: nil)
        let invalid = await classify { _ = try rt.session(json: "[") }
        XCTAssertTrue(invalid.hasPrefix("invalidJSON: "), invalid)
        let missing = await classify { _ = try rt.session(config: SessionConfig(provider: "nope", model: "m")) }
        XCTAssertTrue(missing.hasPrefix(#"notFound: "#) && missing.contains(#"unknown provider "nope""#), missing)
        let s = try rt.session(config: Fixture.session)
        let failed = await classify { _ = try await s.run("hi") }
        XCTAssertTrue(failed.hasPrefix("provider: ") && failed.contains("slow down"), failed)
        XCTAssertTrue(failed.hasSuffix("[provider true]"), failed)
        try s.close()
        let closed = await classify { try s.submit("after") }
        XCTAssertTrue(closed.hasPrefix("closed: "), closed)
    }

    func testEveryStatusHasItsCaseAndUnknownOnesAreKept() {
        let statuses: [RobotaError.Code] = [
            .nullArg, .invalidHandle, .invalidJSON, .invalidConfig, .busy, .notFound, .stale, .timeout, .closed,
            .aborted, .reentrant, .unsupported, .io, .provider, .panic, .internal, .versionMismatch, .invalidUTF8,
            .budget,
        ]
        for code in statuses {
            let error = RobotaError(code: code, message: "m \(code.rawValue)")
            XCTAssertEqual(error.code, code)
            XCTAssertEqual(error.message, "m \(code.rawValue)")
            if case .unknown = error { XCTFail("\(code) has no case of its own") }
        }
        XCTAssertEqual(RobotaError(code: .busy, message: "queued"), .busy(message: "queued", details: ErrorDetails()))
        let future = RobotaError(code: RobotaError.Code(rawValue: -99), message: "new")
        XCTAssertEqual(future, .unknown(code: -99, message: "new", details: ErrorDetails()))
        XCTAssertEqual(future.code.rawValue, -99)
    }
}

/// `wait` resumed by the completion event.
final class WaitTests: XCTestCase {
    private func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }

    func testTwoHundredWaitsResumeFromTheCompletionWithoutAThreadEach() async throws {
        let rt = try Fixture.runtime([["deltas": ["..."], "hang": true]])
        let s = try rt.session(config: Fixture.session)
        let turn = try s.submit("hang")
        let before = try threadCount()
        let waits = (0..<200).map { _ in
            Task { () -> String in
                do {
                    try await s.wait(turn: turn, timeout: 60)
                    return "returned"
                } catch {
                    return "\(error)"
                }
            }
        }
        while s.router.waiters.count < 200 { await Task.yield() }
        let during = try threadCount()
        XCTAssertLessThan(during - before, 10, "\(before) threads before the waits, \(during) while 200 wait")
        try s.abort(turn: turn)
        for w in waits {
            let outcome = await w.value
            XCTAssertEqual(outcome, "turn \(turn) was aborted (aborted, -10)")
        }
        XCTAssertEqual(s.router.waiters.count, 0)
    }

    func testAWaitTimesOutIsCancellableAndResolvesAFinishedTurnAtOnce() async throws {
        let rt = try Fixture.runtime([["hang": true]])
        let s = try rt.session(config: Fixture.session)
        let turn = try s.submit("hang")
        await assertRobotaErrorAsync(.timeout, containing: "turn \(turn) did not finish within 0.05 s") {
            try await s.wait(turn: turn, timeout: 0.05)
        }
        let waiting = Task { try await s.wait(turn: turn) }
        while s.router.waiters.count < 1 { await Task.yield() }
        waiting.cancel()
        do {
            try await waiting.value
            XCTFail("a cancelled wait throws CancellationError")
        } catch is CancellationError {}
        XCTAssertTrue(try s.state().executing, "cancelling a wait leaves the turn running")
        try s.abort(turn: turn)
        await assertRobotaErrorAsync(.aborted) { try await s.wait(turn: turn) }
        let next = try await s.run("next")
        try await s.wait(turn: next.turnID)
        try await s.wait(turn: next.turnID, timeout: .infinity)  // no overflow
        try await s.wait(turn: next.turnID, timeout: .nan)
        XCTAssertEqual([nil, .infinity, .nan, -1, 0.0001, 1e300].map(milliseconds), [-1, -1, 0, 0, 1, Int32.max])
        await assertRobotaErrorAsync(.notFound) { try await s.wait(turn: next.turnID + 100, timeout: 30) }
    }
}

/// Tools whose arguments are a `Decodable` type.
final class TypedToolTests: XCTestCase {
    struct AddArgs: ToolArguments {
        let a: Int
        let b: Int
        let note: String?
        static var schema: JSONSchema {
            .object(["a": .integer("the first addend"), "b": .integer(), "note": .string()], required: ["a"])
        }
    }

    func testTheSchemaComesFromTheArgumentsType() {
        XCTAssertEqual(
            AddArgs.schema.value,
            [
                "type": "object", "required": ["a"],
                "properties": [
                    "a": ["type": "integer", "description": "the first addend"], "b": ["type": "integer"],
                    "note": ["type": "string"],
                ],
            ])
        XCTAssertEqual(
            JSONSchema.array(of: .string(oneOf: ["x", "y"]), "picks").value,
            ["type": "array", "description": "picks", "items": ["type": "string", "enum": ["x", "y"]]])
    }

    func testDecodedArgumentsRunTheHandlerAndADecodeErrorNamesTheField() async throws {
        let rt = try Fixture.runtime([
            ["text": "", "tool_calls": [["id": "call_0", "name": "add", "arguments": ["a": 2, "b": 3, "note": "sum"]]]],
            ["text": "", "tool_calls": [["id": "call_1", "name": "add", "arguments": ["a": 2]]]],
            ["deltas": ["Done."]],
        ])
        let notes = Mailbox<String>()
        try rt.tool("add", description: "Adds two integers", readOnly: true) { (args: AddArgs) async throws -> String in
            notes.put(args.note ?? "")
            return "\(args.a + args.b)"
        }
        let s = try rt.session(config: Fixture.session)
        let events = try await collect(s.stream("add"))
        let ends = events.toolEnds
        XCTAssertEqual(ends.map(\.result), ["success", "error"])
        XCTAssertEqual(ends.first?.output, "5")
        XCTAssertTrue(
            ends.last?.output?.contains(#"invalid arguments for add: missing field "b""#) == true, "\(ends)")
        XCTAssertEqual(notes.peek, "sum")
        XCTAssertEqual(events.completed?.response, "Done.")
    }

    func testAnInlineToolRunsOutsideAnyTaskAndADecodeErrorNamesTheField() async throws {
        let rt = try Fixture.runtime([
            ["text": "", "tool_calls": [["id": "call_0", "name": "add", "arguments": ["a": 2, "b": 3, "note": "sum"]]]],
            ["text": "", "tool_calls": [["id": "call_1", "name": "add", "arguments": ["a": 2]]]],
            ["deltas": ["Done."]],
        ])
        let notes = Mailbox<String>()
        try rt.inlineTool("add", description: "Adds two integers", readOnly: true) { (args: AddArgs) -> String in
            notes.put((args.note ?? "") + (withUnsafeCurrentTask { $0 == nil } ? " inline" : " in a task"))
            return "\(args.a + args.b)"
        }
        let s = try rt.session(config: Fixture.session)
        let events = try await collect(s.stream("add"))
        let ends = events.toolEnds
        XCTAssertEqual(ends.map(\.result), ["success", "error"])
        XCTAssertEqual(ends.first?.output, "5")
        XCTAssertTrue(
            ends.last?.output?.contains(#"invalid arguments for add: missing field "b""#) == true, "\(ends)")
        XCTAssertEqual(notes.peek, "sum inline")
        XCTAssertEqual(events.completed?.response, "Done.")
    }

    func testDecodeErrorsNameTheFieldAndTheExpectedType() {
        func message(_ json: JSONValue) -> String {
            do {
                _ = try json.decode(Nested.self)
                return "decoded"
            } catch {
                return ToolArgumentsError(tool: "t", error).message
            }
        }
        XCTAssertEqual(message(["items": [["n": 1], ["n": "two"]]]), #"invalid arguments for t: field "items[1].n": expected an integer"#)
        XCTAssertEqual(message(["items": [["m": 1]]]), #"invalid arguments for t: missing field "items[0].n""#)
        XCTAssertEqual(message(["items": "x"]), #"invalid arguments for t: field "items": expected an array"#)
        XCTAssertEqual(message(["items": nil]), #"invalid arguments for t: field "items": expected an array, found null"#)
    }
}

private struct Nested: Decodable {
    struct Item: Decodable { let n: Int }
    let items: [Item]
}
