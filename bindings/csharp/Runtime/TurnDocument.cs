using System.Collections.Generic;

namespace Robota
{
    /// <summary>
    /// A TURN_COMPLETED document read in two steps: <see cref="TryReadHead"/> takes what settling
    /// a turn needs (its stop reason, id, whether it has error details) in one pass that builds
    /// nothing, and the members a host reads (response, usage, tool summaries, ...) are parsed
    /// whole only when one of them is first asked for (<see cref="TurnResult"/>).
    /// </summary>
    internal sealed class TurnDocument
    {
        // The stop reasons the library writes, returned as these instances instead of new strings.
        private static readonly string[] StopReasons =
        {
            "complete", "aborted", "error", "budget", "max_rounds", "context_limit", "refusal", "max_tokens", "schema_error",
        };

        internal TurnDocument(Dictionary<string, object> raw)
        {
            Raw = raw;
            Response = Json.GetString(raw, "response") ?? string.Empty;
            var usage = Members.Object(raw, "usage");
            Usage = usage == null ? null : new Usage(usage);
            var context = Members.Object(raw, "context_state");
            Context = context == null ? null : new ContextState(context);
            object v;
            ToolSummaries = raw.TryGetValue("tool_summaries", out v) && v is List<object> l ? l : new List<object>();
            var calls = new List<ToolSummary>();
            foreach (var item in ToolSummaries)
            {
                if (item is Dictionary<string, object> o)
                {
                    calls.Add(new ToolSummary(o));
                }
            }
            ToolCalls = calls.AsReadOnly();
            ErrorMessage = Json.GetString(raw, "error");
            ErrorDetails = Members.Object(raw, "error_details");
            Output = raw.TryGetValue("output", out v) ? v : null;
            Started = !(raw.TryGetValue("started", out v) && v is bool b && !b);
        }

        internal Dictionary<string, object> Raw { get; }

        internal string Response { get; }

        internal Usage Usage { get; }

        internal ContextState Context { get; }

        internal List<object> ToolSummaries { get; }

        internal IReadOnlyList<ToolSummary> ToolCalls { get; }

        internal string ErrorMessage { get; }

        internal Dictionary<string, object> ErrorDetails { get; }

        internal object Output { get; }

        internal bool Started { get; }

        /// <summary>
        /// Reads <c>stop_reason</c> (null when absent or not a string), <c>turn_id</c> (0 when
        /// absent or not a non-negative integer) and whether <c>error_details</c> is an object,
        /// as the parsed document would give them (the last of duplicate members wins). False
        /// when <paramref name="json"/> is not a valid object or a member is written in a way this
        /// pass does not read (an escaped stop reason): the caller parses the whole document.
        /// </summary>
        internal static unsafe bool TryReadHead(string json, out string stopReason, out ulong turnId, out bool hasErrorDetails)
        {
            fixed (char* p = json)
            {
                return ReadHead(json, p, json.Length, out stopReason, out turnId, out hasErrorDetails);
            }
        }

        private static unsafe bool ReadHead(string json, char* s, int n, out string stopReason, out ulong turnId, out bool hasErrorDetails)
        {
            stopReason = null;
            turnId = 0;
            hasErrorDetails = false;
            var i = 0;
            JsonScan.Ws(s, n, ref i);
            if (i >= n || s[i] != '{')
            {
                return false;
            }
            i++;
            JsonScan.Ws(s, n, ref i);
            var empty = i < n && s[i] == '}';
            if (empty)
            {
                i++;
            }
            while (!empty)
            {
                JsonScan.Ws(s, n, ref i);
                var key = i;
                if (i >= n || s[i] != '"' || !JsonScan.SkipString(s, n, ref i))
                {
                    return false;
                }
                JsonScan.Ws(s, n, ref i);
                if (i >= n || s[i] != ':')
                {
                    return false;
                }
                i++;
                JsonScan.Ws(s, n, ref i);
                var value = i;
                if (!JsonScan.SkipValue(s, n, ref i, 1))
                {
                    return false;
                }
                if (JsonScan.KeyIs(s, n, key, "stop_reason"))
                {
                    if (s[value] != '"')
                    {
                        stopReason = null;
                    }
                    else if ((stopReason = Known(json, value + 1, i - value - 2)) == null)
                    {
                        return false;
                    }
                }
                else if (JsonScan.KeyIs(s, n, key, "turn_id"))
                {
                    turnId = UInt64At(s, value, i);
                }
                else if (JsonScan.KeyIs(s, n, key, "error_details"))
                {
                    hasErrorDetails = s[value] == '{';
                }
                JsonScan.Ws(s, n, ref i);
                if (i < n && s[i] == ',')
                {
                    i++;
                    continue;
                }
                if (i >= n || s[i] != '}')
                {
                    return false;
                }
                i++;
                break;
            }
            JsonScan.Ws(s, n, ref i);
            return i == n;
        }

        /// <summary>The unescaped string of <paramref name="length"/> chars at <paramref name="start"/>; null when it has an escape.</summary>
        private static string Known(string json, int start, int length)
        {
            if (json.IndexOf('\\', start, length) >= 0)
            {
                return null;
            }
            foreach (var known in StopReasons)
            {
                if (known.Length == length && string.CompareOrdinal(json, start, known, 0, length) == 0)
                {
                    return known;
                }
            }
            return json.Substring(start, length);
        }

        /// <summary>The non-negative integer in [<paramref name="start"/>, <paramref name="end"/>), else 0 (as <see cref="Json.GetUInt64"/>).</summary>
        private static unsafe ulong UInt64At(char* s, int start, int end)
        {
            ulong v = 0;
            for (var i = start; i < end; i++)
            {
                var c = s[i];
                if (c < '0' || c > '9' || v > (ulong.MaxValue - 9) / 10)
                {
                    return 0;
                }
                v = v * 10 + (ulong)(c - '0');
            }
            return v;
        }
    }
}
