// robota-floor-host: the floor benchmark's host (benches/floor/host.c) on the Swift binding.
// The same scenario as host.c — a fresh session with the host tool add(a,b), one turn of 3 tool
// rounds and a 50-delta answer (53 model text deltas, 3 tool calls) against the fake model
// server of `floor serve KIND` — through the binding's idiomatic API, so the bench can put the
// binding's own cost beside the C host's. Built by benches/bindings/build_swift.sh.
//
//   robota-floor-host MODE KIND BASE_URL PATTERN
//     MODE single : one scenario; prints {"first_delta_ns","done_ns","peak_rss_kb"} (CLOCK_MONOTONIC)
//     MODE warm   : one warm-up scenario, then 50 in a row; prints {"wall_ns","cpu_ns","scenarios",
//                   "peak_rss_kb","allocs","deltas"}
//     MODE conc   : 100 scenarios at once; prints {"wall_ns","cpu_ns","scenarios","peak_rss_kb"}
//     KIND        : anthropic | openai
//     PATTERN     : task  — a Task per session awaiting `session.run` (default delivery, thread);
//                           warm: one task runs the 50 scenarios in a row (as host.c's thread
//                           does), conc: 100 child tasks of a task group
//                   drive — a thread per session blocked in `session.drive` (inline delivery);
//                           single and warm: the main thread (as host.c's `run`; the library
//                           keeps the reactor it lends a thread, with its connections, for that
//                           thread's next turn), conc: a Thread each
//                   one   — pump delivery: every turn submitted, then this one thread calls
//                           `session.dispatch` over the live sessions until every turn completed
//
// The tool is an inline tool (`inlineTool`: answered on the library thread that calls it, as
// host.c answers inside its callback). Events are counted by each session's `onEvent` observer
// under a lock, with no allocation of the host's per event; it tests `TurnEvent.kind` first and
// decodes only the text deltas. `allocs` counts the glibc malloc/calloc/realloc/posix_memalign/
// aligned_alloc/memalign calls of the whole process over the 50 warm scenarios, read from
// `floor_malloc_count` of benches/bindings/malloc_count.c when it is LD_PRELOADed (-1 when
// not). librobota.so allocates through its own Rust allocator (mimalloc), so the count is the
// Swift side: the binding, the Swift runtime, Foundation and libdispatch.
// Exit: 0 when every check passed, 3 for a wrong delta or tool-call count, 2 for an error of the
// binding, 64 for a bad command line.
import Foundation
import Robota

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let args = CommandLine.arguments
let patterns = ["task", "drive", "one"]
guard args.count == 5, ["single", "warm", "conc"].contains(args[1]), patterns.contains(args[4]) else {
    FileHandle.standardError.write(Data("usage: robota-floor-host single|warm|conc anthropic|openai BASE_URL task|drive|one\n".utf8))
    exit(64)
}
let (mode, kind, baseURL, pattern) = (args[1], args[2], args[3], args[4])

let toolCalls = Counter()
let errors = FirstError()
let runtime: Runtime
do {
    runtime = try Runtime(config: RuntimeConfig(providers: [
        "p": ProviderConfig(kind: ProviderConfig.Kind(rawValue: kind), baseURL: baseURL, apiKey: "floor-key", maxRetries: 0),
    ]))
    try runtime.inlineTool("add", description: "Adds two integers.", readOnly: true) { (args: AddArgs) -> Int in
        toolCalls.add()
        return args.a + args.b
    }
} catch {
    fail(2, "runtime: \(error)")
}
let sessionConfig = SessionConfig(
    provider: "p", model: "m", tools: ["add"], permissionMode: .bypassPermissions,
    delivery: pattern == "drive" ? .inline : pattern == "one" ? .pump : nil)

/// A new session whose observer counts into `scenario`.
@Sendable func openSession(_ scenario: Scenario) throws -> Session {
    try runtime.session(config: sessionConfig, onEvent: { scenario.observe($0) })
}

/// task: the turn awaited with `run`; the session is released when it returns.
@Sendable func runTask(_ scenario: Scenario) async throws {
    let session = try openSession(scenario)
    _ = try await session.run(prompt)
}

/// drive: the calling thread runs the turn.
@Sendable func runDrive(_ scenario: Scenario) throws {
    let session = try openSession(scenario)
    _ = try session.drive(prompt)
}

/// one: pump sessions, every turn submitted, then the calling thread dispatches over the live
/// ones (a pass without events waits up to 1 ms on one of them) until every turn completed.
func runPumped(_ scenarios: [Scenario]) throws {
    var live = try scenarios.map { scenario -> (session: Session, scenario: Scenario) in
        let session = try openSession(scenario)
        try session.submit(PromptInput(prompt))
        return (session, scenario)
    }
    while !live.isEmpty {
        if live.count == 1 {
            try live[0].session.dispatch(timeout: nil)
        } else {
            var delivered = 0
            for entry in live { delivered += try entry.session.dispatch() }
            if delivered == 0 { try live[0].session.dispatch(timeout: 0.001) }
        }
        live.removeAll { $0.scenario.completed }
    }
}

/// A task's result, handed to the thread that waited for it.
final class ResultBox<T>: @unchecked Sendable { var value: T? }

/// Runs `body` in a task and blocks this thread until it returns.
func blockOn<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let (box, done) = (ResultBox<T>(), DispatchSemaphore(value: 0))
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// Runs `scenarios` at once with the pattern and checks their deltas.
func runAll(_ scenarios: [Scenario]) {
    switch pattern {
    case "task" where scenarios.count == 1:
        let scenario = scenarios[0]
        blockOn { do { try await runTask(scenario) } catch { errors.note(error) } }
    case "task":
        blockOn {
            await withTaskGroup(of: Void.self) { group in
                for scenario in scenarios {
                    group.addTask {
                        do { try await runTask(scenario) } catch { errors.note(error) }
                    }
                }
            }
        }
    case "drive" where scenarios.count == 1:
        do { try runDrive(scenarios[0]) } catch { errors.note(error) }
    case "drive":
        let group = DispatchGroup()
        for scenario in scenarios {
            group.enter()
            Thread {
                do { try runDrive(scenario) } catch { errors.note(error) }
                group.leave()
            }.start()
        }
        group.wait()
    default:
        do { try runPumped(scenarios) } catch { errors.note(error) }
    }
    errors.exitIfSet()
    for scenario in scenarios { scenario.check() }
}

/// Exits 3 unless the tool ran 3 times per scenario.
func checkTools(_ scenarios: Int) {
    let n = toolCalls.value
    if n != scenarios * toolCallsPerScenario { fail(3, "\(n) tool calls for \(scenarios) scenarios") }
}

switch mode {
case "single":
    let scenario = Scenario()
    runAll([scenario])
    let done = nowNs()
    checkTools(1)
    print("{\"first_delta_ns\":\(scenario.firstDeltaNs),\"done_ns\":\(done),\"peak_rss_kb\":\(peakRssKb())}")
case "warm":
    let scenario = Scenario()
    runAll([scenario])
    var deltas = 0
    let (t0, c0, a0) = (nowNs(), cpuNs(), mallocCount?() ?? 0)
    if pattern == "task" {
        deltas = blockOn {
            var deltas = 0
            for _ in 0..<warmRuns {
                scenario.reset()
                do { try await runTask(scenario) } catch { errors.note(error) }
                errors.exitIfSet()
                scenario.check()
                deltas += scenario.deltas
            }
            return deltas
        }
    } else {
        for _ in 0..<warmRuns {
            scenario.reset()
            runAll([scenario])
            deltas += scenario.deltas
        }
    }
    let (wall, cpu, a1) = (nowNs() - t0, cpuNs() - c0, mallocCount?() ?? 0)
    checkTools(warmRuns + 1)
    let allocs = mallocCount == nil ? -1 : Int64(a1 - a0)
    print("{\"wall_ns\":\(wall),\"cpu_ns\":\(cpu),\"scenarios\":\(warmRuns),\"peak_rss_kb\":\(peakRssKb()),\"allocs\":\(allocs),\"deltas\":\(deltas)}")
default:
    let scenarios = (0..<concRuns).map { _ in Scenario() }
    let (t0, c0) = (nowNs(), cpuNs())
    runAll(scenarios)
    let (wall, cpu) = (nowNs() - t0, cpuNs() - c0)
    checkTools(concRuns)
    print("{\"wall_ns\":\(wall),\"cpu_ns\":\(cpu),\"scenarios\":\(concRuns),\"peak_rss_kb\":\(peakRssKb())}")
}
fflush(stdout)
exit(0)
