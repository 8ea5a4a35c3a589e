import CRobota
import Foundation

/// Waiting for turns and reading their results.
extension Session {
    /// Waits until turn `turnID` finished (0: until the session is idle) without blocking a
    /// thread. Throws `.aborted` for an aborted turn, `.provider` for a failed one, `.timeout`
    /// when `timeout` (seconds) ran out, `CancellationError` when the task is cancelled (the
    /// turn goes on). With `.thread` and `.inline` delivery a wait for one turn is resumed by
    /// the turn's completion event, once every event of the turn was delivered; with `.pump`
    /// and `.pull` delivery, and for `turn: 0`, it is `robota_session_wait` on a helper thread
    /// (the completion of a pumped turn reaches the binding only when the host dispatches).
    public func wait(turn turnID: UInt64 = 0, timeout: TimeInterval? = nil) async throws {
        let ms = milliseconds(timeout)
        guard turnID != 0, ms != 0, delivery == .thread || delivery == .inline else {
            return try await waitOnThread(turn: turnID, milliseconds: ms)
        }
        try await router.waiters.wait(turn: turnID, timeout: timeout) { [self] in libraryOutcome(turn: turnID) }
    }

    /// For turns the router has no record of (finished long ago, or never issued): the
    /// library's outcome of turn `turnID` without waiting, nil while it runs.
    func libraryOutcome(turn turnID: UInt64) -> TurnOutcome? {
        var error: OpaquePointer?
        let status = robota_session_wait(handle, turnID, 0, &error)
        if status == ROBOTA_E_TIMEOUT {
            robota_error_free(error)
            return nil
        }
        guard status == ROBOTA_OK else { return .failure(RobotaError(status: status, consuming: error)) }
        robota_error_free(error)
        return .success(())
    }

    /// `robota_session_wait` on a helper thread (a poll with timeout 0 runs on the caller's).
    private func waitOnThread(turn turnID: UInt64, milliseconds ms: Int32) async throws {
        if ms == 0 { return try waitBlocking(turn: turnID, milliseconds: 0) }
        let outcome: Result<Void, RobotaError> = await withCheckedContinuation { continuation in
            Thread { [self] in
                continuation.resume(returning: Result { try waitBlocking(turn: turnID, milliseconds: ms) }
                    .mapError { $0 as? RobotaError ?? RobotaError(code: .internal, message: "\($0)") })
            }.start()
        }
        try outcome.get()
    }

    /// `robota_session_wait` on the calling thread (blocks it). Throws `.reentrant` inside a callback.
    public func waitBlocking(turn turnID: UInt64 = 0, timeout: TimeInterval? = nil) throws {
        try waitBlocking(turn: turnID, milliseconds: milliseconds(timeout))
    }

    private func waitBlocking(turn turnID: UInt64, milliseconds: Int32) throws {
        try check { robota_session_wait(handle, turnID, milliseconds, $0) }
    }

    /// The result of turn `turnID` once it finished (`robota_session_wait_result`): waits as
    /// `wait(turn:timeout:)`, returns the turn's `TurnResult` (an aborted turn's too, with
    /// `stopReason == .aborted`) and throws for a failed one (`.provider`, `.budget`). Results
    /// are kept for the session's 64 most recent turns: an older one throws `.notFound`.
    public func result(of turnID: UInt64, timeout: TimeInterval? = nil) async throws -> TurnResult {
        guard turnID != 0 else {
            throw RobotaError(code: .invalidConfig, message: "result(of:) needs a turn id (0 names no single turn)")
        }
        do {
            try await wait(turn: turnID, timeout: timeout)
        } catch let error as RobotaError where error.code == .aborted {}
        return try deliveredResult(turn: turnID)
    }

    /// `resultDocument(turn:milliseconds: -1)` without copying the document when the turn's
    /// `.turnCompleted` (the same document) was delivered here: `robota_session_wait` still
    /// gives the turn's status and returns once the completion's callback returned.
    func deliveredResult(turn turnID: UInt64) throws -> TurnResult {
        guard let result = router.waiters.result(turn: turnID) else { return try resultDocument(turn: turnID, milliseconds: -1) }
        var error: OpaquePointer?
        let status = robota_session_wait(handle, turnID, -1, &error)
        guard status == ROBOTA_OK || status == ROBOTA_E_ABORTED else { throw RobotaError(status: status, consuming: error) }
        robota_error_free(error)
        return result
    }

    /// `robota_session_wait_result` for a turn known to be finished (it returns once the turn's
    /// completion callback returned): the result of a completed or aborted turn.
    func resultDocument(turn turnID: UInt64, milliseconds ms: Int32) throws -> TurnResult {
        var out: UnsafeMutablePointer<CChar>?
        var error: OpaquePointer?
        let status = robota_session_wait_result(handle, turnID, ms, &out, &error)
        let document = out.map { text in
            defer { robota_string_free(text) }
            return String(cString: text)
        }
        guard status == ROBOTA_OK || status == ROBOTA_E_ABORTED else { throw RobotaError(status: status, consuming: error) }
        robota_error_free(error)
        guard let document else { throw RobotaError(code: .internal, message: "turn \(turnID) has no result document") }
        return try TurnResult.decode(document, what: "turn \(turnID)'s result")
    }

    /// Runs one turn of a plain-text prompt.
    public func run(_ prompt: String) async throws -> TurnResult { try await run(PromptInput(prompt)) }

    /// Runs one turn whose answer must match `input.outputSchema` (or the session's) and
    /// decodes the validated answer as `T`. A turn whose answer never matched throws
    /// `RobotaError` with `.provider` and the `SCHEMA_ERROR` details.
    public func run<T: Decodable>(_ input: PromptInput, as type: T.Type) async throws -> T {
        try await run(input).decodeOutput(T.self)
    }
}
