import CRobota
import Foundation

/// How a finished turn ended, as `robota_session_wait` reports it.
typealias TurnOutcome = Result<Void, RobotaError>

/// The async `Session.wait` calls of one session: each is a continuation resumed by the
/// router when its turn's `TURN_COMPLETED` has been delivered (no thread waits). The outcomes
/// and results of the most recent `kept` turns are remembered, so a wait that starts after its
/// turn ended resolves at once and `run` returns the delivered result; an older turn is asked
/// of the library without blocking.
final class TurnWaiters: @unchecked Sendable {
    /// Unchecked (no allocation per wait): a waiter is resumed exactly once, by whoever removes
    /// it from `waiting` (or at once, when it never entered it).
    typealias Waiter = UnsafeContinuation<Void, Error>
    static let kept = 64

    /// The router's lock (one lock per session): never held while calling out.
    private let lock: NSLock
    /// Few at a time (usually one): a list, searched.
    private var waiting: [(turn: UInt64, id: Int, waiter: Waiter)] = []
    /// Oldest first, at most `kept`.
    private var finished: [(turn: UInt64, outcome: TurnOutcome, result: TurnResult)] = []
    private var failures: [UInt64: ErrorEvent] = [:]
    private var closedError: RobotaError?
    private var nextID = 0

    init(lock: NSLock) { self.lock = lock }

    /// How many waits are suspended (tests).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return waiting.count
    }

    /// Suspends until turn `turnID` finished; throws its failure, `.timeout` after `timeout`
    /// seconds, `CancellationError` when the task is cancelled. `ask` is the library's
    /// non-blocking answer (`nil`: still running) for turns this object has no record of.
    func wait(turn turnID: UInt64, timeout: TimeInterval?, ask: @escaping @Sendable () -> TurnOutcome?) async throws {
        let id = nextWaiterID()
        let timer = timeout.flatMap { seconds in
            seconds == .infinity ? nil : Task { [self] in
                // At most about 31 years (no overflow); NaN and negatives are 0.
                let bounded = seconds.isNaN ? 0 : min(max(seconds, 0), 1e9)
                try await Task.sleep(nanoseconds: UInt64(bounded * 1_000_000_000))
                resume(turnID, id, .outcome(.failure(RobotaError(
                    code: .timeout, message: "turn \(turnID) did not finish within \(seconds) s"))))
            }
        }
        defer { timer?.cancel() }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: Waiter) in
                lock.lock()
                if let outcome = finishedEntry(turnID)?.outcome {
                    lock.unlock()
                    continuation.resume(with: outcome)
                    return
                }
                if let closedError {
                    // No completion comes any more: the library's answer, or the closing.
                    lock.unlock()
                    continuation.resume(with: ask() ?? .failure(closedError))
                    return
                }
                waiting.append((turnID, id, continuation))
                lock.unlock()
                if Task.isCancelled {
                    resume(turnID, id, .cancelled)
                } else if let outcome = ask() {
                    resume(turnID, id, .outcome(outcome))
                }
            }
        } onCancel: {
            resume(turnID, id, .cancelled)
        }
    }

    private func nextWaiterID() -> Int {
        lock.lock()
        defer { lock.unlock() }
        nextID += 1
        return nextID
    }

    private enum Resolution {
        case outcome(TurnOutcome)
        case cancelled
    }

    /// Resumes waiter `id` of `turnID` if it still waits (whoever removes it resumes it).
    private func resume(_ turnID: UInt64, _ id: Int, _ resolution: Resolution) {
        lock.lock()
        let waiter = waiting.firstIndex { $0.turn == turnID && $0.id == id }.map { waiting.remove(at: $0).waiter }
        lock.unlock()
        switch resolution {
        case .outcome(let outcome): waiter?.resume(with: outcome)
        case .cancelled: waiter?.resume(throwing: CancellationError())
        }
    }

    /// The turn's `ERROR` event (the failure a failed turn's waits throw).
    func noteError(_ event: ErrorEvent, turn turnID: UInt64) {
        lock.lock()
        failures[turnID] = event
        lock.unlock()
    }

    /// The turn's `TURN_COMPLETED` was delivered: records its outcome and resumes its waits.
    func complete(_ result: TurnResult, turn turnID: UInt64) {
        lock.lock()
        let outcome = Self.outcome(of: result, failure: failures.removeValue(forKey: turnID))
        if finished.count == Self.kept { finished.removeFirst() }
        finished.append((turnID, outcome, result))
        // Usually one wait: taken without building a list.
        let first = waiting.firstIndex { $0.turn == turnID }.map { waiting.remove(at: $0).waiter }
        var others: [Waiter] = []
        while let i = waiting.firstIndex(where: { $0.turn == turnID }) { others.append(waiting.remove(at: i).waiter) }
        lock.unlock()
        first?.resume(with: outcome)
        others.forEach { $0.resume(with: outcome) }
    }

    /// The delivered result of turn `turnID`, when it is one of the `kept` most recent.
    func result(turn turnID: UInt64) -> TurnResult? {
        lock.lock()
        defer { lock.unlock() }
        return finishedEntry(turnID)?.result
    }

    /// The record of finished turn `turnID` (under the lock).
    private func finishedEntry(_ turnID: UInt64) -> (turn: UInt64, outcome: TurnOutcome, result: TurnResult)? {
        finished.last { $0.turn == turnID }
    }

    /// The session closed or was released: every wait still suspended throws `error`.
    func close(_ error: RobotaError) {
        lock.lock()
        closedError = closedError ?? error
        let all = waiting.map(\.waiter)
        waiting.removeAll()
        lock.unlock()
        all.forEach { $0.resume(throwing: error) }
    }

    /// What `robota_session_wait` returns for a turn that ended with `result`.
    static func outcome(of result: TurnResult, failure: ErrorEvent?) -> TurnOutcome {
        if let failure, failure.code == "CONFLICT" {
            return .failure(RobotaError(conflict: failure))
        }
        switch result.stopReason {
        case .aborted:
            return .failure(RobotaError(code: .aborted, message: "turn \(result.turnID) was aborted"))
        case .error:
            return .failure(RobotaError(turnFailure: failure, status: .provider, fallback: result.error ?? "the turn failed"))
        case .budget:
            return .failure(RobotaError(turnFailure: failure, status: .budget, fallback: "the session's budget is exhausted"))
        default:
            return .success(())
        }
    }
}
