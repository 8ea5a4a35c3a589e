using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Robota
{
    /// <summary>
    /// A JSON text that is written as is by <see cref="Json.Serialize"/> (a tool result, a hook
    /// config or a snapshot the host already has as JSON).
    /// </summary>
    public sealed class JsonRaw
    {
        /// <summary>Wraps JSON text (not validated here; the library validates what it receives).</summary>
        public JsonRaw(string json)
        {
            Text = json ?? throw new ArgumentNullException(nameof(json));
        }

        /// <summary>The JSON text.</summary>
        public string Text { get; }

        /// <inheritdoc />
        public override string ToString() => Text;
    }

    /// <summary>
    /// The binding's small JSON reader/writer. netstandard2.0 has no System.Text.Json and Unity
    /// ships no JSON library usable on every platform (JsonUtility cannot read dictionaries or
    /// untyped values), so documents map to plain .NET values: objects are
    /// <c>Dictionary&lt;string, object&gt;</c> (insertion order kept), arrays <c>List&lt;object&gt;</c>,
    /// strings, <c>long</c> (integers; <c>ulong</c> above long.MaxValue), <c>double</c>, <c>bool</c>
    /// and <c>null</c>.
    /// </summary>
    public static class Json
    {
        /// <summary>Parses one JSON document; throws <see cref="FormatException"/> naming the offset on bad input.</summary>
        public static object Parse(string json)
        {
            if (json == null)
            {
                throw new ArgumentNullException(nameof(json));
            }
            var p = new JsonParser(json);
            p.SkipWs();
            var v = p.Value(0);
            p.SkipWs();
            if (p.Pos != json.Length)
            {
                throw p.Error("unexpected text after the JSON value");
            }
            return v;
        }

        /// <summary>Parses a JSON object; throws <see cref="FormatException"/> when the document is not an object.</summary>
        public static Dictionary<string, object> ParseObject(string json)
        {
            var v = Parse(json) as Dictionary<string, object>;
            if (v == null)
            {
                throw new FormatException("JSON document is not an object");
            }
            return v;
        }

        /// <summary>
        /// Writes a value as compact JSON: IDictionary (string keys), IEnumerable, string, bool,
        /// integer and floating types, null, <see cref="JsonRaw"/>. Other types throw
        /// <see cref="ArgumentException"/> naming the type.
        /// </summary>
        public static string Serialize(object value)
        {
            // The scalars a tool result often is, without a builder.
            if (value == null) return "null";
            if (value is long l) return l.ToString(CultureInfo.InvariantCulture);
            if (value is int i) return i.ToString(CultureInfo.InvariantCulture);
            if (value is bool b) return b ? "true" : "false";
            if (value is string s && IsPlain(s)) return string.Concat("\"", s, "\"");
            var sb = ThreadScratch.TakeBuilder();
            try
            {
                Write(sb, value, 0);
                return sb.ToString();
            }
            finally
            {
                ThreadScratch.Return(sb);
            }
        }

        /// <summary>Appends <paramref name="s"/> as a quoted JSON string.</summary>
        public static void WriteString(StringBuilder sb, string s)
        {
            sb.Append('"');
            var run = 0; // the start of the chars not appended yet: copied in runs, not one by one
            for (var i = 0; i < s.Length; i++)
            {
                var c = s[i];
                if (c >= 0x20 && c != '"' && c != '\\')
                {
                    continue;
                }
                sb.Append(s, run, i - run);
                run = i + 1;
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    case '\b': sb.Append("\\b"); break;
                    case '\f': sb.Append("\\f"); break;
                    default:
                        sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        break;
                }
            }
            sb.Append(s, run, s.Length - run);
            sb.Append('"');
        }

        /// <summary>True when <paramref name="s"/> is written in JSON as is, between quotes (nothing to escape).</summary>
        internal static bool IsPlain(string s)
        {
            foreach (var c in s)
            {
                if (c == '"' || c == '\\' || c < 0x20)
                {
                    return false;
                }
            }
            return true;
        }

        /// <summary>The JSON object in <paramref name="json"/>, or an empty dictionary when it is not one (or not JSON).</summary>
        public static Dictionary<string, object> ObjectOrEmpty(string json)
        {
            try
            {
                return Parse(json) as Dictionary<string, object> ?? new Dictionary<string, object>();
            }
            catch (FormatException)
            {
                return new Dictionary<string, object>();
            }
        }

        /// <summary>A member of an object as a string (null when absent or not a string).</summary>
        public static string GetString(IDictionary<string, object> obj, string key)
        {
            object v;
            return obj != null && obj.TryGetValue(key, out v) ? v as string : null;
        }

        /// <summary>A member of an object as an unsigned integer (0 when absent or not a non-negative integer).</summary>
        public static ulong GetUInt64(IDictionary<string, object> obj, string key)
        {
            object v;
            if (obj == null || !obj.TryGetValue(key, out v))
            {
                return 0;
            }
            if (v is long l)
            {
                return l >= 0 ? (ulong)l : 0;
            }
            return v is ulong u ? u : 0;
        }

        /// <summary>A member of an object as a boolean (false when absent or not a boolean).</summary>
        public static bool GetBool(IDictionary<string, object> obj, string key)
        {
            object v;
            return obj != null && obj.TryGetValue(key, out v) && v is bool b && b;
        }

        internal const int MaxDepth = 256;

        private static void Write(StringBuilder sb, object v, int depth)
        {
            if (depth > MaxDepth)
            {
                throw new ArgumentException("JSON value nested deeper than " + MaxDepth + " levels (a cycle?)");
            }
            if (v == null) { sb.Append("null"); return; }
            if (v is string s) { WriteString(sb, s); return; }
            if (v is bool b) { sb.Append(b ? "true" : "false"); return; }
            if (v is JsonRaw r) { sb.Append(r.Text); return; }
            if (v is int i) { AppendInteger(sb, i); return; }
            if (v is long l) { AppendInteger(sb, l); return; }
            if (v is uint ui) { sb.Append(ui.ToString(CultureInfo.InvariantCulture)); return; }
            if (v is ulong ul) { sb.Append(ul.ToString(CultureInfo.InvariantCulture)); return; }
            if (v is short sh) { sb.Append(sh.ToString(CultureInfo.InvariantCulture)); return; }
            if (v is byte by) { sb.Append(by.ToString(CultureInfo.InvariantCulture)); return; }
            if (v is decimal m) { sb.Append(m.ToString(CultureInfo.InvariantCulture)); return; }
            if (v is double d) { WriteDouble(sb, d); return; }
            if (v is float f) { WriteDouble(sb, f); return; }
            if (v is Dictionary<string, object> obj)
            {
                // The common case, enumerated without boxing an entry per member.
                sb.Append('{');
                var first = true;
                foreach (var kv in obj)
                {
                    if (!first)
                    {
                        sb.Append(',');
                    }
                    first = false;
                    WriteString(sb, kv.Key);
                    sb.Append(':');
                    Write(sb, kv.Value, depth + 1);
                }
                sb.Append('}');
                return;
            }
            if (v is IDictionary dict)
            {
                sb.Append('{');
                var first = true;
                foreach (DictionaryEntry e in dict)
                {
                    var key = e.Key as string;
                    if (key == null)
                    {
                        throw new ArgumentException("JSON object keys must be strings, got " + (e.Key == null ? "null" : e.Key.GetType().Name));
                    }
                    if (!first)
                    {
                        sb.Append(',');
                    }
                    first = false;
                    WriteString(sb, key);
                    sb.Append(':');
                    Write(sb, e.Value, depth + 1);
                }
                sb.Append('}');
                return;
            }
            if (v is IList items)
            {
                // Lists and arrays by index: no enumerator to allocate.
                sb.Append('[');
                for (var k = 0; k < items.Count; k++)
                {
                    if (k != 0)
                    {
                        sb.Append(',');
                    }
                    Write(sb, items[k], depth + 1);
                }
                sb.Append(']');
                return;
            }
            if (v is IEnumerable list)
            {
                sb.Append('[');
                var first = true;
                foreach (var item in list)
                {
                    if (!first)
                    {
                        sb.Append(',');
                    }
                    first = false;
                    Write(sb, item, depth + 1);
                }
                sb.Append(']');
                return;
            }
            throw new ArgumentException("cannot write a value of type " + v.GetType().FullName + " as JSON (use a dictionary, list, string, number, bool or JsonRaw)");
        }

        /// <summary>Appends <paramref name="v"/>'s decimal digits (no string made on the way).</summary>
        private static void AppendInteger(StringBuilder sb, long v)
        {
            if (v == long.MinValue)
            {
                sb.Append("-9223372036854775808");
                return;
            }
            if (v < 0)
            {
                sb.Append('-');
                v = -v;
            }
            var start = sb.Length;
            do
            {
                sb.Append((char)('0' + (int)(v % 10)));
                v /= 10;
            }
            while (v != 0);
            for (int a = start, b = sb.Length - 1; a < b; a++, b--)
            {
                var c = sb[a];
                sb[a] = sb[b];
                sb[b] = c;
            }
        }

        private static void WriteDouble(StringBuilder sb, double d)
        {
            if (double.IsNaN(d) || double.IsInfinity(d))
            {
                throw new ArgumentException("JSON has no representation for " + d.ToString(CultureInfo.InvariantCulture));
            }
            sb.Append(d.ToString("R", CultureInfo.InvariantCulture));
        }
    }
}
