import Foundation

/// Any JSON value: tool arguments, hook input, usage, and other documents whose shape the
/// library owns. Write literals directly: `let args: JSONValue = ["key": "k1", "n": 2]`.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    /// An integer that fits in 64 bits (ids, token counts).
    case integer(Int64)
    /// Any other number.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .integer(let i): try c.encode(i)
        case .number(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The member `key` of an object (`nil` for other values or a missing key).
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number as an integer, when this is an integral number.
    public var intValue: Int64? {
        switch self {
        case .integer(let i): return i
        case .number(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// Compact JSON text of this value.
    public func jsonString() -> String {
        (try? JSONCoding.encode(self)) ?? "null"
    }

    /// Decodes this value as `T` (e.g. tool arguments into a `Decodable` struct).
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONCoding.decoder().decode(T.self, from: Data(jsonString().utf8))
    }

    /// Parses JSON text.
    public init(parsing json: String) throws {
        if let value = FastJSON.parse(json) {
            self = value
            return
        }
        self = try JSONCoding.decoder().decode(JSONValue.self, from: Data(json.utf8))
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// JSON encoding and decoding with the settings every document of the binding uses.
enum JSONCoding {
    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    static func decoder() -> JSONDecoder { JSONDecoder() }

    /// Compact JSON text of `value`.
    static func encode<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }

    /// JSON text of `value` for the library, which only parses it: strings, integers and
    /// booleans are written directly, anything else as `encode` writes it.
    static func encodeForLibrary<T: Encodable>(_ value: T) throws -> String {
        switch value {
        case let s as String: return quoted(s)
        case let i as Int: return String(i)
        case let i as Int64: return String(i)
        case let i as Int32: return String(i)
        case let i as UInt64: return String(i)
        case let b as Bool: return b ? "true" : "false"
        default: return try encode(value)
        }
    }

    /// `text` as a JSON string literal (`"`, `\` and control characters escaped).
    static func quoted(_ text: String) -> String {
        var out = ""
        appendQuoted(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string literal to `out` (one allocation at most when `out` has
    /// room for `text` and its quotes).
    static func appendQuoted(_ text: String, to out: inout String) {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            out.reserveCapacity(out.utf8.count + text.utf8.count + 2)
            out += "\""
            out += text
            out += "\""
            return
        }
        out.reserveCapacity(out.utf8.count + text.utf8.count + 8)
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u00"
                out += String(scalar.value >> 4, radix: 16)
                out += String(scalar.value & 0xF, radix: 16)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// Decodes `T` from JSON text, throwing a `RobotaError` that names `what` on failure.
    static func decode<T: Decodable>(_ type: T.Type, from json: String, what: String) throws -> T {
        do {
            return try decoder().decode(T.self, from: Data(json.utf8))
        } catch {
            throw RobotaError(code: .internal, message: "cannot decode \(what) from the library's JSON: \(error)")
        }
    }
}
