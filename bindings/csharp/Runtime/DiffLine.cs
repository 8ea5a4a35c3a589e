using System.Collections.Generic;

namespace Robota
{
    /// <summary>
    /// One changed line of a built-in Edit or Write, as a <c>tool_end</c> event carries it
    /// (<see cref="RobotaEvent.DiffLines"/>).
    /// </summary>
    public sealed class DiffLine
    {
        /// <summary>Makes a diff line.</summary>
        public DiffLine(string type, string content, long lineNumber)
        {
            Type = type;
            Content = content;
            LineNumber = lineNumber;
        }

        /// <summary><c>"add"</c> or <c>"remove"</c>.</summary>
        public string Type { get; }

        /// <summary>The line's text, without its line break.</summary>
        public string Content { get; }

        /// <summary>From 1: in the new file for an add, in the old file for a remove.</summary>
        public long LineNumber { get; }

        /// <inheritdoc />
        public override bool Equals(object obj) =>
            obj is DiffLine o && o.Type == Type && o.Content == Content && o.LineNumber == LineNumber;

        /// <inheritdoc />
        public override int GetHashCode() =>
            ((Type ?? "").GetHashCode() * 31 + (Content ?? "").GetHashCode()) * 31 + LineNumber.GetHashCode();

        /// <inheritdoc />
        public override string ToString() => Type + " " + LineNumber + ": " + Content;

        /// <summary>The <c>diff_lines</c> member of an event payload (empty when absent).</summary>
        internal static IReadOnlyList<DiffLine> ListOf(IDictionary<string, object> payload)
        {
            var lines = new List<DiffLine>();
            object v;
            if (payload != null && payload.TryGetValue("diff_lines", out v) && v is List<object> items)
            {
                foreach (var item in items)
                {
                    if (item is Dictionary<string, object> d)
                    {
                        object n;
                        d.TryGetValue("lineNumber", out n);
                        lines.Add(new DiffLine(Json.GetString(d, "type"), Json.GetString(d, "content"), n is long l ? l : 0));
                    }
                }
            }
            return lines.AsReadOnly();
        }
    }
}
