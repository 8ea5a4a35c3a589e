using System;
using System.Collections.Concurrent;
using System.Collections.Generic;

namespace Robota
{
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
