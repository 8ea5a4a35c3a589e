import Foundation

/// `ROBOTA_EVENT_TURN_STARTED`.
public struct TurnStarted: Codable, Sendable, Equatable {
    public let turnID: UInt64
    /// The submitted input document.
    public let input: JSONValue?
    enum CodingKeys: String, CodingKey {
        case turnID = "turn_id"
        case input
    }
}

/// A history message (the Robota universal message, camelCase keys as the library writes them).
public struct ChatMessage: Codable, Sendable, Equatable {
    public let id: String?
    /// `"user"`, `"assistant"`, `"system"` or `"tool"`.
    public let role: String
    public let content: String
    /// `"complete"` or `"interrupted"`.
    public let state: String?
    public let toolCalls: [MessageToolCall]?
    public let toolCallId: String?
    public let name: String?
    public let metadata: JSONValue?
    public let timestamp: String?

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIfPresent(String.self, forKey: .id)
        role = try c.decode(String.self, forKey: .role)
        content = try c.decodeIfPresent(String.self, forKey: .content) ?? ""
        state = try c.decodeIfPresent(String.self, forKey: .state)
        toolCalls = try c.decodeIfPresent([MessageToolCall].self, forKey: .toolCalls)
        toolCallId = try c.decodeIfPresent(String.self, forKey: .toolCallId)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        metadata = try c.decodeIfPresent(JSONValue.self, forKey: .metadata)
        timestamp = try c.decodeIfPresent(String.self, forKey: .timestamp)
    }
}

/// A tool call recorded in an assistant message.
public struct MessageToolCall: Codable, Sendable, Equatable {
    public struct Function: Codable, Sendable, Equatable {
        public let name: String
        /// The arguments as the model wrote them (JSON text).
        public let arguments: String
    }
    public let id: String
    public let type: String?
    public let function: Function
}

/// `ROBOTA_EVENT_TOOL_START`.
public struct ToolStart: Codable, Sendable, Equatable {
    public let toolCallID: String
    public let toolName: String
    /// The argument a UI shows first (a path, a pattern…).
    public let firstArg: String?
    public let arguments: JSONValue?
    enum CodingKeys: String, CodingKey {
        case toolCallID = "tool_call_id"
        case toolName = "tool_name"
        case firstArg = "first_arg"
        case arguments
    }
}

/// `ROBOTA_EVENT_TOOL_END`.
public struct ToolEnd: Codable, Sendable, Equatable {
    public let toolCallID: String
    public let toolName: String
    /// `"success"`, `"error"` or `"denied"`.
    public let result: String
    public let output: String?
    /// A built-in Edit or Write that changed a file: the file as the call named it.
    public let diffFile: String?
    /// With `diffFile`: the changed lines in file order, no context lines (a new file is all
    /// additions); empty otherwise.
    public let diffLines: [DiffLine]
    enum CodingKeys: String, CodingKey {
        case toolCallID = "tool_call_id"
        case toolName = "tool_name"
        case result, output
        case diffFile = "diff_file"
        case diffLines = "diff_lines"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        toolCallID = try c.decode(String.self, forKey: .toolCallID)
        toolName = try c.decode(String.self, forKey: .toolName)
        result = try c.decode(String.self, forKey: .result)
        output = try c.decodeIfPresent(String.self, forKey: .output)
        diffFile = try c.decodeIfPresent(String.self, forKey: .diffFile)
        diffLines = try c.decodeIfPresent([DiffLine].self, forKey: .diffLines) ?? []
    }
}

/// One changed line of a `ToolEnd`'s diff.
public struct DiffLine: Codable, Sendable, Equatable {
    /// `"add"` or `"remove"`.
    public let type: String
    /// The line's text, without its line break.
    public let content: String
    /// From 1: in the new file for an addition, in the old file for a removal.
    public let lineNumber: Int

    public init(type: String, content: String, lineNumber: Int) {
        self.type = type
        self.content = content
        self.lineNumber = lineNumber
    }
}

/// `ROBOTA_EVENT_CONTEXT_UPDATE` (and the `context_state` of results and state).
public struct ContextState: Codable, Sendable, Equatable {
    public let usedTokens: UInt64
    public let maxTokens: UInt64
    public let usedPercentage: Double
    enum CodingKeys: String, CodingKey {
        case usedTokens = "used_tokens"
        case maxTokens = "max_tokens"
        case usedPercentage = "used_percentage"
    }
}

/// `ROBOTA_EVENT_WARNING`.
public struct Warning: Codable, Sendable, Equatable {
    public let message: String
    public let code: String?
}

/// `ROBOTA_EVENT_SUBAGENT`: one event of a child session the Agent tool (or an `agent` hook)
/// started. `event` is the child's event in pull form (`{"kind","type",…}`); the child's tool,
/// permission, hook and host I/O requests are not wrapped: they arrive as their usual events.
public struct SubagentEvent: Codable, Sendable, Equatable {
    public let agentID: String
    public let agentType: String
    /// The parent's Agent tool call (nil for an `agent` hook's child).
    public let parentToolCallID: String?
    public let event: JSONValue
    enum CodingKeys: String, CodingKey {
        case agentID = "agent_id", agentType = "agent_type", parentToolCallID = "parent_tool_call_id", event
    }
}

/// `ROBOTA_EVENT_COMMAND_REQUEST`: a host command (`SessionConfig.commands`) was run, through
/// `Session.command` or as input `/name args`. Answer with `Runtime.respond(requestID:json:)`.
public struct CommandRequest: Codable, Sendable, Equatable {
    /// The runtime-unique id to answer.
    public let requestID: UInt64
    /// The command's name.
    public let name: String
    /// Its argument text (may be empty).
    public let args: String
    enum CodingKeys: String, CodingKey {
        case requestID = "request_id", name, args
    }
}

/// `ROBOTA_EVENT_ERROR`: a failure in the Robota error taxonomy.
public struct ErrorEvent: Codable, Sendable, Equatable {
    public let code: String?
    public let category: String?
    public let recoverable: Bool?
    public let message: String
    /// A store conflict's (`code` `"CONFLICT"`) session, the version it replaced and the one the store holds.
    public let sessionID: String?
    public let expectedVersion: Int64?
    public let storedVersion: Int64?

    enum CodingKeys: String, CodingKey {
        case code, category, recoverable, message
        case sessionID = "session_id", expectedVersion = "expected_version", storedVersion = "stored_version"
    }
}

/// Why a turn stopped. Known reasons are static members; later ones pass through.
public struct StopReason: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public static let complete: StopReason = "complete"
    public static let aborted: StopReason = "aborted"
    public static let error: StopReason = "error"
    public static let maxRounds: StopReason = "max_rounds"
    public static let contextLimit: StopReason = "context_limit"
    public static let refusal: StopReason = "refusal"
    public static let maxTokens: StopReason = "max_tokens"
    public static let budget: StopReason = "budget"
    /// The answer did not match the output schema, also after one repair round.
    public static let schemaError: StopReason = "schema_error"
}

/// Token usage summed over a turn's model calls.
public struct Usage: Codable, Sendable, Equatable {
    public let inputTokens: UInt64
    public let outputTokens: UInt64
    public let totalTokens: UInt64?
    enum CodingKeys: String, CodingKey {
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case totalTokens = "total_tokens"
    }
}

/// `ROBOTA_EVENT_TURN_COMPLETED`: how a turn ended; what `Session.run` returns.
public struct TurnResult: Codable, Sendable, Equatable {
    public let turnID: UInt64
    public let stopReason: StopReason
    /// The final assistant text.
    public let response: String
    /// One entry per tool the turn ran (`{"name","args"}`).
    public let toolSummaries: [JSONValue]?
    public let contextState: ContextState?
    public let usage: Usage?
    /// Why a failed turn failed.
    public let error: String?
    /// The answer validated against the turn's output schema (nil without one).
    public let output: JSONValue?
    enum CodingKeys: String, CodingKey {
        case turnID = "turn_id"
        case stopReason = "stop_reason"
        case response
        case toolSummaries = "tool_summaries"
        case contextState = "context_state"
        case usage, error, output
    }

    /// The validated answer decoded as `T`; throws `RobotaError` (`.notFound`) when the turn
    /// has no structured output.
    public func decodeOutput<T: Decodable>(_ type: T.Type) throws -> T {
        guard let output else {
            throw RobotaError(code: .notFound, message: "turn \(turnID) has no structured output")
        }
        return try output.decode(T.self)
    }
}

/// `ROBOTA_EVENT_SERVER_TOOL`: a tool the provider's server ran while the model answered.
public struct ServerToolUse: Codable, Sendable, Equatable {
    /// The server tool's name, e.g. `"web_search"`.
    public let toolName: String
    /// `"started"`: the server runs it; its results come back inside the model's answer.
    public let status: String
    /// The input's search query, when it has one.
    public let query: String?
    /// The tool's whole input.
    public let input: JSONValue
    enum CodingKeys: String, CodingKey { case toolName = "tool_name", status, query, input }
}
