import CRobota
import Foundation

/// One session event (`ROBOTA_EVENT_*`), decoded. Kinds this binding does not know yet (the
/// list is append-only) arrive as `.other` with their payload.
public enum Event: Sendable, Equatable, Codable {
    case turnStarted(TurnStarted)
    case textDelta(String)
    case thinkingDelta(String)
    /// A message committed to the history.
    case message(ChatMessage)
    case toolStart(ToolStart)
    case toolEnd(ToolEnd)
    /// A call of a host tool registered without a handler; answer with `Runtime.completeToolCall`.
    case toolCall(ToolCall)
    case toolCallCancelled(callID: UInt64)
    /// Answered by the session's `onPermission` handler, or with `Runtime.respond(to:with:)`.
    case permissionRequest(PermissionRequest)
    /// Answered by the session's `onHook` handler, or with `Runtime.respond(to:with:)`.
    case hookRequest(HookRequest)
    case contextUpdate(ContextState)
    case compacted(JSONValue)
    /// A replay boundary event (sessions with `replayEvents`).
    case execution(JSONValue)
    case warning(Warning)
    case error(ErrorEvent)
    case turnCompleted(TurnResult)
    /// The last event of a session.
    case sessionClosed
    /// An event of a subagent (the Agent tool or an `agent` hook) wrapping the child's event.
    case subagent(SubagentEvent)
    /// A host I/O request of a `hostIO` session in pull delivery (`request` is
    /// `{"v":1,"op",…}`); the runtime's `setHostIO` handler answers it, or `Runtime.completeHostIO`.
    case hostIO(ioID: UInt64, request: JSONValue)
    /// A host command (`SessionConfig.commands`) to run; answer with `Runtime.respond(requestID:json:)`
    /// and `{"message","success"?,"data"?,"prompt"?}`.
    case commandRequest(CommandRequest)
    /// A pending host request became void (its turn ended, was aborted, it timed out, or the
    /// session closed); the handler task answering it is cancelled. ABI 1.2.
    case requestCancelled(RequestCancelled)
    /// The provider's server ran one of its own tools while the model answered (Anthropic's
    /// native web search); informational. ABI 1.2.
    case serverTool(ServerToolUse)
    case other(kind: UInt32, payload: JSONValue)

    /// Decodes the payload of event `kind` as the C callback hands it over. Never fails: a
    /// payload that does not have the expected shape becomes `.other`.
    init(kind: UInt32, payload: UnsafeRawBufferPointer, decoder: JSONDecoder) {
        func text() -> String { String(decoding: payload, as: UTF8.self) }
        switch Int32(kind) {
        case ROBOTA_EVENT_TEXT_DELTA: self = .textDelta(text())
        case ROBOTA_EVENT_THINKING_DELTA: self = .thinkingDelta(text())
        default:
            if Event.readsFast(kind), let members = FastJSON.members(payload),
                let event = Event(fastKind: kind, fields: FastFields(members: members))
            {
                self = event
                return
            }
            let data = Data(payload)
            self = Event(kind: kind, data: data, decoder: decoder)
                ?? .other(kind: kind, payload: (try? decoder.decode(JSONValue.self, from: data)) ?? .string(text()))
        }
    }

    /// Decodes a pull-mode event document (`{"v":1,"kind":N,"type","turn_id",…payload}`).
    init(pulled doc: JSONValue, decoder: JSONDecoder) {
        let kind = UInt32(clamping: doc["kind"]?.intValue ?? 0)
        switch Int32(kind) {
        case ROBOTA_EVENT_TEXT_DELTA: self = .textDelta(doc["text"]?.stringValue ?? "")
        case ROBOTA_EVENT_THINKING_DELTA: self = .thinkingDelta(doc["text"]?.stringValue ?? "")
        default:
            self = FastFields(doc).flatMap { Event(fastKind: kind, fields: $0) }
                ?? Event(kind: kind, data: Data(doc.jsonString().utf8), decoder: decoder) ?? .other(kind: kind, payload: doc)
        }
    }

    private init?(kind: UInt32, data: Data, decoder: JSONDecoder) {
        func d<T: Decodable>(_ t: T.Type) -> T? { try? decoder.decode(T.self, from: data) }
        switch Int32(kind) {
        case ROBOTA_EVENT_TURN_STARTED: guard let v = d(TurnStarted.self) else { return nil }; self = .turnStarted(v)
        case ROBOTA_EVENT_MESSAGE: guard let v = d(ChatMessage.self) else { return nil }; self = .message(v)
        case ROBOTA_EVENT_TOOL_START: guard let v = d(ToolStart.self) else { return nil }; self = .toolStart(v)
        case ROBOTA_EVENT_TOOL_END: guard let v = d(ToolEnd.self) else { return nil }; self = .toolEnd(v)
        case ROBOTA_EVENT_TOOL_CALL: guard let v = d(ToolCall.self) else { return nil }; self = .toolCall(v)
        case ROBOTA_EVENT_TOOL_CALL_CANCELLED:
            guard let v = d(CallID.self) else { return nil }
            self = .toolCallCancelled(callID: v.callID)
        case ROBOTA_EVENT_PERMISSION_REQUEST:
            guard let v = d(PermissionRequest.self) else { return nil }
            self = .permissionRequest(v)
        case ROBOTA_EVENT_HOOK_REQUEST: guard let v = d(HookRequest.self) else { return nil }; self = .hookRequest(v)
        case ROBOTA_EVENT_CONTEXT_UPDATE: guard let v = d(ContextState.self) else { return nil }; self = .contextUpdate(v)
        case ROBOTA_EVENT_COMPACTED: guard let v = d(JSONValue.self) else { return nil }; self = .compacted(v)
        case ROBOTA_EVENT_EXECUTION: guard let v = d(JSONValue.self) else { return nil }; self = .execution(v)
        case ROBOTA_EVENT_WARNING: guard let v = d(Warning.self) else { return nil }; self = .warning(v)
        case ROBOTA_EVENT_ERROR: guard let v = d(ErrorEvent.self) else { return nil }; self = .error(v)
        case ROBOTA_EVENT_TURN_COMPLETED: guard let v = d(TurnResult.self) else { return nil }; self = .turnCompleted(v)
        case ROBOTA_EVENT_SESSION_CLOSED: self = .sessionClosed
        case ROBOTA_EVENT_SUBAGENT: guard let v = d(SubagentEvent.self) else { return nil }; self = .subagent(v)
        case ROBOTA_EVENT_HOST_IO:
            guard let v = d(HostIOPayload.self) else { return nil }
            self = .hostIO(ioID: v.ioID, request: v.request)
        case ROBOTA_EVENT_COMMAND_REQUEST: guard let v = d(CommandRequest.self) else { return nil }; self = .commandRequest(v)
        case ROBOTA_EVENT_REQUEST_CANCELLED:
            guard let v = d(RequestCancelled.self) else { return nil }
            self = .requestCancelled(v)
        case ROBOTA_EVENT_SERVER_TOOL: guard let v = d(ServerToolUse.self) else { return nil }; self = .serverTool(v)
        default: return nil
        }
    }

    private struct CallID: Decodable {
        let callID: UInt64
        enum CodingKeys: String, CodingKey { case callID = "call_id" }
    }

    private struct HostIOPayload: Decodable {
        let ioID: UInt64
        let request: JSONValue
        enum CodingKeys: String, CodingKey { case ioID = "io_id", request }
    }
}

/// An event with the turn it belongs to (0 for session-level events such as `.sessionClosed`).
/// One the library delivered keeps its payload and decodes it when `event` is read (a text
/// delta is its text: decoded at once), so an observer that only looks at `kind` decodes nothing.
public struct TurnEvent: Sendable, Equatable {
    public let turnID: UInt64
    public let kind: EventKind
    private let storage: Storage

    /// Small (a `TurnEvent` is passed around per event; an `Event` is large): an event built
    /// whole is boxed.
    private enum Storage: Sendable {
        indirect case decoded(Event)
        /// The text of a text or thinking delta.
        case text(String)
        /// The payload as the library delivered it (valid UTF-8 JSON).
        case payload(PayloadBuffer)
    }

    /// The event. Read from the payload each time it is read: keep the value to look twice.
    public var event: Event {
        switch storage {
        case .decoded(let event):
            return event
        case .text(let text):
            return kind == .thinkingDelta ? .thinkingDelta(text) : .textDelta(text)
        case .payload(let buffer):
            return buffer.withBytes { Event(kind: kind.rawValue, payload: $0, decoder: Self.decoder) }
        }
    }

    /// One decoder for every event: its options never change, so concurrent decodes are safe.
    private static let decoder = JSONDecoder()

    public init(turnID: UInt64, event: Event) {
        self.turnID = turnID
        kind = event.kind
        storage = .decoded(event)
    }

    /// An event of the C callback, whose `payload` is borrowed for the callback: a text delta
    /// is decoded at once, any other kind keeps a copy of the payload in a buffer of `reuse`
    /// (`PayloadBuffer.copy` when nil).
    init(turnID: UInt64, kind: UInt32, payload: UnsafeRawBufferPointer, reuse: (UnsafeRawBufferPointer) -> PayloadBuffer = PayloadBuffer.copy) {
        self.turnID = turnID
        self.kind = EventKind(rawValue: kind)
        switch self.kind {
        case .textDelta, .thinkingDelta:
            storage = .text(String(decoding: payload, as: UTF8.self))
        default:
            storage = .payload(reuse(payload))
        }
    }

    public static func == (a: TurnEvent, b: TurnEvent) -> Bool { a.turnID == b.turnID && a.event == b.event }
}
