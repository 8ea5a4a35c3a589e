import CRobota
import Foundation

/// A Swift object passed to the library as `user_data`. It is retained once when registered
/// and released by `releaseBox`, the registration's `robota_free_fn`, which the library calls
/// exactly once after the registration's last callback. When a registration call fails the
/// library does not call `free_fn`; `register` then releases the box itself.
class CallbackBox: @unchecked Sendable {
    /// A number unique in this process, so tests can watch one box's releases.
    let serial: UInt64 = ReleaseLedger.nextSerial()

    /// Retains the box for the library and runs `call` with its `user_data` pointer; when
    /// `call` throws (the library refused the registration), releases it again.
    @discardableResult
    func register<T>(_ call: (UnsafeMutableRawPointer) throws -> T) rethrows -> T {
        let unmanaged = Unmanaged.passRetained(self)
        do {
            return try call(unmanaged.toOpaque())
        } catch {
            ReleaseLedger.released(serial)
            unmanaged.release()
            throw error
        }
    }

    /// The box behind a callback's `user_data`, not retained (the library keeps it alive for
    /// the duration of the callback).
    static func from<T: CallbackBox>(_ userData: UnsafeMutableRawPointer?, as type: T.Type) -> T? {
        guard let userData else { return nil }
        return Unmanaged<CallbackBox>.fromOpaque(userData).takeUnretainedValue() as? T
    }
}

/// The `robota_free_fn` of every registration: releases the box retained by `register`.
let releaseBox: robota_free_fn = { userData in
    guard let userData else { return }
    let box = Unmanaged<CallbackBox>.fromOpaque(userData)
    ReleaseLedger.released(box.takeUnretainedValue().serial)
    box.release()
}

/// Counts `free_fn` calls for boxes a test watches (an empty dictionary otherwise).
enum ReleaseLedger {
    /// Lock-protected state (a class, so the static is an immutable reference).
    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var serial: UInt64 = 0
        var watched: [UInt64: Int] = [:]
    }
    private static let state = State()

    static func nextSerial() -> UInt64 {
        state.lock.lock()
        defer { state.lock.unlock() }
        state.serial += 1
        return state.serial
    }

    /// Starts counting releases of box `serial`.
    static func watch(_ serial: UInt64) {
        state.lock.lock()
        state.watched[serial] = 0
        state.lock.unlock()
    }

    static func released(_ serial: UInt64) {
        state.lock.lock()
        if let n = state.watched[serial] { state.watched[serial] = n + 1 }
        state.lock.unlock()
    }

    /// How often a watched box was released (`nil` when not watched).
    static func releases(of serial: UInt64) -> Int? {
        state.lock.lock()
        defer { state.lock.unlock() }
        return state.watched[serial]
    }
}
