import CRobota
import Foundation

/// Answers a permission request (runs in its own task; the turn waits for the answer).
public typealias PermissionHandler = @Sendable (PermissionRequest) async -> PermissionDecision
/// Answers a `{"type":"host"}` hook (runs in its own task; the turn waits for the answer).
public typealias HookHandler = @Sendable (HookRequest) async -> HookResponse
/// Sees every event of a session, on the delivering thread, in order. Keep it short.
public typealias EventObserver = @Sendable (TurnEvent) -> Void

/// A runtime (`robota_runtime`): model providers, one HTTP pool, async workers and host tools,
/// shared by its sessions. Thread-safe. `deinit` releases it; sessions keep it alive.
public final class Runtime: @unchecked Sendable {
    let handle: OpaquePointer
    let toolTasks = ToolTasks()
    let requestTasks = RequestTasks()
    let hostIO = HostIOSlot()
    private let handlersLock = NSLock()
    private var toolHandlers: [String: ToolBody] = [:]
    /// The last session config written out, and its text (hosts create sessions from one config).
    private var lastSessionConfig: (config: SessionConfig, json: String)?

    /// Starts a runtime from its config (`robota_runtime_new`).
    public convenience init(config: RuntimeConfig) throws {
        try self.init(json: try config.jsonText())
    }

    /// Starts a runtime from config JSON text.
    public init(json: String) throws {
        try RobotaLibrary.checkABI()
        var out: OpaquePointer?
        try check { error in json.withCString { robota_runtime_new($0, &out, error) } }
        guard let out else { throw RobotaError(code: .internal, message: "robota_runtime_new returned no runtime") }
        handle = out
    }

    deinit { robota_runtime_free(handle) }

    /// Registers a host tool for sessions created afterwards (`robota_runtime_register_tool`).
    /// Each call runs `handler` in its own task: its return value (any `Encodable`; a `String`
    /// is the plain text result) answers the call, an error it throws becomes the tool's
    /// failure, and the task is cancelled when the library cancels the call (abort, timeout,
    /// session released).
    public func registerTool<Output: Encodable>(
        _ tool: ToolDefinition, handler: @escaping @Sendable (ToolCall) async throws -> Output
    ) throws {
        try installTool(tool) { call in try JSONCoding.encodeForLibrary(try await handler(call)) }
    }

    /// Registers a host tool whose handler runs inline: on the library thread that calls the
    /// tool (with `.inline` delivery, the thread driving the turn), with no task and no thread
    /// hop; its return value answers the call before that callback returns, an error it throws
    /// becomes the tool's failure. For short, non-blocking work (a computation, a lookup in
    /// memory): while it runs, that thread serves nothing else. It is not cancelled, and the
    /// library's blocking calls throw `.reentrant` inside it. Otherwise as
    /// `registerTool(_:handler:)`.
    public func registerInlineTool<Output: Encodable>(
        _ tool: ToolDefinition, handler: @escaping @Sendable (ToolCall) throws -> Output
    ) throws {
        try installTool(tool, body: .inline { call in try JSONCoding.encodeForLibrary(try handler(call)) })
    }

    /// Registers a host tool without a handler: its calls arrive as `Event.toolCall` and are
    /// answered with `completeToolCall`, from any task, any time later.
    public func registerTool(_ tool: ToolDefinition) throws {
        let doc = try JSONCoding.encode(tool)
        try check { error in doc.withCString { robota_runtime_register_tool(handle, $0, nil, nil, nil, error) } }
    }

    /// Registers `tool` with `handler` (run in a task per call) in a box the library releases
    /// with the runtime.
    @discardableResult
    func installTool(_ tool: ToolDefinition, handler: @escaping ToolBox.Handler) throws -> ToolBox {
        try installTool(tool, body: .task(handler))
    }

    /// Registers `tool` with `body` in a box the library releases with the runtime.
    @discardableResult
    func installTool(_ tool: ToolDefinition, body: ToolBody) throws -> ToolBox {
        let doc = try JSONCoding.encode(tool)
        let box = ToolBox(runtime: self, body: body)
        try box.register { userData in
            try check { error in
                doc.withCString { robota_runtime_register_tool(handle, $0, toolTrampoline, userData, releaseBox, error) }
            }
        }
        handlersLock.lock()
        toolHandlers[tool.name] = body
        handlersLock.unlock()
        return box
    }

    /// The session document of `config`, written once for a run of sessions with the same config.
    func sessionJSON(_ config: SessionConfig) throws -> String {
        handlersLock.lock()
        let last = lastSessionConfig
        handlersLock.unlock()
        if let last, last.config == config { return last.json }
        let json = try config.jsonText()
        handlersLock.lock()
        lastSessionConfig = (config, json)
        handlersLock.unlock()
        return json
    }

    /// The handler registered for tool `name` (used for pull sessions, which get tool calls as events).
    func toolHandler(named name: String) -> ToolBody? {
        handlersLock.lock()
        defer { handlersLock.unlock() }
        return toolHandlers[name]
    }

    /// Answers host tool call `callID` with `result` encoded as JSON (`robota_tool_call_complete`).
    /// `isError` marks a failure the model should see. Throws `.stale` for a call already
    /// answered, timed out or cancelled.
    public func completeToolCall<T: Encodable>(_ callID: UInt64, result: T, isError: Bool = false) throws {
        try completeToolCall(callID, json: JSONCoding.encode(result), isError: isError)
    }

    /// Answers host tool call `callID` with JSON text (text that is not JSON is taken as a string).
    public func completeToolCall(_ callID: UInt64, json: String, isError: Bool = false) throws {
        try check { error in json.withCString { robota_tool_call_complete(handle, callID, $0, isError ? 1 : 0, error) } }
    }

    /// Answers a permission request (`robota_request_respond`).
    public func respond(to request: PermissionRequest, with decision: PermissionDecision) throws {
        try respond(requestID: request.requestID, json: decision.json)
    }

    /// Answers a host hook request (`robota_request_respond`).
    public func respond(to request: HookRequest, with response: HookResponse) throws {
        try respond(requestID: request.requestID, json: JSONCoding.encode(response))
    }

    /// Answers a permission or hook request with a raw JSON document.
    public func respond(requestID: UInt64, json: String) throws {
        try check { error in json.withCString { robota_request_respond(handle, requestID, $0, error) } }
    }
}
