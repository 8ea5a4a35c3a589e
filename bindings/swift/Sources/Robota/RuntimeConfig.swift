import Foundation

/// The runtime config document (`robota_runtime_new`): named model providers and runtime-wide
/// settings. Keys without a field go in `extra`.
public struct RuntimeConfig: ExtensibleDocument, Sendable, Equatable {
    /// Providers by the name sessions refer to.
    public var providers: [String: ProviderConfig]
    /// Async worker threads (library default: one per core, at least 1), started when a
    /// session first needs them: a host that only uses `Session.drive` starts none.
    public var workerThreads: Int?
    /// Where sessions with `persist` are stored.
    public var sessionDir: String?
    /// How long permission and hook requests wait for an answer (library default 5 min).
    public var requestTimeoutMs: Int?
    /// What an unanswered permission request becomes: `"deny"` (default) or `"allow"`.
    public var requestTimeoutDecision: String?
    /// Variables looked up before the process environment (`$ENV:` references, `ROBOTA_HOME`,
    /// `HOME`); the process environment is never changed.
    public var env: [String: String]?
    /// Accepted for compatibility; no effect (unknown keys are always refused).
    public var strict: Bool?
    /// Plugin folders (absolute paths) every session of the runtime loads (ABI 1.2; a settings
    /// `enabledPlugins` entry `false` turns one off).
    public var pluginDirs: [String]?
    public var extra: [String: JSONValue]

    public init(
        providers: [String: ProviderConfig], workerThreads: Int? = nil, sessionDir: String? = nil,
        requestTimeoutMs: Int? = nil, requestTimeoutDecision: String? = nil, env: [String: String]? = nil,
        strict: Bool? = nil, pluginDirs: [String]? = nil, extra: [String: JSONValue] = [:]
    ) {
        self.providers = providers
        self.workerThreads = workerThreads
        self.sessionDir = sessionDir
        self.requestTimeoutMs = requestTimeoutMs
        self.requestTimeoutDecision = requestTimeoutDecision
        self.env = env
        self.strict = strict
        self.pluginDirs = pluginDirs
        self.extra = extra
    }

    static let knownKeys: Set<String> = [
        "v", "providers", "worker_threads", "session_dir", "request_timeout_ms", "request_timeout_decision", "env",
        "strict", "plugin_dirs",
    ]

    func encodeKnown(to c: inout KeyedEncodingContainer<DynamicKey>) throws {
        try c.put(1, "v")
        try c.put(providers, "providers")
        try c.put(workerThreads, "worker_threads")
        try c.put(sessionDir, "session_dir")
        try c.put(requestTimeoutMs, "request_timeout_ms")
        try c.put(requestTimeoutDecision, "request_timeout_decision")
        try c.put(env, "env")
        try c.put(strict, "strict")
        try c.put(pluginDirs, "plugin_dirs")
    }

    init(reading c: KeyedDecodingContainer<DynamicKey>) throws {
        self.init(
            providers: try c.need("providers"), workerThreads: try c.get("worker_threads"),
            sessionDir: try c.get("session_dir"), requestTimeoutMs: try c.get("request_timeout_ms"),
            requestTimeoutDecision: try c.get("request_timeout_decision"), env: try c.get("env"),
            strict: try c.get("strict"), pluginDirs: try c.get("plugin_dirs"))
    }

    public func encode(to encoder: Encoder) throws { try encodeDocument(to: encoder) }
    public init(from decoder: Decoder) throws { try self.init(document: decoder) }
}

/// One model provider: a wire format (`kind`) and where and how to reach it.
public struct ProviderConfig: ExtensibleDocument, Sendable, Equatable {
    /// A provider kind. Known kinds are static members; others pass through. (Codable as its
    /// raw string, by the standard library's `RawRepresentable` conformance.)
    public struct Kind: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }

        public static let anthropic: Kind = "anthropic"
        public static let openai: Kind = "openai"
        public static let openaiCompatible: Kind = "openai-compatible"
        public static let gemini: Kind = "gemini"
        /// Deterministic and offline: answers from `turns` in `extra` (see `scripted(turns:)`).
        public static let scripted: Kind = "scripted"
        /// Serves a recording (`SessionConfig.record`) back, offline (see `replay(file:strict:)`).
        public static let replay: Kind = "replay"
    }

    public var kind: Kind
    /// Overrides the vendor's endpoint (a proxy, a local server, a test double).
    public var baseURL: String?
    /// The key, or `"$ENV:NAME"` to read it from the environment.
    public var apiKey: String?
    public var headers: [String: String]?
    public var timeoutMs: Int?
    public var maxRetries: Int?
    public var extra: [String: JSONValue]

    public init(
        kind: Kind, baseURL: String? = nil, apiKey: String? = nil, headers: [String: String]? = nil,
        timeoutMs: Int? = nil, maxRetries: Int? = nil, extra: [String: JSONValue] = [:]
    ) {
        self.kind = kind
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.headers = headers
        self.timeoutMs = timeoutMs
        self.maxRetries = maxRetries
        self.extra = extra
    }

    /// The offline scripted provider: each model call takes the next of `turns`
    /// (`{"deltas":[…],"text","tool_calls":[{"id","name","arguments"}],"delay_ms","hang",
    /// "error":{"kind","message"},"usage"}`); when they run out, `fallback` decides
    /// (`"echo"`: answers `offline:<last user text>`, `"repeat_last"`, `"error"`).
    public static func scripted(turns: [JSONValue], fallback: String? = nil) -> ProviderConfig {
        var extra: [String: JSONValue] = ["turns": .array(turns)]
        if let fallback { extra["fallback"] = .string(fallback) }
        return ProviderConfig(kind: .scripted, extra: extra)
    }

    /// Serves a recording (`SessionConfig.record`) back in order, offline; with `strict` a
    /// request that differs from the recorded one fails the turn, naming the first difference.
    /// The file is read when a session is created.
    public static func replay(file: String, strict: Bool = false) -> ProviderConfig {
        var extra: [String: JSONValue] = ["file": .string(file)]
        if strict { extra["strict"] = .bool(true) }
        return ProviderConfig(kind: .replay, extra: extra)
    }

    static let knownKeys: Set<String> = ["kind", "base_url", "api_key", "headers", "timeout_ms", "max_retries"]

    func encodeKnown(to c: inout KeyedEncodingContainer<DynamicKey>) throws {
        try c.put(kind, "kind")
        try c.put(baseURL, "base_url")
        try c.put(apiKey, "api_key")
        try c.put(headers, "headers")
        try c.put(timeoutMs, "timeout_ms")
        try c.put(maxRetries, "max_retries")
    }

    init(reading c: KeyedDecodingContainer<DynamicKey>) throws {
        self.init(
            kind: try c.need("kind"), baseURL: try c.get("base_url"), apiKey: try c.get("api_key"),
            headers: try c.get("headers"), timeoutMs: try c.get("timeout_ms"), maxRetries: try c.get("max_retries"))
    }

    public func encode(to encoder: Encoder) throws { try encodeDocument(to: encoder) }
    public init(from decoder: Decoder) throws { try self.init(document: decoder) }
}
