import Foundation

/// A JSON Schema for tool arguments, built from typed parts:
///
///     .object(["a": .integer("the first addend"), "b": .integer(), "note": .string()],
///             required: ["a", "b"])
///
/// `value` is the schema document the library checks calls against.
public struct JSONSchema: Sendable, Equatable {
    /// The schema document.
    public let value: JSONValue

    /// A schema from a document (anything the builders do not cover).
    public init(_ value: JSONValue) { self.value = value }

    public static func string(_ description: String? = nil, oneOf values: [String]? = nil) -> JSONSchema {
        var doc = typed("string", description)
        if let values { doc["enum"] = .array(values.map(JSONValue.string)) }
        return JSONSchema(.object(doc))
    }

    public static func integer(_ description: String? = nil) -> JSONSchema { JSONSchema(.object(typed("integer", description))) }
    public static func number(_ description: String? = nil) -> JSONSchema { JSONSchema(.object(typed("number", description))) }
    public static func boolean(_ description: String? = nil) -> JSONSchema { JSONSchema(.object(typed("boolean", description))) }

    public static func array(of items: JSONSchema, _ description: String? = nil) -> JSONSchema {
        var doc = typed("array", description)
        doc["items"] = items.value
        return JSONSchema(.object(doc))
    }

    /// An object with `properties`; `required` names the ones a call must give (the
    /// non-optional stored properties of the `Decodable` type).
    public static func object(
        _ properties: [String: JSONSchema], required: [String] = [], _ description: String? = nil
    ) -> JSONSchema {
        var doc = typed("object", description)
        doc["properties"] = .object(properties.mapValues(\.value))
        if !required.isEmpty { doc["required"] = .array(required.map(JSONValue.string)) }
        return JSONSchema(.object(doc))
    }

    private static func typed(_ type: String, _ description: String?) -> [String: JSONValue] {
        var doc: [String: JSONValue] = ["type": .string(type)]
        if let description { doc["description"] = .string(description) }
        return doc
    }
}

/// The arguments of a typed tool (`Runtime.tool`): decoded from the call with `JSONDecoder`,
/// described to the model by `schema`. The schema is written, not derived: reflection sees
/// neither the types inside optionals nor custom `CodingKeys`, so only the type knows its
/// JSON shape. A call whose arguments do not decode gets an error result naming the field.
public protocol ToolArguments: Decodable, Sendable {
    /// The JSON Schema of the arguments object.
    static var schema: JSONSchema { get }
}
