import Foundation

/// What a host provider can do and how the library treats its calls (the `capabilities_json` of
/// `robota_runtime_register_provider`). Nil fields take the library's defaults; keys without a
/// field go in `extra`.
public struct ProviderCapabilities: ExtensibleDocument, Sendable, Equatable {
    /// The model ids it serves.
    public var models: [String]?
    /// The context window in tokens.
    public var contextWindow: Int?
    /// The most output tokens of one call.
    public var maxOutputTokens: Int?
    /// Whether it reads images.
    public var vision: Bool?
    /// Whether it supports extended thinking.
    public var thinking: Bool?
    /// Retries of a recoverable failure (library default 2).
    public var maxRetries: Int?
    /// A call that yields nothing for this long fails as a recoverable provider error
    /// (library default 300000 ms).
    public var timeoutMs: Int?
    public var extra: [String: JSONValue]

    public init(
        models: [String]? = nil, contextWindow: Int? = nil, maxOutputTokens: Int? = nil, vision: Bool? = nil,
        thinking: Bool? = nil, maxRetries: Int? = nil, timeoutMs: Int? = nil, extra: [String: JSONValue] = [:]
    ) {
        self.models = models
        self.contextWindow = contextWindow
        self.maxOutputTokens = maxOutputTokens
        self.vision = vision
        self.thinking = thinking
        self.maxRetries = maxRetries
        self.timeoutMs = timeoutMs
        self.extra = extra
    }

    static let knownKeys: Set<String> = [
        "models", "context_window", "max_output_tokens", "vision", "thinking", "max_retries", "timeout_ms",
    ]

    func encodeKnown(to c: inout KeyedEncodingContainer<DynamicKey>) throws {
        try c.put(models, "models")
        try c.put(contextWindow, "context_window")
        try c.put(maxOutputTokens, "max_output_tokens")
        try c.put(vision, "vision")
        try c.put(thinking, "thinking")
        try c.put(maxRetries, "max_retries")
        try c.put(timeoutMs, "timeout_ms")
    }

    init(reading c: KeyedDecodingContainer<DynamicKey>) throws {
        self.init(
            models: try c.get("models"), contextWindow: try c.get("context_window"),
            maxOutputTokens: try c.get("max_output_tokens"), vision: try c.get("vision"), thinking: try c.get("thinking"),
            maxRetries: try c.get("max_retries"), timeoutMs: try c.get("timeout_ms"))
    }

    public func encode(to encoder: Encoder) throws { try encodeDocument(to: encoder) }
    public init(from decoder: Decoder) throws { try self.init(document: decoder) }
}
