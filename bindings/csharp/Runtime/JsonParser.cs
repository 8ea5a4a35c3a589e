using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using System.Threading;

namespace Robota
{
    /// <summary>
    /// The recursive-descent reader behind <see cref="Json.Parse"/> (RFC 8259; depth-limited). A
    /// struct, so a parse allocates only the values it returns; short object keys and small
    /// integers come from shared caches (strings and boxed numbers are immutable).
    /// </summary>
    internal struct JsonParser
    {
        private const int MaxCachedKeyLength = 32;

        // Recently read object keys, indexed by a hash of their chars: documents repeat their
        // member names, so most keys reuse a string. A slot holds one string, replaced whole.
        private static readonly string[] Keys = new string[512];

        // The integers -128 to 1023, boxed once.
        private static readonly object[] SmallIntegers = BoxSmallIntegers();

        private readonly string s;
        internal int Pos;

        internal JsonParser(string s)
        {
            this.s = s;
            Pos = 0;
        }

        private static object[] BoxSmallIntegers()
        {
            var boxes = new object[1024 + 128];
            for (var i = 0; i < boxes.Length; i++)
            {
                boxes[i] = (long)(i - 128);
            }
            return boxes;
        }

        private static object Box(long v) => v >= -128 && v < 1024 ? SmallIntegers[v + 128] : v;

        internal FormatException Error(string what) =>
            new FormatException("invalid JSON at offset " + Pos + ": " + what);

        internal void SkipWs()
        {
            // Locals, not fields, in the scanning loops: Mono's JIT reloads fields on every access.
            var str = s;
            var i = Pos;
            while (i < str.Length)
            {
                var c = str[i];
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                {
                    break;
                }
                i++;
            }
            Pos = i;
        }

        internal object Value(int depth)
        {
            if (depth > Json.MaxDepth)
            {
                throw Error("nested deeper than " + Json.MaxDepth + " levels");
            }
            if (Pos >= s.Length)
            {
                throw Error("unexpected end of input");
            }
            var c = s[Pos];
            switch (c)
            {
                case '{': return Object(depth);
                case '[': return Array(depth);
                case '"': return String();
                case 't': Literal("true"); return true;
                case 'f': Literal("false"); return false;
                case 'n': Literal("null"); return null;
                default:
                    if (c == '-' || (c >= '0' && c <= '9'))
                    {
                        return Number();
                    }
                    throw Error("unexpected character '" + c + "'");
            }
        }

        private void Literal(string word)
        {
            if (string.CompareOrdinal(s, Pos, word, 0, word.Length) != 0)
            {
                throw Error("expected " + word);
            }
            Pos += word.Length;
        }

        private Dictionary<string, object> Object(int depth)
        {
            var obj = new Dictionary<string, object>();
            Pos++;
            SkipWs();
            if (Pos < s.Length && s[Pos] == '}')
            {
                Pos++;
                return obj;
            }
            while (true)
            {
                SkipWs();
                if (Pos >= s.Length || s[Pos] != '"')
                {
                    throw Error("expected a string key");
                }
                var key = Key();
                SkipWs();
                Expect(':');
                SkipWs();
                obj[key] = Value(depth + 1);
                SkipWs();
                if (Pos < s.Length && s[Pos] == ',')
                {
                    Pos++;
                    continue;
                }
                Expect('}');
                return obj;
            }
        }

        private List<object> Array(int depth)
        {
            var list = new List<object>();
            Pos++;
            SkipWs();
            if (Pos < s.Length && s[Pos] == ']')
            {
                Pos++;
                return list;
            }
            while (true)
            {
                SkipWs();
                list.Add(Value(depth + 1));
                SkipWs();
                if (Pos < s.Length && s[Pos] == ',')
                {
                    Pos++;
                    continue;
                }
                Expect(']');
                return list;
            }
        }

        private void Expect(char c)
        {
            if (Pos >= s.Length || s[Pos] != c)
            {
                throw Error("expected '" + c + "'");
            }
            Pos++;
        }

        /// <summary>An object key: as <see cref="String"/>, a short unescaped key from <see cref="Keys"/>.</summary>
        private string Key()
        {
            var str = s;
            var start = Pos + 1;
            var i = start;
            var hash = 2166136261u; // FNV-1a
            while (i < str.Length)
            {
                var c = str[i];
                if (c == '"' || c == '\\' || c < 0x20)
                {
                    break;
                }
                hash = (hash ^ c) * 16777619u;
                i++;
            }
            var len = i - start;
            if (i >= str.Length || str[i] != '"' || len > MaxCachedKeyLength)
            {
                return String();
            }
            Pos = i + 1;
            var slot = (int)(hash & (uint)(Keys.Length - 1));
            var cached = Volatile.Read(ref Keys[slot]);
            if (cached != null && cached.Length == len && string.CompareOrdinal(cached, 0, str, start, len) == 0)
            {
                return cached;
            }
            var key = str.Substring(start, len);
            Volatile.Write(ref Keys[slot], key);
            return key;
        }

        private string String()
        {
            Pos++;
            var start = Pos;
            // Fast path: no escapes.
            var str = s;
            var i = start;
            while (i < str.Length)
            {
                var c = str[i];
                if (c == '"' || c == '\\' || c < 0x20)
                {
                    break;
                }
                i++;
            }
            Pos = i;
            if (Pos < s.Length && s[Pos] == '"')
            {
                Pos++;
                return s.Substring(start, Pos - start - 1);
            }
            var sb = new StringBuilder(s, start, Pos - start, Pos - start + 16);
            while (true)
            {
                if (Pos >= s.Length)
                {
                    throw Error("unterminated string");
                }
                var c = s[Pos++];
                if (c == '"')
                {
                    return sb.ToString();
                }
                if (c < 0x20)
                {
                    Pos--;
                    throw Error("control character in string");
                }
                if (c != '\\')
                {
                    sb.Append(c);
                    continue;
                }
                if (Pos >= s.Length)
                {
                    throw Error("unterminated escape");
                }
                var e = s[Pos++];
                switch (e)
                {
                    case '"': sb.Append('"'); break;
                    case '\\': sb.Append('\\'); break;
                    case '/': sb.Append('/'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'n': sb.Append('\n'); break;
                    case 'r': sb.Append('\r'); break;
                    case 't': sb.Append('\t'); break;
                    case 'u':
                        {
                            if (Pos + 4 > s.Length)
                            {
                                throw Error("short \\u escape");
                            }
                            int code;
                            if (!int.TryParse(s.Substring(Pos, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out code))
                            {
                                throw Error("bad \\u escape");
                            }
                            sb.Append((char)code);
                            Pos += 4;
                            break;
                        }
                    default:
                        Pos--;
                        throw Error("unknown escape '\\" + e + "'");
                }
            }
        }

        private object Number()
        {
            var start = Pos;
            if (s[Pos] == '-')
            {
                Pos++;
            }
            var intStart = Pos;
            while (Pos < s.Length && s[Pos] >= '0' && s[Pos] <= '9')
            {
                Pos++;
            }
            if (Pos == intStart)
            {
                throw Error("expected a digit");
            }
            if (s[intStart] == '0' && Pos - intStart > 1)
            {
                throw Error("leading zero in a number");
            }
            var isInt = true;
            if (Pos < s.Length && s[Pos] == '.')
            {
                isInt = false;
                Pos++;
                var fracStart = Pos;
                while (Pos < s.Length && s[Pos] >= '0' && s[Pos] <= '9')
                {
                    Pos++;
                }
                if (Pos == fracStart)
                {
                    throw Error("expected a digit after '.'");
                }
            }
            if (Pos < s.Length && (s[Pos] == 'e' || s[Pos] == 'E'))
            {
                isInt = false;
                Pos++;
                if (Pos < s.Length && (s[Pos] == '+' || s[Pos] == '-'))
                {
                    Pos++;
                }
                var expStart = Pos;
                while (Pos < s.Length && s[Pos] >= '0' && s[Pos] <= '9')
                {
                    Pos++;
                }
                if (Pos == expStart)
                {
                    throw Error("expected a digit in the exponent");
                }
            }
            if (isInt && Pos - intStart <= 18)
            {
                // Up to 18 digits fit a long: no substring, no culture-aware parse.
                long v = 0;
                for (var i = intStart; i < Pos; i++)
                {
                    v = v * 10 + (s[i] - '0');
                }
                return Box(intStart > start ? -v : v);
            }
            var text = s.Substring(start, Pos - start);
            if (isInt)
            {
                long l;
                if (long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out l))
                {
                    return l;
                }
                ulong u;
                if (ulong.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out u))
                {
                    return u;
                }
            }
            return double.Parse(text, NumberStyles.Float, CultureInfo.InvariantCulture);
        }
    }
}
