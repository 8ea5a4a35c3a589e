import Foundation

/// A JSON object key chosen at run time.
struct DynamicKey: CodingKey, Hashable {
    let stringValue: String
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

/// A config document with typed fields plus `extra`: keys the binding has no field for yet
/// (the library's documents are append-only), passed through as they are. Conformers list
/// their typed keys in `knownKeys`, write them in `encodeKnown` and read them in `init(reading:)`;
/// their `Codable` methods forward to `encodeDocument(to:)` and `init(document:)`.
protocol ExtensibleDocument: Codable {
    /// The JSON keys of the typed fields.
    static var knownKeys: Set<String> { get }
    var extra: [String: JSONValue] { get set }
    func encodeKnown(to c: inout KeyedEncodingContainer<DynamicKey>) throws
    init(reading c: KeyedDecodingContainer<DynamicKey>) throws
}

extension ExtensibleDocument {
    func encodeDocument(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: DynamicKey.self)
        try encodeKnown(to: &c)
        for (key, value) in extra where !Self.knownKeys.contains(key) {
            try c.encode(value, forKey: DynamicKey(key))
        }
    }

    init(document decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: DynamicKey.self)
        try self.init(reading: c)
        for key in c.allKeys where !Self.knownKeys.contains(key.stringValue) {
            extra[key.stringValue] = try c.decode(JSONValue.self, forKey: key)
        }
    }

    /// Compact JSON text of the document, as the C functions take it.
    func jsonText() throws -> String { try JSONCoding.encode(self) }
}

extension KeyedEncodingContainer where K == DynamicKey {
    mutating func put<T: Encodable>(_ value: T?, _ key: String) throws {
        try encodeIfPresent(value, forKey: DynamicKey(key))
    }
}

extension KeyedDecodingContainer where K == DynamicKey {
    func get<T: Decodable>(_ key: String) throws -> T? {
        try decodeIfPresent(T.self, forKey: DynamicKey(key))
    }

    func need<T: Decodable>(_ key: String) throws -> T {
        try decode(T.self, forKey: DynamicKey(key))
    }
}
