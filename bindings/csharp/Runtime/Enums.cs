namespace Robota
{
    /// <summary>Status codes of the C ABI (robota_status; append-only, never reused).</summary>
    public enum RobotaStatus
    {
        /// <summary>Success.</summary>
        Ok = 0,
        /// <summary>A required argument was NULL.</summary>
        NullArg = -1,
        /// <summary>A freed, foreign or wrong-type handle.</summary>
        InvalidHandle = -2,
        /// <summary>A JSON argument is not valid JSON.</summary>
        InvalidJson = -3,
        /// <summary>A JSON document has missing or wrong fields.</summary>
        InvalidConfig = -4,
        /// <summary>The session is busy (a prompt is already queued, a command needs an idle session).</summary>
        Busy = -5,
        /// <summary>A name or id that does not exist.</summary>
        NotFound = -6,
        /// <summary>An id that was already answered, timed out or cancelled.</summary>
        Stale = -7,
        /// <summary>A wait ran out.</summary>
        Timeout = -8,
        /// <summary>The session is closed.</summary>
        Closed = -9,
        /// <summary>The awaited turn was aborted.</summary>
        Aborted = -10,
        /// <summary>A blocking call was made from inside a callback.</summary>
        Reentrant = -11,
        /// <summary>Not supported (in this delivery mode or by this build).</summary>
        Unsupported = -12,
        /// <summary>File or OS failure.</summary>
        Io = -13,
        /// <summary>The model provider failed.</summary>
        Provider = -14,
        /// <summary>A panic was caught at the library boundary.</summary>
        Panic = -15,
        /// <summary>An internal error.</summary>
        Internal = -16,
        /// <summary>A document or library of another major version.</summary>
        VersionMismatch = -17,
        /// <summary>A string argument is not valid UTF-8.</summary>
        InvalidUtf8 = -18,
        /// <summary>The session's budget is exhausted (<see cref="SessionConfig.Budget"/>).</summary>
        Budget = -19,
        /// <summary>A session store save whose expected version is stale: another node saved the session first (<see cref="RobotaConflictException"/>).</summary>
        Conflict = -20,
    }

    /// <summary>Event kinds (ROBOTA_EVENT_*; append-only).</summary>
    public enum EventKind
    {
        /// <summary>Unknown to this binding (a newer library); see <see cref="RobotaEvent.Payload"/>.</summary>
        Unknown = 0,
        /// <summary><c>{"type":"turn_started","turn_id","input"}</c>.</summary>
        TurnStarted = 1,
        /// <summary>Raw text.</summary>
        TextDelta = 2,
        /// <summary>Raw thinking text.</summary>
        ThinkingDelta = 3,
        /// <summary>A message committed to history.</summary>
        Message = 4,
        /// <summary><c>{"tool_call_id","tool_name","first_arg","arguments"}</c>.</summary>
        ToolStart = 5,
        /// <summary><c>{"tool_call_id","tool_name","result","output"}</c>.</summary>
        ToolEnd = 6,
        /// <summary>A host tool call to answer (tools registered without a handler).</summary>
        ToolCall = 7,
        /// <summary><c>{"call_id"}</c>: a pending host tool call was cancelled.</summary>
        ToolCallCancelled = 8,
        /// <summary><c>{"request_id","tool_name","arguments","reason"}</c>.</summary>
        PermissionRequest = 9,
        /// <summary>Host hook input plus <c>request_id</c>.</summary>
        HookRequest = 10,
        /// <summary><c>{"used_tokens","max_tokens","used_percentage"}</c>.</summary>
        ContextUpdate = 11,
        /// <summary><c>{"trigger","summary",...}</c>.</summary>
        Compacted = 12,
        /// <summary>A replay boundary event (only with <c>"replay_events": true</c>).</summary>
        Execution = 13,
        /// <summary><c>{"message",...}</c>.</summary>
        Warning = 14,
        /// <summary><c>{"code","category","recoverable","message"}</c>.</summary>
        Error = 15,
        /// <summary><c>{"turn_id","stop_reason","response","tool_summaries","context_state","usage"}</c>.</summary>
        TurnCompleted = 16,
        /// <summary>Last event of a session.</summary>
        SessionClosed = 17,
        /// <summary><c>{"agent_id","agent_type","parent_tool_call_id","event":{...}}</c>: a subagent's event (its requests keep their own kinds).</summary>
        Subagent = 18,
        /// <summary><c>{"io_id","request":{"v":1,"op",...}}</c>: a host I/O request (pull delivery).</summary>
        HostIo = 19,
        /// <summary><c>{"request_id","name","args"}</c>: run a host command (<see cref="SessionConfig.Commands"/>);
        /// answer with <see cref="RobotaRuntime.RespondToRequest"/> and <c>{"message","success"?,"data"?,"prompt"?}</c>.</summary>
        CommandRequest = 20,
        /// <summary>
        /// <c>{"request_id","request_kind","reason"}</c>: a pending request (<c>"permission"</c>, <c>"hook"</c>,
        /// <c>"host_io"</c>, <c>"command"</c>, <c>"tool_call"</c>) became void (<c>"aborted"</c>, <c>"turn_ended"</c>,
        /// <c>"timeout"</c>, <c>"session_closed"</c>); answering it now is stale. The binding cancels the
        /// request's <c>CancellationToken</c>.
        /// </summary>
        RequestCancelled = 21,
        /// <summary>
        /// <c>{"tool_name","status","query","input"}</c>: the provider's server ran one of its own tools while the
        /// model answered (Anthropic's native web search; <c>status</c> <c>"started"</c>, <c>query</c> the search text
        /// or null). Informational (ABI 1.2).
        /// </summary>
        ServerTool = 22,
    }

    /// <summary>Log levels (ROBOTA_LOG_*).</summary>
    public enum LogLevel
    {
        /// <summary>Trace.</summary>
        Trace = 0,
        /// <summary>Debug.</summary>
        Debug = 1,
        /// <summary>Info.</summary>
        Info = 2,
        /// <summary>Warning.</summary>
        Warn = 3,
        /// <summary>Error.</summary>
        Error = 4,
    }

    /// <summary>How a session delivers events (<c>"delivery"</c> in the session JSON).</summary>
    public enum Delivery
    {
        /// <summary>Callbacks on a library-owned thread, one at a time, in order (default).</summary>
        Thread,
        /// <summary>Nothing is called back until <see cref="RobotaSession.Dispatch"/> runs them on the calling thread.</summary>
        Pump,
        /// <summary>The host reads events with <see cref="RobotaSession.NextEvent"/>.</summary>
        Pull,
        /// <summary>
        /// Callbacks on the library's async worker that produced the events, one at a time, in
        /// order (no thread hand-off: the fastest mode). Every handler (events, synchronous tool
        /// handlers, the host I/O handler) then runs on that worker: keep them short and never
        /// block; answer slow tools with an async handler or later from any thread.
        /// </summary>
        Inline,
    }
}
