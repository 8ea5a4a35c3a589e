import Foundation

/// A model the host brings (an on-device model, its own HTTP stack, a gateway), registered with
/// `Runtime.register(provider:named:capabilities:)`. Sessions, agents, compaction and `query`
/// name it like any provider profile.
///
/// `stream` is called once per model call, in a task of its own. Yield the answer as it is
/// generated; finishing the stream ends the call (stop reason `toolUse` when tool calls were
/// yielded, else `endTurn`; yield `.done` to choose one). Throwing ends it with an error:
/// a `ModelProviderError` with its class, anything else as class `provider`. When the library
/// cancels the call (an abort, a closed session, a timeout, the runtime released) the consuming
/// task is cancelled: the stream's `onTermination` runs with `.cancelled`.
public protocol ModelProvider: Sendable {
    func stream(_ request: ModelRequest) -> AsyncThrowingStream<ModelEvent, Error>
}

/// What a host provider yields for a model call.
public enum ModelEvent: Sendable, Equatable {
    /// A text delta.
    case text(String)
    /// A thinking delta.
    case thinking(String)
    /// A whole tool call; `arguments` is a JSON object.
    case toolCall(id: String, name: String, arguments: JSONValue)
    /// A streamed tool call: `.toolCallStart`, then `.toolCallDelta`s whose `arguments`
    /// fragments concatenate to a JSON object, then `.toolCallEnd`.
    case toolCallStart(id: String, name: String)
    case toolCallDelta(id: String, arguments: String)
    case toolCallEnd(id: String)
    /// Token counts of the call.
    case usage(input: Int, output: Int)
    /// Ends the call with `reason`; the stream is not read further.
    case done(ModelStopReason)

    /// The event document `robota_provider_push` takes.
    var document: JSONValue {
        switch self {
        case .text(let text): return ["type": "text", "text": .string(text)]
        case .thinking(let text): return ["type": "thinking", "text": .string(text)]
        case .toolCall(let id, let name, let arguments):
            return ["type": "tool_call", "id": .string(id), "name": .string(name), "arguments": arguments]
        case .toolCallStart(let id, let name): return ["type": "tool_call_start", "id": .string(id), "name": .string(name)]
        case .toolCallDelta(let id, let arguments):
            return ["type": "tool_call_delta", "id": .string(id), "arguments": .string(arguments)]
        case .toolCallEnd(let id): return ["type": "tool_call_end", "id": .string(id)]
        case .usage(let input, let output):
            return ["type": "usage", "input_tokens": .integer(Int64(input)), "output_tokens": .integer(Int64(output))]
        case .done(let reason): return ["type": "done", "stop_reason": .string(reason.rawValue)]
        }
    }
}

/// Why a model call stopped. Known reasons are static members; later ones pass through.
public struct ModelStopReason: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public static let endTurn: ModelStopReason = "end_turn"
    public static let toolUse: ModelStopReason = "tool_use"
    public static let maxTokens: ModelStopReason = "max_tokens"
    public static let refusal: ModelStopReason = "refusal"
}

/// An error a host provider throws from its stream: the class decides what the library does.
/// `.rateLimit`, `.network` and `.provider` are retried (a new call, `attempt` + 1, up to the
/// capabilities' `maxRetries`) while nothing was yielded yet, unless `recoverable` is false;
/// the other classes fail the turn at once. The turn's error names the provider.
public struct ModelProviderError: Error, Sendable, Equatable, LocalizedError {
    /// An error class of the library's taxonomy. Known classes are static members.
    public struct Class: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }

        public static let provider: Class = "provider"
        public static let rateLimit: Class = "rate_limit"
        public static let authentication: Class = "authentication"
        public static let network: Class = "network"
        public static let modelNotAvailable: Class = "model_not_available"
        public static let contextLength: Class = "context_length"
        public static let invalidRequest: Class = "invalid_request"
    }

    public var errorClass: Class
    public var message: String
    /// How long to wait before a retry (`.rateLimit`).
    public var retryAfter: TimeInterval?
    /// Overrides whether the class is retried.
    public var recoverable: Bool?

    public init(_ errorClass: Class, _ message: String, retryAfter: TimeInterval? = nil, recoverable: Bool? = nil) {
        self.errorClass = errorClass
        self.message = message
        self.retryAfter = retryAfter
        self.recoverable = recoverable
    }

    public var errorDescription: String? { message }

    /// The `{"type":"error",…}` document ending a call that failed with `error`.
    static func document(for error: Error) -> JSONValue {
        guard let error = error as? ModelProviderError else {
            let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
            return ["type": "error", "class": "provider", "message": .string(message)]
        }
        var doc: [String: JSONValue] = [
            "type": "error", "class": .string(error.errorClass.rawValue), "message": .string(error.message),
        ]
        if let retryAfter = error.retryAfter, retryAfter.isFinite {
            doc["retry_after_ms"] = .integer(Int64(max(0, (min(retryAfter, 1e12) * 1000).rounded(.up))))
        }
        if let recoverable = error.recoverable { doc["recoverable"] = .bool(recoverable) }
        return .object(doc)
    }
}

extension AsyncThrowingStream where Element == ModelEvent, Failure == Error {
    /// The text deltas of a local model's token sequence (an on-device model's stream, a token
    /// loop behind an `AsyncStream`): each token becomes `.text`, an error the sequence throws
    /// ends the call, and the sequence's task is cancelled when the call is.
    public init<Tokens: AsyncSequence & Sendable>(textTokens tokens: Tokens) where Tokens.Element == String {
        self.init { continuation in
            let task = Task {
                do {
                    for try await token in tokens { continuation.yield(.text(token)) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
