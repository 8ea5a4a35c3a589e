import CRobota
import Foundation

/// Which history `Session.messages` returns.
public enum MessagesView: String, Sendable {
    /// The messages the model sees (system prompt and tool results included).
    case conversation
    /// The UI's chat entries.
    case messages
    /// The full UI timeline (`Session.history()`).
    case history
}

/// `robota_session_state`, decoded. `document` holds every field the library sent.
public struct SessionState: Sendable, Equatable {
    public let sessionID: String
    public let name: String?
    public let executing: Bool
    public let closed: Bool
    public let currentTurn: UInt64?
    public let queuedTurn: UInt64?
    public let pendingPrompt: String?
    public let streamingText: String?
    public let messageCount: Int
    public let model: String?
    public let provider: String?
    public let delivery: Delivery?
    public let permissionMode: String?
    public let contextState: ContextState?
    /// Each MCP server of the session (`mcp_servers`; docs/subagents-team-mcp.md "MCP tool servers").
    public let mcpServers: [MCPServerState]
    public let document: JSONValue

    init(_ doc: JSONValue) {
        document = doc
        sessionID = doc["session_id"]?.stringValue ?? ""
        name = doc["name"]?.stringValue
        executing = doc["executing"]?.boolValue ?? false
        closed = doc["closed"]?.boolValue ?? false
        currentTurn = doc["current_turn"]?.intValue.map { UInt64(clamping: $0) }
        queuedTurn = doc["queued_turn"]?.intValue.map { UInt64(clamping: $0) }
        pendingPrompt = doc["pending_prompt"]?.stringValue
        streamingText = doc["streaming_text"]?.stringValue
        messageCount = Int(clamping: doc["message_count"]?.intValue ?? 0)
        model = doc["model"]?.stringValue
        provider = doc["provider"]?.stringValue
        delivery = doc["delivery"]?.stringValue.flatMap(Delivery.init(rawValue:))
        permissionMode = doc["permission_mode"]?.stringValue
        contextState = try? doc["context_state"]?.decode(ContextState.self)
        mcpServers = (try? doc["mcp_servers"]?.decode([MCPServerState].self)) ?? []
    }
}

/// One MCP server as `robota_session_state` (and the `mcp` command) shows it.
public struct MCPServerState: Codable, Sendable, Equatable {
    public let name: String
    /// `"stdio"` or `"http"`.
    public let transport: String
    /// `"connected"` or `"failed"`.
    public let state: String
    /// How many of its tools the session offers.
    public let tools: Int
    /// Why it failed (nil while connected).
    public let reason: String?
}

extension Session {
    /// Runs a command (`robota_session_command`): `help`, `clear`, `compact`, `mode`, `model`,
    /// `cost`, `context`, `permissions`, `cancel_queue`, … Throws `.notFound` for an unknown one.
    public func command(_ name: String, args: String = "") throws -> CommandResult {
        let doc = try JSONCoding.encode(["name": name, "args": args])
        return try JSONCoding.decode(CommandResult.self, from: command(json: doc), what: "command result")
    }

    /// Runs a raw command document and returns the library's JSON answer.
    public func command(json: String) throws -> String {
        try checkString { out, error in json.withCString { robota_session_command(handle, $0, out, error) } }
    }

    /// Appends a message to the conversation between turns without calling the model
    /// (`robota_session_inject_message`; `role` is `"user"`, `"assistant"` or `"system"`). It is
    /// reported as a `.message` event and a context update, kept in the transcript and the saved
    /// session, and sent with the next turn. Throws `.invalidConfig` naming a bad role, `.busy`
    /// during a turn, `.closed` after close.
    public func injectMessage(role: String, content: String) throws {
        let doc = try JSONCoding.encode(["role": role, "content": content])
        _ = try check { error in doc.withCString { robota_session_inject_message(handle, $0, error) } }
    }

    /// A consistent snapshot of the history, also during a turn (`robota_session_messages`).
    public func messages(view: MessagesView = .conversation) throws -> [ChatMessage] {
        struct Doc: Decodable { let messages: [ChatMessage] }
        guard view != .history else {
            throw RobotaError(code: .invalidConfig, message: "the history view holds timeline entries, not messages: use history()")
        }
        return try JSONCoding.decode(Doc.self, from: messagesJSON(view: view), what: "messages").messages
    }

    /// The full UI timeline (`{"view":"history"}`): messages and tool entries.
    public func history() throws -> [JSONValue] {
        struct Doc: Decodable { let entries: [JSONValue] }
        return try JSONCoding.decode(Doc.self, from: messagesJSON(view: .history), what: "history").entries
    }

    /// The raw messages document of `view`.
    public func messagesJSON(view: MessagesView = .conversation) throws -> String {
        let query = #"{"view":"\#(view.rawValue)"}"#
        return try checkString { out, error in query.withCString { robota_session_messages(handle, $0, out, error) } }
    }

    /// The session's state (`robota_session_state`).
    public func state() throws -> SessionState {
        SessionState(try JSONValue(parsing: stateJSON()))
    }

    /// The raw state document.
    public func stateJSON() throws -> String {
        try checkString { robota_session_state(handle, $0, $1) }
    }

    /// A versioned snapshot for `Runtime.resume(snapshot:)` (`robota_session_save`); it never
    /// contains API keys.
    public func save() throws -> String {
        try checkString { robota_session_save(handle, $0, $1) }
    }

    /// Pull delivery: the next event (`robota_session_next_event`), waiting up to `timeout`
    /// seconds (nil: forever; 0: poll). Returns nil when none arrived in time. Requests are
    /// answered by the session's handlers and handler-backed tools run, as in the other modes.
    /// Throws `.closed` after `.sessionClosed` was read, `.unsupported` for other modes. Blocks
    /// the calling thread.
    public func nextEvent(timeout: TimeInterval? = nil) throws -> TurnEvent? {
        do {
            let json = try checkString { out, error in robota_session_next_event(handle, milliseconds(timeout), out, error) }
            return router.deliver(pulled: json, session: handle)
        } catch let error as RobotaError where error.code == .timeout {
            return nil
        }
    }

    /// Pump delivery: delivers up to `maxEvents` queued events (0: all) on the calling thread,
    /// waiting up to `timeout` seconds for the first (`robota_session_dispatch`). Returns how
    /// many were delivered. Throws `.unsupported` for other modes, `.busy` when another
    /// thread pumps, `.reentrant` inside a callback.
    @discardableResult
    public func dispatch(maxEvents: Int32 = 0, timeout: TimeInterval? = 0) throws -> Int {
        let n = robota_session_dispatch(handle, maxEvents, milliseconds(timeout))
        try checkStatus(min(n, 0))
        return Int(n)
    }
}
