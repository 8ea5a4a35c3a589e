using System.Collections.Generic;

namespace Robota
{
    /// <summary>
    /// A map from ids (turns, tool calls, requests) that holds its first entry inline and makes a
    /// dictionary only for a second one at the same time: a session mostly has at most one turn
    /// and one call pending, so tracking them allocates nothing. A mutable struct: keep it in a
    /// non-readonly field and call it there (a copy would be a separate map); not thread-safe.
    /// </summary>
    internal struct IdMap<T> where T : class
    {
        private ulong firstId;
        private T first;
        private Dictionary<ulong, T> rest;

        internal int Count => (first != null ? 1 : 0) + (rest?.Count ?? 0);

        internal bool TryGetValue(ulong id, out T value)
        {
            if (first != null && firstId == id)
            {
                value = first;
                return true;
            }
            if (rest != null)
            {
                return rest.TryGetValue(id, out value);
            }
            value = null;
            return false;
        }

        /// <summary>Adds or replaces the entry of <paramref name="id"/> (<paramref name="value"/> not null).</summary>
        internal void Set(ulong id, T value)
        {
            if (first != null && firstId == id)
            {
                first = value;
                return;
            }
            if (first == null && (rest == null || !rest.ContainsKey(id)))
            {
                firstId = id;
                first = value;
                return;
            }
            if (rest == null)
            {
                rest = new Dictionary<ulong, T>();
            }
            rest[id] = value;
        }

        internal bool Remove(ulong id)
        {
            if (first != null && firstId == id)
            {
                first = null;
                return true;
            }
            return rest != null && rest.Remove(id);
        }

        /// <summary>Moves every entry's value to <paramref name="into"/> and empties the map.</summary>
        internal void DrainTo(List<T> into)
        {
            if (first != null)
            {
                into.Add(first);
                first = null;
            }
            if (rest != null)
            {
                into.AddRange(rest.Values);
                rest.Clear();
            }
        }

        internal void Clear()
        {
            first = null;
            rest?.Clear();
        }
    }
}
