import CRobota
import Foundation

/// An error from the library, or a failed turn: one case per `ROBOTA_E_*` status, each with the
/// library's message and the error's details. `switch` over it to handle a class of failure;
/// `code`, `message`, `kind`, `category` and `recoverable` read the same fields of any case.
public enum RobotaError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    case nullArg(message: String, details: ErrorDetails)
    case invalidHandle(message: String, details: ErrorDetails)
    case invalidJSON(message: String, details: ErrorDetails)
    case invalidConfig(message: String, details: ErrorDetails)
    /// A prompt is already queued, or the library is busy with what was asked.
    case busy(message: String, details: ErrorDetails)
    /// No such turn, request, tool, command or stored session.
    case notFound(message: String, details: ErrorDetails)
    /// The request was already answered or withdrawn.
    case stale(message: String, details: ErrorDetails)
    case timeout(message: String, details: ErrorDetails)
    case closed(message: String, details: ErrorDetails)
    /// The turn was aborted (`abort`, `close`, a cancelled task).
    case aborted(message: String, details: ErrorDetails)
    /// A blocking call inside a callback.
    case reentrant(message: String, details: ErrorDetails)
    case unsupported(message: String, details: ErrorDetails)
    case io(message: String, details: ErrorDetails)
    /// The model provider failed (the taxonomy is in `details`).
    case provider(message: String, details: ErrorDetails)
    case panic(message: String, details: ErrorDetails)
    case `internal`(message: String, details: ErrorDetails)
    case versionMismatch(message: String, details: ErrorDetails)
    case invalidUTF8(message: String, details: ErrorDetails)
    /// The session's budget is exhausted.
    case budget(message: String, details: ErrorDetails)
    /// The session store refused a save: another node saved (or deleted) the session since this
    /// one loaded it. Nothing was overwritten; `details.document` has `session_id`,
    /// `expected_version` and `stored_version`. Resume the session from the store to go on.
    case conflict(message: String, details: ErrorDetails)
    /// A status this binding does not know yet (the list is append-only).
    case unknown(code: Int32, message: String, details: ErrorDetails)

    /// A `ROBOTA_E_*` status. Append-only in the ABI, so unknown values are kept as they are.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let nullArg = Code(rawValue: ROBOTA_E_NULL_ARG)
        public static let invalidHandle = Code(rawValue: ROBOTA_E_INVALID_HANDLE)
        public static let invalidJSON = Code(rawValue: ROBOTA_E_INVALID_JSON)
        public static let invalidConfig = Code(rawValue: ROBOTA_E_INVALID_CONFIG)
        public static let busy = Code(rawValue: ROBOTA_E_BUSY)
        public static let notFound = Code(rawValue: ROBOTA_E_NOT_FOUND)
        public static let stale = Code(rawValue: ROBOTA_E_STALE)
        public static let timeout = Code(rawValue: ROBOTA_E_TIMEOUT)
        public static let closed = Code(rawValue: ROBOTA_E_CLOSED)
        public static let aborted = Code(rawValue: ROBOTA_E_ABORTED)
        public static let reentrant = Code(rawValue: ROBOTA_E_REENTRANT)
        public static let unsupported = Code(rawValue: ROBOTA_E_UNSUPPORTED)
        public static let io = Code(rawValue: ROBOTA_E_IO)
        public static let provider = Code(rawValue: ROBOTA_E_PROVIDER)
        public static let panic = Code(rawValue: ROBOTA_E_PANIC)
        public static let `internal` = Code(rawValue: ROBOTA_E_INTERNAL)
        public static let versionMismatch = Code(rawValue: ROBOTA_E_VERSION_MISMATCH)
        public static let invalidUTF8 = Code(rawValue: ROBOTA_E_INVALID_UTF8)
        public static let budget = Code(rawValue: ROBOTA_E_BUDGET)
        public static let conflict = Code(rawValue: ROBOTA_E_CONFLICT)

        /// The library's English text for the status (`robota_status_str`).
        public var description: String { String(cString: robota_status_str(rawValue)) }
    }

    /// The case for `code` with `message` and `details`.
    public init(code: Code, message: String, details: ErrorDetails = ErrorDetails()) {
        switch code {
        case .nullArg: self = .nullArg(message: message, details: details)
        case .invalidHandle: self = .invalidHandle(message: message, details: details)
        case .invalidJSON: self = .invalidJSON(message: message, details: details)
        case .invalidConfig: self = .invalidConfig(message: message, details: details)
        case .busy: self = .busy(message: message, details: details)
        case .notFound: self = .notFound(message: message, details: details)
        case .stale: self = .stale(message: message, details: details)
        case .timeout: self = .timeout(message: message, details: details)
        case .closed: self = .closed(message: message, details: details)
        case .aborted: self = .aborted(message: message, details: details)
        case .reentrant: self = .reentrant(message: message, details: details)
        case .unsupported: self = .unsupported(message: message, details: details)
        case .io: self = .io(message: message, details: details)
        case .provider: self = .provider(message: message, details: details)
        case .panic: self = .panic(message: message, details: details)
        case .internal: self = .internal(message: message, details: details)
        case .versionMismatch: self = .versionMismatch(message: message, details: details)
        case .invalidUTF8: self = .invalidUTF8(message: message, details: details)
        case .budget: self = .budget(message: message, details: details)
        case .conflict: self = .conflict(message: message, details: details)
        default: self = .unknown(code: code.rawValue, message: message, details: details)
        }
    }

    /// The status, message and details of any case.
    private var parts: (code: Code, message: String, details: ErrorDetails) {
        switch self {
        case .nullArg(let m, let d): return (.nullArg, m, d)
        case .invalidHandle(let m, let d): return (.invalidHandle, m, d)
        case .invalidJSON(let m, let d): return (.invalidJSON, m, d)
        case .invalidConfig(let m, let d): return (.invalidConfig, m, d)
        case .busy(let m, let d): return (.busy, m, d)
        case .notFound(let m, let d): return (.notFound, m, d)
        case .stale(let m, let d): return (.stale, m, d)
        case .timeout(let m, let d): return (.timeout, m, d)
        case .closed(let m, let d): return (.closed, m, d)
        case .aborted(let m, let d): return (.aborted, m, d)
        case .reentrant(let m, let d): return (.reentrant, m, d)
        case .unsupported(let m, let d): return (.unsupported, m, d)
        case .io(let m, let d): return (.io, m, d)
        case .provider(let m, let d): return (.provider, m, d)
        case .panic(let m, let d): return (.panic, m, d)
        case .internal(let m, let d): return (.internal, m, d)
        case .versionMismatch(let m, let d): return (.versionMismatch, m, d)
        case .invalidUTF8(let m, let d): return (.invalidUTF8, m, d)
        case .budget(let m, let d): return (.budget, m, d)
        case .conflict(let m, let d): return (.conflict, m, d)
        case .unknown(let c, let m, let d): return (Code(rawValue: c), m, d)
        }
    }

    /// The C status.
    public var code: Code { parts.code }
    /// What is wrong, in the library's words.
    public var message: String { parts.message }
    /// The error's details (taxonomy and the details document).
    public var details: ErrorDetails { parts.details }
    /// Taxonomy code (e.g. `"PROVIDER_ERROR"`), when reported.
    public var kind: String? { details.kind }
    /// Taxonomy category (e.g. `"provider"`), when reported.
    public var category: String? { details.category }
    /// Whether retrying may succeed, when reported.
    public var recoverable: Bool? { details.recoverable }

    /// Takes ownership of `error` (may be NULL) and frees it.
    init(status: Int32, consuming error: OpaquePointer?) {
        defer { robota_error_free(error) }
        guard let error else {
            self.init(code: Code(rawValue: status), message: Code(rawValue: status).description)
            return
        }
        let message = robota_error_message(error).map { String(cString: $0) } ?? Code(rawValue: status).description
        let document = robota_error_details(error).flatMap { try? JSONValue(parsing: String(cString: $0)) }
        self.init(code: Code(rawValue: robota_error_code(error)), message: message, details: ErrorDetails(document: document))
    }

    /// A failed turn, from its `ERROR` event (or only its status when there was none).
    init(turnFailure event: ErrorEvent?, status: Code, fallback: String) {
        self.init(
            code: status, message: event?.message ?? fallback,
            details: ErrorDetails(kind: event?.code, category: event?.category, recoverable: event?.recoverable))
    }

    /// A store conflict, from its `ERROR` event (`code` `"CONFLICT"`).
    init(conflict event: ErrorEvent) {
        var document: [String: JSONValue] = ["code": "CONFLICT", "message": .string(event.message)]
        if let id = event.sessionID { document["session_id"] = .string(id) }
        if let v = event.expectedVersion { document["expected_version"] = .integer(v) }
        if let v = event.storedVersion { document["stored_version"] = .integer(v) }
        self = .conflict(
            message: event.message,
            details: ErrorDetails(kind: event.code, category: event.category, recoverable: event.recoverable, document: .object(document)))
    }

    public var description: String { "\(message) (\(code.description), \(code.rawValue))" }
    public var errorDescription: String? { message }
}

/// What the library reports with an error beyond its message: the Robota error taxonomy
/// (provider failures, failed turns) and the whole details document (`robota_error_details`).
public struct ErrorDetails: Sendable, Hashable {
    /// Taxonomy code (e.g. `"PROVIDER_ERROR"`).
    public let kind: String?
    /// Taxonomy category (e.g. `"provider"`).
    public let category: String?
    /// Whether retrying may succeed.
    public let recoverable: Bool?
    /// The details document, when there is one.
    public let document: JSONValue?

    public init(kind: String? = nil, category: String? = nil, recoverable: Bool? = nil, document: JSONValue? = nil) {
        self.kind = kind
        self.category = category
        self.recoverable = recoverable
        self.document = document
    }

    /// The taxonomy read from a details document.
    init(document: JSONValue?) {
        self.init(
            kind: document?["code"]?.stringValue, category: document?["category"]?.stringValue,
            recoverable: document?["recoverable"]?.boolValue, document: document)
    }
}

/// Runs a fallible C call: on a status other than `ROBOTA_OK` throws the library's error.
@discardableResult
func check(_ call: (UnsafeMutablePointer<OpaquePointer?>) -> Int32) throws -> Int32 {
    var error: OpaquePointer?
    let status = call(&error)
    guard status == ROBOTA_OK else { throw RobotaError(status: status, consuming: error) }
    robota_error_free(error)
    return status
}

/// Runs a fallible C call with a `char **` output and returns the owned string (freed here).
func checkString(
    _ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, UnsafeMutablePointer<OpaquePointer?>) -> Int32
) throws -> String {
    var out: UnsafeMutablePointer<CChar>?
    try check { call(&out, $0) }
    guard let out else { throw RobotaError(code: .internal, message: "the library returned no string") }
    defer { robota_string_free(out) }
    return String(cString: out)
}

/// Throws for a status that is not `ROBOTA_OK` (calls without an error object).
func checkStatus(_ status: Int32) throws {
    guard status == ROBOTA_OK else { throw RobotaError(status: status, consuming: nil) }
}
