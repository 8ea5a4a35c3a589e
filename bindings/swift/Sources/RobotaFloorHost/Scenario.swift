import Foundation
import Robota

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scenarios run back to back in `warm` mode (after one warm-up scenario).
let warmRuns = 50
/// Scenarios run at once in `conc` mode.
let concRuns = 100
/// Model text deltas a scenario streams: one per tool round (3) plus the 50-delta answer.
let deltasPerScenario = 53
let toolCallsPerScenario = 3
let prompt = "Add 1 and 2, three times."

/// CLOCK_MONOTONIC in ns (the clock host.c reads; the driver compares it across processes).
func nowNs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// User + system CPU time of the process (all threads), in ns.
func cpuNs() -> Int64 {
    var ru = rusage()
    #if os(Linux)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &ru)
    #else
    getrusage(RUSAGE_SELF, &ru)
    #endif
    return (Int64(ru.ru_utime.tv_sec) + Int64(ru.ru_stime.tv_sec)) * 1_000_000_000
        + (Int64(ru.ru_utime.tv_usec) + Int64(ru.ru_stime.tv_usec)) * 1000
}

/// Peak resident set of this process (VmHWM), in KB.
func peakRssKb() -> Int {
    guard let f = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), f) != nil {
        if strncmp(line, "VmHWM:", 6) == 0 { return line.withUnsafeBufferPointer { strtol($0.baseAddress! + 6, nil, 10) } }
    }
    return 0
}

/// glibc allocations so far, from `floor_malloc_count` of the LD_PRELOADed
/// benches/bindings/malloc_count.c; nil when it is not preloaded.
let mallocCount: (@convention(c) () -> UInt64)? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "floor_malloc_count")
    .map { unsafeBitCast($0, to: (@convention(c) () -> UInt64).self) }

func fail(_ code: Int32, _ message: String) -> Never {
    FileHandle.standardError.write(Data("robota-floor-host: \(message)\n".utf8))
    exit(code)
}

/// A count shared across threads (tool calls, failures).
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() {
        lock.lock()
        n += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return n
    }
}

/// One scenario's session observer: counts the model's text deltas (not the "\n\n" the
/// library streams between rounds), notes when the first arrived and when the turn completed.
/// Lock-protected; allocates nothing per event, and decodes only the text deltas (it tests
/// `kind` first, as host.c tests the kind).
final class Scenario: @unchecked Sendable {
    private let lock = NSLock()
    private var deltaCount = 0
    private var firstDelta: Int64 = 0
    private var done = false

    func observe(_ item: TurnEvent) {
        switch item.kind {
        case .textDelta:
            guard case .textDelta(let text) = item.event, text != "\n\n" else { return }
            lock.lock()
            if deltaCount == 0 { firstDelta = nowNs() }
            deltaCount += 1
            lock.unlock()
        case .turnCompleted:
            lock.lock()
            done = true
            lock.unlock()
        default:
            break
        }
    }

    /// Ready for the next scenario (warm mode reuses one, as host.c does).
    func reset() {
        lock.lock()
        (deltaCount, firstDelta, done) = (0, 0, false)
        lock.unlock()
    }

    var deltas: Int { lock.lock(); defer { lock.unlock() }; return deltaCount }
    var firstDeltaNs: Int64 { lock.lock(); defer { lock.unlock() }; return firstDelta }
    var completed: Bool { lock.lock(); defer { lock.unlock() }; return done }

    /// Exits 3 unless the scenario saw exactly its 53 model text deltas.
    func check() {
        let n = deltas
        if n != deltasPerScenario { fail(3, "\(n) text deltas, expected \(deltasPerScenario)") }
    }
}

/// The first error of a thread or task, reported by the main thread (exit 2).
final class FirstError: @unchecked Sendable {
    private let lock = NSLock()
    private var message: String?
    func note(_ error: Error) {
        lock.lock()
        if message == nil { message = "\(error)" }
        lock.unlock()
    }
    func exitIfSet() {
        lock.lock()
        let m = message
        lock.unlock()
        if let m { fail(2, m) }
    }
}

/// The arguments of the `add` tool.
struct AddArgs: ToolArguments {
    let a: Int
    let b: Int
    static var schema: JSONSchema { .object(["a": .integer(), "b": .integer()], required: ["a", "b"]) }
}
