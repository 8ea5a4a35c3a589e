using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Robota
{
    /// <summary>A GCHandle target the library releases through its free_fn.</summary>
    internal interface IReleasable
    {
        /// <summary>Runs once, after the registration's last callback.</summary>
        void Released();
    }

    /// <summary>A turn the binding waits for (RunAsync) or keeps the session alive for (Submit).</summary>
    internal sealed class TurnWaiter
    {
        internal TaskCompletionSource<TurnResult> Tcs;
        internal CancellationToken Token;
        internal CancellationTokenRegistration Registration;
        internal volatile bool CancelRequested;
        internal IDictionary<string, object> LastError;
        internal Action<RobotaEvent> Sink;
    }

    /// <summary>
    /// The managed side of one native session: the GCHandle target of its event callback. It
    /// routes every event (callbacks in thread/inline/pump mode, <c>robota_session_next_event</c> in
    /// pull mode) to the C# events, tool handlers and waiting turns. It references the
    /// <see cref="RobotaSession"/> weakly, and strongly only while a turn is in flight, so a
    /// session nobody holds is still finalized (its SafeHandle frees the native session).
    /// </summary>
    internal sealed class SessionCore : IReleasable
    {
        private static readonly ConcurrentDictionary<IntPtr, SessionCore> Live = new ConcurrentDictionary<IntPtr, SessionCore>();

        // The core itself (internal: no user code can lock it), one object less per session.
        private readonly object gate;
        // Mutable structs, under the gate (never readonly: a readonly field would be copied per call).
        private IdMap<TurnWaiter> turns;
        private IdMap<ToolCall> calls;
        private IdMap<HostRequest> requests;
        private IdMap<TurnResult> driven;
        private int drives;
        private int sinkTurns; // turns tracked (or being submitted) with a sink: while 0, routing skips the lookup
        private WeakReference<RobotaSession> session;
        private WeakReference<SessionHandle> sessionHandle;
        private readonly IntPtr runtimePtr;
        // Keeps the session reachable while a turn runs; the sender of the events routed meanwhile.
        private RobotaSession keepAlive;
        private IntPtr ptr;

        internal SessionCore(RobotaRuntime owner)
        {
            gate = this;
            Owner = owner;
            Runtime = owner.Handle;
            runtimePtr = owner.Handle.DangerousGetHandle();
        }

        internal RobotaRuntime Owner { get; }

        internal RuntimeHandle Runtime { get; }

        internal object Gate => gate;

        internal RobotaSession Session
        {
            get
            {
                RobotaSession s = null;
                session?.TryGetTarget(out s);
                return s;
            }
        }

        internal EventHandler<RobotaEvent> EventReceived, TurnStarted, TextDelta, ThinkingDelta, MessageCommitted,
            ToolStarted, ToolEnded, ContextUpdated, Compacted, Execution, Warning, Error, SessionClosed, RequestCancelled;

        internal EventHandler<ToolCall> ToolCallRequested;
        internal EventHandler<PermissionRequest> PermissionRequested;
        internal EventHandler<HookRequest> HookRequested;
        internal EventHandler<CommandRequest> CommandRequested;
        internal EventHandler<TurnResult> TurnCompleted;

        /// <summary>The core of the live session whose native pointer is <paramref name="p"/>.</summary>
        internal static SessionCore Find(IntPtr p)
        {
            SessionCore c;
            return p != IntPtr.Zero && Live.TryGetValue(p, out c) ? c : null;
        }

        internal void Attach(RobotaSession s, IntPtr p)
        {
            lock (gate)
            {
                session = new WeakReference<RobotaSession>(s);
                sessionHandle = new WeakReference<SessionHandle>(s.Handle);
                ptr = p;
                Live[p] = this;
            }
        }

        /// <summary>Registers a submitted turn; call with <see cref="Gate"/> held around the submit.</summary>
        internal TurnWaiter Track(ulong turnId, RobotaSession owner, bool withTask)
        {
            var w = new TurnWaiter();
            if (withTask)
            {
                w.Tcs = new TaskCompletionSource<TurnResult>(TaskCreationOptions.RunContinuationsAsynchronously);
            }
            turns.Set(turnId, w);
            keepAlive = owner;
            return w;
        }

        /// <summary>
        /// Starts a <see cref="RobotaSession.Drive(string)"/> call, before its native call: until the
        /// matching <see cref="EndDrive"/>, the results of turns nobody tracks (a driven turn's id
        /// is known only when the call returns) are kept for <see cref="TakeDriven"/>.
        /// </summary>
        internal void BeginDrive(RobotaSession owner)
        {
            lock (gate)
            {
                drives++;
                keepAlive = owner;
            }
        }

        /// <summary>Ends a Drive call; the kept results go when no Drive call is left.</summary>
        internal void EndDrive()
        {
            lock (gate)
            {
                if (--drives == 0)
                {
                    driven.Clear();
                    if (turns.Count == 0)
                    {
                        keepAlive = null;
                    }
                }
            }
        }

        /// <summary>
        /// Counts a turn whose events go to a sink, from before its submit (with <see cref="Gate"/>
        /// held): an event routed meanwhile then looks for the sink and waits for the gate.
        /// </summary>
        internal void AddSinkTurn() => Interlocked.Increment(ref sinkTurns);

        /// <summary>Undoes <see cref="AddSinkTurn"/> (the submit failed, or the turn ended).</summary>
        internal void RemoveSinkTurn() => Interlocked.Decrement(ref sinkTurns);

        /// <summary>
        /// Takes the kept result of turn <paramref name="turnId"/>, waiting up to
        /// <paramref name="waitMs"/> for another thread to route it; null when it is not there.
        /// </summary>
        internal TurnResult TakeDriven(ulong turnId, int waitMs)
        {
            lock (gate)
            {
                TurnResult r;
                if (!driven.TryGetValue(turnId, out r) && waitMs > 0)
                {
                    Monitor.Wait(gate, waitMs);
                    driven.TryGetValue(turnId, out r);
                }
                if (r != null)
                {
                    driven.Remove(turnId);
                }
                return r;
            }
        }

        internal void Track(ToolCall call)
        {
            lock (gate)
            {
                calls.Set(call.CallId, call);
            }
        }

        internal void Untrack(ulong callId)
        {
            lock (gate)
            {
                calls.Remove(callId);
            }
        }

        /// <summary>Forgets an answered permission or hook request.</summary>
        internal void Untrack(HostRequest request)
        {
            lock (gate)
            {
                requests.Remove(request.RequestId);
            }
        }

        /// <summary>
        /// Answers tool call <paramref name="callId"/>. The native session keeps its runtime
        /// alive, so this works after the RobotaRuntime object was disposed; a session already
        /// freed answers <see cref="RobotaStatus.Stale"/> (its pending ids were cancelled).
        /// </summary>
        internal int CompleteToolCall(ulong callId, byte[] json, int isError, out IntPtr err)
        {
            err = IntPtr.Zero;
            SessionHandle h;
            if (!Enter(out h))
            {
                return (int)RobotaStatus.Stale;
            }
            try
            {
                return NativeMethods.robota_tool_call_complete_via(runtimePtr, callId, json, isError, out err);
            }
            finally
            {
                h.DangerousRelease();
            }
        }

        /// <summary>Answers a permission or hook request (same lifetime rules as <see cref="CompleteToolCall"/>).</summary>
        internal int Respond(ulong requestId, byte[] json, out IntPtr err)
        {
            err = IntPtr.Zero;
            SessionHandle h;
            if (!Enter(out h))
            {
                return (int)RobotaStatus.Stale;
            }
            try
            {
                return NativeMethods.robota_request_respond_via(runtimePtr, requestId, json, out err);
            }
            finally
            {
                h.DangerousRelease();
            }
        }

        /// <summary>Pins the native session (and so its runtime) for one call; false when it is gone.</summary>
        private bool Enter(out SessionHandle h)
        {
            h = null;
            var weak = sessionHandle;
            if (weak == null || !weak.TryGetTarget(out h) || h.IsClosed)
            {
                return false;
            }
            var added = false;
            try
            {
                h.DangerousAddRef(ref added);
            }
            catch (ObjectDisposedException)
            {
                return false;
            }
            return added;
        }

        /// <summary>
        /// An event from the native callback (its payload valid during the call only): decoded
        /// and routed, unless <see cref="Observed"/> says nothing would see it.
        /// </summary>
        internal void Deliver(uint kind, ulong turnId, IntPtr payload, int length)
        {
            if (!Observed(kind, turnId))
            {
                return;
            }
            Route(kind == (uint)EventKind.TextDelta || kind == (uint)EventKind.ThinkingDelta
                ? DeltaEvents.Take(kind, turnId, payload, length)
                : new RobotaEvent(kind, turnId, Utf8.Decode(payload, length)));
        }

        /// <summary>
        /// False for an event <see cref="Route"/> would only raise to nobody: a kind the binding does
        /// not act on itself, with no handler of that kind, no <see cref="EventReceived"/> handler
        /// and no sink on its turn (RunAsync with progress, Stream). Such events (message and
        /// context documents are the largest payloads) are neither decoded nor allocated.
        /// </summary>
        private bool Observed(uint kind, ulong turnId)
        {
            if (EventReceived != null)
            {
                return true;
            }
            Delegate handler;
            switch ((EventKind)kind)
            {
                case EventKind.TurnStarted: handler = TurnStarted; break;
                case EventKind.TextDelta: handler = TextDelta; break;
                case EventKind.ThinkingDelta: handler = ThinkingDelta; break;
                case EventKind.Message: handler = MessageCommitted; break;
                case EventKind.ToolStart: handler = ToolStarted; break;
                case EventKind.ToolEnd: handler = ToolEnded; break;
                case EventKind.ContextUpdate: handler = ContextUpdated; break;
                case EventKind.Compacted: handler = Compacted; break;
                case EventKind.Execution: handler = Execution; break;
                case EventKind.Warning: handler = Warning; break;
                case EventKind.SessionClosed: handler = SessionClosed; break;
                default: return true; // requests, tool calls, errors, turn ends, host I/O, newer kinds
            }
            if (handler != null)
            {
                return true;
            }
            if (turnId == 0 || Volatile.Read(ref sinkTurns) == 0)
            {
                return false;
            }
            lock (gate)
            {
                TurnWaiter tw;
                return turns.TryGetValue(turnId, out tw) && tw.Sink != null;
            }
        }

        /// <summary>Routes one event to handlers, tools and waiting turns. Never throws.</summary>
        internal void Route(RobotaEvent ev)
        {
            // While a turn is in flight the session is held strongly: no weak reference to read.
            var sender = Volatile.Read(ref keepAlive) ?? Session;
            Raise(EventReceived, sender, ev);
            if (ev.TurnId != 0 && Volatile.Read(ref sinkTurns) != 0)
            {
                Action<RobotaEvent> sink = null;
                lock (gate)
                {
                    TurnWaiter tw;
                    if (turns.TryGetValue(ev.TurnId, out tw))
                    {
                        sink = tw.Sink;
                    }
                }
                if (sink != null)
                {
                    try
                    {
                        sink(ev);
                    }
                    catch (Exception e)
                    {
                        RobotaLibrary.Report(e);
                    }
                }
            }
            switch (ev.Kind)
            {
                case EventKind.TurnStarted: Raise(TurnStarted, sender, ev); break;
                case EventKind.TextDelta: Raise(TextDelta, sender, ev); break;
                case EventKind.ThinkingDelta: Raise(ThinkingDelta, sender, ev); break;
                case EventKind.Message: Raise(MessageCommitted, sender, ev); break;
                case EventKind.ToolStart: Raise(ToolStarted, sender, ev); break;
                case EventKind.ToolEnd: Raise(ToolEnded, sender, ev); break;
                case EventKind.ContextUpdate: Raise(ContextUpdated, sender, ev); break;
                case EventKind.Compacted: Raise(Compacted, sender, ev); break;
                case EventKind.Execution: Raise(Execution, sender, ev); break;
                case EventKind.Warning: Raise(Warning, sender, ev); break;
                case EventKind.SessionClosed: Raise(SessionClosed, sender, ev); break;
                case EventKind.ToolCall: OnToolCall(sender, ev); break;
                case EventKind.ToolCallCancelled: OnToolCallCancelled(ev); break;
                case EventKind.RequestCancelled: OnRequestCancelled(sender, ev); break;
                case EventKind.PermissionRequest: OnPermission(sender, ev); break;
                case EventKind.HookRequest: OnHook(sender, ev); break;
                case EventKind.CommandRequest: OnCommand(sender, ev); break;
                case EventKind.HostIo: Owner.HostIoEvent(ev); break;
                case EventKind.Error:
                    lock (gate)
                    {
                        TurnWaiter w;
                        if (turns.TryGetValue(ev.TurnId, out w))
                        {
                            w.LastError = ev.Data;
                        }
                    }
                    Raise(Error, sender, ev);
                    break;
                case EventKind.TurnCompleted: OnTurnCompleted(sender, ev); break;
            }
        }

        private void OnToolCall(RobotaSession sender, RobotaEvent ev)
        {
            var d = ev.Data;
            object args;
            d.TryGetValue("arguments", out args);
            var argsJson = args is string s ? s : Json.Serialize(args ?? new Dictionary<string, object>());
            var call = new ToolCall(Runtime, this, Json.GetUInt64(d, "call_id"), Json.GetString(d, "tool_name"), argsJson);
            var reg = Owner.FindTool(call.ToolName);
            if (reg != null && reg.HasHandler)
            {
                reg.Run(call); // pull delivery: the registered handler answers as in the other modes
                return;
            }
            var h = ToolCallRequested;
            if (h == null)
            {
                call.Finish(null, new InvalidOperationException("no handler for host tool \"" + call.ToolName + "\" (subscribe to ToolCallRequested)"));
                return;
            }
            call.Track();
            Raise(h, sender, call);
        }

        private void OnToolCallCancelled(RobotaEvent ev)
        {
            var id = Json.GetUInt64(ev.Data, "call_id");
            ToolCall call;
            lock (gate)
            {
                if (calls.TryGetValue(id, out call))
                {
                    calls.Remove(id);
                }
            }
            call?.Cancel();
        }

        /// <summary>
        /// REQUEST_CANCELLED: cancels the token of the pending request it names (permission, hook,
        /// command, tool call, host I/O), then raises <see cref="RequestCancelled"/>.
        /// </summary>
        private void OnRequestCancelled(RobotaSession sender, RobotaEvent ev)
        {
            var id = Json.GetUInt64(ev.Data, "request_id");
            var kind = Json.GetString(ev.Data, "request_kind");
            HostRequest req = null;
            ToolCall call = null;
            lock (gate)
            {
                if ((kind == "permission" || kind == "hook" || kind == "command") && requests.TryGetValue(id, out req))
                {
                    requests.Remove(id);
                }
                else if (kind == "tool_call" && calls.TryGetValue(id, out call))
                {
                    calls.Remove(id);
                }
            }
            req?.Cancel();
            call?.Cancel();
            if (kind == "host_io")
            {
                Owner.HostIoCancelled(id);
            }
            Raise(RequestCancelled, sender, ev);
        }

        private void OnPermission(RobotaSession sender, RobotaEvent ev)
        {
            var req = new PermissionRequest(this, ev);
            var h = PermissionRequested;
            if (h == null)
            {
                Answer(() => req.Deny()); // nobody to ask: the safe answer
                return;
            }
            Track(req);
            Raise(h, sender, req);
        }

        private void OnHook(RobotaSession sender, RobotaEvent ev)
        {
            var req = new HookRequest(this, ev);
            var h = HookRequested;
            if (h == null)
            {
                Answer(() => req.Pass()); // no host hook handler: the hook passes
                return;
            }
            Track(req);
            Raise(h, sender, req);
        }

        private void OnCommand(RobotaSession sender, RobotaEvent ev)
        {
            var h = CommandRequested;
            if (h == null)
            {
                return; // answered from EventReceived (or by RespondToRequest) as before
            }
            var req = new CommandRequest(this, ev);
            Track(req);
            Raise(h, sender, req);
        }

        private void Track(HostRequest req)
        {
            lock (gate)
            {
                requests.Set(req.RequestId, req);
            }
        }

        private static void Answer(Func<bool> respond)
        {
            try
            {
                respond();
            }
            catch (Exception e)
            {
                RobotaLibrary.Report(e);
            }
        }

        private void OnTurnCompleted(RobotaSession sender, RobotaEvent ev)
        {
            var result = new TurnResult(ev);
            TurnWaiter w;
            lock (gate)
            {
                if (turns.TryGetValue(result.TurnId, out w))
                {
                    turns.Remove(result.TurnId);
                    if (w.Sink != null)
                    {
                        RemoveSinkTurn();
                    }
                }
                else if (drives > 0)
                {
                    // Possibly a driven turn: kept before any handler runs, so the result is
                    // there once robota_session_run returns (thread/inline delivery).
                    driven.Set(result.TurnId, result);
                    Monitor.PulseAll(gate);
                }
                if (turns.Count == 0)
                {
                    keepAlive = null;
                }
            }
            Raise(TurnCompleted, sender, result);
            if (w != null)
            {
                Settle(w, result);
            }
        }

        private static void Settle(TurnWaiter w, TurnResult result)
        {
            w.Registration.Dispose();
            if (w.Tcs == null)
            {
                return;
            }
            if (result.IsAborted && w.CancelRequested)
            {
                w.Tcs.TrySetCanceled(w.Token);
            }
            else if (TurnResult.IsConflict(w.LastError) || TurnResult.IsConflict(result.ErrorDetails))
            {
                var conflict = TurnResult.IsConflict(w.LastError) ? w.LastError : result.ErrorDetails;
                w.Tcs.TrySetException(RobotaException.FromErrorEvent(RobotaStatus.Conflict, conflict, "the session store refused the save (conflict)"));
            }
            else if (result.StopReason == "budget")
            {
                w.Tcs.TrySetException(RobotaException.FromErrorEvent(RobotaStatus.Budget, w.LastError, "the session's budget is exhausted"));
            }
            else if (result.StopReason == "error" || result.StopReason == "schema_error")
            {
                w.Tcs.TrySetException(RobotaException.FromErrorEvent(RobotaStatus.Provider, w.LastError, "the turn failed"));
            }
            else
            {
                w.Tcs.TrySetResult(result);
            }
        }

        /// <summary>
        /// Fails every waiting turn with an <see cref="ObjectDisposedException"/> saying
        /// <paramref name="disposedMessage"/> and cancels tracked tool calls and requests (session
        /// disposed or gone). Allocates nothing when nothing is tracked.
        /// </summary>
        internal void FailAll(string disposedMessage)
        {
            List<TurnWaiter> waiting;
            List<ToolCall> pending;
            List<HostRequest> asked;
            lock (gate)
            {
                keepAlive = null;
                Monitor.PulseAll(gate); // a Drive call waiting for its result looks again
                if (turns.Count == 0 && calls.Count == 0 && requests.Count == 0)
                {
                    return;
                }
                Volatile.Write(ref sinkTurns, 0);
                waiting = new List<TurnWaiter>();
                pending = new List<ToolCall>();
                asked = new List<HostRequest>();
                turns.DrainTo(waiting);
                calls.DrainTo(pending);
                requests.DrainTo(asked);
            }
            var reason = waiting.Count == 0 ? null : new ObjectDisposedException(nameof(RobotaSession), disposedMessage);
            foreach (var w in waiting)
            {
                w.Registration.Dispose();
                w.Tcs?.TrySetException(reason);
            }
            foreach (var c in pending)
            {
                c.Cancel();
            }
            foreach (var r in asked)
            {
                r.Cancel();
            }
        }

        /// <inheritdoc />
        public void Released()
        {
            IntPtr p;
            lock (gate)
            {
                p = ptr;
            }
            if (p != IntPtr.Zero)
            {
                ((ICollection<KeyValuePair<IntPtr, SessionCore>>)Live).Remove(new KeyValuePair<IntPtr, SessionCore>(p, this));
            }
            FailAll("the session was freed before the turn completed");
        }

        /// <summary>Runs the handlers; an exception goes to <see cref="RobotaLibrary.CallbackException"/>.</summary>
        internal static void Raise<T>(EventHandler<T> h, object sender, T args)
        {
            if (h == null)
            {
                return;
            }
            try
            {
                h(sender, args);
            }
            catch (Exception e)
            {
                RobotaLibrary.Report(e);
            }
        }
    }
}
