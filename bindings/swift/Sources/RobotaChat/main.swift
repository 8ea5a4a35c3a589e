// robota-chat: an interactive terminal agent on the Swift binding.
//
//   swift run robota-chat                 interactive (/help lists commands, Ctrl-C aborts a turn, EOF quits)
//   swift run robota-chat "a prompt"      one-shot: answers and exits
//
// Uses a real model when ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL is set, and the
// offline scripted provider otherwise. Streams text, runs a built-in file tool and two host
// tools (`get_time`, and `save_note`, which asks y/n first). Never hangs without a terminal:
// end of input declines prompts and exits.
import Foundation
import Robota

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Writes to stdout unbuffered (deltas appear as they arrive).
func out(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }

/// Reads a line without blocking the caller's thread; nil at end of input.
func readLineAsync() async -> String? {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: readLine()) }.start()
    }
}

/// Asks y/n; end of input (or no terminal) means no.
func askYesNo(_ question: String) async -> Bool {
    out("\n\(question) [y/N] ")
    let yes = (await readLineAsync())?.lowercased().hasPrefix("y") ?? false
    if !yes { out("(declined)\n") }
    return yes
}

let offlineScript: [JSONValue] = [
    ["deltas": ["Hello! ", "I am running ", "offline on the scripted provider. ", "Let me check the time and look at the Swift files here."],
     "delay_ms": 40,
     "tool_calls": [["name": "get_time", "arguments": [:]], ["name": "Glob", "arguments": ["pattern": "**/*.swift"]]]],
    ["deltas": ["Got it. ", "Now I will save a note ", "(this asks for permission)."], "delay_ms": 40,
     "tool_calls": [["name": "save_note", "arguments": ["text": "hello from robota-chat"]]]],
    ["deltas": ["Done. ", "Ask me anything; ", "offline I echo it back."], "delay_ms": 40],
]

/// The provider and model to use, from the environment.
func chooseProvider() -> (ProviderConfig, model: String) {
    let env = ProcessInfo.processInfo.environment
    let model = env["ROBOTA_MODEL"]
    if let key = env["ANTHROPIC_API_KEY"], !key.isEmpty {
        out("[robota chat] using Anthropic\n")
        return (ProviderConfig(kind: .anthropic, apiKey: "$ENV:ANTHROPIC_API_KEY"), model ?? "claude-sonnet-4-5")
    }
    let base = env["OPENAI_BASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    let openAIKey = env["OPENAI_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
    if base != nil || openAIKey != nil {
        out("[robota chat] using \(base ?? "OpenAI")\n")
        return (
            ProviderConfig(
                kind: base == nil ? .openai : .openaiCompatible, baseURL: base,
                apiKey: openAIKey == nil ? nil : "$ENV:OPENAI_API_KEY"),
            model ?? "gpt-4o-mini"
        )
    }
    out("[robota chat] offline: scripted provider (set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL for a real model)\n")
    return (.scripted(turns: offlineScript, fallback: "echo"), "scripted")
}

/// Prints one event.
func render(_ event: Event) {
    switch event {
    case .textDelta(let text): out(text)
    case .toolStart(let t): out("\n  ⟳ \(t.toolName)(\(t.firstArg ?? ""))\n")
    case .toolEnd(let t): out("  \(t.result == "success" ? "✓" : t.result == "denied" ? "⊘" : "✗") \(t.toolName)\n")
    case .error(let e): out("\n[error] \(e.message)\n")
    case .turnCompleted(let r): out(r.stopReason == .complete ? "\n" : "\n[\(r.stopReason.rawValue)]\n")
    default: break
    }
}

/// The turn Ctrl-C cancels.
final class CurrentTurn: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    func set(_ t: Task<Void, Never>?) {
        lock.lock()
        task = t
        lock.unlock()
    }
    func cancel() {
        lock.lock()
        let t = task
        lock.unlock()
        t?.cancel()
    }
}

let current = CurrentTurn()
signal(SIGINT, SIG_IGN)
let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
interrupt.setEventHandler { current.cancel() }
interrupt.resume()

/// Streams one turn; Ctrl-C cancels the consuming task, which aborts the turn.
func runTurn(_ session: Session, _ prompt: String) async -> Bool {
    let task = Task {
        do {
            for try await event in session.stream(prompt) { render(event) }
        } catch is CancellationError {
        } catch {
            out("\n[error] \(error)\n")
        }
    }
    current.set(task)
    await task.value
    current.set(nil)
    if task.isCancelled { out("\n[aborted]\n") }
    return !task.isCancelled
}

do {
    let (provider, model) = chooseProvider()
    let rt = try Runtime(config: RuntimeConfig(providers: ["main": provider]))
    try rt.registerTool(ToolDefinition(name: "get_time", description: "Current UTC time", inputSchema: ["type": "object", "properties": [:]], readOnly: true)) { _ in
        ISO8601DateFormatter().string(from: Date())
    }
    try rt.registerTool(ToolDefinition(
        name: "save_note", description: "Saves a note for the user",
        inputSchema: ["type": "object", "properties": ["text": ["type": "string"]], "required": ["text"]])
    ) { call in
        out("  (note: \(call.arguments["text"]?.stringValue ?? ""))\n")
        return "saved"
    }
    let session = try rt.session(
        config: SessionConfig(
            provider: "main", model: model, systemPrompt: "You are a helpful terminal assistant. Use tools when useful.",
            cwd: FileManager.default.currentDirectoryPath),
        onPermission: { request in
            await askYesNo("[Permission Required] Tool: \(request.toolName) — allow?") ? .allow : .deny
        })

    let args = CommandLine.arguments.dropFirst()
    if let prompt = args.first {
        exit(await runTurn(session, prompt) ? 0 : 1)
    }
    while true {
        out("> ")
        guard let line = await readLineAsync() else {
            out("\n")
            break
        }
        let text = line.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { continue }
        if text == "/quit" || text == "/exit" { break }
        if text.hasPrefix("/") {
            let parts = text.dropFirst().split(separator: " ", maxSplits: 1).map(String.init)
            do {
                out(try session.command(parts[0], args: parts.count > 1 ? parts[1] : "").message + "\n")
            } catch {
                out("\(error)\n")
            }
            continue
        }
        _ = await runTurn(session, text)
    }
} catch {
    FileHandle.standardError.write(Data("robota-chat: \(error)\n".utf8))
    exit(1)
}
