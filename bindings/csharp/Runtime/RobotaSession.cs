using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Robota
{
    /// <summary>
    /// Opens a native session from <paramref name="from"/> (a runtime or session handle) and a
    /// document, with the binding's callback and GCHandle. The openers capture nothing, so the
    /// compiler makes each delegate once.
    /// </summary>
    internal delegate int SessionOpener(SafeHandle from, byte[] doc, EventFn fn, IntPtr userData, FreeFn freeFn, out IntPtr session, out IntPtr error);

    /// <summary>
    /// A conversation with the agent. All methods are thread-safe. Events arrive as C# events:
    /// on a library thread (thread delivery; inline delivery: the library's async worker that
    /// produced them, or the thread in <see cref="Drive(string)"/> for the turn it runs, so
    /// handlers must never block), inside <see cref="Dispatch"/> on the calling thread
    /// (pump delivery: Unity's Update()), or inside <see cref="NextEvent"/> (pull delivery).
    /// A disposed session throws <see cref="ObjectDisposedException"/>.
    /// </summary>
    public sealed class RobotaSession : IDisposable
    {
        private readonly SessionHandle handle;
        private int disposed;
        private int blockingCalls;
        private string deliveryName;
        private int pumpThread;
        private ProviderPump providerPump;

        private RobotaSession(RobotaRuntime runtime, SessionHandle handle, SessionCore core)
        {
            Runtime = runtime;
            this.handle = handle;
            Core = core;
        }

        internal static RobotaSession Open(RobotaRuntime runtime, SessionOpener open, SafeHandle from, string docJson)
        {
            runtime.ThrowIfDisposed();
            var core = new SessionCore(runtime);
            // Callbacks.Register's steps, without the closure it would take.
            var ud = Callbacks.UserData(core);
            IntPtr ptr, err;
            int status;
            var doc = Utf8.Rent(docJson);
            try
            {
                status = open(from, doc, Callbacks.Event, ud, Callbacks.Free, out ptr, out err);
            }
            catch
            {
                Callbacks.FreeUnregistered(ud);
                throw;
            }
            finally
            {
                Utf8.Return(doc);
            }
            Callbacks.Registered(ud, status, err);
            SessionHandle h;
            try
            {
                h = new SessionHandle(ptr, runtime.Handle);
            }
            catch (ObjectDisposedException)
            {
                // The runtime object was disposed during the call: free the new session.
                NativeMethods.robota_session_free(ptr);
                throw;
            }
            var s = new RobotaSession(runtime, h, core);
            core.Attach(s, ptr);
            if (runtime.HasProviders)
            {
                s.providerPump = ProviderPump.AttachIfPump(s);
            }
            return s;
        }

        /// <summary>
        /// Posts this session's events (and, once subscribed there, its requests) to
        /// <paramref name="context"/>, in order: the Unity/UI helper (<see cref="ContextEvents"/>).
        /// </summary>
        public ContextEvents PostEventsTo(SynchronizationContext context)
        {
            ThrowIfDisposed();
            return new ContextEvents(this, context ?? throw new ArgumentNullException(nameof(context)));
        }

        /// <summary>
        /// <see cref="PostEventsTo"/> the calling thread's <see cref="SynchronizationContext.Current"/>
        /// (Unity's main thread in Start/Awake); throws <see cref="InvalidOperationException"/> when it has none.
        /// </summary>
        public ContextEvents PostEventsToCurrentContext() =>
            PostEventsTo(SynchronizationContext.Current ?? throw new InvalidOperationException("this thread has no SynchronizationContext to post events to (call it on the Unity/UI main thread)"));

        /// <summary>The runtime the session belongs to (kept alive by the session).</summary>
        public RobotaRuntime Runtime { get; }

        /// <summary>The native handle (for advanced interop).</summary>
        public SessionHandle Handle => handle;

        internal SessionCore Core { get; }

        /// <summary>True after <see cref="Dispose"/>.</summary>
        public bool IsDisposed => Volatile.Read(ref disposed) != 0;

        /// <summary>Every event, before the kind-specific event below.</summary>
        public event EventHandler<RobotaEvent> EventReceived { add { lock (Core.Gate) Core.EventReceived += value; } remove { lock (Core.Gate) Core.EventReceived -= value; } }

        /// <summary>A turn started.</summary>
        public event EventHandler<RobotaEvent> TurnStarted { add { lock (Core.Gate) Core.TurnStarted += value; } remove { lock (Core.Gate) Core.TurnStarted -= value; } }

        /// <summary>Streamed answer text (<see cref="RobotaEvent.Text"/>); deltas end on code-point boundaries.</summary>
        public event EventHandler<RobotaEvent> TextDelta { add { lock (Core.Gate) Core.TextDelta += value; } remove { lock (Core.Gate) Core.TextDelta -= value; } }

        /// <summary>Streamed thinking text.</summary>
        public event EventHandler<RobotaEvent> ThinkingDelta { add { lock (Core.Gate) Core.ThinkingDelta += value; } remove { lock (Core.Gate) Core.ThinkingDelta -= value; } }

        /// <summary>A message was committed to the history.</summary>
        public event EventHandler<RobotaEvent> MessageCommitted { add { lock (Core.Gate) Core.MessageCommitted += value; } remove { lock (Core.Gate) Core.MessageCommitted -= value; } }

        /// <summary>A tool started.</summary>
        public event EventHandler<RobotaEvent> ToolStarted { add { lock (Core.Gate) Core.ToolStarted += value; } remove { lock (Core.Gate) Core.ToolStarted -= value; } }

        /// <summary>A tool ended (<c>result</c>: success, error or denied).</summary>
        public event EventHandler<RobotaEvent> ToolEnded { add { lock (Core.Gate) Core.ToolEnded += value; } remove { lock (Core.Gate) Core.ToolEnded -= value; } }

        /// <summary>Context usage changed.</summary>
        public event EventHandler<RobotaEvent> ContextUpdated { add { lock (Core.Gate) Core.ContextUpdated += value; } remove { lock (Core.Gate) Core.ContextUpdated -= value; } }

        /// <summary>The history was compacted.</summary>
        public event EventHandler<RobotaEvent> Compacted { add { lock (Core.Gate) Core.Compacted += value; } remove { lock (Core.Gate) Core.Compacted -= value; } }

        /// <summary>A replay boundary event (sessions with <c>"replay_events": true</c>).</summary>
        public event EventHandler<RobotaEvent> Execution { add { lock (Core.Gate) Core.Execution += value; } remove { lock (Core.Gate) Core.Execution -= value; } }

        /// <summary>A warning.</summary>
        public event EventHandler<RobotaEvent> Warning { add { lock (Core.Gate) Core.Warning += value; } remove { lock (Core.Gate) Core.Warning -= value; } }

        /// <summary>An error (<c>code</c>, <c>category</c>, <c>recoverable</c>, <c>message</c>).</summary>
        public event EventHandler<RobotaEvent> Error { add { lock (Core.Gate) Core.Error += value; } remove { lock (Core.Gate) Core.Error -= value; } }

        /// <summary>
        /// A pending request became void (REQUEST_CANCELLED, <c>request_kind</c>, <c>reason</c>); the
        /// request's <c>CancellationToken</c> is cancelled already.
        /// </summary>
        public event EventHandler<RobotaEvent> RequestCancelled { add { lock (Core.Gate) Core.RequestCancelled += value; } remove { lock (Core.Gate) Core.RequestCancelled -= value; } }

        /// <summary>The session closed; nothing follows.</summary>
        public event EventHandler<RobotaEvent> SessionClosed { add { lock (Core.Gate) Core.SessionClosed += value; } remove { lock (Core.Gate) Core.SessionClosed -= value; } }

        /// <summary>A turn ended (also for turns started with <see cref="Submit(string)"/>).</summary>
        public event EventHandler<TurnResult> TurnCompleted { add { lock (Core.Gate) Core.TurnCompleted += value; } remove { lock (Core.Gate) Core.TurnCompleted -= value; } }

        /// <summary>
        /// A call of a tool registered without a handler. Answer it with <see cref="ToolCall.Complete"/>
        /// or <see cref="ToolCall.Fail"/>, now or later; without a subscriber the call fails.
        /// </summary>
        public event EventHandler<ToolCall> ToolCallRequested { add { lock (Core.Gate) Core.ToolCallRequested += value; } remove { lock (Core.Gate) Core.ToolCallRequested -= value; } }

        /// <summary>
        /// A tool needs approval. Answer with <see cref="PermissionRequest.Allow"/> or
        /// <see cref="PermissionRequest.Deny"/>, now or later (a UI prompt); without a subscriber
        /// the request is denied.
        /// </summary>
        public event EventHandler<PermissionRequest> PermissionRequested { add { lock (Core.Gate) Core.PermissionRequested += value; } remove { lock (Core.Gate) Core.PermissionRequested -= value; } }

        /// <summary>A <c>"type":"host"</c> hook runs. Answer with Pass/Block/Respond; without a subscriber it passes.</summary>
        public event EventHandler<HookRequest> HookRequested { add { lock (Core.Gate) Core.HookRequested += value; } remove { lock (Core.Gate) Core.HookRequested -= value; } }

        /// <summary>
        /// A host command runs. Answer with <see cref="CommandRequest.Reply"/>,
        /// <see cref="CommandRequest.Fail"/> or <see cref="CommandRequest.Prompt"/>, now or later;
        /// its token is cancelled when the request becomes void (its turn ended, the session
        /// closed). Without a subscriber, answer the <see cref="EventKind.CommandRequest"/> event.
        /// </summary>
        public event EventHandler<CommandRequest> CommandRequested { add { lock (Core.Gate) Core.CommandRequested += value; } remove { lock (Core.Gate) Core.CommandRequested -= value; } }

        /// <summary>
        /// Sends a prompt and completes with the turn's result. Cancelling <paramref name="cancellationToken"/>
        /// aborts this turn only (model stream dropped, pending requests cancelled; a queued turn is
        /// dropped alone) and the task ends cancelled (<see cref="OperationCanceledException"/>); an
        /// already-cancelled token returns a cancelled task and submits nothing. A failed turn throws
        /// <see cref="RobotaProviderException"/> carrying the ERROR event's code and category
        /// (<see cref="RobotaBudgetException"/> when the budget stopped it); a turn aborted by
        /// <see cref="Abort"/> completes with <see cref="TurnResult.IsAborted"/>. Refusals to submit
        /// (<see cref="RobotaBusyException"/>, <see cref="RobotaClosedException"/>) come back as the
        /// task's exception. In pump delivery the task completes only while the host calls
        /// <see cref="Dispatch"/>; in pull delivery, while it calls <see cref="NextEvent"/>.
        /// </summary>
        public Task<TurnResult> RunAsync(string text, CancellationToken cancellationToken = default(CancellationToken)) =>
            Start(InputJson(text), cancellationToken, null, true, out _);

        /// <summary>As <see cref="RunAsync(string, CancellationToken)"/>, with images after the text (see <see cref="RobotaImage"/>).</summary>
        public Task<TurnResult> RunAsync(string text, IEnumerable<RobotaImage> images, CancellationToken cancellationToken = default(CancellationToken)) =>
            Start(RobotaImage.InputJson(text, images), cancellationToken, null, true, out _);

        /// <summary>
        /// As <see cref="RunAsync(string, CancellationToken)"/>, the answer required to match the JSON Schema
        /// <paramref name="outputSchemaJson"/> (structured output; wins over <see cref="SessionConfig.OutputSchemaJson"/>):
        /// the validated answer is <see cref="TurnResult.Output"/>. An answer that does not match,
        /// also after one repair round, fails the task with <see cref="RobotaProviderException"/>
        /// whose <see cref="RobotaException.ErrorCode"/> is <c>SCHEMA_ERROR</c>.
        /// </summary>
        public Task<TurnResult> RunStructuredAsync(string text, string outputSchemaJson, CancellationToken cancellationToken = default(CancellationToken)) =>
            Start(Json.Serialize(new Dictionary<string, object>
            {
                { "text", text ?? throw new ArgumentNullException(nameof(text)) },
                { "output_schema", new JsonRaw(outputSchemaJson ?? throw new ArgumentNullException(nameof(outputSchemaJson))) },
            }), cancellationToken, null, true, out _);

        /// <summary>
        /// Sends a prompt whose answer must be a <typeparamref name="T"/>: the output schema is derived
        /// from its public properties (camelCased names, as <see cref="RobotaTool.Create{TArgs}"/> derives
        /// argument schemas) and the validated answer is converted to it. Failures as
        /// <see cref="RunStructuredAsync"/>.
        /// </summary>
        public async Task<T> RunAsync<T>(string text, CancellationToken cancellationToken = default(CancellationToken))
            where T : class, new()
        {
            var schema = Json.Serialize(ToolSchema.ObjectSchema(ToolSchema.MembersOf(typeof(T)), string.Empty, 0));
            var result = await RunStructuredAsync(text, schema, cancellationToken).ConfigureAwait(false);
            return result.OutputAs<T>();
        }

        /// <summary>
        /// As <see cref="RunAsync(string, CancellationToken)"/>, reporting every event of this turn
        /// (only this turn's, TURN_STARTED to TURN_COMPLETED) to <paramref name="progress"/>. A
        /// <see cref="Progress{T}"/> created on a thread with a <see cref="SynchronizationContext"/> (a UI
        /// or Unity main thread) receives them there.
        /// </summary>
        public Task<TurnResult> RunAsync(string text, IProgress<RobotaEvent> progress, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (progress == null)
            {
                throw new ArgumentNullException(nameof(progress));
            }
            return Start(InputJson(text), cancellationToken, progress.Report, true, out _);
        }

        /// <summary>
        /// Sends a prompt and returns a pull-style stream of this turn's events (no C# 8 needed):
        /// <c>while (turn.MoveNext()) { var ev = turn.Current; }</c>, then <see cref="TurnStream.Result"/>.
        /// Cancelling <paramref name="cancellationToken"/> aborts the turn; disposing the stream
        /// before its end aborts it too. See <see cref="TurnStream"/> for the failure and timeout rules.
        /// </summary>
        public TurnStream Stream(string text, CancellationToken cancellationToken = default(CancellationToken))
        {
            var stream = new TurnStream(this);
            ulong turn;
            var task = Start(InputJson(text), cancellationToken, stream.Push, false, out turn);
            stream.Attach(task, turn);
            return stream;
        }

        /// <summary>
        /// Submits <paramref name="inputJson"/> and tracks its turn: the task completes with the
        /// turn, <paramref name="sink"/> gets the turn's events. Submission errors become the task's
        /// exception when <paramref name="faultTask"/> is set, else they are thrown.
        /// </summary>
        private Task<TurnResult> Start(string inputJson, CancellationToken cancellationToken, Action<RobotaEvent> sink, bool faultTask, out ulong turnId)
        {
            turnId = 0;
            if (cancellationToken.IsCancellationRequested)
            {
                return Task.FromCanceled<TurnResult>(cancellationToken);
            }
            TurnWaiter w;
            lock (Core.Gate)
            {
                // Submit and register under the gate: the turn's events (routed under the same
                // gate) cannot be handled before its waiter, sink and cancellation hook exist.
                ulong turn;
                if (sink != null)
                {
                    Core.AddSinkTurn();
                }
                try
                {
                    turn = SubmitRaw(inputJson);
                }
                catch (Exception e)
                {
                    if (sink != null)
                    {
                        Core.RemoveSinkTurn();
                    }
                    if (faultTask && e is RobotaException)
                    {
                        return Task.FromException<TurnResult>(e);
                    }
                    throw;
                }
                turnId = turn;
                w = Core.Track(turn, this, true);
                w.Sink = sink;
                w.Token = cancellationToken;
                if (cancellationToken.CanBeCanceled)
                {
                    w.Registration = cancellationToken.Register(() =>
                    {
                        w.CancelRequested = true;
                        try
                        {
                            Abort(turn);
                        }
                        catch (ObjectDisposedException)
                        {
                            // Disposed meanwhile: the task already failed.
                        }
                        catch (RobotaException e)
                        {
                            RobotaLibrary.Report(e);
                        }
                    });
                }
            }
            return w.Tcs.Task;
        }

        /// <summary>Sends a prompt without waiting; returns its turn id (see <see cref="TurnCompleted"/>, <see cref="Wait"/>).</summary>
        public ulong Submit(string text) => SubmitJson(InputJson(text));

        /// <summary>Sends a prompt with this turn's tool choice (wins over the session's); returns its turn id.</summary>
        public ulong Submit(string text, ToolChoice toolChoice) => SubmitJson(InputJson(text, toolChoice));

        /// <summary>Sends a prompt with images after its text (see <see cref="RobotaImage"/>); returns its turn id.</summary>
        public ulong Submit(string text, IEnumerable<RobotaImage> images) => SubmitJson(RobotaImage.InputJson(text, images));

        /// <summary>Sends a raw input document (<c>{"text","display_input"?,"raw_input"?,"tool_choice"?,"images"?}</c>); returns its turn id.</summary>
        public ulong SubmitJson(string inputJson)
        {
            if (inputJson == null)
            {
                throw new ArgumentNullException(nameof(inputJson));
            }
            lock (Core.Gate)
            {
                var turn = SubmitRaw(inputJson);
                Core.Track(turn, this, false);
                return turn;
            }
        }

        private ulong SubmitRaw(string inputJson)
        {
            ThrowIfDisposed();
            ulong turn;
            IntPtr err;
            int status;
            var bytes = Utf8.Rent(inputJson);
            try
            {
                status = NativeMethods.robota_session_submit(handle, bytes, out turn, out err);
            }
            finally
            {
                Utf8.Return(bytes);
            }
            Errors.Check(status, err);
            return turn;
        }

        private static string InputJson(string text)
        {
            if (text == null)
            {
                throw new ArgumentNullException(nameof(text));
            }
            return Json.IsPlain(text) ? string.Concat("{\"text\":\"", text, "\"}") : Json.Serialize(new Dictionary<string, object> { { "text", text } });
        }

        private static string InputJson(string text, ToolChoice toolChoice) => Json.Serialize(new Dictionary<string, object>
        {
            { "text", text ?? throw new ArgumentNullException(nameof(text)) },
            { "tool_choice", (toolChoice ?? throw new ArgumentNullException(nameof(toolChoice))).JsonValue() },
        });

        /// <summary>
        /// Sends a prompt and blocks until its turn has ended (<c>robota_session_run</c>); returns
        /// the turn's result, the same <see cref="TurnResult"/> <see cref="RunAsync(string, CancellationToken)"/> gives. When the
        /// session is idle the calling thread runs the turn itself (model requests, tools, timers),
        /// so no library thread is woken; with inline delivery every handler (events, synchronous
        /// tool handlers) then runs on the calling thread, during the call. A prompt sent while a
        /// turn runs is queued and runs on the library's workers; Drive returns after its own turn.
        /// <para>
        /// Every event of the turn reached this session's handlers (<see cref="TurnCompleted"/>
        /// included) before Drive returns or throws: thread and inline delivery hand them over
        /// during the call. Pump and pull delivery hand over nothing during the call (a turn that
        /// asks the host — tool calls, permission or hook requests — needs another thread calling
        /// <see cref="Dispatch"/> / <see cref="NextEvent"/> meanwhile); once the turn has ended, Drive
        /// hands over what is queued on the calling thread, as <see cref="Dispatch"/> (all queued
        /// events) or <see cref="NextEvent"/> (up to the turn's TURN_COMPLETED; those events then
        /// reach the handlers only, not a caller's own NextEvent loop), or, while another thread
        /// is dispatching or reading, waits for that thread to route the turn's TURN_COMPLETED.
        /// </para>
        /// Throws <see cref="RobotaException"/> with the library's status and message:
        /// <see cref="RobotaStatus.Aborted"/> (the turn was aborted: <see cref="Abort"/> from another
        /// thread, <see cref="Close"/>), <see cref="RobotaStatus.Provider"/> (the turn failed; the
        /// error's <see cref="RobotaException.ErrorCode"/> and <see cref="RobotaException.Category"/>),
        /// <see cref="RobotaStatus.Budget"/>, or, when no turn started, the refusals of
        /// <see cref="Submit(string)"/> (<see cref="RobotaStatus.Busy"/>: a prompt is already queued;
        /// <see cref="RobotaStatus.Closed"/>) and <see cref="RobotaStatus.Reentrant"/> (called inside
        /// a handler).
        /// </summary>
        public TurnResult Drive(string text) => DriveJson(InputJson(text));

        /// <summary>As <see cref="Drive(string)"/>, with this turn's tool choice (wins over the session's).</summary>
        public TurnResult Drive(string text, ToolChoice toolChoice) => DriveJson(InputJson(text, toolChoice));

        /// <summary>As <see cref="Drive(string)"/>, with a raw input document (<c>{"text","display_input"?,"raw_input"?,"tool_choice"?}</c>).</summary>
        public TurnResult DriveJson(string inputJson)
        {
            if (inputJson == null)
            {
                throw new ArgumentNullException(nameof(inputJson));
            }
            ThrowIfDisposed();
            RefuseDriveOnPumpThread();
            // The turn id comes back with the call, after the turn's TURN_COMPLETED was routed
            // (thread/inline delivery): the core keeps untracked turns' results meanwhile. No
            // gate is held during the call, since a dispatcher thread routes under it.
            EnterBlocking();
            Core.BeginDrive(this);
            var input = Utf8.Rent(inputJson);
            try
            {
                ulong turn;
                IntPtr err;
                var status = NativeMethods.robota_session_run(handle, input, out turn, out err);
                if (status == 0)
                {
                    Errors.Free(err);
                    return DrivenResult(turn);
                }
                var failure = Errors.Take(status, err);
                var outcome = (RobotaStatus)status;
                if (turn != 0 && (outcome == RobotaStatus.Aborted || outcome == RobotaStatus.Provider || outcome == RobotaStatus.Budget || outcome == RobotaStatus.Conflict))
                {
                    try
                    {
                        failure.Result = DrivenResult(turn); // the failed turn's events are handed over too
                    }
                    catch (Exception e) when (e is RobotaException || e is ObjectDisposedException || e is InvalidOperationException)
                    {
                        // The turn's own failure is the one to report.
                    }
                }
                throw failure;
            }
            finally
            {
                Utf8.Return(input);
                Core.EndDrive();
                ExitBlocking();
            }
        }

        /// <summary>
        /// Drive on the thread that pumps this session (it called <see cref="Dispatch"/>) blocks that
        /// pump loop: a host tool call or a permission/hook request of the turn, delivered by
        /// Dispatch on this very thread, would never be answered. Refused up front when the turn
        /// can ask the host (host tools or host providers registered, or request handlers subscribed).
        /// </summary>
        private void RefuseDriveOnPumpThread()
        {
            if (Volatile.Read(ref pumpThread) != Thread.CurrentThread.ManagedThreadId || DeliveryName() != "pump")
            {
                return;
            }
            string needs = null;
            if (Runtime.HasHostTools)
            {
                needs = "host tools are registered";
            }
            else if (Runtime.HasProviders)
            {
                needs = "host providers are registered";
            }
            else if (Core.ToolCallRequested != null || Core.PermissionRequested != null || Core.HookRequested != null || Core.CommandRequested != null)
            {
                needs = "request handlers are subscribed";
            }
            if (needs != null)
            {
                throw new InvalidOperationException(
                    "Drive on the thread that pumps this session (it calls Dispatch) would block the pump loop: " + needs +
                    ", and their calls are delivered by Dispatch on this thread. Use RunAsync and keep calling Dispatch, or Drive from another thread.");
            }
        }

        /// <summary>The result of driven turn <paramref name="turn"/>, once its TURN_COMPLETED was routed.</summary>
        private TurnResult DrivenResult(ulong turn)
        {
            var r = Core.TakeDriven(turn, 0);
            if (r != null)
            {
                return r; // thread/inline: routed during the call
            }
            var mode = DeliveryName();
            var pump = mode == "pump";
            if (!pump && mode != "pull")
            {
                throw new InvalidOperationException("turn " + turn + " ended but its TURN_COMPLETED event was not routed (" + mode + " delivery)");
            }
            while (true)
            {
                // TURN_COMPLETED is queued (robota_session_run returned): hand it over here, or
                // wait a moment for the thread that is dispatching or reading to route it.
                ThrowIfDisposed();
                var more = false;
                if (pump)
                {
                    var n = NativeMethods.robota_session_dispatch(handle, 0, 0);
                    if (n < 0 && n != (int)RobotaStatus.Busy)
                    {
                        throw RobotaException.Create((RobotaStatus)n, DispatchError((RobotaStatus)n));
                    }
                }
                else
                {
                    try
                    {
                        more = NextEvent(0) != null;
                    }
                    catch (RobotaException e) when (e.Code == RobotaStatus.Closed)
                    {
                        // Another reader took the rest, session_closed included.
                    }
                }
                r = Core.TakeDriven(turn, more ? 0 : 20);
                if (r != null)
                {
                    return r;
                }
            }
        }

        /// <summary>The session's delivery mode name (read once from its state).</summary>
        internal string DeliveryName()
        {
            var d = deliveryName;
            if (d == null)
            {
                deliveryName = d = Json.GetString(State(), "delivery") ?? string.Empty;
            }
            return d;
        }

        /// <summary>Aborts turn <paramref name="turnId"/> (0 = the running one) and drops the queued prompt. Idempotent.</summary>
        public void Abort(ulong turnId = 0)
        {
            ThrowIfDisposed();
            var status = NativeMethods.robota_session_abort(handle, turnId);
            Errors.Check(status, IntPtr.Zero);
        }

        /// <summary>
        /// Blocks until turn <paramref name="turnId"/> finished (0 = until idle); <paramref name="timeoutMs"/>
        /// -1 waits forever, 0 polls. Returns <see cref="RobotaStatus.Ok"/>, <see cref="RobotaStatus.Aborted"/>,
        /// <see cref="RobotaStatus.Provider"/> (the turn failed) or <see cref="RobotaStatus.Timeout"/>; throws
        /// for anything else (e.g. <see cref="RobotaStatus.Reentrant"/> inside a callback).
        /// </summary>
        public RobotaStatus Wait(ulong turnId = 0, int timeoutMs = -1)
        {
            IntPtr err;
            int status;
            EnterBlocking();
            try
            {
                status = NativeMethods.robota_session_wait(handle, turnId, timeoutMs, out err);
            }
            finally
            {
                ExitBlocking();
            }
            switch ((RobotaStatus)status)
            {
                case RobotaStatus.Ok:
                case RobotaStatus.Aborted:
                case RobotaStatus.Provider:
                case RobotaStatus.Timeout:
                    Errors.Free(err);
                    return (RobotaStatus)status;
                default:
                    throw Errors.Take(status, err);
            }
        }

        /// <summary>
        /// Blocks until turn <paramref name="turnId"/> (non-zero) ended and returns its result document
        /// (<c>robota_session_wait_result</c>; results of the session's last 64 turns are kept).
        /// <paramref name="timeoutMs"/> -1 waits forever, 0 polls. A failed or aborted turn throws
        /// <see cref="RobotaProviderException"/>, <see cref="RobotaBudgetException"/> or
        /// <see cref="RobotaAbortedException"/> whose <see cref="RobotaException.Result"/> is the
        /// document; a wait that ran out throws <see cref="RobotaTimeoutException"/> (the turn goes
        /// on); an id never issued or whose result was dropped, <see cref="RobotaNotFoundException"/>.
        /// </summary>
        public TurnResult WaitResult(ulong turnId, int timeoutMs = -1)
        {
            IntPtr json, err;
            int status;
            EnterBlocking();
            try
            {
                status = NativeMethods.robota_session_wait_result(handle, turnId, timeoutMs, out json, out err);
            }
            finally
            {
                ExitBlocking();
            }
            return ResultOf(status, turnId, json, err);
        }

        /// <summary>
        /// Sends a prompt and completes with its result, read from the library
        /// (<c>robota_session_wait_result</c>) on a thread of its own rather than from the routed
        /// events: it completes in every delivery mode, also while nobody dispatches or reads the
        /// events. Failures and cancellation as <see cref="RunAsync(string, CancellationToken)"/>,
        /// except that an aborted turn throws <see cref="RobotaAbortedException"/>.
        /// </summary>
        public Task<TurnResult> RunResultAsync(string text, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (cancellationToken.IsCancellationRequested)
            {
                return Task.FromCanceled<TurnResult>(cancellationToken);
            }
            ulong turn;
            try
            {
                turn = Submit(text);
            }
            catch (RobotaException e)
            {
                return Task.FromException<TurnResult>(e);
            }
            var cancelled = 0;
            var registration = cancellationToken.Register(() =>
            {
                Interlocked.Exchange(ref cancelled, 1);
                try
                {
                    Abort(turn);
                }
                catch (Exception e) when (e is ObjectDisposedException || e is RobotaException)
                {
                    // Ended or gone meanwhile.
                }
            });
            // The task ends through tcs: thrown from a StartNew body, the cancellation would make
            // the task faulted, not cancelled.
            var tcs = new TaskCompletionSource<TurnResult>(TaskCreationOptions.RunContinuationsAsynchronously);
            Task.Factory.StartNew(() =>
            {
                using (registration)
                {
                    try
                    {
                        tcs.TrySetResult(WaitResult(turn));
                    }
                    catch (RobotaAbortedException) when (Volatile.Read(ref cancelled) != 0)
                    {
                        tcs.TrySetCanceled(cancellationToken);
                    }
                    catch (Exception e)
                    {
                        tcs.TrySetException(e);
                    }
                }
            }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
            return tcs.Task;
        }

        /// <summary>The result document of a *_result call, or its failure as an exception.</summary>
        private static TurnResult ResultOf(int status, ulong turnId, IntPtr json, IntPtr err)
        {
            var doc = json == IntPtr.Zero ? null : Utf8.TakeOwned(json);
            var result = doc == null ? null : TurnResult.FromJson(turnId, doc);
            if (status == 0)
            {
                Errors.Free(err);
                return result;
            }
            var e = Errors.Take(status, err);
            e.Result = result;
            throw e;
        }

        /// <summary>
        /// Pump delivery: runs up to <paramref name="maxEvents"/> queued events (0 = all) on this
        /// thread, waiting up to <paramref name="timeoutMs"/> for the first (0 = no wait, the
        /// Update() case). Returns how many were delivered. Host provider calls of this session
        /// (<see cref="RobotaRuntime.RegisterProvider(string, ProviderCapabilities, IModelProvider)"/>) run here too, and count in the result.
        /// </summary>
        public int Dispatch(int maxEvents = 0, int timeoutMs = 0)
        {
            ThrowIfDisposed();
            Volatile.Write(ref pumpThread, Thread.CurrentThread.ManagedThreadId);
            if (!Runtime.HasProviders)
            {
                return NativeDispatch(maxEvents, timeoutMs);
            }
            return DispatchWithProviders(maxEvents, timeoutMs);
        }

        // Apart from Dispatch: the lambda's closure is allocated on entry to the method that
        // captures, and Dispatch runs every frame in Unity.
        private int DispatchWithProviders(int maxEvents, int timeoutMs)
        {
            var pump = Volatile.Read(ref providerPump);
            if (pump == null)
            {
                // A provider registered after the session was created.
                pump = ProviderPump.AttachIfPump(this);
                Volatile.Write(ref providerPump, pump);
            }
            return pump == null ? NativeDispatch(maxEvents, timeoutMs) : pump.Dispatch(t => NativeDispatch(maxEvents, t), timeoutMs);
        }

        private int NativeDispatch(int maxEvents, int timeoutMs)
        {
            int n;
            EnterBlocking();
            try
            {
                n = NativeMethods.robota_session_dispatch(handle, maxEvents, timeoutMs);
            }
            finally
            {
                ExitBlocking();
            }
            if (n < 0)
            {
                throw RobotaException.Create((RobotaStatus)n, DispatchError((RobotaStatus)n));
            }
            return n;
        }

        private static string DispatchError(RobotaStatus s)
        {
            switch (s)
            {
                case RobotaStatus.Unsupported: return "Dispatch needs a session created with Delivery.Pump";
                case RobotaStatus.Reentrant: return "Dispatch was called from inside a callback";
                case RobotaStatus.Busy: return "another thread is already dispatching this session";
                default: return "Dispatch failed: " + Errors.StatusText((int)s);
            }
        }

        /// <summary>
        /// Pull delivery: the next event, or null when none arrived within <paramref name="timeoutMs"/>
        /// (-1 = forever, 0 = poll). The event is also routed to this session's C# events, tool
        /// handlers and waiting turns. Throws <see cref="RobotaException"/> (<see cref="RobotaStatus.Closed"/>)
        /// after the session-closed event was read.
        /// </summary>
        public RobotaEvent NextEvent(int timeoutMs = -1)
        {
            IntPtr json, err;
            int status;
            EnterBlocking();
            try
            {
                status = NativeMethods.robota_session_next_event(handle, timeoutMs, out json, out err);
            }
            finally
            {
                ExitBlocking();
            }
            if (status == (int)RobotaStatus.Timeout)
            {
                Errors.Free(err);
                return null;
            }
            Errors.Check(status, err);
            var doc = Json.ParseObject(Utf8.TakeOwned(json));
            // "type" is authoritative: payload fields are merged into the same object and may
            // shadow "kind", never "type".
            object k;
            var kind = RobotaEvent.KindOf(Json.GetString(doc, "type"));
            if (kind == 0 && doc.TryGetValue("kind", out k) && k is long l)
            {
                kind = (uint)l;
            }
            var turn = Json.GetUInt64(doc, "turn_id");
            var ev = new RobotaEvent(kind, turn, kind == (uint)EventKind.TextDelta || kind == (uint)EventKind.ThinkingDelta
                ? Json.GetString(doc, "text")
                : Json.Serialize(doc));
            Core.Route(ev);
            return ev;
        }

        /// <summary>Runs a command (<c>help</c>, <c>clear</c>, <c>compact</c>, <c>mode</c>, <c>model</c>, <c>context</c>, <c>cost</c>, <c>permissions</c>, <c>cancel_queue</c>, ...); returns <c>{"message","success","data"?}</c>.</summary>
        public Dictionary<string, object> Command(string name, string args = null)
        {
            var d = new Dictionary<string, object> { { "name", name ?? throw new ArgumentNullException(nameof(name)) } };
            if (args != null)
            {
                d["args"] = args;
            }
            return Json.ParseObject(CommandJson(Json.Serialize(d)));
        }

        /// <summary>Runs a raw command document; returns the raw result JSON.</summary>
        public string CommandJson(string commandJson)
        {
            ThrowIfDisposed();
            IntPtr json, err;
            var status = NativeMethods.robota_session_command(handle, Utf8.Encode(commandJson ?? throw new ArgumentNullException(nameof(commandJson))), out json, out err);
            Errors.Check(status, err);
            return Utf8.TakeOwned(json);
        }

        /// <summary>
        /// Appends a message to the conversation between turns without calling the model
        /// (<paramref name="role"/> <c>"user"</c>, <c>"assistant"</c> or <c>"system"</c>). It is reported as
        /// a <c>Message</c> event and a context update, kept in the transcript and the saved session, and
        /// sent with the next turn. Throws for a bad role (naming it), during a turn and after close.
        /// </summary>
        public void InjectMessage(string role, string content)
        {
            ThrowIfDisposed();
            var doc = Json.Serialize(new Dictionary<string, object>
            {
                { "role", role ?? throw new ArgumentNullException(nameof(role)) },
                { "content", content ?? throw new ArgumentNullException(nameof(content)) },
            });
            IntPtr err;
            var status = NativeMethods.robota_session_inject_message(handle, Utf8.Encode(doc), out err);
            Errors.Check(status, err);
        }

        /// <summary>
        /// The history: view <c>"conversation"</c> (what the model sees), <c>"messages"</c> (chat
        /// entries) or <c>"history"</c> (the full UI timeline). Returns the raw JSON document.
        /// </summary>
        public string MessagesJson(string view = null)
        {
            ThrowIfDisposed();
            var query = view == null ? null : Json.Serialize(new Dictionary<string, object> { { "view", view } });
            IntPtr json, err;
            var status = NativeMethods.robota_session_messages(handle, Utf8.Encode(query), out json, out err);
            Errors.Check(status, err);
            return Utf8.TakeOwned(json);
        }

        /// <summary>The conversation's messages (each a dictionary: <c>role</c>, <c>content</c>, <c>state</c>, ...).</summary>
        public List<object> Messages(string view = null)
        {
            var doc = Json.ParseObject(MessagesJson(view));
            object v;
            if (doc.TryGetValue("messages", out v) || doc.TryGetValue("entries", out v))
            {
                return v as List<object> ?? new List<object>();
            }
            return new List<object>();
        }

        /// <summary>The session state JSON (<c>session_id</c>, <c>executing</c>, <c>message_count</c>, <c>model</c>, ...).</summary>
        public string StateJson()
        {
            ThrowIfDisposed();
            IntPtr json, err;
            var status = NativeMethods.robota_session_state(handle, out json, out err);
            Errors.Check(status, err);
            return Utf8.TakeOwned(json);
        }

        /// <summary>The session state as a dictionary.</summary>
        public Dictionary<string, object> State() => Json.ParseObject(StateJson());

        /// <summary>The session state, typed (<see cref="SessionState.Raw"/> keeps every member).</summary>
        public SessionState GetState() => new SessionState(State());

        /// <summary>The session id.</summary>
        public string SessionId => Json.GetString(State(), "session_id");

        /// <summary>A versioned snapshot for <see cref="RobotaRuntime.ResumeSession"/> (never contains API keys).</summary>
        public string Save()
        {
            ThrowIfDisposed();
            IntPtr json, err;
            var status = NativeMethods.robota_session_save(handle, out json, out err);
            Errors.Check(status, err);
            return Utf8.TakeOwned(json);
        }

        /// <summary>
        /// An independent copy (history, mode, approvals) with a new id; <paramref name="overridesJson"/>
        /// overrides session fields. Needs the RobotaRuntime object undisposed (ObjectDisposedException otherwise).
        /// </summary>
        public RobotaSession Fork(string overridesJson = null)
        {
            ThrowIfDisposed();
            return Open(Runtime, (SafeHandle from, byte[] doc, EventFn fn, IntPtr ud, FreeFn free, out IntPtr s, out IntPtr err) =>
                NativeMethods.robota_session_fork((SessionHandle)from, doc, fn, ud, free, out s, out err), handle, overridesJson);
        }

        /// <summary>A fork delivering events in <paramref name="delivery"/> mode.</summary>
        public RobotaSession Fork(Delivery delivery) =>
            Fork("{\"delivery\":\"" + SessionConfig.DeliveryName(delivery) + "\"}");

        /// <summary>Closes the session but keeps the object: aborts, drops the queued prompt, delivers <see cref="SessionClosed"/> last.</summary>
        public void Close()
        {
            ThrowIfDisposed();
            Errors.Check(NativeMethods.robota_session_close(handle), IntPtr.Zero);
        }

        private void ThrowIfDisposed()
        {
            if (IsDisposed)
            {
                throw new ObjectDisposedException(nameof(RobotaSession));
            }
        }

        /// <summary>
        /// Counts a native call that may wait on this session (run, wait, dispatch, next_event)
        /// until <see cref="ExitBlocking"/>; throws when the session is disposed. Counted before
        /// the disposed check, and Dispose sets the flag before it reads the count, so either the
        /// call sees the session disposed or Dispose sees the call and closes the session to wake it.
        /// </summary>
        private void EnterBlocking()
        {
            Interlocked.Increment(ref blockingCalls);
            if (IsDisposed)
            {
                Interlocked.Decrement(ref blockingCalls);
                throw new ObjectDisposedException(nameof(RobotaSession));
            }
        }

        private void ExitBlocking() => Interlocked.Decrement(ref blockingCalls);

        /// <summary>
        /// Frees the session without blocking: aborts a running turn, cancels pending tool calls;
        /// no callback starts afterwards. Waiting <see cref="RunAsync(string, CancellationToken)"/> tasks fail with
        /// <see cref="ObjectDisposedException"/>. Safe inside the session's own handlers.
        /// </summary>
        public void Dispose()
        {
            if (Interlocked.Exchange(ref disposed, 1) == 0)
            {
                Volatile.Read(ref providerPump)?.Detach();
                // Waiters fail first, so the aborted TURN_COMPLETED that close produces cannot
                // complete them with a result instead.
                Core.FailAll("the session was disposed before the turn completed");
                // The free alone aborts the turn and cancels what is pending (robota_session_free).
                // Close first only when needed (it wakes a library thread per session): a thread
                // blocked in Drive/Wait/Dispatch/NextEvent on this session holds the SafeHandle,
                // deferring the free until its call returns, and close wakes it; with a host store
                // the session's last writes (transcript lines) go through it, and a free alone
                // was seen to lose them or hang the runtime's Dispose (StoreTests).
                if (Volatile.Read(ref blockingCalls) != 0 || Runtime.HadStore)
                {
                    try
                    {
                        NativeMethods.robota_session_close(handle);
                    }
                    catch (ObjectDisposedException)
                    {
                        // Released concurrently (finalizer race): nothing to close.
                    }
                }
            }
            handle.Dispose();
        }
    }
}
