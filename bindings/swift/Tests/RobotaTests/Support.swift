import Foundation
import XCTest

@testable import Robota

/// Shared scripts, tools and session documents of the tests.
enum Fixture {
    /// A read-only host tool (runs without a permission prompt).
    static let lookup = ToolDefinition(
        name: "lookup", description: "Looks a key up",
        inputSchema: ["type": "object", "properties": ["key": ["type": "string"]], "required": ["key"]],
        readOnly: true)

    /// The same tool, not read-only: the default mode asks for permission.
    static let lookupNeedsPermission = ToolDefinition(
        name: "lookup", description: "Changes things",
        inputSchema: ["type": "object", "properties": ["key": ["type": "string"]]])

    /// The session every scripted test uses.
    static let session = SessionConfig(provider: "s", model: "m")

    /// A runtime whose provider "s" answers `turns`, then echoes (`offline:<prompt>`).
    static func runtime(_ turns: [JSONValue] = [], fallback: String? = "echo") throws -> Runtime {
        try Runtime(config: RuntimeConfig(providers: ["s": .scripted(turns: turns, fallback: fallback)]))
    }

    /// Model turn 1 calls `lookup` with `key`; turn 2 answers "Done.".
    static func toolTurns(key: String) -> [JSONValue] {
        [
            ["text": "Calling.", "tool_calls": [["id": "call_0", "name": "lookup", "arguments": ["key": .string(key)]]]],
            ["deltas": ["Done."]],
        ]
    }
}

/// Reads a whole stream into an array.
func collect<S: AsyncSequence>(_ stream: S) async throws -> [Event] where S.Element == Event {
    var events: [Event] = []
    for try await event in stream { events.append(event) }
    return events
}

extension Array where Element == Event {
    var text: String {
        compactMap { if case .textDelta(let t) = $0 { return t } else { return nil } }.joined()
    }
    var completed: TurnResult? {
        lazy.compactMap { if case .turnCompleted(let r) = $0 { return r } else { return nil } }.first
    }
    var toolEnds: [ToolEnd] { compactMap { if case .toolEnd(let e) = $0 { return e } else { return nil } } }
    var toolStarts: [ToolStart] { compactMap { if case .toolStart(let e) = $0 { return e } else { return nil } } }
}

/// A wait that ran past its deadline (a test that would otherwise hang fails instead).
struct TestTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out after \(Deadline.seconds) s waiting for \(what)" }
}

/// How long a test waits for an event before failing.
enum Deadline {
    static let seconds: Double = 30

    /// Calls `expire` once the deadline passed (unless the waiter was served first).
    static func arm(_ expire: @escaping @Sendable () -> Void) {
        Task {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            expire()
        }
    }
}

/// A value handed from one task to another; `take` suspends until `put` (no polling).
final class Mailbox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    private var waiters: [UUID: CheckedContinuation<T?, Never>] = [:]

    func put(_ v: T) {
        lock.lock()
        value = v
        let ws = waiters.values
        waiters = [:]
        lock.unlock()
        ws.forEach { $0.resume(returning: v) }
    }

    /// The value, once put; throws `TestTimeout` after `Deadline.seconds`.
    func take() async throws -> T {
        let id = UUID()
        let v: T? = await withCheckedContinuation { c in
            lock.lock()
            if let v = value {
                lock.unlock()
                c.resume(returning: v)
                return
            }
            waiters[id] = c
            lock.unlock()
            Deadline.arm { [self] in
                lock.lock()
                let w = waiters.removeValue(forKey: id)
                lock.unlock()
                w?.resume(returning: nil)
            }
        }
        guard let v else { throw TestTimeout(what: "a \(T.self)") }
        return v
    }

    var peek: T? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// Events seen by an `onEvent` observer, thread-safe.
final class EventLog: @unchecked Sendable {
    private typealias Waiter = (predicate: ([TurnEvent]) -> Bool, continuation: CheckedContinuation<Bool, Never>)
    private let lock = NSLock()
    private var items: [TurnEvent] = []
    private var waiters: [UUID: Waiter] = [:]

    var observer: EventObserver { { [self] in self.append($0) } }

    func append(_ e: TurnEvent) {
        lock.lock()
        items.append(e)
        let ready = waiters.filter { $0.value.predicate(items) }
        ready.keys.forEach { waiters[$0] = nil }
        lock.unlock()
        ready.values.forEach { $0.continuation.resume(returning: true) }
    }

    var events: [Event] {
        lock.lock()
        defer { lock.unlock() }
        return items.map(\.event)
    }

    /// Suspends until a `.turnCompleted` was recorded.
    func untilCompleted(count: Int = 1) async throws {
        try await until { $0.filter { if case .turnCompleted = $0.event { return true } else { return false } }.count >= count }
    }

    /// Suspends until the recorded events satisfy `predicate`; throws `TestTimeout` after
    /// `Deadline.seconds`.
    func until(_ predicate: @escaping ([TurnEvent]) -> Bool) async throws {
        let id = UUID()
        let met: Bool = await withCheckedContinuation { c in
            lock.lock()
            if predicate(items) {
                lock.unlock()
                c.resume(returning: true)
                return
            }
            waiters[id] = (predicate, c)
            lock.unlock()
            Deadline.arm { [self] in
                lock.lock()
                let w = waiters.removeValue(forKey: id)
                lock.unlock()
                w?.continuation.resume(returning: false)
            }
        }
        if !met { throw TestTimeout(what: "events matching a condition (seen: \(events))") }
    }
}

/// Runs `onDeinit` when released: proves a closure (and the box holding it) was freed.
final class Probe: @unchecked Sendable {
    let onDeinit: () -> Void
    init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// Asserts that `body` throws a `RobotaError` with `code` whose message contains `text`.
func assertRobotaError(
    _ code: RobotaError.Code, containing text: String = "", file: StaticString = #filePath, line: UInt = #line,
    _ body: () throws -> Void
) {
    do {
        try body()
        check(nil, is: code, containing: text, file: file, line: line)
    } catch {
        check(error, is: code, containing: text, file: file, line: line)
    }
}

/// The async form of `assertRobotaError`.
func assertRobotaErrorAsync(
    _ code: RobotaError.Code, containing text: String = "", file: StaticString = #filePath, line: UInt = #line,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        check(nil, is: code, containing: text, file: file, line: line)
    } catch {
        check(error, is: code, containing: text, file: file, line: line)
    }
}

private func check(_ error: Error?, is code: RobotaError.Code, containing text: String, file: StaticString, line: UInt) {
    guard let error else { return XCTFail("expected \(code.description) error", file: file, line: line) }
    guard let e = error as? RobotaError else { return XCTFail("unexpected error \(error)", file: file, line: line) }
    XCTAssertEqual(e.code, code, "\(e)", file: file, line: line)
    XCTAssertTrue(text.isEmpty || e.message.contains(text), "\"\(e.message)\" does not contain \"\(text)\"", file: file, line: line)
}

/// A weak reference a `@Sendable` closure can capture (an observer that needs its own session).
final class WeakRef<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
}
