import XCTest

@testable import Robota

/// The README's on-device adapter (bindings/swift/README.md, "Models the host brings"): a local
/// model that generates tokens, behind `ModelProvider`.
private protocol LocalModel: Sendable {
    func tokens(for prompt: String) -> AsyncThrowingStream<String, Error>
}

private struct OnDeviceProvider<Model: LocalModel>: ModelProvider {
    let model: Model

    func stream(_ request: ModelRequest) -> AsyncThrowingStream<ModelEvent, Error> {
        let transcript = request.messages.map { message -> String in
            switch message {
            case .system(let text): return "System: \(text)"
            case .user: return "User: \(message.text)"
            case .assistant(let text, _): return "Assistant: \(text)"
            case .tool(let result): return "Tool \(result.name): \(result.content)"
            case .other: return ""
            }
        }
        return AsyncThrowingStream(textTokens: model.tokens(for: transcript.joined(separator: "\n") + "\nAssistant:"))
    }
}

/// A token loop like an on-device model's: yields the words of `reply` one by one, records
/// the prompts it got, and after `stallAfter` tokens waits until its task is cancelled.
private final class WordModel: LocalModel, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [String] = []
    let reply: [String]
    let stallAfter: Int?
    let cancelled = Mailbox<Int>()

    init(reply: [String], stallAfter: Int? = nil) {
        self.reply = reply
        self.stallAfter = stallAfter
    }

    var prompts: [String] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }

    func tokens(for prompt: String) -> AsyncThrowingStream<String, Error> {
        lock.lock()
        seen.append(prompt)
        lock.unlock()
        return AsyncThrowingStream { continuation in
            let generator = Task { [reply, stallAfter, cancelled] in
                for (i, word) in reply.enumerated() {
                    if i == stallAfter {
                        // stalls like a slow model until the call is cancelled
                        let parked = Parked()
                        await withTaskCancellationHandler {
                            await withCheckedContinuation { parked.park($0) }
                        } onCancel: {
                            parked.resumeAll()
                        }
                        cancelled.put(i)
                        continuation.finish(throwing: CancellationError())
                        return
                    }
                    continuation.yield(word)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in generator.cancel() }
        }
    }
}

final class ProviderAdapterTests: XCTestCase {
    func testTheOnDeviceAdapterStreamsTheModelsTokens() async throws {
        let model = WordModel(reply: ["It", " is", " sunny."])
        let rt = try Runtime(config: RuntimeConfig(providers: [:]))
        try rt.register(provider: OnDeviceProvider(model: model), named: "device",
                        capabilities: ProviderCapabilities(models: ["tiny"], contextWindow: 4096, maxRetries: 0))
        let s = try rt.session(config: SessionConfig(
            provider: "device", model: "tiny", systemPrompt: "You are terse.", tools: [], systemPromptMode: "replace"))
        let first = try await collect(s.stream("Weather?"))
        XCTAssertEqual(first.compactMap { if case .textDelta(let t) = $0 { return t } else { return nil } }, ["It", " is", " sunny."])
        XCTAssertEqual(first.completed?.response, "It is sunny.")
        _ = try await s.run("And tomorrow?")
        XCTAssertEqual(model.prompts, [
            "System: You are terse.\nUser: Weather?\nAssistant:",
            "System: You are terse.\nUser: Weather?\nAssistant: It is sunny.\nUser: And tomorrow?\nAssistant:",
        ])
    }

    func testAbortingTheTurnCancelsTheTokenLoop() async throws {
        let model = WordModel(reply: ["One", " two", " three"], stallAfter: 2)
        let rt = try Runtime(config: RuntimeConfig(providers: [:]))
        try rt.register(provider: OnDeviceProvider(model: model), named: "device")
        let log = EventLog()
        let s = try rt.session(config: SessionConfig(provider: "device", model: "tiny", tools: []), onEvent: log.observer)
        try s.submit("count")
        try await log.until { $0.contains { $0.event == .textDelta(" two") } }
        try s.abort()
        let stoppedAt = try await model.cancelled.take()
        XCTAssertEqual(stoppedAt, 2)
        try await log.untilCompleted()
        XCTAssertEqual(log.events.completed?.stopReason, .aborted)
        XCTAssertEqual(log.events.text, "One two")
    }
}
