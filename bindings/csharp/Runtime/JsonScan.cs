namespace Robota
{
    /// <summary>
    /// Walks a JSON document in place without building it (no allocation): skips values and
    /// compares keys where they stand, so a reader takes the few members it needs and leaves the
    /// rest to <see cref="Json.Parse"/> if anything asks for them. Every method takes the pinned
    /// document's chars, its length and a position (pointers: no bounds check per char), and
    /// returns false on text <see cref="Json.Parse"/> would reject.
    /// </summary>
    internal static unsafe class JsonScan
    {
        internal static void Ws(char* s, int n, ref int i)
        {
            while (i < n)
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
        internal static bool KeyIs(char* s, int n, int i, string key)
        {
            var end = i + 1 + key.Length;
            if (end >= n || s[end] != '"')
            {
                return false;
            }
            for (var k = 0; k < key.Length; k++)
            {
                if (s[i + 1 + k] != key[k])
                {
                    return false;
                }
            }
            return true;
        }

        /// <summary>Moves <paramref name="i"/> past the value that starts there.</summary>
        internal static bool SkipValue(char* s, int n, ref int i, int depth)
        {
            if (i >= n || depth > Json.MaxDepth)
            {
                return false;
            }
            switch (s[i])
            {
                case '{': return SkipContainer(s, n, ref i, depth, '}', true);
                case '[': return SkipContainer(s, n, ref i, depth, ']', false);
                case '"': return SkipString(s, n, ref i);
                case 't': return SkipWord(s, n, ref i, "true");
                case 'f': return SkipWord(s, n, ref i, "false");
                case 'n': return SkipWord(s, n, ref i, "null");
                default: return SkipNumber(s, n, ref i);
            }
        }

        private static bool SkipContainer(char* s, int n, ref int i, int depth, char close, bool members)
        {
            i++;
            Ws(s, n, ref i);
            if (i < n && s[i] == close)
            {
                i++;
                return true;
            }
            while (true)
            {
                Ws(s, n, ref i);
                if (members)
                {
                    if (i >= n || s[i] != '"' || !SkipString(s, n, ref i))
                    {
                        return false;
                    }
                    Ws(s, n, ref i);
                    if (i >= n || s[i] != ':')
                    {
                        return false;
                    }
                    i++;
                    Ws(s, n, ref i);
                }
                if (!SkipValue(s, n, ref i, depth + 1))
                {
                    return false;
                }
                Ws(s, n, ref i);
                if (i < n && s[i] == ',')
                {
                    i++;
                    continue;
                }
                if (i < n && s[i] == close)
                {
                    i++;
                    return true;
                }
                return false;
            }
        }

        /// <summary>Moves past the string whose opening quote is at <paramref name="i"/>.</summary>
        internal static bool SkipString(char* s, int n, ref int i)
        {
            var j = i + 1;
            while (j < n)
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
                    if (j >= n)
                    {
                        return false;
                    }
                    var e = s[j++];
                    if (e == 'u')
                    {
                        if (j + 4 > n || !Hex(s[j]) || !Hex(s[j + 1]) || !Hex(s[j + 2]) || !Hex(s[j + 3]))
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

        private static bool SkipWord(char* s, int n, ref int i, string word)
        {
            if (i + word.Length > n)
            {
                return false;
            }
            for (var k = 0; k < word.Length; k++)
            {
                if (s[i + k] != word[k])
                {
                    return false;
                }
            }
            i += word.Length;
            return true;
        }

        private static bool SkipNumber(char* s, int n, ref int i)
        {
            var j = i;
            if (s[j] == '-')
            {
                j++;
            }
            var digits = j;
            while (j < n && s[j] >= '0' && s[j] <= '9')
            {
                j++;
            }
            if (j == digits || (s[digits] == '0' && j - digits > 1))
            {
                return false;
            }
            if (j < n && s[j] == '.')
            {
                var frac = ++j;
                while (j < n && s[j] >= '0' && s[j] <= '9')
                {
                    j++;
                }
                if (j == frac)
                {
                    return false;
                }
            }
            if (j < n && (s[j] == 'e' || s[j] == 'E'))
            {
                j++;
                if (j < n && (s[j] == '+' || s[j] == '-'))
                {
                    j++;
                }
                var exp = j;
                while (j < n && s[j] >= '0' && s[j] <= '9')
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
