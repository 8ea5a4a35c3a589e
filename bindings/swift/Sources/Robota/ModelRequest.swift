import Foundation

/// One model call of a host provider: the request document `robota_provider_fn` receives
/// (`{"v":1,"type":"call",…}`), decoded. A retry of a failed call is a new request with a new
/// `callID` and `attempt` + 1.
public struct ModelRequest: Sendable, Equatable {
    /// The call's id, unique per runtime.
    public let callID: UInt64
    /// The name the provider was registered under.
    public let provider: String
    /// The model the session (or agent, compaction, query) asked for.
    public let model: String
    /// The session the call belongs to (nil for calls outside a session).
    public let sessionID: String?
    /// The conversation, system prompt first.
    public let messages: [ModelMessage]
    /// The tools the model may call.
    public let tools: [ModelTool]
    public let toolChoice: ToolChoice
    public let maxTokens: Int?
    public let temperature: Double?
    /// The extended-thinking budget in tokens, when thinking is on.
    public let thinkingBudget: Int?
    /// 1 for the first attempt; retries count up.
    public let attempt: Int
    /// The whole request document, including fields newer than this binding.
    public let document: JSONValue

    /// Decodes call `callID`'s request document; throws naming the first field it cannot read.
    init(callID: UInt64, document: JSONValue) throws {
        self.callID = callID
        provider = try document.need("provider", \.stringValue, "a string")
        model = try document.need("model", \.stringValue, "a string")
        sessionID = document["session_id"]?.stringValue
        messages = try document.need("messages", \.arrayValue, "an array").map(ModelMessage.init(json:))
        tools = try (document["tools"]?.arrayValue ?? []).map(ModelTool.init(json:))
        if let choice = document["tool_choice"], choice != .null {
            do {
                toolChoice = try choice.decode(ToolChoice.self)
            } catch {
                throw ModelRequestError("\"tool_choice\" is not auto, none, required or {\"name\"}: \(choice.jsonString())")
            }
        } else {
            toolChoice = .auto
        }
        maxTokens = document["max_tokens"]?.intValue.map { Int(clamping: $0) }
        temperature = document["temperature"]?.doubleValue
        thinkingBudget = document["thinking_budget"]?.intValue.map { Int(clamping: $0) }
        attempt = Int(clamping: document["attempt"]?.intValue ?? 1)
        self.document = document
    }
}

/// One message of a `ModelRequest`'s conversation.
public enum ModelMessage: Sendable, Equatable {
    case system(String)
    /// The user's turn: text and images.
    case user([ModelContent])
    /// What the model said, with the tool calls it made (empty when none).
    case assistant(String, toolCalls: [ModelToolCall])
    /// The result of one tool call.
    case tool(ModelToolResult)
    /// A role this binding does not know yet, as the library sent it.
    case other(JSONValue)

    /// The message's text: the user's text parts joined by newlines, the assistant's words, a
    /// tool result's content.
    public var text: String {
        switch self {
        case .system(let text), .assistant(let text, _): return text
        case .user(let parts):
            return parts.compactMap { if case .text(let t) = $0 { return t } else { return nil } }.joined(separator: "\n")
        case .tool(let result): return result.content
        case .other(let doc): return doc["content"]?.stringValue ?? ""
        }
    }

    init(json doc: JSONValue) throws {
        switch doc["role"]?.stringValue {
        case "system": self = .system(try doc.need("content", \.stringValue, "a string"))
        case "user": self = .user(try doc.need("content", \.arrayValue, "an array").map(ModelContent.init(json:)))
        case "assistant":
            self = .assistant(
                doc["content"]?.stringValue ?? "",
                toolCalls: try (doc["tool_calls"]?.arrayValue ?? []).map(ModelToolCall.init(json:)))
        case "tool":
            self = .tool(ModelToolResult(
                toolCallID: try doc.need("tool_call_id", \.stringValue, "a string"),
                name: try doc.need("name", \.stringValue, "a string"),
                content: try doc.need("content", \.stringValue, "a string"),
                isError: doc["is_error"]?.boolValue ?? false))
        default: self = .other(doc)
        }
    }
}

/// A part of a user message.
public enum ModelContent: Sendable, Equatable {
    case text(String)
    case image(ModelImage)
    /// A part type this binding does not know yet, as the library sent it.
    case other(JSONValue)

    init(json doc: JSONValue) throws {
        switch doc["type"]?.stringValue {
        case "text": self = .text(try doc.need("text", \.stringValue, "a string"))
        case "image":
            if let url = doc["url"]?.stringValue {
                guard let parsed = URL(string: url) else { throw ModelRequestError("image url \"\(url)\" is not a URL") }
                self = .image(.url(parsed))
            } else {
                let encoded = try doc.need("data", \.stringValue, "a string")
                guard let data = Data(base64Encoded: encoded) else { throw ModelRequestError("image \"data\" is not base64") }
                self = .image(.data(data, mediaType: try doc.need("media_type", \.stringValue, "a string")))
            }
        default: self = .other(doc)
        }
    }
}

/// An image of a user message: its bytes and media type (e.g. `"image/png"`), or a URL.
public enum ModelImage: Sendable, Equatable {
    case data(Data, mediaType: String)
    case url(URL)
}

/// A tool call the model made in an earlier assistant message.
public struct ModelToolCall: Sendable, Equatable {
    public let id: String
    public let name: String
    /// The arguments (a JSON object).
    public let arguments: JSONValue

    public init(id: String, name: String, arguments: JSONValue) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }

    init(json doc: JSONValue) throws {
        self.init(
            id: try doc.need("id", \.stringValue, "a string"), name: try doc.need("name", \.stringValue, "a string"),
            arguments: doc["arguments"] ?? [:])
    }
}

/// The result of a tool call, answering the assistant's call `toolCallID`.
public struct ModelToolResult: Sendable, Equatable {
    public let toolCallID: String
    public let name: String
    public let content: String
    /// The tool failed (`content` says why).
    public let isError: Bool

    public init(toolCallID: String, name: String, content: String, isError: Bool = false) {
        self.toolCallID = toolCallID
        self.name = name
        self.content = content
        self.isError = isError
    }
}

/// A tool the model may call: its name, description and the JSON Schema of its arguments.
public struct ModelTool: Sendable, Equatable {
    public let name: String
    public let description: String
    public let inputSchema: JSONValue

    public init(name: String, description: String, inputSchema: JSONValue) {
        self.name = name
        self.description = description
        self.inputSchema = inputSchema
    }

    init(json doc: JSONValue) throws {
        self.init(
            name: try doc.need("name", \.stringValue, "a string"), description: doc["description"]?.stringValue ?? "",
            inputSchema: doc["input_schema"] ?? ["type": "object"])
    }
}

/// A request document this binding cannot read; the description says what is wrong.
struct ModelRequestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    /// The array, when this is an array.
    var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The number, when this is a number.
    var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }

    /// Member `key` read by `read`; throws naming the key when it is missing or not `what`.
    fileprivate func need<T>(_ key: String, _ read: (JSONValue) -> T?, _ what: String) throws -> T {
        guard let value = self[key] else { throw ModelRequestError("missing \"\(key)\"") }
        guard let typed = read(value) else { throw ModelRequestError("\"\(key)\" is not \(what): \(value.jsonString())") }
        return typed
    }
}
