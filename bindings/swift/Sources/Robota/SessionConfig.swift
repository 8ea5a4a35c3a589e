import Foundation

/// The session document (`robota_session_new`). Keys without a field (`budget`, `agents`,
/// `mcp_servers`, `temperature`, …) go in `extra`.
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
    /// How events reach the host; the `stream`/`run` API needs `.thread` (default) or `.pump`.
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
    /// The context window in tokens (default: what the server tells, else the model table, else
    /// a stated default with a `CONTEXT_WINDOW_ASSUMED` warning).
    public var contextWindow: Int?
    /// Every turn's default tool choice (nil = `.auto`).
    public var toolChoice: ToolChoice?
    /// Automatic compaction threshold: a number in (0, 1] (default 0.835) or `false` (off).
    public var autoCompactThreshold: JSONValue?
    /// Focus of compaction summaries (default: CLAUDE.md's "Compact Instructions").
    public var compactInstructions: String?
    /// The team tools (`listTemplateCategories`, `listTemplates`, `getTemplateDetail`,
    /// `assignTask`; `Runtime.registerTemplate`).
    public var team: Bool?
    public var extra: [String: JSONValue]

    public init(
        provider: String, model: String, systemPrompt: String? = nil, cwd: String? = nil,
        tools: [String]? = nil, permissionMode: PermissionMode? = nil, permissions: PermissionRules? = nil,
        hooks: JSONValue? = nil, maxRounds: Int? = nil, delivery: Delivery? = nil, settings: String? = nil,
        sessionID: String? = nil, name: String? = nil, persist: Bool? = nil, replayEvents: Bool? = nil,
        hostIO: Bool? = nil, budget: SessionBudget? = nil, contextWindow: Int? = nil, toolChoice: ToolChoice? = nil,
        autoCompactThreshold: JSONValue? = nil, compactInstructions: String? = nil, team: Bool? = nil,
        extra: [String: JSONValue] = [:]
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
        self.contextWindow = contextWindow
        self.toolChoice = toolChoice
        self.autoCompactThreshold = autoCompactThreshold
        self.compactInstructions = compactInstructions
        self.team = team
        self.extra = extra
    }

    static let knownKeys: Set<String> = [
        "v", "provider", "model", "system_prompt", "cwd", "tools", "permission_mode", "permissions", "hooks",
        "max_rounds", "delivery", "settings", "session_id", "name", "persist", "replay_events", "host_io", "budget",
        "context_window", "tool_choice", "auto_compact_threshold", "compact_instructions", "team",
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
        try c.put(contextWindow, "context_window")
        try c.put(toolChoice, "tool_choice")
        try c.put(autoCompactThreshold, "auto_compact_threshold")
        try c.put(compactInstructions, "compact_instructions")
        try c.put(team, "team")
    }

    init(reading c: KeyedDecodingContainer<DynamicKey>) throws {
        self.init(
            provider: try c.need("provider"), model: try c.need("model"), systemPrompt: try c.get("system_prompt"),
            cwd: try c.get("cwd"), tools: try c.get("tools"), permissionMode: try c.get("permission_mode"),
            permissions: try c.get("permissions"), hooks: try c.get("hooks"), maxRounds: try c.get("max_rounds"),
            delivery: try c.get("delivery"), settings: try c.get("settings"), sessionID: try c.get("session_id"),
            name: try c.get("name"), persist: try c.get("persist"), replayEvents: try c.get("replay_events"),
            hostIO: try c.get("host_io"), budget: try c.get("budget"),
            contextWindow: try c.get("context_window"), toolChoice: try c.get("tool_choice"),
            autoCompactThreshold: try c.get("auto_compact_threshold"),
            compactInstructions: try c.get("compact_instructions"), team: try c.get("team"))
    }

    public func encode(to encoder: Encoder) throws { try encodeDocument(to: encoder) }
    public init(from decoder: Decoder) throws { try self.init(document: decoder) }
}

/// How a session's events reach the host (see the header's threading contract).
public enum Delivery: String, Codable, Sendable {
    /// Callbacks on a library-owned dispatcher thread, one at a time, in order.
    case thread
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

/// A prompt to submit (`{"text","display_input"?,"raw_input"?,"tool_choice"?}`).
public struct PromptInput: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    public var text: String
    /// What a UI shows instead of `text`.
    public var displayInput: String?
    /// What the user typed before any expansion.
    public var rawInput: String?
    /// This turn's tool choice (wins over the session's).
    public var toolChoice: ToolChoice?

    public init(_ text: String, displayInput: String? = nil, rawInput: String? = nil, toolChoice: ToolChoice? = nil) {
        self.text = text
        self.displayInput = displayInput
        self.rawInput = rawInput
        self.toolChoice = toolChoice
    }

    public init(stringLiteral value: String) { self.init(value) }

    enum CodingKeys: String, CodingKey {
        case text
        case displayInput = "display_input"
        case rawInput = "raw_input"
        case toolChoice = "tool_choice"
    }
}
