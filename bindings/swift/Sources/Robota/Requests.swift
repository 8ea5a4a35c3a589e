import Foundation

/// A host tool's registration document (`{"name","description","input_schema","read_only"?,"timeout_ms"?}`).
public struct ToolDefinition: Codable, Sendable, Equatable {
    public var name: String
    public var description: String
    /// JSON Schema of the arguments; the library checks calls against it.
    public var inputSchema: JSONValue
    /// A read-only tool runs without a permission prompt in the default mode.
    public var readOnly: Bool?
    /// How long a call may take before the library cancels it.
    public var timeoutMs: Int?

    public init(
        name: String, description: String, inputSchema: JSONValue = ["type": "object"], readOnly: Bool? = nil,
        timeoutMs: Int? = nil
    ) {
        self.name = name
        self.description = description
        self.inputSchema = inputSchema
        self.readOnly = readOnly
        self.timeoutMs = timeoutMs
    }

    enum CodingKeys: String, CodingKey {
        case name, description
        case inputSchema = "input_schema"
        case readOnly = "read_only"
        case timeoutMs = "timeout_ms"
    }
}

/// A call of a host tool.
public struct ToolCall: Codable, Sendable, Equatable {
    /// The id to answer (`Runtime.completeToolCall`); a handler's return value answers it.
    public let callID: UInt64
    public let toolName: String
    public let arguments: JSONValue
    /// The arguments' JSON text as the library sent it (a host tool's call), so
    /// `decodeArguments` decodes it without writing `arguments` out again. Not part of `==`.
    var argumentsText: String?
    /// Whether `FastJSON` read `arguments`, so `ValueDecoder` may decode them.
    var argumentsReadFast = false

    public init(callID: UInt64, toolName: String, arguments: JSONValue) {
        self.callID = callID
        self.toolName = toolName
        self.arguments = arguments
    }

    /// A host tool's call with its arguments' JSON text as the library sent it (text that is
    /// not JSON is taken as a string).
    init(callID: UInt64, toolName: String, argumentsText text: String) {
        if let fast = FastJSON.parse(text) {
            self.init(callID: callID, toolName: toolName, arguments: fast)
            argumentsText = text
            argumentsReadFast = true
        } else if let parsed = try? JSONCoding.decoder().decode(JSONValue.self, from: Data(text.utf8)) {
            self.init(callID: callID, toolName: toolName, arguments: parsed)
            argumentsText = text
        } else {
            self.init(callID: callID, toolName: toolName, arguments: .string(text))
        }
    }

    /// The arguments decoded as `T`.
    public func decodeArguments<T: Decodable>(_ type: T.Type) throws -> T {
        if argumentsReadFast, let decoded = ValueDecoder.decode(T.self, from: arguments) { return decoded }
        if let argumentsText { return try JSONCoding.decoder().decode(T.self, from: Data(argumentsText.utf8)) }
        return try arguments.decode(T.self)
    }

    public static func == (a: ToolCall, b: ToolCall) -> Bool {
        a.callID == b.callID && a.toolName == b.toolName && a.arguments == b.arguments
    }

    enum CodingKeys: String, CodingKey {
        case callID = "call_id"
        case toolName = "tool_name"
        case arguments
    }
}

/// `ROBOTA_EVENT_PERMISSION_REQUEST`: the model wants a tool that needs approval.
public struct PermissionRequest: Codable, Sendable, Equatable {
    public let requestID: UInt64
    public let toolName: String
    public let arguments: JSONValue?
    public let reason: String?
    /// For a call of the `Bash` tool only: the sandbox mode its command runs in,
    /// `"workspace-write"` (the default), `"read-only"` or `"off"` (also for a `hostIO`
    /// session); nil for other tools.
    public let sandbox: String?
    enum CodingKeys: String, CodingKey {
        case requestID = "request_id"
        case toolName = "tool_name"
        case arguments, reason, sandbox
    }
}

/// The answer to a permission request.
public enum PermissionDecision: Sendable, Equatable {
    case allow
    case deny
    /// Allow, and allow this tool for the rest of the session.
    case allowAlways

    var json: String {
        switch self {
        case .allow: return #"{"decision":"allow","remember":false}"#
        case .deny: return #"{"decision":"deny","remember":false}"#
        case .allowAlways: return #"{"decision":"allow","remember":true}"#
        }
    }
}

/// `ROBOTA_EVENT_HOOK_REQUEST`: a `{"type":"host"}` hook to run. `input` is the whole Robota
/// hook input (`hook_event_name`, `tool_name`, `tool_input`, …).
public struct HookRequest: Codable, Sendable, Equatable {
    public let requestID: UInt64
    public let hookEventName: String
    public let toolName: String?
    public let toolInput: JSONValue?
    public let input: JSONValue

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        requestID = try c.decode(UInt64.self, forKey: .requestID)
        hookEventName = try c.decodeIfPresent(String.self, forKey: .hookEventName) ?? ""
        toolName = try c.decodeIfPresent(String.self, forKey: .toolName)
        toolInput = try c.decodeIfPresent(JSONValue.self, forKey: .toolInput)
        input = try JSONValue(from: decoder)
    }

    public func encode(to encoder: Encoder) throws { try input.encode(to: encoder) }

    enum CodingKeys: String, CodingKey {
        case requestID = "request_id"
        case hookEventName = "hook_event_name"
        case toolName = "tool_name"
        case toolInput = "tool_input"
    }
}

/// The answer to a host hook, as a command hook would give it: exit code 0 proceeds, 2 blocks
/// (the model sees `stderr`), anything else is a non-blocking error.
public struct HookResponse: Codable, Sendable, Equatable {
    public var exitCode: Int32
    public var stdout: String
    public var stderr: String

    public init(exitCode: Int32, stdout: String = "", stderr: String = "") {
        self.exitCode = exitCode
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Exit code 0.
    public static let proceed = HookResponse(exitCode: 0)
    /// Exit code 2 with `reason` on stderr.
    public static func block(_ reason: String) -> HookResponse { HookResponse(exitCode: 2, stderr: reason) }

    enum CodingKeys: String, CodingKey {
        case exitCode = "exit_code"
        case stdout, stderr
    }
}

/// The answer of a session command (`{"message","success","data"?}`).
public struct CommandResult: Codable, Sendable, Equatable {
    public let message: String
    public let success: Bool
    public let data: JSONValue?
}

/// Answers a host command (`SessionConfig.commands`), run by `Session.command` or as input
/// `/name args` (in its own task; the command waits for the answer).
public typealias CommandHandler = @Sendable (CommandRequest) async -> CommandReply

/// The host's answer to a command request (`{"message","success"?,"data"?,"prompt"?}`).
public struct CommandReply: Codable, Sendable, Equatable {
    /// What the user sees.
    public var message: String
    /// Whether the command succeeded (the library's default: true).
    public var success: Bool?
    /// Structured data for the caller of `Session.command`.
    public var data: JSONValue?
    /// A prompt to run as a turn after the command (input `/name args` only).
    public var prompt: String?

    public init(message: String, success: Bool? = nil, data: JSONValue? = nil, prompt: String? = nil) {
        self.message = message
        self.success = success
        self.data = data
        self.prompt = prompt
    }
}
