import Foundation

/// The events of one turn (`Session.stream`), ending after `.turnCompleted`. The turn is
/// submitted by the first `next()`, so creating a stream has no effect until it is iterated,
/// and each iteration of the same `TurnStream` submits a turn of its own.
///
/// Iteration throws: the submit's refusal (`.closed`, `.busy`, `.invalidJSON`, …); after
/// `.turnCompleted` of a failed turn, its failure (`.provider` with the taxonomy of its `.error`
/// event, `.budget`); `.closed` when the session closed before the turn completed; and
/// `CancellationError` when the iterating task is cancelled, which aborts this turn only
/// (`robota_session_abort` with its id). A turn aborted by `abort` or `close` is no failure of
/// the iteration: it ends with the `.aborted` result.
public struct TurnStream: AsyncSequence, Sendable {
    public typealias Element = Event

    let session: Session
    let input: PromptInput

    public func makeAsyncIterator() -> Iterator { Iterator(session: session, input: input) }

    public struct Iterator: AsyncIteratorProtocol {
        let session: Session
        let input: PromptInput
        private var events: AsyncThrowingStream<Event, Error>.AsyncIterator?
        private var failure: ErrorEvent?
        private var pending: Error?
        private var completed = false
        private var done = false

        init(session: Session, input: PromptInput) {
            self.session = session
            self.input = input
        }

        public mutating func next() async throws -> Event? {
            if done { return nil }
            if let pending {
                done = true
                throw pending
            }
            if events == nil {
                try Task.checkCancellation()
                let document: String
                do {
                    document = try input.libraryJSON()
                } catch {
                    done = true
                    throw error
                }
                events = session.openStream(json: document).makeAsyncIterator()
            }
            let event: Event?
            do {
                event = try await events?.next()
            } catch {
                done = true
                throw error
            }
            guard let event else {
                done = true
                if completed { return nil }
                if Task.isCancelled { throw CancellationError() }
                throw RobotaError(code: .closed, message: "the session closed before the turn completed")
            }
            switch event {
            case .error(let e):
                failure = e
            case .turnCompleted(let result):
                completed = true
                if result.stopReason == .error || result.stopReason == .budget || failure?.code == "CONFLICT",
                    case .failure(let error) = TurnWaiters.outcome(of: result, failure: failure)
                {
                    pending = error
                }
            default:
                break
            }
            return event
        }
    }
}
