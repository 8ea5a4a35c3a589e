namespace Robota
{
    /// <summary>
    /// Walks a JSON document in place without building it (no allocation): skips values and
    /// compares keys where they stand, so a reader takes the few members it needs and leaves the
    /// rest to <see cref="Json.Parse"/> if anything asks for them. Every method takes the
    /// document and a position, and returns false on text <see cref="Json.Parse"/> would reject.
    /// </summary>
    internal static class JsonScan
    {
        internal static void Ws(string s, ref int i)
        {
            while (i < s.Length)
            {
                var c = s[i];
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                {
                    return;
                }
                i++;
            }
        }

        /// <summary>True when the string at <paramref name="i"/> (its opening quote) is exactly <paramref name="key"/>, unescaped.</summary>
        internal static bool KeyIs(string s, int i, string key)
        {
            var end = i + 1 + key.Length;
            return end < s.Length && s[end] == '"' && string.CompareOrdinal(s, i + 1, key, 0, key.Length) == 0;
        }

        /// <summary>Moves <paramref name="i"/> past the value that starts there.</summary>
        internal static bool SkipValue(string s, ref int i, int depth)
        {
            if (i >= s.Length || depth > Json.MaxDepth)
            {
                return false;
            }
            switch (s[i])
            {
                case '{': return SkipContainer(s, ref i, depth, '}', true);
                case '[': return SkipContainer(s, ref i, depth, ']', false);
                case '"': return SkipString(s, ref i);
                case 't': return SkipWord(s, ref i, "true");
                case 'f': return SkipWord(s, ref i, "false");
                case 'n': return SkipWord(s, ref i, "null");
                default: return SkipNumber(s, ref i);
            }
        }

        private static bool SkipContainer(string s, ref int i, int depth, char close, bool members)
        {
            i++;
            Ws(s, ref i);
            if (i < s.Length && s[i] == close)
            {
                i++;
                return true;
            }
            while (true)
            {
                Ws(s, ref i);
                if (members)
                {
                    if (i >= s.Length || s[i] != '"' || !SkipString(s, ref i))
                    {
                        return false;
                    }
                    Ws(s, ref i);
                    if (i >= s.Length || s[i] != ':')
                    {
                        return false;
                    }
                    i++;
                    Ws(s, ref i);
                }
                if (!SkipValue(s, ref i, depth + 1))
                {
                    return false;
                }
                Ws(s, ref i);
                if (i < s.Length && s[i] == ',')
                {
                    i++;
                    continue;
                }
                if (i < s.Length && s[i] == close)
                {
                    i++;
                    return true;
                }
                return false;
            }
        }

        /// <summary>Moves past the string whose opening quote is at <paramref name="i"/>.</summary>
        internal static bool SkipString(string s, ref int i)
        {
            var j = i + 1;
            while (j < s.Length)
            {
                var c = s[j++];
                if (c == '"')
                {
                    i = j;
                    return true;
                }
                if (c < 0x20)
                {
                    return false;
                }
                if (c == '\\')
                {
                    if (j >= s.Length)
                    {
                        return false;
                    }
                    var e = s[j++];
                    if (e == 'u')
                    {
                        if (j + 4 > s.Length || !Hex(s[j]) || !Hex(s[j + 1]) || !Hex(s[j + 2]) || !Hex(s[j + 3]))
                        {
                            return false;
                        }
                        j += 4;
                    }
                    else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't')
                    {
                        return false;
                    }
                }
            }
            return false;
        }

        private static bool Hex(char c) => (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');

        private static bool SkipWord(string s, ref int i, string word)
        {
            if (string.CompareOrdinal(s, i, word, 0, word.Length) != 0)
            {
                return false;
            }
            i += word.Length;
            return true;
        }

        private static bool SkipNumber(string s, ref int i)
        {
            var j = i;
            if (s[j] == '-')
            {
                j++;
            }
            var digits = j;
            while (j < s.Length && s[j] >= '0' && s[j] <= '9')
            {
                j++;
            }
            if (j == digits || (s[digits] == '0' && j - digits > 1))
            {
                return false;
            }
            if (j < s.Length && s[j] == '.')
            {
                var frac = ++j;
                while (j < s.Length && s[j] >= '0' && s[j] <= '9')
                {
                    j++;
                }
                if (j == frac)
                {
                    return false;
                }
            }
            if (j < s.Length && (s[j] == 'e' || s[j] == 'E'))
            {
                j++;
                if (j < s.Length && (s[j] == '+' || s[j] == '-'))
                {
                    j++;
                }
                var exp = j;
                while (j < s.Length && s[j] >= '0' && s[j] <= '9')
                {
                    j++;
                }
                if (j == exp)
                {
                    return false;
                }
            }
            i = j;
            return true;
        }
    }
}
