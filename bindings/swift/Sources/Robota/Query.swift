import CRobota
import Foundation

/// The outcome of `Runtime.query` (`robota_query`).
public struct QueryResult: Decodable, Sendable, Equatable {
    public let response: String
    public let stopReason: StopReason
    /// Summed over the turn's model calls.
    public let usage: Usage?
    /// Set when the session was persisted (`persist: true`).
    public let sessionID: String?
    /// The conversation the model saw, system prompt first.
    public let messages: [ChatMessage]
    /// The answer validated against the config's `outputSchema` (nil without one).
    public let output: JSONValue?

    enum CodingKeys: String, CodingKey {
        case response, usage, messages, output
        case stopReason = "stop_reason"
        case sessionID = "session_id"
    }
}

extension Runtime {
    /// One shot (`robota_query`, createQuery): runs `prompt` in a temporary session built from
    /// `config` (permission mode defaults to `bypassPermissions`), to completion. Blocks the
    /// calling thread; events are not streamed (use a `Session` for that). A failed turn
    /// throws `.provider`.
    public func query(_ prompt: String, config: SessionConfig) throws -> QueryResult {
        var doc = config
        doc.extra["prompt"] = .string(prompt)
        let out = try query(json: JSONCoding.encode(doc))
        return try JSONCoding.decode(QueryResult.self, from: out, what: "query result")
    }

    /// Runs a raw query document (session JSON plus `"prompt"`) and returns the library's JSON.
    public func query(json: String) throws -> String {
        try checkString { out, error in json.withCString { robota_query(handle, $0, nil, nil, nil, out, error) } }
    }
}
