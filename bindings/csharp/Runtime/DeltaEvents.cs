using System;
using System.Threading;

namespace Robota
{
    /// <summary>
    /// The events of short ASCII text and thinking deltas, kept by a hash of their bytes: a model
    /// streams the same tokens over and over, and a session's turn ids start at 1, so most text
    /// deltas reuse an event (or at least its string) instead of allocating one. A
    /// <see cref="RobotaEvent"/> is immutable (a text event's <see cref="RobotaEvent.Data"/> is a new
    /// empty dictionary on every read), so handing one instance to several handlers, sessions
    /// or threads is safe. A slot holds one event, replaced whole (no lock needed).
    /// </summary>
    internal static class DeltaEvents
    {
        private const int MaxBytes = 32;

        private static readonly RobotaEvent[] Slots = new RobotaEvent[1024];

        /// <summary>The event of the delta of <paramref name="len"/> bytes at <paramref name="ptr"/>.</summary>
        internal static unsafe RobotaEvent Take(uint kind, ulong turnId, IntPtr ptr, int len)
        {
            if (ptr == IntPtr.Zero || len == 0 || len > MaxBytes)
            {
                return new RobotaEvent(kind, turnId, Utf8.Decode(ptr, len));
            }
            var p = (byte*)ptr;
            var hash = 2166136261u; // FNV-1a
            var ascii = 0;
            for (var i = 0; i < len; i++)
            {
                ascii |= p[i];
                hash = (hash ^ p[i]) * 16777619u;
            }
            if (ascii >= 0x80)
            {
                return new RobotaEvent(kind, turnId, Utf8.Decode(ptr, len));
            }
            var slot = (int)(hash & (uint)(Slots.Length - 1));
            var cached = Volatile.Read(ref Slots[slot]);
            if (cached != null && SameText(cached.Payload, p, len))
            {
                if (cached.RawKind == kind && cached.TurnId == turnId)
                {
                    return cached;
                }
                var again = new RobotaEvent(kind, turnId, cached.Payload);
                Volatile.Write(ref Slots[slot], again);
                return again;
            }
            var ev = new RobotaEvent(kind, turnId, Utf8.Decode(ptr, len));
            Volatile.Write(ref Slots[slot], ev);
            return ev;
        }

        private static unsafe bool SameText(string s, byte* p, int len)
        {
            if (s.Length != len)
            {
                return false;
            }
            for (var i = 0; i < len; i++)
            {
                if (s[i] != p[i])
                {
                    return false;
                }
            }
            return true;
        }
    }
}
