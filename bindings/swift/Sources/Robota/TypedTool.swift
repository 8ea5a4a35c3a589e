import Foundation

/// A tool call whose arguments did not decode as the tool's `ToolArguments` type; what the
/// model sees as the tool's error result (the message names the field).
public struct ToolArgumentsError: Error, Sendable, Equatable, LocalizedError {
    public let message: String
    public var errorDescription: String? { message }

    /// Describes `error` of decoding the arguments of tool `name`.
    init(tool name: String, _ error: Error) {
        func path(_ keys: [CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
                .replacingOccurrences(of: ".[", with: "[")
        }
        let detail: String
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            detail = "missing field \"\(path(context.codingPath + [key]))\""
        case .typeMismatch(let type, let context)?:
            detail = "field \"\(path(context.codingPath))\": expected \(Self.jsonType(type))"
        case .valueNotFound(let type, let context)?:
            detail = "field \"\(path(context.codingPath))\": expected \(Self.jsonType(type)), found null"
        case .dataCorrupted(let context)?:
            let at = context.codingPath.isEmpty ? "" : "field \"\(path(context.codingPath))\": "
            detail = at + context.debugDescription
        default:
            detail = String(describing: error)
        }
        message = "invalid arguments for \(name): \(detail)"
    }

    private static func jsonType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type, is UInt32.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array<") { return "an array" }
            if name.hasPrefix("Dictionary<") { return "an object" }
            return name
        }
    }
}

extension Runtime {
    /// Registers a host tool whose arguments are `Args`, decoded as `JSONDecoder` decodes them, with
    /// `Args.schema` as its input schema. Arguments that do not decode answer the call with
    /// an error result naming the field (the handler does not run). Otherwise as
    /// `registerTool(_:handler:)`: each call runs in its own task, cancelled when the library
    /// cancels the call.
    public func tool<Args: ToolArguments, Output: Encodable>(
        _ name: String, description: String, readOnly: Bool? = nil, timeoutMs: Int? = nil,
        handler: @escaping @Sendable (Args) async throws -> Output
    ) throws {
        let definition = ToolDefinition(
            name: name, description: description, inputSchema: Args.schema.value, readOnly: readOnly,
            timeoutMs: timeoutMs)
        try registerTool(definition) { call -> Output in try await handler(Self.arguments(Args.self, of: call, tool: name)) }
    }

    /// Registers a host tool whose arguments are `Args`, as `tool(_:description:readOnly:timeoutMs:handler:)`,
    /// with a handler that runs inline, as `registerInlineTool(_:handler:)` describes: on the
    /// library thread that calls the tool, with no task and no thread hop. For short,
    /// non-blocking work.
    public func inlineTool<Args: ToolArguments, Output: Encodable>(
        _ name: String, description: String, readOnly: Bool? = nil, timeoutMs: Int? = nil,
        handler: @escaping @Sendable (Args) throws -> Output
    ) throws {
        let definition = ToolDefinition(
            name: name, description: description, inputSchema: Args.schema.value, readOnly: readOnly,
            timeoutMs: timeoutMs)
        try registerInlineTool(definition) { call -> Output in try handler(Self.arguments(Args.self, of: call, tool: name)) }
    }

    /// The arguments of `call` decoded as `Args`, or the `ToolArgumentsError` the model sees.
    private static func arguments<Args: ToolArguments>(_ type: Args.Type, of call: ToolCall, tool name: String) throws -> Args {
        do {
            return try call.decodeArguments(Args.self)
        } catch {
            throw ToolArgumentsError(tool: name, error)
        }
    }
}
