using System.Collections.Generic;
using System.Text;

namespace Robota
{
    /// <summary>
    /// A thread's reusable builders for documents written often (a session's configuration, a
    /// tool's result): taken while in use, so a nested use on the same thread gets a new one;
    /// given back empty, and only when small (a large one is left to the GC).
    /// </summary>
    internal static class ThreadScratch
    {
        private const int KeptChars = 4096;
        private const int KeptMembers = 64;

        [System.ThreadStatic] private static StringBuilder builder;
        [System.ThreadStatic] private static Dictionary<string, object> members;

        internal static StringBuilder TakeBuilder()
        {
            var b = builder;
            builder = null;
            return b ?? new StringBuilder(256);
        }

        internal static void Return(StringBuilder b)
        {
            if (b.Capacity <= KeptChars)
            {
                b.Clear();
                builder = b;
            }
        }

        internal static Dictionary<string, object> TakeMembers()
        {
            var d = members;
            members = null;
            return d ?? new Dictionary<string, object>(16);
        }

        internal static void Return(Dictionary<string, object> d)
        {
            if (d.Count <= KeptMembers)
            {
                d.Clear();
                members = d;
            }
        }
    }
}
