using System;
using System.Collections.Generic;
using System.Threading;

namespace Robota
{
    /// <summary>
    /// One call of a host tool. A handler's return value completes it; a handler may instead
    /// complete it itself, now or later, from any thread. <see cref="CancellationToken"/> fires
    /// when the library cancels the call (the turn was aborted or the session freed).
    /// </summary>
    public sealed class ToolCall : EventArgs
    {
        private readonly RuntimeHandle runtime;
        private readonly SessionCore core;
        private CancellationTokenSource cancel; // made when the token is first asked for
        private int cancelled;
        private Dictionary<string, object> arguments;
        private int completed;

        internal ToolCall(RuntimeHandle runtime, SessionCore core, ulong callId, string toolName, string argumentsJson)
        {
            this.runtime = runtime;
            this.core = core;
            CallId = callId;
            ToolName = toolName ?? string.Empty;
            ArgumentsJson = string.IsNullOrEmpty(argumentsJson) ? "{}" : argumentsJson;
        }

        /// <summary>The call id (unique per runtime).</summary>
        public ulong CallId { get; }

        /// <summary>The tool's name.</summary>
        public string ToolName { get; }

        /// <summary>The arguments as the model sent them (JSON text).</summary>
        public string ArgumentsJson { get; }

        /// <summary>The arguments as a dictionary (empty when they are not a JSON object).</summary>
        public Dictionary<string, object> Arguments
        {
            get
            {
                if (arguments == null)
                {
                    arguments = Json.ObjectOrEmpty(ArgumentsJson);
                }
                return arguments;
            }
        }

        /// <summary>The session that made the call (null when it is already gone).</summary>
        public RobotaSession Session => core?.Session;

        /// <summary>Cancelled when the library cancels the call (TOOL_CALL_CANCELLED).</summary>
        public CancellationToken CancellationToken
        {
            get
            {
                var source = Volatile.Read(ref cancel);
                if (source == null)
                {
                    var made = new CancellationTokenSource();
                    if (Volatile.Read(ref cancelled) != 0)
                    {
                        made.Cancel(); // nothing registered on it yet: no callback runs here
                    }
                    source = Interlocked.CompareExchange(ref cancel, made, null) ?? made;
                    // Cancel() ran between the check and the publication: it saw no source.
                    if (source == made && !made.IsCancellationRequested && Volatile.Read(ref cancelled) != 0)
                    {
                        CancelLater(made);
                    }
                }
                return source.Token;
            }
        }

        /// <summary>True once this object sent an answer (or the library refused one as stale).</summary>
        public bool IsCompleted => Volatile.Read(ref completed) != 0;

        /// <summary>
        /// Answers with <paramref name="result"/>: a string is sent as a JSON string,
        /// <see cref="JsonRaw"/> as is, anything else through <see cref="Json.Serialize"/>.
        /// Returns false when the call is stale (answered, timed out or cancelled).
        /// </summary>
        public bool Complete(object result) => Send(Json.Serialize(result), false);

        /// <summary>Answers with a failure the model sees. Returns false when the call is stale.</summary>
        public bool Fail(string message) => Send(Json.Serialize(message ?? "tool failed"), true);

        internal void Track() => core?.Track(this);

        internal void Cancel()
        {
            Interlocked.Exchange(ref cancelled, 1);
            var source = Volatile.Read(ref cancel);
            if (source != null)
            {
                CancelLater(source);
            }
        }

        /// <summary>
        /// Cancels <paramref name="source"/> off the native callback thread: token callbacks and
        /// await continuations of user code must not run inside the library's callback.
        /// </summary>
        internal static void CancelLater(CancellationTokenSource source)
        {
            ThreadPool.QueueUserWorkItem(c =>
            {
                try
                {
                    ((CancellationTokenSource)c).Cancel();
                }
                catch (Exception e)
                {
                    RobotaLibrary.Report(e);
                }
            }, source);
        }

        /// <summary>Completes from a handler's outcome: the value, or the exception as the tool's failure.</summary>
        internal void Finish(object result, Exception error)
        {
            if (IsCompleted)
            {
                return;
            }
            try
            {
                if (error != null)
                {
                    Send(Json.Serialize(Describe(error)), true);
                }
                else
                {
                    Send(Json.Serialize(result), false);
                }
            }
            catch (ObjectDisposedException)
            {
                // The runtime is gone: nobody is waiting for the answer.
            }
            catch (Exception e)
            {
                // A result that cannot be written as JSON is the tool's failure too.
                if (error == null && !IsCompleted)
                {
                    try
                    {
                        Send(Json.Serialize(Describe(e)), true);
                        return;
                    }
                    catch (Exception inner)
                    {
                        RobotaLibrary.Report(inner);
                        return;
                    }
                }
                RobotaLibrary.Report(e);
            }
        }

        private static string Describe(Exception e)
        {
            var inner = e is AggregateException agg && agg.InnerExceptions.Count == 1 ? agg.InnerExceptions[0] : e;
            if (inner is ToolArgumentException)
            {
                return "invalid arguments: " + inner.Message;
            }
            return inner is OperationCanceledException
                ? "tool handler was cancelled"
                : "tool handler threw " + inner.GetType().Name + ": " + inner.Message;
        }

        private bool Send(string json, bool isError)
        {
            IntPtr err;
            int status;
            if (core == null && runtime == null)
            {
                throw new ObjectDisposedException("RobotaRuntime", "the runtime of this tool call is gone");
            }
            var bytes = Utf8.Rent(json);
            try
            {
                status = core != null
                    ? core.CompleteToolCall(CallId, bytes, isError ? 1 : 0, out err)
                    : NativeMethods.robota_tool_call_complete(runtime, CallId, bytes, isError ? 1 : 0, out err);
            }
            finally
            {
                Utf8.Return(bytes);
            }
            Interlocked.Exchange(ref completed, 1);
            core?.Untrack(CallId);
            if (status == (int)RobotaStatus.Stale)
            {
                Errors.Free(err);
                return false;
            }
            Errors.Check(status, err);
            return true;
        }
    }
}
