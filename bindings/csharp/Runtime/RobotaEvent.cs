using System;
using System.Collections.Generic;

namespace Robota
{
    /// <summary>
    /// One session event. <see cref="Payload"/> is the raw payload: text for text/thinking
    /// deltas, JSON for every other kind (parsed on first use by <see cref="Data"/>).
    /// </summary>
    public sealed class RobotaEvent : EventArgs
    {
        private Dictionary<string, object> data;
        private IReadOnlyList<DiffLine> diffLines;

        internal RobotaEvent(uint kind, ulong turnId, string payload)
        {
            RawKind = kind;
            Kind = kind >= 1 && kind < TypeNames.Length ? (EventKind)kind : EventKind.Unknown;
            TurnId = turnId;
            Payload = payload ?? string.Empty;
        }

        // The "type" name of every EventKind, indexed by its number (append-only, as the enum).
        private static readonly string[] TypeNames =
        {
            null, "turn_started", "text_delta", "thinking_delta", "message", "tool_start", "tool_end", "tool_call",
            "tool_call_cancelled", "permission_request", "hook_request", "context_update", "compacted", "execution",
            "warning", "error", "turn_completed", "session_closed", "subagent", "host_io", "command_request",
            "request_cancelled", "server_tool",
        };

        /// <summary>The kind of a pull event's <c>"type"</c> name (0 when unknown).</summary>
        internal static uint KindOf(string type)
        {
            var i = type == null ? -1 : System.Array.IndexOf(TypeNames, type);
            return i > 0 ? (uint)i : 0u;
        }

        /// <summary>The kind (<see cref="EventKind.Unknown"/> for kinds newer than this binding).</summary>
        public EventKind Kind { get; }

        /// <summary>The numeric kind as the library sent it.</summary>
        public uint RawKind { get; }

        /// <summary>The turn the event belongs to (0 for session-level events).</summary>
        public ulong TurnId { get; }

        /// <summary>The raw payload (text for deltas, JSON otherwise).</summary>
        public string Payload { get; }

        /// <summary>The delta text (same as <see cref="Payload"/> for text and thinking deltas).</summary>
        public string Text => Payload;

        /// <summary>True for the two kinds whose payload is raw text.</summary>
        public bool IsText => Kind == EventKind.TextDelta || Kind == EventKind.ThinkingDelta;

        /// <summary>
        /// The JSON payload as a dictionary, parsed once (empty for a payload that is not an
        /// object; for text kinds a new empty dictionary on every read, as one text event may be
        /// handed out more than once).
        /// </summary>
        public Dictionary<string, object> Data
        {
            get
            {
                if (IsText)
                {
                    return new Dictionary<string, object>();
                }
                if (data == null)
                {
                    data = Json.ObjectOrEmpty(Payload);
                }
                return data;
            }
        }

        /// <summary>
        /// For a <see cref="EventKind.ToolEnd"/> of a built-in Edit or Write that changed a file:
        /// the file as the call named it (null otherwise).
        /// </summary>
        public string DiffFile => Kind == EventKind.ToolEnd ? GetString("diff_file") : null;

        /// <summary>
        /// With <see cref="DiffFile"/>: the changed lines in file order, no context lines (a new
        /// file is all adds); empty otherwise.
        /// </summary>
        public IReadOnlyList<DiffLine> DiffLines
        {
            get
            {
                if (diffLines == null)
                {
                    diffLines = Kind == EventKind.ToolEnd ? DiffLine.ListOf(Data) : new List<DiffLine>().AsReadOnly();
                }
                return diffLines;
            }
        }

        /// <summary>A string member of <see cref="Data"/> (null when absent).</summary>
        public string GetString(string key) => Json.GetString(Data, key);

        /// <inheritdoc />
        public override string ToString() => Kind + "(turn " + TurnId + "): " + Payload;
    }
}
