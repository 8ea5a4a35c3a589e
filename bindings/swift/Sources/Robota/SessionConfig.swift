import Foundation

/// The session document (`robota_session_new`). Keys without a field (a newer library's) go
/// in `extra`.
public struct SessionConfig: ExtensibleDocument, Sendable, Equatable {
    /// The runtime provider this session talks to.
    public var provider: String
    public var model: String
    public var systemPrompt: String?
    /// Working directory of the built-in tools.
    public var cwd: String?
    /// Built-in and host tools the model may use (default: every host tool registered so far).
    public var tools: [String]?
    public var permissionMode: PermissionMode?
    public var permissions: PermissionRules?
    /// Robota hooks config, e.g. `["PreToolUse": [["matcher": "Bash", "hooks": [["type": "host"]]]]]`;
    /// `{"type":"host"}` hooks are answered by the session's `onHook` handler.
    public var hooks: JSONValue?
    public var maxRounds: Int?
    /// How events reach the host; the `stream`/`run` API needs `.thread` (default), `.inline`
    /// or `.pump`.
    public var delivery: Delivery?
    /// `"none"` (default), `"project"` or `"user"`: which settings files and context to load.
    public var settings: String?
    public var sessionID: String?
    public var name: String?
    /// Save the session under the runtime's `session_dir` after every turn.
    public var persist: Bool?
    /// Deliver replay boundary events (`Event.execution`).
    public var replayEvents: Bool?
    /// Run the built-in tools through the runtime's host I/O handler (`Runtime.setHostIO`).
    public var hostIO: Bool?
    /// Hard limits over the session's life.
    public var budget: SessionBudget?
    /// Append every model request and its response stream to this JSONL file (relative to
    /// `cwd`); a `.replay` provider serves it back.
    public var record: String?
    /// The context window in tokens (default: what the server tells, else the model table, else
    /// a stated default with a `CONTEXT_WINDOW_ASSUMED` warning).
    public var contextWindow: Int?
    /// Every turn's default tool choice (nil = `.auto`).
    public var toolChoice: ToolChoice?
    /// The JSON Schema every turn's answer must match (structured output; a prompt's own
    /// `outputSchema` wins). The validated answer is `TurnResult.output`.
    public var outputSchema: JSONValue?
    /// Automatic compaction threshold: a number in (0, 1] (default 0.835) or `false` (off).
    public var autoCompactThreshold: JSONValue?
    /// Focus of compaction summaries (default: CLAUDE.md's "Compact Instructions").
    public var compactInstructions: String?
    /// Sampling temperature of the model calls.
    public var temperature: Double?
    /// Max output tokens of each model call.
    public var maxTokens: Int?
    /// Extended thinking (Anthropic, Gemini; OpenAI reasoning models get `reasoning_effort`).
    public var thinking: Thinking?
    /// Response language (a section of the system prompt).
    public var language: String?
    /// `"append"` (default: `systemPrompt` follows the assembled prompt) or `"replace"`.
    public var systemPromptMode: String?
    /// Ask for the provider's hosted web search (Anthropic profiles with `"web_search": true`).
    public var nativeWebSearch: Bool?
    /// Prompt caching of the model calls: `"5m"` (default), `"1h"` or `"off"` (docs/prompt-caching.md).
    public var promptCache: String?
    /// Built-in tool configuration: `{"limits":{…},"env":{…},"webSearch":{…}}`.
    public var toolConfig: JSONValue?
    /// What child processes inherit: `{"inherit","exclude","include_only","set"}` (docs/security.md).
    public var toolEnv: JSONValue?
    /// The Bash tool's OS sandbox: `{"mode","writable","deny_read","network","fallback","limits"}`
    /// (docs/security.md).
    public var sandbox: JSONValue?
    /// JSONL transcript: `true` (`<cwd>/.robota/logs`) or a directory path.
    public var transcript: JSONValue?
    /// Host commands: listed by `help`, run by `command` or `/name args` input; their requests
    /// arrive as `ROBOTA_EVENT_COMMAND_REQUEST` events, answered with `Runtime.respond(requestID:json:)`.
    public var commands: [HostCommand]?
    /// The team tools (`listTemplateCategories`, `listTemplates`, `getTemplateDetail`,
    /// `assignTask`; `Runtime.registerTemplate`).
    public var team: Bool?
    /// Subagents by name (`{"description","prompt","tools"?,"model"?}`), offered through the
    /// `Agent` tool.
    public var agents: [String: JSONValue]?
    /// MCP tool servers by name (`{"command","args"?,"env"?,"cwd"?}` or
    /// `{"type":"http","url","headers"?}`); their tools are offered as `mcp__NAME__TOOL`.
    public var mcpServers: [String: JSONValue]?
    /// How long this session's permission and hook requests wait (overrides the runtime's).
    public var requestTimeoutMs: Int?
    /// Accepted for compatibility; no effect (unknown keys are always refused).
    public var strict: Bool?
    public var extra: [String: JSONValue]

    public init(
        provider: String, model: String, systemPrompt: String? = nil, cwd: String? = nil,
        tools: [String]? = nil, permissionMode: PermissionMode? = nil, permissions: PermissionRules? = nil,
        hooks: JSONValue? = nil, maxRounds: Int? = nil, delivery: Delivery? = nil, settings: String? = nil,
        sessionID: String? = nil, name: String? = nil, persist: Bool? = nil, replayEvents: Bool? = nil,
        hostIO: Bool? = nil, budget: SessionBudget? = nil, record: String? = nil, contextWindow: Int? = nil, toolChoice: ToolChoice? = nil,
        outputSchema: JSONValue? = nil, autoCompactThreshold: JSONValue? = nil, compactInstructions: String? = nil,
        temperature: Double? = nil, maxTokens: Int? = nil, thinking: Thinking? = nil, language: String? = nil,
        systemPromptMode: String? = nil, nativeWebSearch: Bool? = nil, promptCache: String? = nil,
        toolConfig: JSONValue? = nil, toolEnv: JSONValue? = nil, sandbox: JSONValue? = nil,
        transcript: JSONValue? = nil, commands: [HostCommand]? = nil, team: Bool? = nil,
        agents: [String: JSONValue]? = nil, mcpServers: [String: JSONValue]? = nil, requestTimeoutMs: Int? = nil,
        strict: Bool? = nil, extra: [String: JSONValue] = [:]
    ) {
        self.provider = provider
        self.model = model
        self.systemPrompt = systemPrompt
        self.cwd = cwd
        self.tools = tools
        self.permissionMode = permissionMode
        self.permissions = permissions
        self.hooks = hooks
        self.maxRounds = maxRounds
        self.delivery = delivery
        self.settings = settings
        self.sessionID = sessionID
        self.name = name
        self.persist = persist
        self.replayEvents = replayEvents
        self.hostIO = hostIO
        self.budget = budget
        self.record = record
        self.contextWindow = contextWindow
        self.toolChoice = toolChoice
        self.outputSchema = outputSchema
        self.autoCompactThreshold = autoCompactThreshold
        self.compactInstructions = compactInstructions
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.thinking = thinking
        self.language = language
        self.systemPromptMode = systemPromptMode
        self.nativeWebSearch = nativeWebSearch
        self.promptCache = promptCache
        self.toolConfig = toolConfig
        self.toolEnv = toolEnv
        self.sandbox = sandbox
        self.transcript = transcript
        self.commands = commands
        self.team = team
        self.agents = agents
        self.mcpServers = mcpServers
        self.requestTimeoutMs = requestTimeoutMs
        self.strict = strict
        self.extra = extra
    }

    static let knownKeys: Set<String> = [
        "v", "provider", "model", "system_prompt", "cwd", "tools", "permission_mode", "permissions", "hooks",
        "max_rounds", "delivery", "settings", "session_id", "name", "persist", "replay_events", "host_io", "budget",
        "record", "context_window", "tool_choice", "output_schema", "auto_compact_threshold", "compact_instructions",
        "temperature", "max_tokens", "thinking", "language", "system_prompt_mode", "native_web_search",
        "prompt_cache", "tool_config", "tool_env", "sandbox", "transcript", "commands", "team", "agents", "mcp_servers", "request_timeout_ms", "strict",
    ]

    func encodeKnown(to c: inout KeyedEncodingContainer<DynamicKey>) throws {
        try c.put(1, "v")
        try c.put(provider, "provider")
        try c.put(model, "model")
        try c.put(systemPrompt, "system_prompt")
        try c.put(cwd, "cwd")
        try c.put(tools, "tools")
        try c.put(permissionMode, "permission_mode")
        try c.put(permissions, "permissions")
        try c.put(hooks, "hooks")
        try c.put(maxRounds, "max_rounds")
        try c.put(delivery, "delivery")
        try c.put(settings, "settings")
        try c.put(sessionID, "session_id")
        try c.put(name, "name")
        try c.put(persist, "persist")
        try c.put(replayEvents, "replay_events")
        try c.put(hostIO, "host_io")
        try c.put(budget, "budget")
        try c.put(record, "record")
        try c.put(contextWindow, "context_window")
        try c.put(toolChoice, "tool_choice")
        try c.put(outputSchema, "output_schema")
        try c.put(autoCompactThreshold, "auto_compact_threshold")
        try c.put(compactInstructions, "compact_instructions")
        try c.put(temperature, "temperature")
        try c.put(maxTokens, "max_tokens")
        try c.put(thinking, "thinking")
        try c.put(language, "language")
        try c.put(systemPromptMode, "system_prompt_mode")
        try c.put(nativeWebSearch, "native_web_search")
        try c.put(promptCache, "prompt_cache")
        try c.put(toolConfig, "tool_config")
        try c.put(toolEnv, "tool_env")
        try c.put(sandbox, "sandbox")
        try c.put(transcript, "transcript")
        try c.put(commands, "commands")
        try c.put(team, "team")
        try c.put(agents, "agents")
        try c.put(mcpServers, "mcp_servers")
        try c.put(requestTimeoutMs, "request_timeout_ms")
        try c.put(strict, "strict")
    }

    init(reading c: KeyedDecodingContainer<DynamicKey>) throws {
        self.init(
            provider: try c.need("provider"), model: try c.need("model"), systemPrompt: try c.get("system_prompt"),
            cwd: try c.get("cwd"), tools: try c.get("tools"), permissionMode: try c.get("permission_mode"),
            permissions: try c.get("permissions"), hooks: try c.get("hooks"), maxRounds: try c.get("max_rounds"),
            delivery: try c.get("delivery"), settings: try c.get("settings"), sessionID: try c.get("session_id"),
            name: try c.get("name"), persist: try c.get("persist"), replayEvents: try c.get("replay_events"),
            hostIO: try c.get("host_io"), budget: try c.get("budget"), record: try c.get("record"),
            contextWindow: try c.get("context_window"), toolChoice: try c.get("tool_choice"),
            outputSchema: try c.get("output_schema"), autoCompactThreshold: try c.get("auto_compact_threshold"),
            compactInstructions: try c.get("compact_instructions"),
            temperature: try c.get("temperature"), maxTokens: try c.get("max_tokens"),
            thinking: try c.get("thinking"), language: try c.get("language"),
            systemPromptMode: try c.get("system_prompt_mode"), nativeWebSearch: try c.get("native_web_search"),
            promptCache: try c.get("prompt_cache"), toolConfig: try c.get("tool_config"),
            toolEnv: try c.get("tool_env"), sandbox: try c.get("sandbox"), transcript: try c.get("transcript"),
            commands: try c.get("commands"), team: try c.get("team"), agents: try c.get("agents"),
            mcpServers: try c.get("mcp_servers"), requestTimeoutMs: try c.get("request_timeout_ms"),
            strict: try c.get("strict"))
    }

    public func encode(to encoder: Encoder) throws { try encodeDocument(to: encoder) }
    public init(from decoder: Decoder) throws { try self.init(document: decoder) }
}

/// Extended thinking with a token budget.
public struct Thinking: Codable, Sendable, Equatable {
    public var budgetTokens: Int
    public init(budgetTokens: Int) { self.budgetTokens = budgetTokens }
    enum CodingKeys: String, CodingKey { case budgetTokens = "budget_tokens" }
}

/// A command the host runs (`SessionConfig.commands`).
public struct HostCommand: Codable, Sendable, Equatable {
    public var name: String
    public var description: String
    public var argumentHint: String?
    public init(name: String, description: String, argumentHint: String? = nil) {
        self.name = name
        self.description = description
        self.argumentHint = argumentHint
    }
    enum CodingKeys: String, CodingKey {
        case name, description
        case argumentHint = "argument_hint"
    }
}

/// How a session's events reach the host (see the header's threading contract).
public enum Delivery: String, Codable, Sendable {
    /// Callbacks on a library-owned dispatcher thread, one at a time, in order.
    case thread
    /// Callbacks on the library's async worker that produced the events, one at a time, in
    /// order (no thread hand-off: the fastest mode). `stream`, `run` and handlers work as with
    /// `.thread`; `onEvent` observers then run on that worker and must never block.
    case inline
    /// Nothing until the host calls `Session.dispatch`; callbacks then run on that thread.
    case pump
    /// No callbacks: the host reads events with `Session.nextEvent`.
    case pull
}

/// The session's permission mode.
public enum PermissionMode: String, Codable, Sendable {
    case plan
    case `default`
    case acceptEdits
    case bypassPermissions
}

/// Allow and deny rules, e.g. `"Read"`, `"Bash(git status:*)"`.
public struct PermissionRules: Codable, Sendable, Equatable {
    public var allow: [String]
    public var deny: [String]
    public init(allow: [String] = [], deny: [String] = []) {
        self.allow = allow
        self.deny = deny
    }
}

/// Whether the model may, must or must not call a tool, or which one: `"auto"`, `"none"`,
/// `"required"` or `{"name":"TOOL"}`. `.required` and a named tool hold for the turn's first
/// model call only; a named tool the session lacks fails with `.invalidConfig` naming it.
public enum ToolChoice: Codable, Sendable, Equatable {
    case auto
    case none
    case required
    case tool(String)

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .auto: var c = encoder.singleValueContainer(); try c.encode("auto")
        case .none: var c = encoder.singleValueContainer(); try c.encode("none")
        case .required: var c = encoder.singleValueContainer(); try c.encode("required")
        case .tool(let name):
            var c = encoder.container(keyedBy: NameKey.self)
            try c.encode(name, forKey: .name)
        }
    }

    public init(from decoder: Decoder) throws {
        if let s = try? decoder.singleValueContainer().decode(String.self) {
            switch s {
            case "auto": self = .auto
            case "none": self = .none
            case "required": self = .required
            default:
                throw DecodingError.dataCorrupted(.init(
                    codingPath: decoder.codingPath, debugDescription: "tool_choice \"\(s)\" is not auto, none or required"))
            }
            return
        }
        let c = try decoder.container(keyedBy: NameKey.self)
        self = .tool(try c.decode(String.self, forKey: .name))
    }

    enum NameKey: String, CodingKey { case name }
}

/// A prompt to submit (`{"text","display_input"?,"raw_input"?,"tool_choice"?,"output_schema"?,
/// "images"?}`).
public struct PromptInput: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    public var text: String
    /// What a UI shows instead of `text`.
    public var displayInput: String?
    /// What the user typed before any expansion.
    public var rawInput: String?
    /// This turn's tool choice (wins over the session's).
    public var toolChoice: ToolChoice?
    /// The JSON Schema this turn's answer must match (wins over the session's); the validated
    /// answer is `TurnResult.output`.
    public var outputSchema: JSONValue?
    /// Images sent after `text` (see ``PromptImage``).
    public var images: [PromptImage]

    public init(
        _ text: String, displayInput: String? = nil, rawInput: String? = nil, toolChoice: ToolChoice? = nil,
        outputSchema: JSONValue? = nil, images: [PromptImage] = []
    ) {
        self.text = text
        self.displayInput = displayInput
        self.rawInput = rawInput
        self.toolChoice = toolChoice
        self.outputSchema = outputSchema
        self.images = images
    }

    public init(stringLiteral value: String) { self.init(value) }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try c.decode(String.self, forKey: .text),
            displayInput: try c.decodeIfPresent(String.self, forKey: .displayInput),
            rawInput: try c.decodeIfPresent(String.self, forKey: .rawInput),
            toolChoice: try c.decodeIfPresent(ToolChoice.self, forKey: .toolChoice),
            outputSchema: try c.decodeIfPresent(JSONValue.self, forKey: .outputSchema),
            images: try c.decodeIfPresent([PromptImage].self, forKey: .images) ?? [])
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(text, forKey: .text)
        try c.encodeIfPresent(displayInput, forKey: .displayInput)
        try c.encodeIfPresent(rawInput, forKey: .rawInput)
        try c.encodeIfPresent(toolChoice, forKey: .toolChoice)
        try c.encodeIfPresent(outputSchema, forKey: .outputSchema)
        if !images.isEmpty { try c.encode(images, forKey: .images) }
    }

    enum CodingKeys: String, CodingKey {
        case text
        case displayInput = "display_input"
        case rawInput = "raw_input"
        case toolChoice = "tool_choice"
        case outputSchema = "output_schema"
        case images
    }
}

extension PromptInput {
    /// The input document for the library: a plain prompt written directly, others by `JSONEncoder`.
    func libraryJSON() throws -> String {
        guard displayInput == nil, rawInput == nil, toolChoice == nil, outputSchema == nil, images.isEmpty else {
            return try JSONCoding.encode(self)
        }
        var json = "{\"text\":"
        json.reserveCapacity(text.utf8.count + 11)
        JSONCoding.appendQuoted(text, to: &json)
        json += "}"
        return json
    }
}

/// One image of a prompt: PNG, JPEG, GIF or WebP, at most 20 per prompt, each at most 5 MiB.
/// A bad image (a missing file, an unknown media type, bytes that are not the stated type,
/// over 5 MiB) fails the submit with `RobotaError.Code.invalidConfig` naming it (`images[i]`).
public enum PromptImage: Codable, Sendable, Equatable {
    /// The image's bytes with their media type (`image/png`, `image/jpeg`, `image/gif`, `image/webp`).
    case data(Data, mediaType: String)
    /// A file the library reads at submit; its type is told by its bytes.
    case file(URL)
    /// An `http(s)` URL the model's vendor fetches.
    case url(URL)

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let path = try c.decodeIfPresent(String.self, forKey: .path) {
            self = .file(URL(fileURLWithPath: path))
        } else if let url = try c.decodeIfPresent(URL.self, forKey: .url) {
            self = .url(url)
        } else {
            let text = try c.decode(String.self, forKey: .data)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorruptedError(forKey: .data, in: c, debugDescription: "not base64")
            }
            self = .data(data, mediaType: try c.decode(String.self, forKey: .mediaType))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .data(data, mediaType):
            try c.encode(data.base64EncodedString(), forKey: .data)
            try c.encode(mediaType, forKey: .mediaType)
        case let .file(url): try c.encode(url.path, forKey: .path)
        case let .url(url): try c.encode(url.absoluteString, forKey: .url)
        }
    }

    enum CodingKeys: String, CodingKey {
        case data, path, url
        case mediaType = "media_type"
    }
}
