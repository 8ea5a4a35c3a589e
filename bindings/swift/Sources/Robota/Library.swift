import CRobota
import Foundation

/// Process-wide facts and settings of the native library.
public enum RobotaLibrary {
    /// The library version (`robota_version`), e.g. `"0.1.0"`.
    public static var version: String { String(cString: robota_version()) }

    /// The library's ABI version, `(major << 16) | minor` (`robota_abi_version`).
    public static var abiVersion: UInt32 { robota_abi_version() }

    /// The ABI version of the header this binding was compiled against.
    public static var headerABIVersion: UInt32 { UInt32(ROBOTA_ABI_VERSION) }

    /// The library's English text for a status (`robota_status_str`).
    public static func describe(status: Int32) -> String { String(cString: robota_status_str(status)) }

    /// Checks once that the loaded library speaks the header's ABI: the same major version and
    /// at least its minor. Every `Runtime` initializer calls it.
    static func checkABI() throws {
        if let error = abiMismatch { throw error }
    }

    private static let abiMismatch: RobotaError? = {
        let lib = robota_abi_version()
        let header = UInt32(ROBOTA_ABI_VERSION)
        guard lib >> 16 != header >> 16 || lib & 0xFFFF < header & 0xFFFF else { return nil }
        return RobotaError(
            code: .versionMismatch,
            message: "librobota speaks ABI \(lib >> 16).\(lib & 0xFFFF) but this binding needs \(header >> 16).\(header & 0xFFFF) or a later minor")
    }()

    /// Installs the process-wide log handler (`robota_set_log_callback`): lines at `minLevel`
    /// or above arrive on library threads. Replaces (and releases) the previous handler.
    public static func setLogHandler(
        minLevel: LogLevel = .info, _ handler: @escaping @Sendable (LogLevel, _ target: String, _ message: String) -> Void
    ) throws {
        try installLogHandler(minLevel: minLevel, handler)
    }

    @discardableResult
    static func installLogHandler(
        minLevel: LogLevel, _ handler: @escaping @Sendable (LogLevel, String, String) -> Void
    ) throws -> LogBox {
        let box = LogBox(handler)
        try box.register { userData in
            try check { robota_set_log_callback(logTrampoline, userData, releaseBox, minLevel.rawValue, $0) }
        }
        return box
    }

    /// Removes the log handler; the previous one is released after its last line.
    public static func removeLogHandler() throws {
        try check { robota_set_log_callback(nil, nil, nil, LogLevel.error.rawValue, $0) }
    }
}

/// Severity of a library log line.
public enum LogLevel: Int32, Sendable, Comparable, CaseIterable {
    case trace = 0, debug, info, warn, error

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

final class LogBox: CallbackBox, @unchecked Sendable {
    let handler: @Sendable (LogLevel, String, String) -> Void
    init(_ handler: @escaping @Sendable (LogLevel, String, String) -> Void) { self.handler = handler }
}

private let logTrampoline: robota_log_fn = { userData, level, target, message, length in
    guard let box = CallbackBox.from(userData, as: LogBox.self) else { return }
    let text = message.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
    box.handler(LogLevel(rawValue: level) ?? .error, target.map { String(cString: $0) } ?? "", text)
}
