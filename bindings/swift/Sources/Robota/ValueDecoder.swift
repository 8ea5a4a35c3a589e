import Foundation

/// Decodes a `Decodable` straight from a `JSONValue` that `FastJSON` read (host tool arguments),
/// without writing it out for `JSONDecoder` (about fifteen allocations per call). It returns
/// nil — the caller then decodes the text with `JSONDecoder`, for the same value or the same
/// error — as soon as anything throws during the decode (even an error the type catches), and
/// for what `JSONDecoder` treats specially or this reader does not reproduce exactly: `Data`,
/// `Date`, `URL`, `Decimal`, `Float`, a `Double` read from `0` (maybe written `-0`) and
/// `superDecoder`. A decode that never threw made the same calls with the same answers as
/// `JSONDecoder` would.
enum ValueDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) -> T? {
        let state = State(value)
        guard let decoded = try? state.decodeWhole(T.self), !state.declined else { return nil }
        return decoded
    }

    /// The `Decoder` of the whole value, and what every container of one decode shares:
    /// whether any of them threw.
    final class State: Decoder {
        let value: JSONValue
        var declined = false
        var codingPath: [CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        init(_ value: JSONValue) { self.value = value }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            try whole.container(keyedBy: type)
        }

        func unkeyedContainer() throws -> UnkeyedDecodingContainer { try whole.unkeyedContainer() }
        func singleValueContainer() throws -> SingleValueDecodingContainer { whole }

        private var whole: Reader { Reader(value: value, path: [], key: nil, state: self) }

        /// The whole value as `T` (this object is its decoder: no reader to box).
        func decodeWhole<T: Decodable>(_ type: T.Type) throws -> T {
            if T.self == JSONValue.self || Self.special(T.self) { return try decode(T.self, from: value, path: []) }
            return try T(from: self)
        }

        private static func special<T>(_ type: T.Type) -> Bool {
            T.self == Data.self || T.self == Date.self || T.self == URL.self || T.self == Decimal.self
        }

        /// Marks the decode declined and returns the error to throw.
        func decline() -> Error {
            declined = true
            return Declined()
        }

        func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, path: [CodingKey]) throws -> T {
            if T.self == JSONValue.self { return value as! T }  // FastJSON reads a JSONValue as JSONDecoder does
            if Self.special(T.self) { throw decline() }
            return try T(from: Reader(value: value, path: path, key: nil, state: self))
        }
    }

    private struct Declined: Error {}

    /// The `Decoder` of one value: member or element `key` of the value at `path`.
    private struct Reader: Decoder, SingleValueDecodingContainer {
        let value: JSONValue
        let path: [CodingKey]
        let key: CodingKey?
        let state: State
        /// Built when asked for (most types never ask).
        var codingPath: [CodingKey] { key.map { path + [$0] } ?? path }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let members) = value else { throw state.decline() }
            return KeyedDecodingContainer(Members(members: members, codingPath: codingPath, state: state))
        }

        func unkeyedContainer() throws -> UnkeyedDecodingContainer {
            guard case .array(let elements) = value else { throw state.decline() }
            return Elements(elements: elements, codingPath: codingPath, state: state)
        }

        func singleValueContainer() throws -> SingleValueDecodingContainer { self }

        func decodeNil() -> Bool { value == .null }

        func decode(_ type: Bool.Type) throws -> Bool {
            guard case .bool(let b) = value else { throw state.decline() }
            return b
        }

        func decode(_ type: String.Type) throws -> String {
            guard case .string(let s) = value else { throw state.decline() }
            return s
        }

        func decode(_ type: Double.Type) throws -> Double {
            switch value {
            case .integer(let i) where i != 0: return Double(i)
            case .number(let d): return d
            default: throw state.decline()
            }
        }

        func decode(_ type: Float.Type) throws -> Float { throw state.decline() }
        func decode(_ type: Int.Type) throws -> Int { try integer() }
        func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
        func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
        func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
        func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
        func decode(_ type: UInt.Type) throws -> UInt { try integer() }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try state.decode(T.self, from: value, path: codingPath)
        }

        private func integer<T: FixedWidthInteger>() throws -> T {
            guard case .integer(let i) = value, let n = T(exactly: i) else { throw state.decline() }
            return n
        }
    }

    /// An object's members.
    private struct Members<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let codingPath: [CodingKey]
        let state: State

        var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func reader(_ key: Key) throws -> Reader {
            guard let value = members[key.stringValue] else { throw state.decline() }
            return Reader(value: value, path: codingPath, key: key, state: state)
        }

        func decodeNil(forKey key: Key) throws -> Bool { try reader(key).decodeNil() }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try reader(key).decode(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try reader(key).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try reader(key).decode(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try reader(key).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try reader(key).decode(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try reader(key).decode(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try reader(key).decode(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try reader(key).decode(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try reader(key).decode(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try reader(key).decode(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try reader(key).decode(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try reader(key).decode(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try reader(key).decode(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try reader(key).decode(type) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try reader(key).decode(type) }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try reader(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
            try reader(key).unkeyedContainer()
        }

        func superDecoder() throws -> Decoder { throw state.decline() }
        func superDecoder(forKey key: Key) throws -> Decoder { throw state.decline() }
    }

    /// An array's elements, read in order.
    private struct Elements: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let codingPath: [CodingKey]
        let state: State
        private(set) var currentIndex = 0

        init(elements: [JSONValue], codingPath: [CodingKey], state: State) {
            self.elements = elements
            self.codingPath = codingPath
            self.state = state
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        /// The next element's reader; advances past it.
        private mutating func next() throws -> Reader {
            guard !isAtEnd else { throw state.decline() }
            defer { currentIndex += 1 }
            return Reader(value: elements[currentIndex], path: codingPath, key: IndexKey(currentIndex), state: state)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else { throw state.decline() }
            if elements[currentIndex] != .null { return false }
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
        mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try next().decode(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decode(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decode(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decode(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decode(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decode(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decode(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decode(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decode(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decode(type) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer { try next().unkeyedContainer() }

        mutating func superDecoder() throws -> Decoder { throw state.decline() }
    }

    /// The coding key of an array element.
    private struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { "Index \(intValue ?? 0)" }
        init(_ index: Int) { intValue = index }
        init?(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }
}
