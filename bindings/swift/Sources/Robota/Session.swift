import CRobota
import Foundation

/// A conversation (`robota_session`): history, tools, permissions and hooks, running one turn
/// at a time. Thread-safe. `deinit` releases it without blocking: a running turn is aborted
/// and the handlers of its host tools are cancelled.
public final class Session: @unchecked Sendable {
    /// The runtime this session runs on (kept alive by the session).
    public let runtime: Runtime
    /// How this session delivers events; `stream`/`run` need `.thread`, `.inline` or `.pump`,
    /// `drive` needs `.thread` or `.inline`.
    public let delivery: Delivery
    /// The session id (kept by `resume`, new for `fork`).
    public var id: String {
        router.lock.lock()
        let known = sessionID
        router.lock.unlock()
        if let known { return known }
        let id = Self.state(handle)?["session_id"]?.stringValue ?? ""
        router.lock.lock()
        sessionID = id
        router.lock.unlock()
        return id
    }
    let handle: OpaquePointer
    let router: EventRouter
    /// `id`, read from the session's state when first asked for (under `router.lock`).
    private var sessionID: String?

    /// `delivery`: the one the session JSON asked for when known, else read from the state
    /// (a session created from a `SessionConfig` reads no state until `id` is asked for).
    init(runtime: Runtime, handle: OpaquePointer, router: EventRouter, delivery known: Delivery? = nil) {
        self.runtime = runtime
        self.handle = handle
        self.router = router
        if let known {
            delivery = known
        } else {
            let doc = Self.state(handle)
            delivery = doc?["delivery"]?.stringValue.flatMap(Delivery.init(rawValue:)) ?? .thread
            sessionID = doc?["session_id"]?.stringValue ?? ""
        }
    }

    /// The session's state document (`robota_session_state`), nil when it cannot be read.
    private static func state(_ handle: OpaquePointer) -> JSONValue? {
        let state = try? checkString { robota_session_state(handle, $0, $1) }
        return state.flatMap { try? JSONValue(parsing: $0) }
    }

    deinit {
        robota_session_free(handle)
        runtime.toolTasks.cancelAll(session: handle)
    }

    /// The events of one turn of `input`, as an `AsyncSequence` (a `TurnStream`). The turn is
    /// submitted when the iteration starts, not when the stream is created. The iteration
    /// throws the turn's failure (`RobotaError.provider`, `.budget`) after its `.turnCompleted`,
    /// the refusals of the submit (`.closed`, `.busy`, …), and `CancellationError` when the
    /// iterating task is cancelled, which aborts this turn only. A turn aborted from elsewhere
    /// (`abort`, `close`) ends the iteration normally with its `.aborted` result.
    public func stream(_ input: PromptInput) -> TurnStream { TurnStream(session: self, input: input) }

    /// Streams the turn of a plain-text prompt.
    public func stream(_ prompt: String) -> TurnStream { stream(PromptInput(prompt)) }

    /// Submits `document` and routes the new turn's events to a stream. Dropping the stream
    /// or cancelling its consumer aborts the turn.
    func openStream(json document: String) -> AsyncThrowingStream<Event, Error> {
        AsyncThrowingStream { continuation in
            guard delivery != .pull else {
                continuation.finish(throwing: RobotaError(
                    code: .unsupported,
                    message: "stream() needs \"thread\", \"inline\" or \"pump\" delivery; a pull session reads events with nextEvent()"))
                return
            }
            do {
                let turnID = try router.open(continuation) { try submit(json: document) }
                continuation.onTermination = { [self] termination in
                    guard case .cancelled = termination else { return }
                    // First: the stream ends only after this handler, and the turn's last
                    // events (its aborted completion) must not reach the cancelled consumer.
                    router.dropStream(turn: turnID)
                    _ = robota_session_abort(handle, turnID)
                }
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    /// Runs one turn to its end and returns how it ended. Throws `RobotaError` when the turn
    /// failed (the provider's error, with its taxonomy) and `CancellationError` when the task
    /// was cancelled (the turn is aborted). An abort from elsewhere returns `.aborted`.
    ///
    /// The result is the library's result document of the turn (`robota_session_wait_result`),
    /// read once the turn's `.turnCompleted` was delivered. The turn's events are not streamed
    /// to the task (the session's `onEvent` observer sees them): it is resumed once, by the
    /// completion.
    public func run(_ input: PromptInput) async throws -> TurnResult {
        guard delivery != .pull else {
            throw RobotaError(
                code: .unsupported,
                message: "stream() needs \"thread\", \"inline\" or \"pump\" delivery; a pull session reads events with nextEvent()")
        }
        try Task.checkCancellation()
        let document = try input.libraryJSON()
        let turnID = try router.submit { try submit(json: document) }
        do {
            try await withTaskCancellationHandler {
                try await router.waiters.wait(turn: turnID, timeout: nil) { [self] in libraryOutcome(turn: turnID) }
            } onCancel: { [self] in
                _ = robota_session_abort(handle, turnID)
            }
        } catch let error as RobotaError where error.code == .aborted {
            // Aborted from elsewhere: the aborted result, not a failure.
        } catch let error as RobotaError where error.code == .closed {
            throw RobotaError(code: .closed, message: "the session closed before the turn completed")
        }
        return try deliveredResult(turn: turnID)
    }

    /// Submits a prompt without a stream (`robota_session_submit`) and returns its turn id; its
    /// events reach the session's `onEvent` observer. Queued while a turn runs (one at most;
    /// a further one throws `.busy`).
    @discardableResult
    public func submit(_ input: PromptInput) throws -> UInt64 { try submit(json: input.libraryJSON()) }

    /// Submits a raw input document.
    @discardableResult
    public func submit(json: String) throws -> UInt64 {
        var turnID: UInt64 = 0
        try check { error in json.withCString { robota_session_submit(handle, $0, &turnID, error) } }
        return turnID
    }

    /// Aborts turn `turnID` (0: the running one) and drops the queued prompt (`robota_session_abort`).
    public func abort(turn turnID: UInt64 = 0) throws { try checkStatus(robota_session_abort(handle, turnID)) }

    /// Closes the session but keeps it readable (`robota_session_close`): aborts, drops the
    /// queued prompt, delivers `.sessionClosed` last; later submits throw `.closed`.
    public func close() throws { try checkStatus(robota_session_close(handle)) }

    /// Runs one turn on the calling thread and returns how it ended (`robota_session_run`).
    ///
    /// **Blocks the calling thread** until the turn has finished and its events were delivered.
    /// When the session is idle the calling thread runs the turn itself — model requests,
    /// tools, timers — on a reactor the runtime lends it (kept, with its HTTP connections, for
    /// the next call), so no library thread is woken: the low-latency path for a host thread of
    /// its own (a worker, a command-line tool). Not for the main actor or async code (it would
    /// block the actor, or a Swift concurrency thread the handlers may need): use `run(_:)`
    /// there. A prompt driven while another turn runs is queued and runs on the library's
    /// workers; `drive` returns after its own turn.
    ///
    /// Delivery: with `.inline` every callback of the turn (the `onEvent` observer included)
    /// runs on the calling thread during the call; with `.thread` the callbacks run on the
    /// dispatcher thread and the turn's `.turnCompleted` has been delivered before `drive`
    /// returns. Host tool, permission and hook handlers run in their own tasks, as with `run`.
    /// `.pump` and `.pull` sessions throw `.unsupported` without running anything: they hand
    /// every callback (host tool calls and requests included) to a host thread that must keep
    /// pumping or reading while the turn runs, which a blocked thread cannot; use `submit`
    /// with `dispatch` or `nextEvent` there.
    ///
    /// Returns the driven turn's `TurnResult` (the `.turnCompleted` that `run` returns;
    /// `turnID` is the driven turn). Throws `RobotaError` with the library's status and
    /// message: `.aborted` when the turn was aborted (`abort` or `close` from another thread;
    /// `run` returns that result instead), `.provider` when it failed (with the taxonomy's
    /// `kind`, `category` and `recoverable`), `.budget` when the session's budget stopped it,
    /// the refusals of `submit` (`.busy` with a prompt already queued, `.closed`,
    /// `.invalidJSON`, …), and `.reentrant` inside a callback or on a thread that runs an
    /// async runtime of the library.
    @available(*, noasync, message: "drive blocks its thread until the turn ends; use run(_:) in async code")
    public func drive(_ input: PromptInput) throws -> TurnResult { try drive(json: input.libraryJSON()) }

    /// Drives the turn of a plain-text prompt on the calling thread (blocking; see `drive(_:)`).
    @available(*, noasync, message: "drive blocks its thread until the turn ends; use run(_:) in async code")
    public func drive(_ text: String) throws -> TurnResult { try drive(PromptInput(text)) }

    /// Drives the turn of a raw input document on the calling thread (blocking; see `drive(_:)`).
    @available(*, noasync, message: "drive blocks its thread until the turn ends; use run(_:) in async code")
    public func drive(json: String) throws -> TurnResult {
        try checkDrivable()
        var turnID: UInt64 = 0
        var out: UnsafeMutablePointer<CChar>?
        var error: OpaquePointer?
        let status = json.withCString { robota_session_run_result(handle, $0, &turnID, &out, &error) }
        defer { robota_string_free(out) }
        guard status == ROBOTA_OK else { throw RobotaError(status: status, consuming: error) }
        robota_error_free(error)
        // The turn's `.turnCompleted` was delivered before the call returned: its result is the document.
        if let result = router.waiters.result(turn: turnID) { return result }
        guard let out else { throw RobotaError(code: .internal, message: "turn \(turnID) has no result document") }
        return try TurnResult.decode(String(cString: out), what: "turn \(turnID)'s result")
    }

    /// Drives a turn like `drive(json:)` but returns only its id (`robota_session_run`, no
    /// result document is copied); read the result later with `result(of:)` if needed.
    @available(*, noasync, message: "drive blocks its thread until the turn ends; use run(_:) in async code")
    @discardableResult
    public func driveTurnID(json: String) throws -> UInt64 {
        try checkDrivable()
        var turnID: UInt64 = 0
        try check { error in json.withCString { robota_session_run(handle, $0, &turnID, error) } }
        return turnID
    }

    /// Throws `.unsupported` for the delivery modes `drive` cannot serve.
    private func checkDrivable() throws {
        guard delivery == .thread || delivery == .inline else {
            throw RobotaError(
                code: .unsupported,
                message: "drive() needs \"thread\" or \"inline\" delivery; a \(delivery.rawValue) session hands its callbacks to a thread that must keep \(delivery == .pump ? "pumping" : "reading") during the turn: use submit() with \(delivery == .pump ? "dispatch()" : "nextEvent()")")
        }
    }

    /// An independent copy (`robota_session_fork`): history, mode and approvals, a new id.
    /// `overrides` replaces session fields (e.g. `["delivery": "pull"]`).
    public func fork(
        overrides: [String: JSONValue] = [:], onPermission: PermissionHandler? = nil, onHook: HookHandler? = nil,
        onCommand: CommandHandler? = nil, onEvent: EventObserver? = nil
    ) throws -> Session {
        let json = try JSONCoding.encode(overrides)
        return try runtime.openSession(SessionHandlers(permission: onPermission, hook: onHook, command: onCommand, observer: onEvent)) {
            fn, userData, free, out, error in
            json.withCString { robota_session_fork(handle, $0, fn, userData, free, out, error) }
        }
    }
}

/// Milliseconds for the C wait functions: nil and +infinity = forever (-1), NaN and negatives
/// = 0 (a poll), longer than `Int32.max` ms clamped.
func milliseconds(_ timeout: TimeInterval?) -> Int32 {
    guard let timeout, timeout != .infinity else { return -1 }
    guard !timeout.isNaN, timeout > 0 else { return 0 }
    return Int32(clamping: Int64((min(timeout, 1e12) * 1000).rounded(.up)))
}

extension Runtime {
    /// Creates a session (`robota_session_new`). `onPermission`, `onHook` and `onCommand` (host
    /// commands of `SessionConfig.commands`) answer requests, each in a task of its own that is
    /// cancelled when the request becomes void (without them the requests only appear as
    /// events, answered with `respond(to:with:)`); `onEvent` sees every event.
    public func session(
        config: SessionConfig, onPermission: PermissionHandler? = nil, onHook: HookHandler? = nil,
        onCommand: CommandHandler? = nil, onEvent: EventObserver? = nil
    ) throws -> Session {
        let json = try sessionJSON(config)
        // The library's default delivery is "thread".
        return try openSession(
            SessionHandlers(permission: onPermission, hook: onHook, command: onCommand, observer: onEvent),
            delivery: config.delivery ?? .thread
        ) { fn, userData, free, out, error in
            json.withCString { robota_session_new(handle, $0, fn, userData, free, out, error) }
        }
    }

    /// Creates a session from session JSON text.
    public func session(
        json: String, onPermission: PermissionHandler? = nil, onHook: HookHandler? = nil, onCommand: CommandHandler? = nil, onEvent: EventObserver? = nil
    ) throws -> Session {
        try openSession(SessionHandlers(permission: onPermission, hook: onHook, command: onCommand, observer: onEvent)) {
            fn, userData, free, out, error in
            json.withCString { robota_session_new(handle, $0, fn, userData, free, out, error) }
        }
    }

    /// Reopens a saved session (`robota_session_resume`) from `Session.save()` output.
    /// `overrides` replaces saved fields (`delivery`, `model`, `hooks`, …).
    public func resume(
        snapshot: String, overrides: [String: JSONValue] = [:], onPermission: PermissionHandler? = nil,
        onHook: HookHandler? = nil, onCommand: CommandHandler? = nil, onEvent: EventObserver? = nil
    ) throws -> Session {
        var doc = overrides
        doc["v"] = 1
        do {
            doc["snapshot"] = try JSONValue(parsing: snapshot)
        } catch {
            throw RobotaError(code: .invalidJSON, message: "snapshot is not valid JSON: \(error)")
        }
        return try resume(json: JSONCoding.encode(doc), onPermission: onPermission, onHook: onHook, onCommand: onCommand, onEvent: onEvent)
    }

    /// Reopens a session stored under the runtime's `session_dir` by its id.
    public func resume(
        sessionID: String, overrides: [String: JSONValue] = [:], onPermission: PermissionHandler? = nil,
        onHook: HookHandler? = nil, onCommand: CommandHandler? = nil, onEvent: EventObserver? = nil
    ) throws -> Session {
        var doc = overrides
        doc["v"] = 1
        doc["session_id"] = .string(sessionID)
        return try resume(json: JSONCoding.encode(doc), onPermission: onPermission, onHook: onHook, onCommand: onCommand, onEvent: onEvent)
    }

    /// Reopens a session from a raw resume document.
    public func resume(
        json: String, onPermission: PermissionHandler? = nil, onHook: HookHandler? = nil, onCommand: CommandHandler? = nil, onEvent: EventObserver? = nil
    ) throws -> Session {
        try openSession(SessionHandlers(permission: onPermission, hook: onHook, command: onCommand, observer: onEvent)) {
            fn, userData, free, out, error in
            json.withCString { robota_session_resume(handle, $0, fn, userData, free, out, error) }
        }
    }

    /// Runs one of the session constructors with a fresh router as `user_data`.
    func openSession(
        _ handlers: SessionHandlers, delivery: Delivery? = nil,
        _ create: (
            robota_event_fn, UnsafeMutableRawPointer, robota_free_fn, UnsafeMutablePointer<OpaquePointer?>,
            UnsafeMutablePointer<OpaquePointer?>
        ) -> Int32
    ) throws -> Session {
        let router = EventRouter(runtime: self, handlers: handlers)
        var out: OpaquePointer?
        try router.register { userData in
            try check { error in create(eventTrampoline, userData, releaseBox, &out, error) }
        }
        guard let out else { throw RobotaError(code: .internal, message: "the library returned no session") }
        return Session(runtime: self, handle: out, router: router, delivery: delivery)
    }
}
