using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Robota
{
    /// <summary>
    /// A Robota runtime: provider profiles, one HTTP pool, async workers and the host tools,
    /// shared by all its sessions. Thread-safe. Dispose releases the caller's reference; sessions
    /// keep the native runtime alive, so dispose order does not matter.
    /// </summary>
    public sealed partial class RobotaRuntime : IDisposable
    {
        private readonly Dictionary<string, ToolRegistration> tools = new Dictionary<string, ToolRegistration>();
        private int disposed;
        private HostIoRegistration hostIo;

        /// <summary>Creates a runtime from a config object.</summary>
        public RobotaRuntime(RuntimeConfig config)
            : this((config ?? throw new ArgumentNullException(nameof(config))).ToJson())
        {
        }

        /// <summary>Creates a runtime from its config JSON (<c>{"v":1,"providers":{...}}</c>).</summary>
        public RobotaRuntime(string configJson)
        {
            if (configJson == null)
            {
                throw new ArgumentNullException(nameof(configJson));
            }
            RobotaLibrary.EnsureCompatible();
            IntPtr ptr, err;
            var status = NativeMethods.robota_runtime_new(Utf8.Encode(configJson), out ptr, out err);
            Errors.Check(status, err);
            Handle = new RuntimeHandle(ptr);
        }

        /// <summary>The native handle (for advanced interop).</summary>
        public RuntimeHandle Handle { get; }

        /// <summary>True after <see cref="Dispose"/>.</summary>
        public bool IsDisposed => Volatile.Read(ref disposed) != 0;

        /// <summary>Registers a host tool answered by a synchronous handler (its return value is the result).</summary>
        public void RegisterTool(ToolDefinition definition, Func<ToolCall, object> handler)
        {
            Register(definition, new ToolRegistration(definition?.Name, Handle, handler ?? throw new ArgumentNullException(nameof(handler)), null));
        }

        /// <summary>Registers a host tool answered by an async handler (completed from any thread).</summary>
        public void RegisterTool(ToolDefinition definition, Func<ToolCall, Task<object>> handler)
        {
            Register(definition, new ToolRegistration(definition?.Name, Handle, null, handler ?? throw new ArgumentNullException(nameof(handler))));
        }

        /// <summary>
        /// Registers a host tool whose synchronous handler runs on <paramref name="context"/> (a Unity
        /// or UI main thread: the handler may touch the scene), posted there for each call; its
        /// return value or exception answers the call as in <see cref="RegisterTool(ToolDefinition, Func{ToolCall, object})"/>.
        /// </summary>
        public void RegisterTool(ToolDefinition definition, Func<ToolCall, object> handler, SynchronizationContext context)
        {
            if (handler == null) throw new ArgumentNullException(nameof(handler));
            if (context == null) throw new ArgumentNullException(nameof(context));
            RegisterTool(definition, call =>
            {
                var tcs = new TaskCompletionSource<object>(TaskCreationOptions.RunContinuationsAsynchronously);
                context.Post(_ =>
                {
                    try
                    {
                        tcs.SetResult(handler(call));
                    }
                    catch (Exception e)
                    {
                        tcs.SetException(e);
                    }
                }, null);
                return tcs.Task;
            });
        }

        /// <summary>Registers a typed tool (<see cref="RobotaTool.FromMethod"/>, <see cref="RobotaTool.Create{TArgs}"/>).</summary>
        public void AddTool(RobotaTool tool)
        {
            RegisterTool((tool ?? throw new ArgumentNullException(nameof(tool))).Definition, tool.Handler);
        }

        /// <summary>
        /// Registers a tool whose arguments are the properties of <typeparamref name="TArgs"/>
        /// (schema derived by <see cref="RobotaTool.Create{TArgs}"/>).
        /// </summary>
        public void AddTool<TArgs>(string name, string description, Func<TArgs, CancellationToken, Task<string>> handler)
            where TArgs : class, new() => AddTool(RobotaTool.Create(name, description, handler));

        /// <summary>
        /// Registers a host tool without a handler: its calls arrive as
        /// <see cref="RobotaSession.ToolCallRequested"/> events, answered with <see cref="ToolCall.Complete"/>.
        /// </summary>
        public void RegisterTool(ToolDefinition definition)
        {
            Register(definition, new ToolRegistration(definition?.Name, Handle, null, null));
        }

        private void Register(ToolDefinition definition, ToolRegistration reg)
        {
            if (definition == null)
            {
                throw new ArgumentNullException(nameof(definition));
            }
            ThrowIfDisposed();
            var doc = Utf8.Encode(definition.ToJson());
            Callbacks.Register(reg, (IntPtr ud, out IntPtr err) =>
                NativeMethods.robota_runtime_register_tool(Handle, doc, reg.HasHandler ? Callbacks.Tool : null, ud, Callbacks.Free, out err));
            lock (tools)
            {
                tools[definition.Name] = reg;
            }
        }

        /// <summary>
        /// Registers a team template for the team tools of sessions with <see cref="SessionConfig.Team"/>
        /// (existing sessions included): <c>{"id","name","provider","model","systemMessage","description"?,"temperature"?}</c>.
        /// <c>provider</c> names a provider profile of the runtime config or a provider kind. An id that
        /// exists (a built-in or an earlier registration) throws <see cref="RobotaException"/> with
        /// <see cref="RobotaStatus.InvalidConfig"/> and the registered template is kept.
        /// </summary>
        public void RegisterTemplate(string templateJson)
        {
            ThrowIfDisposed();
            IntPtr err;
            var status = NativeMethods.robota_runtime_register_template(Handle, Utf8.Encode(templateJson ?? throw new ArgumentNullException(nameof(templateJson))), out err);
            Errors.Check(status, err);
        }

        /// <summary>
        /// Sets the host I/O handler used by sessions created with <see cref="SessionConfig.HostIo"/>:
        /// it receives read/write/stat/list/exec requests (on a worker thread, any delivery mode) and
        /// returns the answer object (<c>{"content"}</c>, <c>{}</c>, <c>{"exists","is_dir","size"}</c>,
        /// <c>{"entries":[{"name","is_dir"}]}</c>, <c>{"exit_code","stdout","stderr"}</c>). Throw
        /// <see cref="NotSupportedException"/> for an op the host does not offer; any other exception
        /// is reported to the model as the tool's failure.
        /// </summary>
        public void SetHostIo(Func<HostIoRequest, IDictionary<string, object>> handler)
        {
            ThrowIfDisposed();
            var reg = new HostIoRegistration(Handle, handler ?? throw new ArgumentNullException(nameof(handler)));
            Callbacks.Register(reg, (IntPtr ud, out IntPtr err) =>
                NativeMethods.robota_runtime_set_host_io(Handle, Callbacks.HostIo, ud, Callbacks.Free, out err));
            Volatile.Write(ref hostIo, reg);
        }

        /// <summary>Answers host I/O request <paramref name="ioId"/> with a JSON object (hosts answering requests themselves).</summary>
        public void CompleteHostIo(ulong ioId, string responseJson)
        {
            ThrowIfDisposed();
            IntPtr err;
            var status = NativeMethods.robota_host_io_complete(Handle, ioId, Utf8.Encode(responseJson ?? throw new ArgumentNullException(nameof(responseJson))), out err);
            Errors.Check(status, err);
        }

        /// <summary>
        /// Sets the runtime's session store (null removes it: back to the session directory). From
        /// now on persisted sessions save through it after each turn, <see cref="ResumeSessionById"/>
        /// loads through it, <see cref="ListSessionsJson"/> and <see cref="DeleteSession"/> go through
        /// it and transcripts are appended to it; a save whose version is stale fails its turn with
        /// <see cref="RobotaConflictException"/>. Its methods run on worker threads (see <see cref="IRobotaStore"/>).
        /// </summary>
        public void SetStore(IRobotaStore store)
        {
            ThrowIfDisposed();
            if (store == null)
            {
                IntPtr err;
                Errors.Check(NativeMethods.robota_runtime_set_store(Handle, null, IntPtr.Zero, null, out err), err);
                return;
            }
            var reg = new StoreRegistration(Handle, store);
            Callbacks.Register(reg, (IntPtr ud, out IntPtr err) =>
                NativeMethods.robota_runtime_set_store(Handle, Callbacks.Store, ud, Callbacks.Free, out err));
            hadStore = true;
        }

        private volatile bool hadStore;

        /// <summary>True once a host store was set (it stays true: sessions opened meanwhile may still use it).</summary>
        internal bool HadStore => hadStore;

        /// <summary>
        /// Answers store request <paramref name="requestId"/> with a JSON object (robota_store_complete;
        /// for hosts answering store requests themselves). Throws <see cref="RobotaStaleException"/> when
        /// it was answered already or timed out, <see cref="RobotaNotFoundException"/> for an id never issued.
        /// </summary>
        public void CompleteStoreRequest(ulong requestId, string responseJson)
        {
            ThrowIfDisposed();
            IntPtr err;
            var status = NativeMethods.robota_store_complete(Handle, requestId, Utf8.Encode(responseJson ?? throw new ArgumentNullException(nameof(responseJson))), out err);
            Errors.Check(status, err);
        }

        /// <summary>A host I/O request that arrived as an event (pull delivery): the handler answers it.</summary>
        internal void HostIoEvent(RobotaEvent ev)
        {
            var reg = Volatile.Read(ref hostIo);
            if (reg == null)
            {
                return;
            }
            object req;
            ev.Data.TryGetValue("request", out req);
            var id = Json.GetUInt64(ev.Data, "io_id");
            var json = Json.Serialize(req);
            System.Threading.Tasks.Task.Run(() => reg.Invoke(id, json));
        }

        /// <summary>True when host tools are registered (their calls need the session's delivery).</summary>
        internal bool HasHostTools
        {
            get
            {
                lock (tools)
                {
                    return tools.Count > 0;
                }
            }
        }

        /// <summary>REQUEST_CANCELLED for host I/O request <paramref name="id"/>: its handler's token is cancelled.</summary>
        internal void HostIoCancelled(ulong id) => Volatile.Read(ref hostIo)?.Cancel(id);

        internal ToolRegistration FindTool(string name)
        {
            lock (tools)
            {
                ToolRegistration r;
                return name != null && tools.TryGetValue(name, out r) ? r : null;
            }
        }

        /// <summary>
        /// One shot (<c>robota_query</c>, createQuery): runs <paramref name="prompt"/> in a temporary
        /// session built from <paramref name="config"/> (permission mode defaults to
        /// <c>bypassPermissions</c>) and returns <c>{"v":1,"response","stop_reason","usage",
        /// "session_id"?,"messages"}</c>. Blocks; events are not streamed (use a session for that).
        /// </summary>
        public Dictionary<string, object> Query(SessionConfig config, string prompt)
        {
            var doc = Json.ParseObject((config ?? throw new ArgumentNullException(nameof(config))).ToJson());
            doc["prompt"] = prompt ?? throw new ArgumentNullException(nameof(prompt));
            return Json.ParseObject(QueryJson(Json.Serialize(doc)));
        }

        /// <summary>Runs a raw query document (session JSON plus <c>"prompt"</c>); returns the raw result JSON.</summary>
        public string QueryJson(string queryJson)
        {
            ThrowIfDisposed();
            IntPtr json, err;
            var status = NativeMethods.robota_query(Handle, Utf8.Encode(queryJson ?? throw new ArgumentNullException(nameof(queryJson))), null, IntPtr.Zero, null, out json, out err);
            Errors.Check(status, err);
            return Utf8.TakeOwned(json);
        }

        /// <summary>Creates a session.</summary>
        public RobotaSession CreateSession(SessionConfig config) =>
            CreateSession((config ?? throw new ArgumentNullException(nameof(config))).ToJson());

        /// <summary>Creates a session from its JSON document.</summary>
        public RobotaSession CreateSession(string sessionJson)
        {
            ThrowIfDisposed();
            return RobotaSession.Open(this, (SafeHandle from, byte[] doc, EventFn fn, IntPtr ud, FreeFn free, out IntPtr s, out IntPtr err) =>
                NativeMethods.robota_session_new((RuntimeHandle)from, doc, fn, ud, free, out s, out err),
                Handle, sessionJson ?? throw new ArgumentNullException(nameof(sessionJson)));
        }

        /// <summary>
        /// Opens a session from a <see cref="RobotaSession.Save"/> snapshot; <paramref name="overrides"/>
        /// replace saved session fields (<c>delivery</c>, <c>model</c>, <c>hooks</c>, ...).
        /// </summary>
        public RobotaSession ResumeSession(string snapshotJson, IDictionary<string, object> overrides = null)
        {
            var d = new Dictionary<string, object>();
            if (overrides != null)
            {
                foreach (var kv in overrides) d[kv.Key] = kv.Value;
            }
            d["v"] = 1;
            d["snapshot"] = new JsonRaw(snapshotJson ?? throw new ArgumentNullException(nameof(snapshotJson)));
            return ResumeSessionFromJson(Json.Serialize(d));
        }

        /// <summary>Opens a session persisted in the runtime's session directory or its store (<see cref="SetStore"/>).</summary>
        public RobotaSession ResumeSessionById(string sessionId, IDictionary<string, object> overrides = null)
        {
            var d = new Dictionary<string, object>();
            if (overrides != null)
            {
                foreach (var kv in overrides) d[kv.Key] = kv.Value;
            }
            d["v"] = 1;
            d["session_id"] = sessionId ?? throw new ArgumentNullException(nameof(sessionId));
            return ResumeSessionFromJson(Json.Serialize(d));
        }

        /// <summary>Opens a session from a raw resume document (<c>{"v":1,"snapshot":...}</c> or <c>{"v":1,"session_id":...}</c>).</summary>
        public RobotaSession ResumeSessionFromJson(string resumeJson)
        {
            ThrowIfDisposed();
            return RobotaSession.Open(this, (SafeHandle from, byte[] doc, EventFn fn, IntPtr ud, FreeFn free, out IntPtr s, out IntPtr err) =>
                NativeMethods.robota_session_resume((RuntimeHandle)from, doc, fn, ud, free, out s, out err),
                Handle, resumeJson ?? throw new ArgumentNullException(nameof(resumeJson)));
        }

        /// <summary>
        /// Lists the sessions saved in the runtime's session directory or its store (robota_store_list):
        /// <paramref name="queryJson"/> is null or <c>{"cwd"?,"limit"?}</c>; returns
        /// <c>{"v":1,"sessions":[{"id","name","cwd","created_at","updated_at","message_count"}],"skipped":[{"file","error"}]}</c>, newest first.
        /// </summary>
        public string ListSessionsJson(string queryJson = null)
        {
            ThrowIfDisposed();
            IntPtr json, err;
            var status = NativeMethods.robota_store_list(Handle, queryJson == null ? null : Utf8.Encode(queryJson), out json, out err);
            Errors.Check(status, err);
            return Utf8.TakeOwned(json);
        }

        /// <summary>Deletes a saved session (robota_store_delete); throws with status NotFound when there is none.</summary>
        public void DeleteSession(string sessionId)
        {
            ThrowIfDisposed();
            IntPtr err;
            var status = NativeMethods.robota_store_delete(Handle, Utf8.Encode(sessionId ?? throw new ArgumentNullException(nameof(sessionId))), out err);
            Errors.Check(status, err);
        }

        /// <summary>
        /// Answers host tool call <paramref name="callId"/> with raw JSON (text that is not JSON is
        /// taken as a plain string). Returns false when the call is stale.
        /// </summary>
        public bool CompleteToolCall(ulong callId, string resultJson, bool isError = false)
        {
            ThrowIfDisposed();
            IntPtr err;
            var status = NativeMethods.robota_tool_call_complete(Handle, callId, Utf8.Encode(resultJson ?? throw new ArgumentNullException(nameof(resultJson))), isError ? 1 : 0, out err);
            return StaleIsFalse(status, err);
        }

        /// <summary>Answers a permission or hook request with raw JSON. Returns false when it is stale.</summary>
        public bool RespondToRequest(ulong requestId, string responseJson)
        {
            ThrowIfDisposed();
            IntPtr err;
            var status = NativeMethods.robota_request_respond(Handle, requestId, Utf8.Encode(responseJson ?? throw new ArgumentNullException(nameof(responseJson))), out err);
            return StaleIsFalse(status, err);
        }

        private static bool StaleIsFalse(int status, IntPtr err)
        {
            if (status == (int)RobotaStatus.Stale)
            {
                Errors.Free(err);
                return false;
            }
            Errors.Check(status, err);
            return true;
        }

        internal void ThrowIfDisposed()
        {
            // Our own flag: the SafeHandle stays open while sessions hold references on it.
            if (IsDisposed)
            {
                throw new ObjectDisposedException(nameof(RobotaRuntime));
            }
        }

        /// <inheritdoc />
        public void Dispose()
        {
            Interlocked.Exchange(ref disposed, 1);
            Handle.Dispose();
        }
    }
}
