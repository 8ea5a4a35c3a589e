using System;
using System.Threading;
using System.Threading.Tasks;

namespace Robota
{
    /// <summary>
    /// A model the host brings (an on-device model, its own HTTP stack, a gateway), registered
    /// with <see cref="RobotaRuntime.RegisterProvider(string, ProviderCapabilities, IModelProvider)"/>: sessions, subagents, compaction and
    /// queries naming it call <see cref="Stream"/> once per model call.
    /// </summary>
    public interface IModelProvider
    {
        /// <summary>
        /// Answers one model call: push its events to <paramref name="stream"/>, now or later, from
        /// any thread, and end it with <see cref="IModelStream.Done"/> or <see cref="IModelStream.Fail"/>.
        /// Returning does not end the call. An exception thrown here ends it as
        /// <see cref="IModelStream.Fail"/> would (<see cref="ModelProviderException"/> with its class,
        /// any other with class <see cref="ModelErrorClass.Provider"/>). <paramref name="cancellationToken"/>
        /// is cancelled once when the call is void (the turn was aborted, the session closed, the
        /// call timed out); pushes after that return false. Runs on the thread that calls
        /// <see cref="RobotaSession.Dispatch"/> for a call of a pump-delivery session it pumps, else
        /// on a thread of its own (never the library's).
        /// </summary>
        void Stream(ModelRequest request, IModelStream stream, CancellationToken cancellationToken);
    }

    /// <summary>
    /// The events of one model call, in order. Thread-safe: push from any thread. Each method
    /// returns true when the library took the event, false when the call has ended already
    /// (cancelled, timed out, or ended by an earlier Done/Fail). An event the library refuses
    /// (a tool call naming a tool the request did not offer, arguments that are not a JSON object,
    /// an event out of order, arguments that are not JSON) throws <see cref="RobotaException"/> with
    /// <see cref="RobotaStatus.InvalidConfig"/> (<see cref="RobotaStatus.InvalidJson"/>), and the
    /// call ends with that error.
    /// <see cref="IProgress{T}.Report"/> pushes a text delta.
    /// </summary>
    public interface IModelStream : IProgress<string>
    {
        /// <summary>The call this stream answers.</summary>
        ulong CallId { get; }

        /// <summary>
        /// Why the call was cancelled: <c>aborted</c>, <c>session_closed</c> or <c>timeout</c>;
        /// null while it was not (set before the token fires).
        /// </summary>
        string CancelReason { get; }

        /// <summary>A text delta of the answer.</summary>
        bool Text(string text);

        /// <summary>A thinking delta.</summary>
        bool Thinking(string text);

        /// <summary>A whole tool call; <paramref name="argumentsJson"/> is a JSON object.</summary>
        bool ToolCall(string id, string name, string argumentsJson);

        /// <summary>Starts a streamed tool call (then <see cref="ToolCallDelta"/>s and <see cref="ToolCallEnd"/>).</summary>
        bool ToolCallStart(string id, string name);

        /// <summary>A fragment of a streamed tool call's arguments (the fragments joined are a JSON object).</summary>
        bool ToolCallDelta(string id, string argumentsFragment);

        /// <summary>Ends a streamed tool call.</summary>
        bool ToolCallEnd(string id);

        /// <summary>Token usage of the call.</summary>
        bool Usage(long inputTokens, long outputTokens);

        /// <summary>
        /// Ends the call: <paramref name="stopReason"/> is <c>end_turn</c>, <c>tool_use</c>,
        /// <c>max_tokens</c> or <c>refusal</c>; null lets the library choose (<c>tool_use</c> when tool calls were pushed).
        /// </summary>
        bool Done(string stopReason = null);

        /// <summary>
        /// Ends the call with an error of <paramref name="errorClass"/>: rate limits, network and
        /// provider errors are retried (a new call) while nothing was pushed yet, unless
        /// <paramref name="recoverable"/> is false; the other classes fail the turn.
        /// </summary>
        bool Fail(ModelErrorClass errorClass, string message, long? retryAfterMs = null, bool? recoverable = null);
    }

    /// <summary>The error classes of <see cref="IModelStream.Fail"/> (the engine's error taxonomy).</summary>
    public enum ModelErrorClass
    {
        /// <summary>Any other failure of the model (retried unless not recoverable).</summary>
        Provider,
        /// <summary>Too many requests (retried, after <c>retryAfterMs</c> when given).</summary>
        RateLimit,
        /// <summary>Credentials refused (not retried).</summary>
        Authentication,
        /// <summary>The connection failed (retried).</summary>
        Network,
        /// <summary>The model does not exist or is not loaded (not retried).</summary>
        ModelNotAvailable,
        /// <summary>The request does not fit the model's context (not retried).</summary>
        ContextLength,
        /// <summary>The model refused the request as malformed (not retried).</summary>
        InvalidRequest,
    }

    /// <summary>
    /// Thrown by a provider's code to end its call with an error class other than
    /// <see cref="ModelErrorClass.Provider"/> (thrown from <see cref="IModelProvider.Stream"/> or
    /// from the task of <see cref="ModelProvider.Create"/>).
    /// </summary>
    public sealed class ModelProviderException : Exception
    {
        /// <summary>Creates the error.</summary>
        public ModelProviderException(ModelErrorClass errorClass, string message, long? retryAfterMs = null, bool? recoverable = null)
            : base(message)
        {
            ErrorClass = errorClass;
            RetryAfterMs = retryAfterMs;
            Recoverable = recoverable;
        }

        /// <summary>The error class.</summary>
        public ModelErrorClass ErrorClass { get; }

        /// <summary>How long to wait before a retry (rate limits).</summary>
        public long? RetryAfterMs { get; }

        /// <summary>Overrides the class's recoverability (null: the class decides).</summary>
        public bool? Recoverable { get; }
    }

    /// <summary>Host providers made from delegates.</summary>
    public static class ModelProvider
    {
        /// <summary>
        /// A provider whose calls run <paramref name="streamAsync"/>: it pushes events, and the call
        /// ends when its task does: <see cref="IModelStream.Done"/> (stop reason chosen by the
        /// library) unless it ended the call itself, <see cref="IModelStream.Fail"/> when the task
        /// faults (class from a <see cref="ModelProviderException"/>, else provider). A cancelled
        /// task after the token fired ends nothing: the call is over already.
        /// </summary>
        public static IModelProvider Create(Func<ModelRequest, IModelStream, CancellationToken, Task> streamAsync) =>
            new DelegateProvider(streamAsync ?? throw new ArgumentNullException(nameof(streamAsync)));

        private sealed class DelegateProvider : IModelProvider
        {
            private readonly Func<ModelRequest, IModelStream, CancellationToken, Task> streamAsync;

            internal DelegateProvider(Func<ModelRequest, IModelStream, CancellationToken, Task> streamAsync)
            {
                this.streamAsync = streamAsync;
            }

            public void Stream(ModelRequest request, IModelStream stream, CancellationToken cancellationToken)
            {
                var task = streamAsync(request, stream, cancellationToken);
                if (task == null)
                {
                    throw new InvalidOperationException("the provider's stream function returned a null Task");
                }
                task.ContinueWith(
                    t => ModelStream.EndFrom(stream, t, cancellationToken),
                    CancellationToken.None,
                    TaskContinuationOptions.ExecuteSynchronously,
                    TaskScheduler.Default);
            }
        }
    }
}
