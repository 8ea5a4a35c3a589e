using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace Robota.Tests
{
    /// <summary>
    /// An in-memory <see cref="IRobotaStore"/> with a real optimistic version check (what a
    /// database does in one statement, done under one lock), recording every call.
    /// </summary>
    internal sealed class MemoryStore : IRobotaStore
    {
        internal sealed class Row
        {
            internal long Version;
            internal string Snapshot;
            internal StoredSessionSummary Summary;
        }

        private readonly Dictionary<string, Row> rows = new Dictionary<string, Row>();
        private readonly Dictionary<string, StringBuilder> transcripts = new Dictionary<string, StringBuilder>();
        private readonly List<string> calls = new List<string>();

        /// <summary>When set, the named operation (<c>"load"</c>, <c>"save"</c>, ...) throws what it returns.</summary>
        internal Func<string, Exception> Fail;

        /// <summary>When set, <see cref="Load"/> returns it instead of the stored row.</summary>
        internal Func<string, StoredSession> LoadOverride;

        /// <summary>The calls so far: <c>"load ID"</c>, <c>"save ID 0"</c> (with the expected version), <c>"list CWD LIMIT"</c>, ...</summary>
        internal List<string> Calls
        {
            get { lock (this) return new List<string>(calls); }
        }

        internal Row Get(string id)
        {
            lock (this)
            {
                Row r;
                return rows.TryGetValue(id, out r) ? new Row { Version = r.Version, Snapshot = r.Snapshot, Summary = r.Summary } : null;
            }
        }

        internal string Transcript(string id)
        {
            lock (this)
            {
                StringBuilder sb;
                return transcripts.TryGetValue(id, out sb) ? sb.ToString() : null;
            }
        }

        /// <summary>Puts a row as if some node had saved it.</summary>
        internal void Put(StoredSessionSummary summary, long version)
        {
            lock (this) rows[summary.Id] = new Row { Version = version, Snapshot = "{}", Summary = summary };
        }

        private void Record(string op, string call)
        {
            lock (this) calls.Add(call);
            var e = Fail?.Invoke(op);
            if (e != null)
            {
                throw e;
            }
        }

        public StoredSession Load(string sessionId)
        {
            Record("load", "load " + sessionId);
            if (LoadOverride != null)
            {
                return LoadOverride(sessionId);
            }
            var r = Get(sessionId);
            return r == null ? null : new StoredSession(r.Version, r.Snapshot);
        }

        public StoreSaveResult Save(StoreSaveRequest request)
        {
            Record("save", "save " + request.SessionId + " " + request.ExpectedVersion);
            lock (this)
            {
                Row r;
                var stored = rows.TryGetValue(request.SessionId, out r) ? r.Version : 0;
                if (stored != request.ExpectedVersion)
                {
                    return StoreSaveResult.Conflict(stored);
                }
                rows[request.SessionId] = new Row { Version = stored + 1, Snapshot = request.SnapshotJson, Summary = request.Summary };
                return StoreSaveResult.Saved(stored + 1);
            }
        }

        public bool Delete(string sessionId)
        {
            Record("delete", "delete " + sessionId);
            lock (this) return rows.Remove(sessionId);
        }

        public IList<StoredSessionSummary> List(StoreQuery query)
        {
            Record("list", "list " + (query.Cwd ?? "null") + " " + (query.Limit.HasValue ? query.Limit.Value.ToString() : "null"));
            lock (this)
            {
                var all = rows.Values.Select(r => r.Summary)
                    .Where(s => query.Cwd == null || s.Cwd == query.Cwd)
                    .OrderByDescending(s => s.UpdatedAt, StringComparer.Ordinal);
                return (query.Limit.HasValue ? all.Take(query.Limit.Value) : all).ToList();
            }
        }

        public void Append(string sessionId, string lines)
        {
            Record("append", "append " + sessionId);
            lock (this)
            {
                StringBuilder sb;
                if (!transcripts.TryGetValue(sessionId, out sb))
                {
                    transcripts[sessionId] = sb = new StringBuilder();
                }
                sb.Append(lines);
            }
        }
    }
}
