using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Robota
{
    /// <summary>
    /// One host provider (the GCHandle target of <c>robota_runtime_register_provider</c>): turns
    /// each call document into a <see cref="ModelRequest"/> and a <see cref="ModelStream"/>, runs
    /// the provider off the library's thread, and cancels the stream's token on the cancel document.
    /// </summary>
    internal sealed class ProviderRegistration : IReleasable
    {
        private readonly ConcurrentDictionary<ulong, ModelStream> calls = new ConcurrentDictionary<ulong, ModelStream>();
        private readonly IModelProvider provider;

        internal ProviderRegistration(string name, IntPtr runtimePtr, IModelProvider provider)
        {
            Name = name;
            RuntimePtr = runtimePtr;
            this.provider = provider;
        }

        internal string Name { get; }

        /// <summary>
        /// The native runtime, by address: pushes go through it even after the RobotaRuntime object
        /// was disposed (its sessions keep it alive); a freed one answers INVALID_HANDLE, never UB.
        /// </summary>
        internal IntPtr RuntimePtr { get; }

        /// <summary>A document from the library's thread: routes it and returns at once. Never throws.</summary>
        internal void Receive(ulong callId, string json)
        {
            Dictionary<string, object> d;
            try
            {
                d = Json.ParseObject(json);
            }
            catch (FormatException e)
            {
                RobotaLibrary.Report(new FormatException("host provider \"" + Name + "\": unreadable request document: " + e.Message, e));
                return;
            }
            var type = Json.GetString(d, "type");
            if (type == "cancel")
            {
                ModelStream cancelled;
                if (calls.TryRemove(callId, out cancelled))
                {
                    cancelled.Cancel();
                }
                return;
            }
            if (type != "call")
            {
                return; // a document kind of a newer library: not ours to answer
            }
            var stream = new ModelStream(this, callId);
            calls[callId] = stream;
            var request = new ModelRequest(callId, d, json);
            var pump = ProviderPump.Find(RuntimePtr, request.SessionId);
            if (pump != null)
            {
                pump.Enqueue(() => Run(request, stream));
                return;
            }
            // Stream may block for the whole generation (a local token loop): a thread of its own.
            Task.Factory.StartNew(() => Run(request, stream), CancellationToken.None,
                TaskCreationOptions.LongRunning | TaskCreationOptions.DenyChildAttach, TaskScheduler.Default);
        }

        /// <summary>Runs the provider for one call; its exception ends the call. Never throws.</summary>
        internal void Run(ModelRequest request, ModelStream stream)
        {
            if (stream.Ended)
            {
                return; // cancelled before it started (a pump nobody dispatched in time)
            }
            try
            {
                provider.Stream(request, stream, stream.Token);
            }
            catch (OperationCanceledException) when (stream.Token.IsCancellationRequested || stream.Ended)
            {
                // The call is over already.
            }
            catch (Exception e)
            {
                try
                {
                    stream.FailFrom(e);
                }
                catch (Exception refused)
                {
                    RobotaLibrary.Report(refused);
                }
            }
        }

        /// <summary>A call that ended (its end taken, stale or refused): no cancel is expected for it.</summary>
        internal void Forget(ulong callId)
        {
            ModelStream s;
            calls.TryRemove(callId, out s);
        }

        /// <inheritdoc />
        public void Released()
        {
            foreach (var kv in calls)
            {
                ModelStream s;
                if (calls.TryRemove(kv.Key, out s))
                {
                    s.Cancel();
                }
            }
        }
    }

    /// <summary>
    /// The provider calls of one pump-delivery session, queued for the thread that pumps it:
    /// <see cref="RobotaSession.Dispatch"/> runs them there, so a provider bound to Unity's main
    /// thread works. Keyed by runtime and session id (the request's <c>session_id</c>).
    /// </summary>
    internal sealed class ProviderPump
    {
        /// <summary>How long one native wait of a blocking Dispatch lasts before queued calls are looked at.</summary>
        private const int SliceMs = 10;

        private static readonly ConcurrentDictionary<string, ProviderPump> Pumps = new ConcurrentDictionary<string, ProviderPump>();
        private readonly ConcurrentQueue<Action> queued = new ConcurrentQueue<Action>();
        private readonly string key;

        private ProviderPump(string key)
        {
            this.key = key;
        }

        private static string Key(IntPtr runtime, string sessionId) => runtime.ToInt64().ToString("x") + "/" + sessionId;

        internal static ProviderPump Find(IntPtr runtime, string sessionId)
        {
            ProviderPump p;
            return sessionId != null && Pumps.TryGetValue(Key(runtime, sessionId), out p) ? p : null;
        }

        /// <summary>The pump of <paramref name="session"/> when it is a pump-delivery session, else null.</summary>
        internal static ProviderPump AttachIfPump(RobotaSession session)
        {
            Dictionary<string, object> state;
            try
            {
                state = session.State();
            }
            catch (RobotaException e)
            {
                RobotaLibrary.Report(e); // its provider calls then run on threads of their own
                return null;
            }
            if (Json.GetString(state, "delivery") != "pump")
            {
                return null;
            }
            var id = Json.GetString(state, "session_id");
            return id == null ? null : Pumps.GetOrAdd(Key(session.Runtime.Handle.DangerousGetHandle(), id), k => new ProviderPump(k));
        }

        /// <summary>Stops routing calls here (the session is disposed); queued calls are cancelled by the library.</summary>
        internal void Detach() => ((ICollection<KeyValuePair<string, ProviderPump>>)Pumps).Remove(new KeyValuePair<string, ProviderPump>(key, this));

        internal void Enqueue(Action call) => queued.Enqueue(call);

        /// <summary>Runs the queued calls on this thread; returns how many.</summary>
        internal int RunQueued()
        {
            var n = 0;
            Action call;
            while (queued.TryDequeue(out call))
            {
                call();
                n++;
            }
            return n;
        }

        /// <summary>
        /// Dispatch of a session on a runtime with host providers: runs queued provider calls, then
        /// events; a blocking wait is cut in short native waits so a call queued meanwhile starts
        /// without waiting for the whole timeout. Returns the events delivered plus the calls run.
        /// </summary>
        internal int Dispatch(Func<int, int> native, int timeoutMs)
        {
            var ran = RunQueued();
            if (ran > 0 || timeoutMs == 0)
            {
                return ran + native(0) + RunQueued();
            }
            // DateTime, not Stopwatch: the assembly references mscorlib only.
            var deadline = timeoutMs < 0 ? DateTime.MaxValue : DateTime.UtcNow.AddMilliseconds(timeoutMs);
            while (true)
            {
                var left = deadline == DateTime.MaxValue ? SliceMs : (int)Math.Max(0, Math.Min(SliceMs, (deadline - DateTime.UtcNow).TotalMilliseconds));
                var n = native(left);
                ran = RunQueued();
                if (n > 0 || ran > 0 || (deadline != DateTime.MaxValue && DateTime.UtcNow >= deadline))
                {
                    return n + ran;
                }
            }
        }
    }
}
