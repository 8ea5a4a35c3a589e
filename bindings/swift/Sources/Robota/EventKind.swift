import CRobota

/// The kind of an event (`ROBOTA_EVENT_*`), known without decoding its payload: an observer
/// that acts on a few kinds tests `TurnEvent.kind` and reads `TurnEvent.event` only for those.
/// Kinds this binding does not know yet (the list is append-only) pass through.
public struct EventKind: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    private init(_ kind: Int32) { rawValue = UInt32(kind) }

    public static let turnStarted = EventKind(ROBOTA_EVENT_TURN_STARTED)
    public static let textDelta = EventKind(ROBOTA_EVENT_TEXT_DELTA)
    public static let thinkingDelta = EventKind(ROBOTA_EVENT_THINKING_DELTA)
    public static let message = EventKind(ROBOTA_EVENT_MESSAGE)
    public static let toolStart = EventKind(ROBOTA_EVENT_TOOL_START)
    public static let toolEnd = EventKind(ROBOTA_EVENT_TOOL_END)
    public static let toolCall = EventKind(ROBOTA_EVENT_TOOL_CALL)
    public static let toolCallCancelled = EventKind(ROBOTA_EVENT_TOOL_CALL_CANCELLED)
    public static let permissionRequest = EventKind(ROBOTA_EVENT_PERMISSION_REQUEST)
    public static let hookRequest = EventKind(ROBOTA_EVENT_HOOK_REQUEST)
    public static let contextUpdate = EventKind(ROBOTA_EVENT_CONTEXT_UPDATE)
    public static let compacted = EventKind(ROBOTA_EVENT_COMPACTED)
    public static let execution = EventKind(ROBOTA_EVENT_EXECUTION)
    public static let warning = EventKind(ROBOTA_EVENT_WARNING)
    public static let error = EventKind(ROBOTA_EVENT_ERROR)
    public static let turnCompleted = EventKind(ROBOTA_EVENT_TURN_COMPLETED)
    public static let sessionClosed = EventKind(ROBOTA_EVENT_SESSION_CLOSED)
    public static let subagent = EventKind(ROBOTA_EVENT_SUBAGENT)
    public static let hostIO = EventKind(ROBOTA_EVENT_HOST_IO)
    public static let commandRequest = EventKind(ROBOTA_EVENT_COMMAND_REQUEST)
    public static let requestCancelled = EventKind(ROBOTA_EVENT_REQUEST_CANCELLED)
    public static let serverTool = EventKind(ROBOTA_EVENT_SERVER_TOOL)
}

extension Event {
    /// The kind of this event (`.other`: the kind it was delivered with).
    public var kind: EventKind {
        switch self {
        case .turnStarted: return .turnStarted
        case .textDelta: return .textDelta
        case .thinkingDelta: return .thinkingDelta
        case .message: return .message
        case .toolStart: return .toolStart
        case .toolEnd: return .toolEnd
        case .toolCall: return .toolCall
        case .toolCallCancelled: return .toolCallCancelled
        case .permissionRequest: return .permissionRequest
        case .hookRequest: return .hookRequest
        case .contextUpdate: return .contextUpdate
        case .compacted: return .compacted
        case .execution: return .execution
        case .warning: return .warning
        case .error: return .error
        case .turnCompleted: return .turnCompleted
        case .sessionClosed: return .sessionClosed
        case .subagent: return .subagent
        case .hostIO: return .hostIO
        case .commandRequest: return .commandRequest
        case .requestCancelled: return .requestCancelled
        case .serverTool: return .serverTool
        case .other(let kind, _): return EventKind(rawValue: kind)
        }
    }
}
