import CRobota
import Foundation

/// An error from the library (a `ROBOTA_E_*` status with the library's message), or a failed
/// turn. `code` is the C status; `kind`, `category` and `recoverable` come from the Robota
/// error taxonomy when the library reports them (provider failures, failed turns).
public struct RobotaError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
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

        /// The library's English text for the status (`robota_status_str`).
        public var description: String { String(cString: robota_status_str(rawValue)) }
    }

    /// The status.
    public let code: Code
    /// What is wrong, in the library's words.
    public let message: String
    /// Taxonomy code (e.g. `"PROVIDER_ERROR"`), when reported.
    public let kind: String?
    /// Taxonomy category (e.g. `"provider"`), when reported.
    public let category: String?
    /// Whether retrying may succeed, when reported.
    public let recoverable: Bool?
    /// The details document (`robota_error_details`), when there is one.
    public let details: JSONValue?

    public init(
        code: Code, message: String, kind: String? = nil, category: String? = nil,
        recoverable: Bool? = nil, details: JSONValue? = nil
    ) {
        self.code = code
        self.message = message
        self.kind = kind
        self.category = category
        self.recoverable = recoverable
        self.details = details
    }

    /// Takes ownership of `error` (may be NULL) and frees it.
    init(status: Int32, consuming error: OpaquePointer?) {
        defer { robota_error_free(error) }
        guard let error else {
            self.init(code: Code(rawValue: status), message: Code(rawValue: status).description)
            return
        }
        let message = robota_error_message(error).map { String(cString: $0) } ?? Code(rawValue: status).description
        let details = robota_error_details(error).flatMap { try? JSONValue(parsing: String(cString: $0)) }
        self.init(
            code: Code(rawValue: robota_error_code(error)), message: message,
            kind: details?["code"]?.stringValue, category: details?["category"]?.stringValue,
            recoverable: details?["recoverable"]?.boolValue, details: details)
    }

    /// A failed turn, from its `ERROR` event (or only its status when there was none).
    init(turnFailure event: ErrorEvent?, status: Code, fallback: String) {
        self.init(
            code: status, message: event?.message ?? fallback, kind: event?.code,
            category: event?.category, recoverable: event?.recoverable)
    }

    public var description: String { "\(message) (\(code.description), \(code.rawValue))" }
    public var errorDescription: String? { message }
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
