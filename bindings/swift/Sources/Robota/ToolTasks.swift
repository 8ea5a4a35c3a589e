import CRobota
import Foundation

/// How a host tool's handler runs; either returns the result as JSON text.
enum ToolBody: Sendable {
    /// In a task of its own, cancelled when the library cancels the call.
    case task(ToolBox.Handler)
    /// On the library thread that calls the tool, answering before the callback returns.
    case inline(@Sendable (ToolCall) throws -> String)
}

/// The `user_data` of a host tool registration: the handler and a weak way back to the runtime.
final class ToolBox: CallbackBox, @unchecked Sendable {
    /// Runs one call and returns the result as JSON text.
    typealias Handler = @Sendable (ToolCall) async throws -> String

    /// Weak: the library owns this box for the runtime's lifetime, so a strong reference would
    /// keep the runtime alive forever. Calls only come from sessions, which hold the runtime.
    weak var runtime: Runtime?
    let body: ToolBody

    init(runtime: Runtime, body: ToolBody) {
        self.runtime = runtime
        self.body = body
    }

    convenience init(runtime: Runtime, handler: @escaping Handler) {
        self.init(runtime: runtime, body: .task(handler))
    }
}

/// `robota_tool_fn`: runs the handler inline or starts it in a task, which answers the call.
let toolTrampoline: robota_tool_fn = { userData, session, callID, name, input, length in
    guard let box = CallbackBox.from(userData, as: ToolBox.self), let runtime = box.runtime else { return }
    let text = input.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
    let call = ToolCall(callID: callID, toolName: name.map { String(cString: $0) } ?? "", argumentsText: text)
    runtime.toolTasks.start(call, session: session, body: box.body, runtime: runtime)
}

/// The tasks running host tool handlers, by call id, so a `tool_call_cancelled` event (or the
/// release of the session) cancels the right one. The library calls a tool and later reports
/// its cancellation in order, one callback at a time (in every delivery mode), so a
/// cancellation never arrives before its call was started here.
final class ToolTasks: @unchecked Sendable {
    private let lock = NSLock()
    private var running: [UInt64: (session: Int, task: Task<Void, Never>)] = [:]

    /// Runs `body` for `call` and answers the call with its result or its error: an inline
    /// body before returning, a task body in a task registered here until it finished.
    func start(_ call: ToolCall, session: OpaquePointer?, body: ToolBody, runtime: Runtime) {
        let handler: ToolBox.Handler
        switch body {
        case .inline(let inline):
            let result: String
            do {
                result = try inline(call)
            } catch {
                try? runtime.completeToolCall(call.callID, json: failureText(error), isError: true)
                return
            }
            try? runtime.completeToolCall(call.callID, json: result)
            return
        case .task(let task):
            handler = task
        }
        lock.lock()
        defer { lock.unlock() }
        // Created under the lock so the task's own removal cannot run before this insertion.
        let task = Task { [self] in
            do {
                let result = try await handler(call)
                try? runtime.completeToolCall(call.callID, json: result)
            } catch {
                try? runtime.completeToolCall(call.callID, json: failureText(error), isError: true)
            }
            finished(call.callID)
        }
        running[call.callID] = (Int(bitPattern: session), task)
    }

    private func finished(_ callID: UInt64) {
        lock.lock()
        running[callID] = nil
        lock.unlock()
    }

    /// Cancels the handler of call `callID`, if it still runs.
    func cancel(_ callID: UInt64) {
        lock.lock()
        let task = running[callID]?.task
        lock.unlock()
        task?.cancel()
    }

    /// Cancels every handler still running for `session` (the session was released).
    func cancelAll(session: OpaquePointer) {
        let key = Int(bitPattern: session)
        lock.lock()
        let tasks = running.values.filter { $0.session == key }.map(\.task)
        lock.unlock()
        tasks.forEach { $0.cancel() }
    }

    /// How many handlers are running (tests).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return running.count
    }
}

/// What the model sees when a handler throws: the error's description, as a JSON string.
func failureText(_ error: Error) -> String {
    let text = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
    return (try? JSONCoding.encode(text)) ?? "\"tool failed\""
}
