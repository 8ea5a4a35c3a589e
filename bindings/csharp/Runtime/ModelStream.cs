using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Robota
{
    /// <summary>
    /// The <see cref="IModelStream"/> of one call: each event is one <c>robota_provider_push</c>,
    /// serialized by a lock so events from several threads keep the order they were pushed in.
    /// </summary>
    internal sealed class ModelStream : IModelStream
    {
        private readonly object gate = new object();
        private readonly ProviderRegistration owner;
        private readonly CancellationTokenSource cancel = new CancellationTokenSource();
        private string cancelReason;
        private int ended; // 1 once the call is over; read without the lock (Cancel never waits for a push)

        internal ModelStream(ProviderRegistration owner, ulong callId)
        {
            this.owner = owner;
            CallId = callId;
        }

        public ulong CallId { get; }

        public string CancelReason => Volatile.Read(ref cancelReason);

        internal CancellationToken Token => cancel.Token;

        /// <summary>True once the call ended (Done/Fail taken, stale, refused, or cancelled).</summary>
        internal bool Ended
        {
            get { return Volatile.Read(ref ended) != 0; }
        }

        public void Report(string value) => Text(value);

        public bool Text(string text) => Push(Event("text", "text", text ?? throw new ArgumentNullException(nameof(text))), false);

        public bool Thinking(string text) => Push(Event("thinking", "text", text ?? throw new ArgumentNullException(nameof(text))), false);

        public bool ToolCall(string id, string name, string argumentsJson)
        {
            var d = Event("tool_call", "id", id ?? throw new ArgumentNullException(nameof(id)));
            d["name"] = name ?? throw new ArgumentNullException(nameof(name));
            d["arguments"] = new JsonRaw(argumentsJson ?? throw new ArgumentNullException(nameof(argumentsJson)));
            return Push(d, false);
        }

        public bool ToolCallStart(string id, string name)
        {
            var d = Event("tool_call_start", "id", id ?? throw new ArgumentNullException(nameof(id)));
            d["name"] = name ?? throw new ArgumentNullException(nameof(name));
            return Push(d, false);
        }

        public bool ToolCallDelta(string id, string argumentsFragment)
        {
            var d = Event("tool_call_delta", "id", id ?? throw new ArgumentNullException(nameof(id)));
            d["arguments"] = argumentsFragment ?? throw new ArgumentNullException(nameof(argumentsFragment));
            return Push(d, false);
        }

        public bool ToolCallEnd(string id) => Push(Event("tool_call_end", "id", id ?? throw new ArgumentNullException(nameof(id))), false);

        public bool Usage(long inputTokens, long outputTokens)
        {
            var d = Event("usage", "input_tokens", inputTokens);
            d["output_tokens"] = outputTokens;
            return Push(d, false);
        }

        public bool Done(string stopReason = null)
        {
            var d = new Dictionary<string, object> { { "type", "done" } };
            if (stopReason != null)
            {
                d["stop_reason"] = stopReason;
            }
            return Push(d, true);
        }

        public bool Fail(ModelErrorClass errorClass, string message, long? retryAfterMs = null, bool? recoverable = null)
        {
            var d = Event("error", "class", ClassName(errorClass));
            d["message"] = message ?? throw new ArgumentNullException(nameof(message));
            if (retryAfterMs.HasValue)
            {
                d["retry_after_ms"] = retryAfterMs.Value;
            }
            if (recoverable.HasValue)
            {
                d["recoverable"] = recoverable.Value;
            }
            return Push(d, true);
        }

        /// <summary>Ends the call from an exception of the host's code (false when it had ended already).</summary>
        internal bool FailFrom(Exception e)
        {
            while (e is AggregateException agg && agg.InnerExceptions.Count == 1)
            {
                e = agg.InnerException;
            }
            if (e is ModelProviderException mp)
            {
                return Fail(mp.ErrorClass, mp.Message, mp.RetryAfterMs, mp.Recoverable);
            }
            return Fail(ModelErrorClass.Provider, e.Message);
        }

        /// <summary>Ends a call of <see cref="ModelProvider.Create"/> from its task; never throws.</summary>
        internal static void EndFrom(IModelStream stream, Task task, CancellationToken token)
        {
            try
            {
                var own = stream as ModelStream;
                if (task.IsFaulted)
                {
                    if (own != null) own.FailFrom(task.Exception);
                    else stream.Fail(ModelErrorClass.Provider, task.Exception.InnerException.Message);
                }
                else if (task.IsCanceled)
                {
                    if (!token.IsCancellationRequested)
                    {
                        stream.Fail(ModelErrorClass.Provider, "the provider's task was cancelled");
                    }
                }
                else if (own == null || !own.Ended)
                {
                    stream.Done();
                }
            }
            catch (Exception e)
            {
                // A refused end (the call has ended with that error already) or a disposed runtime.
                RobotaLibrary.Report(e);
            }
        }

        /// <summary>The cancel document arrived: the token fires once, off the library's thread.</summary>
        internal void Cancel(string reason)
        {
            Volatile.Write(ref cancelReason, reason ?? "session_closed");
            // No lock: a push in flight on another thread may hold it, and the library's thread
            // delivering this cancel must not wait for it.
            Volatile.Write(ref ended, 1);
            Robota.ToolCall.CancelLater(cancel);
        }

        private static Dictionary<string, object> Event(string type, string key, object value) =>
            new Dictionary<string, object> { { "type", type }, { key, value } };

        private bool Push(Dictionary<string, object> ev, bool isEnd)
        {
            var json = Utf8.Encode(Json.Serialize(ev));
            int status;
            IntPtr err;
            bool over;
            lock (gate)
            {
                if (Ended)
                {
                    return false;
                }
                status = NativeMethods.robota_provider_push(owner.RuntimePtr, CallId, json, out err);
                // Stale, refused (INVALID_CONFIG and INVALID_JSON end the call) or the runtime is gone.
                over = status != 0 || isEnd;
                if (over)
                {
                    Volatile.Write(ref ended, 1);
                }
            }
            if (over)
            {
                owner.Forget(CallId);
            }
            if (status == 0)
            {
                Errors.Free(err);
                return true;
            }
            if (status == (int)RobotaStatus.Stale || status == (int)RobotaStatus.InvalidHandle)
            {
                Errors.Free(err);
                return false;
            }
            throw Errors.Take(status, err);
        }

        private static string ClassName(ModelErrorClass c)
        {
            switch (c)
            {
                case ModelErrorClass.RateLimit: return "rate_limit";
                case ModelErrorClass.Authentication: return "authentication";
                case ModelErrorClass.Network: return "network";
                case ModelErrorClass.ModelNotAvailable: return "model_not_available";
                case ModelErrorClass.ContextLength: return "context_length";
                case ModelErrorClass.InvalidRequest: return "invalid_request";
                default: return "provider";
            }
        }
    }
}
