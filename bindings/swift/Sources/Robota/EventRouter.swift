import CRobota
import Foundation

/// The handlers a session was created with.
struct SessionHandlers: Sendable {
    var permission: PermissionHandler?
    var hook: HookHandler?
    var command: CommandHandler?
    var observer: EventObserver?
}

/// The `user_data` of a session: hands each event to the observer, runs the handlers it calls
/// for, and routes it to the stream of its turn, decoding it only for what acts on it or
/// streams it. The decoder's options never change after init, so concurrent decodes (pull
/// hosts reading from several threads) are safe.
final class EventRouter: CallbackBox, @unchecked Sendable {
    typealias Continuation = AsyncThrowingStream<Event, Error>.Continuation

    /// Strong: answering requests needs the runtime handle. The library owns this box and
    /// releases it when the session is released, so this is no cycle.
    let runtime: Runtime
    let handlers: SessionHandlers
    /// One decoder for every session: its options never change, so concurrent decodes are
    /// safe, and a session costs no decoder of its own.
    private static let decoder = JSONDecoder()
    private var decoder: JSONDecoder { Self.decoder }
    /// Guards the router's state, the waiters' and the session's `id` (one lock per session);
    /// never held while calling out.
    let lock = NSLock()
    private var streams: [UInt64: Continuation] = [:]
    private var closed = false
    /// The last event's payload buffer, reused when no `TurnEvent` kept it.
    private var spare: PayloadBuffer?
    /// The async `Session.wait` calls, resumed from the turns' completion events.
    let waiters: TurnWaiters

    init(runtime: Runtime, handlers: SessionHandlers) {
        self.runtime = runtime
        self.handlers = handlers
        waiters = TurnWaiters(lock: lock)
    }

    deinit {
        // The session was released with streams still open: they end (their turns were aborted).
        let error = RobotaError(code: .closed, message: "the session was released")
        streams.values.forEach { $0.finish(throwing: error) }
        waiters.close(error)
    }

    /// Submits with `submit` and registers `continuation` for the new turn. The lock is held
    /// across the submit so the turn's first event cannot be routed before its stream exists.
    func open(_ continuation: Continuation, submit: () throws -> UInt64) throws -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        if closed { throw RobotaError(code: .closed, message: "the session is closed") }
        let turnID = try submit()
        streams[turnID] = continuation
        return turnID
    }

    /// Routes no more events of turn `turnID` to its stream (its consumer was cancelled).
    func dropStream(turn turnID: UInt64) {
        lock.lock()
        streams[turnID] = nil
        lock.unlock()
    }

    /// Submits with `submit` unless the session closed (`Session.run`: no stream, the turn's
    /// completion resumes its waiter).
    func submit(_ submit: () throws -> UInt64) throws -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        if closed { throw RobotaError(code: .closed, message: "the session is closed") }
        return try submit()
    }

    /// An event from the C callback. One that nothing here would look at — no `onEvent`
    /// observer, no stream for its turn, a kind the router does not act on — is not copied;
    /// the observer gets the payload undecoded (`TurnEvent.event` decodes it).
    func deliver(kind: UInt32, turnID: UInt64, payload: UnsafeRawBufferPointer, session: OpaquePointer?) {
        if handlers.observer == nil, !Self.actsOn(EventKind(rawValue: kind)) {
            lock.lock()
            let streamed = streams[turnID] != nil
            lock.unlock()
            if !streamed { return }
        }
        route(TurnEvent(turnID: turnID, kind: kind, payload: payload, reuse: buffer), session: session)
    }

    /// A buffer holding a copy of `payload`: the spare one when nothing else refers to it any
    /// more and it is large enough, else a new one (kept as the spare unless it is large).
    private func buffer(_ payload: UnsafeRawBufferPointer) -> PayloadBuffer {
        lock.lock()
        defer { lock.unlock() }
        if var buffer = spare {
            spare = nil  // `buffer` is the router's only reference now
            if isKnownUniquelyReferenced(&buffer), buffer.capacity >= payload.count {
                buffer.write(payload)
                spare = buffer
                return buffer
            }
        }
        let buffer = PayloadBuffer.copy(payload)
        if buffer.capacity <= PayloadBuffer.maximumKept { spare = buffer }
        return buffer
    }

    /// The kinds `route` decodes and acts on: requests and their cancellation, host I/O, and
    /// what ends turns and waits.
    private static func actsOn(_ kind: EventKind) -> Bool {
        switch kind {
        case .toolCall, .toolCallCancelled, .permissionRequest, .hookRequest, .commandRequest, .requestCancelled, .hostIO,
            .error, .turnCompleted, .sessionClosed:
            return true
        default:
            return false
        }
    }

    /// A pull-mode event document.
    func deliver(pulled json: String, session: OpaquePointer) -> TurnEvent {
        let doc = (try? JSONValue(parsing: json)) ?? .object([:])
        let event = TurnEvent(
            turnID: UInt64(clamping: doc["turn_id"]?.intValue ?? 0), event: Event(pulled: doc, decoder: decoder))
        route(event, session: session)
        return event
    }

    /// Shows the event to the observer and streams it; an event of a kind the router acts on
    /// goes to `act(on:item:session:)`. Only what is streamed or acted on is decoded here.
    private func route(_ item: TurnEvent, session: OpaquePointer?) {
        guard Self.actsOn(item.kind) else {
            handlers.observer?(item)
            lock.lock()
            let streamed = !streams.isEmpty
            lock.unlock()
            if streamed { stream(item) }
            return
        }
        act(on: item.event, item: item, session: session)
    }

    /// Yields `item` to the stream of its turn, if it has one.
    private func stream(_ item: TurnEvent) {
        lock.lock()
        let stream = streams[item.turnID]
        lock.unlock()
        stream?.yield(item.event)
    }

    /// Runs what `event` asks of the host, shows it to the observer, streams it, and resolves
    /// the waits it ends.
    private func act(on event: Event, item: TurnEvent, session: OpaquePointer?) {
        act(on: event, session: session)
        handlers.observer?(item)
        lock.lock()
        let stream = streams.isEmpty ? nil : streams[item.turnID]
        var ending: [Continuation] = []
        switch event {
        case .turnCompleted:
            streams[item.turnID] = nil
        case .sessionClosed:
            closed = true
            ending = Array(streams.values)
            streams.removeAll()
        default:
            break
        }
        lock.unlock()
        if let stream {
            stream.yield(event)
            if case .turnCompleted = event { stream.finish() }
        }
        ending.forEach { $0.finish() }
        // Last: a resumed `wait` finds every event of its turn delivered.
        switch event {
        case .error(let error): waiters.noteError(error, turn: item.turnID)
        case .turnCompleted(let result): waiters.complete(result, turn: item.turnID)
        case .sessionClosed: waiters.close(RobotaError(code: .closed, message: "the session was closed"))
        default: break
        }
    }

    /// Runs what an event asks of the host: handlers for requests, cancellation of tool tasks.
    private func act(on event: Event, session: OpaquePointer?) {
        let runtime = self.runtime
        switch event {
        case .toolCallCancelled(let callID):
            runtime.toolTasks.cancel(callID)
        case .requestCancelled(let cancelled):
            if cancelled.requestKind == .toolCall {
                runtime.toolTasks.cancel(cancelled.requestID)
            } else {
                runtime.requestTasks.cancel(cancelled.requestKind, cancelled.requestID)
            }
        case .toolCall(let call):
            // Pull sessions get calls of handler-backed tools as events: run the handler here.
            if let body = runtime.toolHandler(named: call.toolName) {
                runtime.toolTasks.start(call, session: session, body: body, runtime: runtime)
            }
        case .permissionRequest(let request):
            if let handler = handlers.permission {
                runtime.requestTasks.start(.permission, request.requestID) {
                    try? runtime.respond(to: request, with: await handler(request))
                }
            }
        case .hookRequest(let request):
            if let handler = handlers.hook {
                runtime.requestTasks.start(.hook, request.requestID) {
                    try? runtime.respond(to: request, with: await handler(request))
                }
            }
        case .commandRequest(let request):
            if let handler = handlers.command {
                runtime.requestTasks.start(.command, request.requestID) {
                    try? runtime.respond(requestID: request.requestID, json: JSONCoding.encode(await handler(request)))
                }
            }
        case .hostIO(let ioID, let request):
            runtime.hostIOEvent(ioID: ioID, request: request)
        default:
            break
        }
    }
}

/// `robota_event_fn` of every session.
let eventTrampoline: robota_event_fn = { userData, session, kind, turnID, payload, length in
    // Only sessions register this function, each with its router (no checked cast per event).
    guard let userData else { return }
    let router = Unmanaged<EventRouter>.fromOpaque(userData).takeUnretainedValue()
    router.deliver(
        kind: kind, turnID: turnID, payload: UnsafeRawBufferPointer(start: payload, count: payload == nil ? 0 : length),
        session: session)
}
