import CRobota
import Foundation

/// A JSON reader for the documents the library writes (event payloads, results, state): a
/// `JSONValue` straight from the bytes, and the hot event payloads built from it, without
/// `JSONDecoder` (whose generic decoding, and `JSONValue.init(from:)`'s trial decodes that
/// throw, cost about a hundred allocations per event). Whatever it does not read exactly as
/// `JSONDecoder` would — integral numbers written with an exponent or from 2^53 on, integers
/// beyond 64 bits, duplicate keys, an unexpected shape or type — makes it return nil, and the caller
/// decodes with `JSONDecoder` as before: the results (and errors) are the same either way.
enum FastJSON {
    /// Deeper documents go to `JSONDecoder` (which has its own limit).
    static let maxDepth = 256

    static func parse(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        var reader = Reader(bytes)
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        // Not `cond ? value : nil`: that `nil` would be `JSONValue.null` (ExpressibleByNilLiteral).
        guard reader.at == bytes.count else { return nil }
        return value
    }

    static func parse(_ text: String) -> JSONValue? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// The members of a document that is one object, in order, without building its
    /// dictionary (event payloads: `FastFields` looks up a few keys).
    static func members(_ bytes: UnsafeRawBufferPointer) -> [(key: String, value: JSONValue)]? {
        var reader = Reader(bytes)
        reader.skipSpace()
        reader.stack.reserveCapacity(64)  // one allocation for a payload's members, nested ones included
        guard reader.at < bytes.count, bytes[reader.at] == UInt8(ascii: "{"), reader.members(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.at == bytes.count ? reader.stack : nil
    }

    static func members(_ text: String) -> [(key: String, value: JSONValue)]? {
        var text = text
        return text.withUTF8 { members(UnsafeRawBufferPointer($0)) }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var at = 0
        /// The bytes of a string with escapes (reused).
        var scratch: [UInt8] = []
        /// The members of the objects being read, innermost last (reused).
        var stack: [(key: String, value: JSONValue)] = []

        init(_ bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        mutating func skipSpace() {
            while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 { at += 1 }
        }

        mutating func value(depth: Int) -> JSONValue? {
            skipSpace()
            guard at < bytes.count, depth < FastJSON.maxDepth else { return nil }
            switch bytes[at] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return nil
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
            let n = word.utf8CodeUnitCount
            guard at + n <= bytes.count, memcmp(bytes.baseAddress! + at, word.utf8Start, n) == 0 else { return nil }
            at += n
            return value
        }

        /// An object's members, pushed on `stack`: the dictionary is built once, at its size.
        mutating func object(depth: Int) -> JSONValue? {
            if stack.capacity == 0 { stack.reserveCapacity(16) }  // the first object: one allocation for the members of all
            let base = stack.count
            guard members(depth: depth) else { return nil }
            var object = [String: JSONValue](minimumCapacity: stack.count - base)
            for (key, value) in stack[base...] where object.updateValue(value, forKey: key) != nil {
                return nil  // a duplicate key
            }
            stack.removeSubrange(base...)
            return .object(object)
        }

        /// Pushes the members of the object at `at` on `stack`.
        mutating func members(depth: Int) -> Bool {
            at += 1
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                return true
            }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\""), let key = string() else { return false }
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { return false }
                at += 1
                guard let member = value(depth: depth + 1) else { return false }
                stack.append((key, member))
                skipSpace()
                guard at < bytes.count else { return false }
                at += 1
                switch bytes[at - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return true
                default: return false
                }
            }
        }

        mutating func array(depth: Int) -> JSONValue? {
            at += 1
            var elements: [JSONValue] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                return .array(elements)
            }
            elements.reserveCapacity(4)
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipSpace()
                guard at < bytes.count else { return nil }
                at += 1
                switch bytes[at - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(elements)
                default: return nil
                }
            }
        }

        /// A string at `at` (its opening quote); the text is valid UTF-8 (library output or a
        /// Swift string), so it is taken as it is.
        mutating func string() -> String? {
            at += 1
            let start = at
            while at < bytes.count {
                let c = bytes[at]
                if c == UInt8(ascii: "\"") {
                    at += 1
                    return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at - 1]), as: UTF8.self)
                }
                if c == UInt8(ascii: "\\") { return escapedString(from: start) }
                if c < 0x20 { return nil }
                at += 1
            }
            return nil
        }

        mutating func escapedString(from start: Int) -> String? {
            scratch.removeAll(keepingCapacity: true)
            scratch.reserveCapacity(bytes.count - start)  // at most the rest of the document
            scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<at]))
            while at < bytes.count {
                let c = bytes[at]
                at += 1
                switch c {
                case UInt8(ascii: "\""):
                    return String(decoding: scratch, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { return nil }
                    let e = bytes[at]
                    at += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
                    case UInt8(ascii: "b"): scratch.append(0x08)
                    case UInt8(ascii: "f"): scratch.append(0x0C)
                    case UInt8(ascii: "n"): scratch.append(0x0A)
                    case UInt8(ascii: "r"): scratch.append(0x0D)
                    case UInt8(ascii: "t"): scratch.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var unit = hex4() else { return nil }
                        if unit >= 0xDC00, unit <= 0xDFFF { return nil }
                        if unit >= 0xD800, unit <= 0xDBFF {
                            guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else { return nil }
                            at += 2
                            guard let low = hex4(), low >= 0xDC00, low <= 0xDFFF else { return nil }
                            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(unit) else { return nil }
                        scratch.append(contentsOf: UTF8.encode(scalar)!)
                    default:
                        return nil
                    }
                default:
                    if c < 0x20 { return nil }
                    scratch.append(c)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard at + 4 <= bytes.count else { return nil }
            var unit: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[at]
                at += 1
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): unit = unit << 4 | UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): unit = unit << 4 | UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): unit = unit << 4 | UInt32(c - UInt8(ascii: "A") + 10)
                default: return nil
                }
            }
            return unit
        }

        /// As `JSONDecoder` reads numbers into a `JSONValue`: an integer that fits in 64 bits,
        /// or a number with a fraction whose value is integral (`2.0`), is `.integer`; any other
        /// finite number is `.number`. Left to `JSONDecoder`: integers beyond 64 bits, integral
        /// values from 2^53 on or written with an exponent, leading zeros, non-finite values.
        mutating func number() -> JSONValue? {
            let start = at
            if bytes[at] == UInt8(ascii: "-") { at += 1 }
            let intStart = at
            guard digits(), bytes[intStart] != UInt8(ascii: "0") || at - intStart == 1 else { return nil }
            var fraction = false
            var exponent = false
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                at += 1
                fraction = true
                guard digits() else { return nil }
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
                at += 1
                exponent = true
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits() else { return nil }
            }
            let lexeme = UnsafeRawBufferPointer(rebasing: bytes[start..<at])
            if !fraction && !exponent {
                let negative = start != intStart
                var n: Int64 = 0
                for c in lexeme.dropFirst(negative ? 1 : 0) {
                    let (m, o1) = n.multipliedReportingOverflow(by: 10)
                    let (s, o2) = negative ? m.subtractingReportingOverflow(Int64(c - 48)) : m.addingReportingOverflow(Int64(c - 48))
                    if o1 || o2 { return nil }
                    n = s
                }
                return .integer(n)
            }
            guard let d = Double(String(decoding: lexeme, as: UTF8.self)), d.isFinite else { return nil }
            if d.rounded(.towardZero) != d { return .number(d) }
            guard !exponent, abs(d) < 9_007_199_254_740_992 else { return nil }
            return .integer(Int64(d))
        }

        /// One or more digits.
        mutating func digits() -> Bool {
            let start = at
            while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") { at += 1 }
            return at > start
        }
    }
}

/// The members of a document read as a synthesized `Decodable` reads them (`decode` for
/// required ones, `decodeIfPresent` — missing or null is nil — for optional ones); any type
/// mismatch sets `failed`.
struct FastFields {
    private let pairs: [(key: String, value: JSONValue)]
    private let dictionary: [String: JSONValue]
    private(set) var failed = false

    init?(_ value: JSONValue?) {
        guard case .object(let members)? = value else { return nil }
        pairs = []
        dictionary = members
    }

    /// Members in document order (`FastJSON.members`).
    init(members: [(key: String, value: JSONValue)]) {
        pairs = members
        dictionary = [:]
    }

    /// Member `key`; a key given twice fails (left to `JSONDecoder`).
    mutating func member(_ key: String) -> JSONValue? {
        if pairs.isEmpty { return dictionary[key] }
        var found: JSONValue?
        let length = key.utf8.count  // O(1); most keys differ in length, a cheap test before `==`
        for pair in pairs where pair.key.utf8.count == length && pair.key == key {
            if found != nil { fail() }
            found = pair.value
        }
        return found
    }

    private mutating func fail() { failed = true }

    mutating func string(_ key: String) -> String {
        if case .string(let s)? = member(key) { return s }
        fail()
        return ""
    }

    mutating func optionalString(_ key: String) -> String? {
        switch member(key) {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: fail(); return nil
        }
    }

    mutating func uint64(_ key: String) -> UInt64 {
        if case .integer(let i)? = member(key), i >= 0 { return UInt64(i) }
        fail()
        return 0
    }

    mutating func optionalUInt64(_ key: String) -> UInt64? {
        switch member(key) {
        case nil, .null?: return nil
        case .integer(let i)? where i >= 0: return UInt64(i)
        default: fail(); return nil
        }
    }

    mutating func optionalInt64(_ key: String) -> Int64? {
        switch member(key) {
        case nil, .null?: return nil
        case .integer(let i)?: return i
        default: fail(); return nil
        }
    }

    mutating func double(_ key: String) -> Double {
        switch member(key) {
        case .integer(let i)?: return Double(i)
        case .number(let d)?: return d
        default: fail(); return 0
        }
    }

    mutating func optionalBool(_ key: String) -> Bool? {
        switch member(key) {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        default: fail(); return nil
        }
    }

    /// `decodeIfPresent(JSONValue.self)`: missing or null is nil.
    mutating func optionalJSON(_ key: String) -> JSONValue? {
        let value = member(key)
        if case .null? = value { return nil }
        return value
    }

    /// An optional member read with `read` (nil when missing or null; a failed read fails).
    mutating func optional<T>(_ key: String, _ read: (JSONValue) -> T?) -> T? {
        switch member(key) {
        case nil, .null?: return nil
        case let value?:
            guard let v = read(value) else { fail(); return nil }
            return v
        }
    }

    /// An optional array whose elements are read with `read`.
    mutating func optionalArray<T>(_ key: String, _ read: (JSONValue) -> T?) -> [T]? {
        optional(key) { value -> [T]? in
            guard case .array(let elements) = value else { return nil }
            var out: [T] = []
            out.reserveCapacity(elements.count)
            for element in elements {
                guard let v = read(element) else { return nil }
                out.append(v)
            }
            return out
        }
    }
}

extension TurnStarted {
    init?(fast fields: FastFields) {
        var f = fields
        turnID = f.uint64("turn_id")
        input = f.optionalJSON("input")
        if f.failed { return nil }
    }
}

extension MessageToolCall {
    init?(fast fields: FastFields) {
        var f = fields
        guard var fn = FastFields(f.member("function")) else { return nil }
        id = f.string("id")
        type = f.optionalString("type")
        function = Function(name: fn.string("name"), arguments: fn.string("arguments"))
        if f.failed || fn.failed { return nil }
    }
}

extension ChatMessage {
    init?(fast fields: FastFields) {
        var f = fields
        id = f.optionalString("id")
        role = f.string("role")
        content = f.optionalString("content") ?? ""
        state = f.optionalString("state")
        toolCalls = f.optionalArray("toolCalls") { FastFields($0).flatMap(MessageToolCall.init(fast:)) }
        toolCallId = f.optionalString("toolCallId")
        name = f.optionalString("name")
        metadata = f.optionalJSON("metadata")
        timestamp = f.optionalString("timestamp")
        if f.failed { return nil }
    }
}

extension ToolStart {
    init?(fast fields: FastFields) {
        var f = fields
        toolCallID = f.string("tool_call_id")
        toolName = f.string("tool_name")
        firstArg = f.optionalString("first_arg")
        arguments = f.optionalJSON("arguments")
        if f.failed { return nil }
    }
}

extension ToolEnd {
    /// Only without diff lines (a diff goes to `JSONDecoder`).
    init?(fast fields: FastFields) {
        var f = fields
        toolCallID = f.string("tool_call_id")
        toolName = f.string("tool_name")
        result = f.string("result")
        output = f.optionalString("output")
        diffFile = f.optionalString("diff_file")
        switch f.member("diff_lines") {
        case nil, .null?, .array([])?: diffLines = []
        default: return nil
        }
        if f.failed { return nil }
    }
}

extension ContextState {
    init?(fast fields: FastFields) {
        var f = fields
        usedTokens = f.uint64("used_tokens")
        maxTokens = f.uint64("max_tokens")
        usedPercentage = f.double("used_percentage")
        if f.failed { return nil }
    }
}

extension Usage {
    init?(fast fields: FastFields) {
        var f = fields
        inputTokens = f.uint64("input_tokens")
        outputTokens = f.uint64("output_tokens")
        totalTokens = f.optionalUInt64("total_tokens")
        if f.failed { return nil }
    }
}

extension Warning {
    init?(fast fields: FastFields) {
        var f = fields
        message = f.string("message")
        code = f.optionalString("code")
        if f.failed { return nil }
    }
}

extension ErrorEvent {
    init?(fast fields: FastFields) {
        var f = fields
        code = f.optionalString("code")
        category = f.optionalString("category")
        recoverable = f.optionalBool("recoverable")
        message = f.string("message")
        sessionID = f.optionalString("session_id")
        expectedVersion = f.optionalInt64("expected_version")
        storedVersion = f.optionalInt64("stored_version")
        if f.failed { return nil }
    }
}

extension TurnResult {
    init?(fast fields: FastFields) {
        var f = fields
        turnID = f.uint64("turn_id")
        stopReason = StopReason(rawValue: f.string("stop_reason"))
        response = f.string("response")
        toolSummaries = f.optionalArray("tool_summaries") { $0 }
        contextState = f.optional("context_state") { FastFields($0).flatMap(ContextState.init(fast:)) }
        usage = f.optional("usage") { FastFields($0).flatMap(Usage.init(fast:)) }
        error = f.optionalString("error")
        output = f.optionalJSON("output")
        if f.failed { return nil }
    }

    /// The result document of a turn: read here, else by `JSONDecoder` (which names `what` in
    /// its error).
    static func decode(_ json: String, what: String) throws -> TurnResult {
        if let members = FastJSON.members(json), let result = TurnResult(fast: FastFields(members: members)) { return result }
        return try JSONCoding.decode(TurnResult.self, from: json, what: what)
    }
}

extension Event {
    /// The kinds read here; others (and documents this reader declines) go to `JSONDecoder`.
    init?(fastKind kind: UInt32, fields doc: FastFields) {
        switch Int32(kind) {
        case ROBOTA_EVENT_TURN_STARTED: guard let v = TurnStarted(fast: doc) else { return nil }; self = .turnStarted(v)
        case ROBOTA_EVENT_MESSAGE: guard let v = ChatMessage(fast: doc) else { return nil }; self = .message(v)
        case ROBOTA_EVENT_TOOL_START: guard let v = ToolStart(fast: doc) else { return nil }; self = .toolStart(v)
        case ROBOTA_EVENT_TOOL_END: guard let v = ToolEnd(fast: doc) else { return nil }; self = .toolEnd(v)
        case ROBOTA_EVENT_CONTEXT_UPDATE: guard let v = ContextState(fast: doc) else { return nil }; self = .contextUpdate(v)
        case ROBOTA_EVENT_WARNING: guard let v = Warning(fast: doc) else { return nil }; self = .warning(v)
        case ROBOTA_EVENT_ERROR: guard let v = ErrorEvent(fast: doc) else { return nil }; self = .error(v)
        case ROBOTA_EVENT_TURN_COMPLETED: guard let v = TurnResult(fast: doc) else { return nil }; self = .turnCompleted(v)
        default: return nil
        }
    }

    /// Whether `init?(fastKind:fields:)` reads events of `kind` (others are not parsed twice).
    static func readsFast(_ kind: UInt32) -> Bool {
        switch Int32(kind) {
        case ROBOTA_EVENT_TURN_STARTED, ROBOTA_EVENT_MESSAGE, ROBOTA_EVENT_TOOL_START, ROBOTA_EVENT_TOOL_END,
            ROBOTA_EVENT_CONTEXT_UPDATE, ROBOTA_EVENT_WARNING, ROBOTA_EVENT_ERROR, ROBOTA_EVENT_TURN_COMPLETED:
            return true
        default:
            return false
        }
    }
}
