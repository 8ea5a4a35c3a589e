using System;
using System.Collections.Generic;
using System.Globalization;
using System.Threading;

namespace Robota
{
    /// <summary>Typed reads of a parsed JSON object (missing or mistyped members read as absent).</summary>
    internal static class Members
    {
        internal static long Long(IDictionary<string, object> d, string key)
        {
            object v;
            if (d == null || !d.TryGetValue(key, out v)) return 0;
            if (v is long l) return l;
            if (v is ulong u) return unchecked((long)u);
            if (v is double x) return (long)x;
            return 0;
        }

        internal static ulong? UInt64OrNull(IDictionary<string, object> d, string key)
        {
            object v;
            if (d == null || !d.TryGetValue(key, out v) || v == null) return null;
            if (v is long l && l >= 0) return (ulong)l;
            if (v is ulong u) return u;
            return null;
        }

        internal static double Double(IDictionary<string, object> d, string key)
        {
            object v;
            if (d == null || !d.TryGetValue(key, out v)) return 0;
            if (v is double x) return x;
            if (v is long l) return l;
            if (v is ulong u) return u;
            return 0;
        }

        internal static Dictionary<string, object> Object(IDictionary<string, object> d, string key)
        {
            object v;
            return d != null && d.TryGetValue(key, out v) ? v as Dictionary<string, object> : null;
        }
    }

    /// <summary>Token usage summed over a turn's model calls (<c>turn_completed.usage</c>).</summary>
    public sealed class Usage
    {
        internal Usage(Dictionary<string, object> raw)
        {
            Raw = raw;
            InputTokens = Members.Long(raw, "input_tokens");
            OutputTokens = Members.Long(raw, "output_tokens");
            TotalTokens = Members.Long(raw, "total_tokens");
            CacheReadTokens = Members.Long(raw, "cache_read_tokens");
            CacheCreationTokens = Members.Long(raw, "cache_creation_tokens");
        }

        /// <summary>Prompt tokens.</summary>
        public long InputTokens { get; }

        /// <summary>Generated tokens.</summary>
        public long OutputTokens { get; }

        /// <summary>Input plus output tokens.</summary>
        public long TotalTokens { get; }

        /// <summary>Prompt tokens read from the provider's cache.</summary>
        public long CacheReadTokens { get; }

        /// <summary>Prompt tokens written to the provider's cache.</summary>
        public long CacheCreationTokens { get; }

        /// <summary>Every member as sent (members newer than this binding included).</summary>
        public Dictionary<string, object> Raw { get; }

        /// <summary>A member of <see cref="Raw"/> (null when absent).</summary>
        public object this[string key]
        {
            get
            {
                object v;
                return Raw.TryGetValue(key, out v) ? v : null;
            }
        }
    }

    /// <summary>Context figures (<c>context_state</c>, the <c>context_update</c> payload).</summary>
    public sealed class ContextState
    {
        internal ContextState(Dictionary<string, object> raw)
        {
            Raw = raw;
            UsedTokens = Members.Long(raw, "used_tokens");
            MaxTokens = Members.Long(raw, "max_tokens");
            UsedPercentage = Members.Double(raw, "used_percentage");
            RemainingPercentage = Members.Double(raw, "remaining_percentage");
        }

        /// <summary>Tokens the conversation uses.</summary>
        public long UsedTokens { get; }

        /// <summary>The model's context window.</summary>
        public long MaxTokens { get; }

        /// <summary>Used share of the window, 0 to 100.</summary>
        public double UsedPercentage { get; }

        /// <summary>Remaining share of the window, 0 to 100.</summary>
        public double RemainingPercentage { get; }

        /// <summary>Every member as sent.</summary>
        public Dictionary<string, object> Raw { get; }
    }

    /// <summary>One tool call of a turn (<c>tool_summaries[i]</c>).</summary>
    public sealed class ToolSummary
    {
        internal ToolSummary(Dictionary<string, object> raw)
        {
            Raw = raw;
            Name = Json.GetString(raw, "name") ?? string.Empty;
            object v;
            raw.TryGetValue("args", out v);
            Arguments = v;
        }

        /// <summary>The tool's name.</summary>
        public string Name { get; }

        /// <summary>The arguments (a dictionary when they were a JSON object, else the text).</summary>
        public object Arguments { get; }

        /// <summary>The arguments as JSON text (the model's text when it was not JSON); written on first use.</summary>
        public string ArgumentsJson
        {
            get
            {
                if (argumentsJson == null)
                {
                    argumentsJson = Arguments is string s ? s : Json.Serialize(Arguments);
                }
                return argumentsJson;
            }
        }

        private string argumentsJson;

        /// <summary>Every member as sent.</summary>
        public Dictionary<string, object> Raw { get; }
    }

    /// <summary>
    /// The end of a turn (the TURN_COMPLETED document). <see cref="StopReason"/> and
    /// <see cref="TurnId"/> are read when it is made; the rest of the document is parsed on
    /// first use of a member that needs it.
    /// </summary>
    public sealed class TurnResult : EventArgs
    {
        private readonly bool hasErrorDetails;
        private TurnDocument document;

        internal TurnResult(RobotaEvent ev)
        {
            Event = ev;
            string stopReason;
            ulong turnId;
            if (!TurnDocument.TryReadHead(ev.Payload, out stopReason, out turnId, out hasErrorDetails))
            {
                var d = Document;
                stopReason = Json.GetString(d.Raw, "stop_reason");
                turnId = Json.GetUInt64(d.Raw, "turn_id");
                hasErrorDetails = d.ErrorDetails != null;
            }
            StopReason = stopReason ?? string.Empty;
            TurnId = turnId != 0 ? turnId : ev.TurnId;
        }

        /// <summary>The whole document, parsed on first use (the event's <see cref="RobotaEvent.Data"/>).</summary>
        private TurnDocument Document
        {
            get
            {
                var d = Volatile.Read(ref document);
                if (d == null)
                {
                    d = new TurnDocument(Event.Data);
                    d = Interlocked.CompareExchange(ref document, d, null) ?? d;
                }
                return d;
            }
        }

        /// <summary>The result of a TURN_COMPLETED document (<c>robota_session_wait_result</c>).</summary>
        internal static TurnResult FromJson(ulong turnId, string json) =>
            new TurnResult(new RobotaEvent((uint)EventKind.TurnCompleted, turnId, json));

        /// <summary>The turn id.</summary>
        public ulong TurnId { get; }

        /// <summary><c>"complete"</c>, <c>"aborted"</c>, <c>"error"</c>, <c>"budget"</c>, <c>"max_rounds"</c>, <c>"context_limit"</c>, <c>"refusal"</c>, <c>"max_tokens"</c>, <c>"schema_error"</c> (the answer did not match the output schema, also after one repair round).</summary>
        public string StopReason { get; }

        /// <summary>The assistant's final text for the turn.</summary>
        public string Response => Document.Response;

        /// <summary>The assistant's final text (the same as <see cref="Response"/>).</summary>
        public string Text => Response;

        /// <summary>Token usage (null when no model call reported any: a failed turn, a dropped prompt).</summary>
        public Usage Usage => Document.Usage;

        /// <summary>Context figures after the turn (null when absent).</summary>
        public ContextState Context => Document.Context;

        /// <summary>The tool calls of the turn's assistant messages, in order.</summary>
        public IReadOnlyList<ToolSummary> ToolCalls => Document.ToolCalls;

        /// <summary>The tools the turn ran, untyped (<c>[{"name","args"}]</c>).</summary>
        public List<object> ToolSummaries => Document.ToolSummaries;

        /// <summary>The error text of a failed turn (null otherwise).</summary>
        public string ErrorMessage => Document.ErrorMessage;

        /// <summary>A failed turn's <c>{"code","category","recoverable","message"}</c> (null otherwise).</summary>
        public Dictionary<string, object> ErrorDetails => hasErrorDetails ? Document.ErrorDetails : null;

        /// <summary>
        /// The answer validated against the turn's output schema, parsed (a dictionary, list,
        /// string, number or bool; null without a schema or when the turn did not complete).
        /// </summary>
        public object Output => Document.Output;

        /// <summary>The validated answer as JSON text (null without one).</summary>
        public string OutputJson => Output == null ? null : Json.Serialize(Output);

        /// <summary>
        /// The validated answer converted to <typeparamref name="T"/> (its public properties by
        /// camelCased name, as <see cref="RobotaTool.Create{TArgs}"/> converts arguments); throws
        /// <see cref="InvalidOperationException"/> when the turn has no output.
        /// </summary>
        public T OutputAs<T>() where T : class, new()
        {
            if (Output == null)
            {
                throw new InvalidOperationException("turn " + TurnId.ToString(CultureInfo.InvariantCulture) + " has no structured output");
            }
            return (T)ToolSchema.Convert(Output, typeof(T), string.Empty);
        }

        /// <summary>False for a queued prompt dropped before it started.</summary>
        public bool Started => Document.Started;

        /// <summary>True when the turn was aborted.</summary>
        public bool IsAborted => StopReason == "aborted";

        /// <summary>True when the turn failed (<c>"error"</c>, <c>"schema_error"</c>) or its budget stopped it (<c>"budget"</c>).</summary>
        public bool IsFailed => StopReason == "error" || StopReason == "budget" || StopReason == "schema_error";

        /// <summary>The whole document (members newer than this binding included).</summary>
        public Dictionary<string, object> Raw => Document.Raw;

        /// <summary>The TURN_COMPLETED event itself (raw payload in <see cref="RobotaEvent.Payload"/>).</summary>
        public RobotaEvent Event { get; }

        /// <summary>True for the details of a store conflict (<c>"code":"CONFLICT"</c>): the turn's persist was refused.</summary>
        internal static bool IsConflict(IDictionary<string, object> errorDetails) => Json.GetString(errorDetails, "code") == "CONFLICT";

        /// <summary>The exception of a failed or aborted turn (null when it ended normally).</summary>
        internal RobotaException Failure()
        {
            if (StopReason == "error" || StopReason == "schema_error")
            {
                return RobotaException.FromErrorEvent(RobotaStatus.Provider, ErrorDetails, ErrorMessage ?? "the turn failed");
            }
            if (StopReason == "budget")
            {
                return RobotaException.FromErrorEvent(RobotaStatus.Budget, ErrorDetails, ErrorMessage ?? "the session's budget is exhausted");
            }
            if (IsAborted)
            {
                return RobotaException.Create(RobotaStatus.Aborted, "turn " + TurnId.ToString(CultureInfo.InvariantCulture) + " was aborted");
            }
            return null;
        }
    }

    /// <summary>A session's state (<see cref="RobotaSession.GetState"/>, <c>robota_session_state</c>).</summary>
    public sealed class SessionState
    {
        internal SessionState(Dictionary<string, object> raw)
        {
            Raw = raw;
            SessionId = Json.GetString(raw, "session_id");
            Name = Json.GetString(raw, "name");
            Executing = Json.GetBool(raw, "executing");
            Closed = Json.GetBool(raw, "closed");
            CurrentTurn = Members.UInt64OrNull(raw, "current_turn");
            QueuedTurn = Members.UInt64OrNull(raw, "queued_turn");
            PendingPrompt = Json.GetString(raw, "pending_prompt");
            StreamingText = Json.GetString(raw, "streaming_text");
            MessageCount = Members.Long(raw, "message_count");
            Model = Json.GetString(raw, "model");
            Provider = Json.GetString(raw, "provider");
            Delivery = Json.GetString(raw, "delivery");
            PermissionMode = Json.GetString(raw, "permission_mode");
            var context = Members.Object(raw, "context_state");
            Context = context == null ? null : new ContextState(context);
        }

        /// <summary>The session id.</summary>
        public string SessionId { get; }

        /// <summary>The session's name (null when unnamed).</summary>
        public string Name { get; }

        /// <summary>True while a turn runs.</summary>
        public bool Executing { get; }

        /// <summary>True once the session was closed.</summary>
        public bool Closed { get; }

        /// <summary>The running turn (null when idle).</summary>
        public ulong? CurrentTurn { get; }

        /// <summary>The queued turn (null when none).</summary>
        public ulong? QueuedTurn { get; }

        /// <summary>The queued prompt's text (null when none).</summary>
        public string PendingPrompt { get; }

        /// <summary>The running turn's answer so far.</summary>
        public string StreamingText { get; }

        /// <summary>Messages in the conversation.</summary>
        public long MessageCount { get; }

        /// <summary>The model.</summary>
        public string Model { get; }

        /// <summary>The provider profile.</summary>
        public string Provider { get; }

        /// <summary><c>"thread"</c>, <c>"inline"</c>, <c>"pump"</c> or <c>"pull"</c>.</summary>
        public string Delivery { get; }

        /// <summary>The permission mode (<c>"default"</c>, <c>"acceptEdits"</c>, <c>"bypassPermissions"</c>, <c>"plan"</c>).</summary>
        public string PermissionMode { get; }

        /// <summary>Context figures.</summary>
        public ContextState Context { get; }

        /// <summary>The whole document (members without a property here included).</summary>
        public Dictionary<string, object> Raw { get; }

        /// <summary>A member of <see cref="Raw"/> (null when absent).</summary>
        public object this[string key]
        {
            get
            {
                object v;
                return Raw.TryGetValue(key, out v) ? v : null;
            }
        }
    }
}
