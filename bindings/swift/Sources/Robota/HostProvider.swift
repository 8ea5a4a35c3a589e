import CRobota
import Foundation

extension Runtime {
    /// Registers `provider` as the provider profile `name` (`robota_runtime_register_provider`):
    /// sessions with `provider: name`, their agents, compaction and `query` then call it. Each
    /// model call runs `provider.stream(_:)` in a task of its own and pushes what it yields;
    /// the task is cancelled when the library cancels the call. Throws `.invalidConfig` naming
    /// `name` when the runtime already has a provider of that name (the first one stays), or
    /// naming the capability the library refuses.
    public func register(
        provider: some ModelProvider, named name: String, capabilities: ProviderCapabilities = ProviderCapabilities()
    ) throws {
        try installProvider(provider, named: name, capabilities: capabilities)
    }

    /// Registers `provider` in a box the library releases with the runtime.
    @discardableResult
    func installProvider(
        _ provider: some ModelProvider, named name: String, capabilities: ProviderCapabilities
    ) throws -> ProviderBox {
        let caps = try capabilities.jsonText()
        let box = ProviderBox(runtime: self, provider: provider)
        try box.register { userData in
            try check { error in
                name.withCString { name in
                    caps.withCString { caps in
                        robota_runtime_register_provider(handle, name, caps, providerTrampoline, userData, releaseBox, error)
                    }
                }
            }
        }
        return box
    }

    /// Pushes one event document for host provider call `callID` (`robota_provider_push`).
    /// Throws `.stale` once the call ended or was cancelled, `.notFound` for a call never issued,
    /// `.invalidConfig` for an event the call refuses (which also ends the call).
    func pushProviderEvent(_ callID: UInt64, json: String) throws {
        try check { error in json.withCString { robota_provider_push(handle, callID, $0, error) } }
    }
}

/// The `user_data` of a provider registration: the host's provider and its running calls.
final class ProviderBox: CallbackBox, @unchecked Sendable {
    /// Weak: the library owns this box for the runtime's lifetime. Calls come from sessions and
    /// queries, which hold the runtime; a push after the runtime is gone is dropped.
    weak var runtime: Runtime?
    let provider: any ModelProvider
    let calls = ProviderCalls()

    init(runtime: Runtime, provider: any ModelProvider) {
        self.runtime = runtime
        self.provider = provider
    }

    /// A request document from the library: starts the call's task, or cancels it.
    func receive(callID: UInt64, text: String) {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: text)
        } catch {
            return refuse(callID, "the request is not JSON: \(error)")
        }
        switch document["type"]?.stringValue {
        case "cancel":
            calls.cancel(callID)
        case "call":
            do {
                let request = try ModelRequest(callID: callID, document: document)
                calls.start(callID) { [self] in await serve(request) }
            } catch {
                refuse(callID, "cannot read the request document: \(error)")
            }
        default:
            break  // a document kind of a later ABI, which needs no answer from this binding
        }
    }

    /// Reads the host's stream for `request` and pushes each event, then the end.
    private func serve(_ request: ModelRequest) async {
        let callID = request.callID
        do {
            for try await event in provider.stream(request) {
                // Leaving the loop drops the stream: its onTermination runs with .cancelled.
                guard push(callID, event.document) else { return }
                if case .done = event { return }
            }
            // A cancelled task's stream ends early; the library has ended the call already.
            guard !Task.isCancelled else { return }
            push(callID, ["type": "done"])
        } catch {
            guard !Task.isCancelled else { return }
            push(callID, ModelProviderError.document(for: error))
        }
    }

    /// Ends call `callID` with a non-recoverable error: the binding cannot serve it.
    private func refuse(_ callID: UInt64, _ message: String) {
        push(callID, ["type": "error", "class": "provider", "message": .string(message), "recoverable": false])
    }

    /// Pushes `document`; false when the call is over (ended, cancelled, or it refused the
    /// event, which ends it with an error naming what was wrong).
    @discardableResult
    private func push(_ callID: UInt64, _ document: JSONValue) -> Bool {
        guard let runtime else { return false }
        return (try? runtime.pushProviderEvent(callID, json: document.jsonString())) != nil
    }
}

/// `robota_provider_fn`: hands the request to the box and returns at once.
let providerTrampoline: robota_provider_fn = { userData, callID, json, length in
    guard let box = CallbackBox.from(userData, as: ProviderBox.self) else { return }
    let text = json.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
    box.receive(callID: callID, text: text)
}

/// The tasks serving a provider's calls, by call id, so the call's cancellation cancels the
/// right one. The library sends a call's cancel document only after the callback that handed
/// over the call returned, so a cancellation never arrives before its task was registered here.
final class ProviderCalls: @unchecked Sendable {
    private let lock = NSLock()
    private var running: [UInt64: Task<Void, Never>] = [:]

    /// Runs `body` in a task registered as call `callID`.
    func start(_ callID: UInt64, _ body: @escaping @Sendable () async -> Void) {
        lock.lock()
        defer { lock.unlock() }
        // Created under the lock so the task's own removal cannot run before this insertion.
        running[callID] = Task { [self] in
            await body()
            finished(callID)
        }
    }

    private func finished(_ callID: UInt64) {
        lock.lock()
        running[callID] = nil
        lock.unlock()
    }

    /// Cancels the task of call `callID`, if it still runs.
    func cancel(_ callID: UInt64) {
        lock.lock()
        let task = running[callID]
        lock.unlock()
        task?.cancel()
    }

    /// How many calls are being served (tests).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return running.count
    }
}
