using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Mono.Data.Sqlite;
using Robota.Stores.Sqlite;

namespace Robota.Tests
{
    /// <summary><see cref="SqliteRobotaStore"/> against a real SQLite file in a temporary directory.</summary>
    internal static class SqliteStoreTests
    {
        /// <summary>A fresh directory for one test's database; deleted by <see cref="Dispose"/>.</summary>
        internal sealed class TempDb : IDisposable
        {
            internal TempDb()
            {
                Dir = StoreFixtures.TempDir();
                Directory.CreateDirectory(Dir);
                Path = System.IO.Path.Combine(Dir, "sessions.db");
            }

            internal string Dir { get; }

            internal string Path { get; }

            public void Dispose() => Directory.Delete(Dir, true);
        }

        private static StoreSaveRequest Save(string id, long expected, string snapshot, string cwd = "/w", string updatedAt = "2026-01-01T00:00:00Z", string name = null) =>
            new StoreSaveRequest(id, expected, snapshot, new StoredSessionSummary(id, name, cwd, "2026-01-01T00:00:00Z", updatedAt, expected + 1));

        private static string Describe(StoreSaveResult r) => (r.IsConflict ? "conflict " : "saved ") + r.Version;

        [Test]
        private static void TheSchemaIsCreatedAndKeptAcrossOpens()
        {
            using (var db = new TempDb())
            {
                new SqliteRobotaStore(db.Path).Save(Save("s1", 0, "{\"n\":1}"));
                var tables = new List<string>();
                using (var c = new SqliteConnection("Data Source=" + db.Path + ";Version=3"))
                {
                    c.Open();
                    using (var cmd = new SqliteCommand("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'robota_%' ORDER BY name", c))
                    using (var r = cmd.ExecuteReader())
                    {
                        while (r.Read()) tables.Add(r.GetString(0));
                    }
                }
                Expect.Equal("robota_sessions,robota_transcripts", string.Join(",", tables), "tables");
                var again = new SqliteRobotaStore(db.Path).Load("s1");
                Expect.Equal(1L, again.Version, "the row survives reopening (no schema reset)");
                Expect.Equal("{\"n\":1}", again.SnapshotJson, "snapshot");
            }
        }

        [Test]
        private static void SavesCheckTheExpectedVersion()
        {
            using (var db = new TempDb())
            {
                var store = new SqliteRobotaStore(db.Path);
                Expect.Equal("saved 1", Describe(store.Save(Save("s1", 0, "{\"n\":1}"))), "create");
                Expect.Equal("conflict 1", Describe(store.Save(Save("s1", 0, "{\"n\":\"dup\"}"))), "create again: the session exists");
                Expect.Equal("saved 2", Describe(store.Save(Save("s1", 1, "{\"n\":2}"))), "update from version 1");
                Expect.Equal("conflict 2", Describe(store.Save(Save("s1", 1, "{\"n\":\"stale\"}"))), "stale update");
                Expect.Equal("conflict 0", Describe(store.Save(Save("nobody", 3, "{}"))), "update of a session that is not there");
                var s = store.Load("s1");
                Expect.Equal(2L, s.Version, "stored version");
                Expect.Equal("{\"n\":2}", s.SnapshotJson, "the winning snapshot");
                Expect.True(store.Load("nobody") == null, "a conflicting update creates nothing");
            }
        }

        [Test]
        private static void ListsByCwdNewestFirstWithALimit()
        {
            using (var db = new TempDb())
            {
                var store = new SqliteRobotaStore(db.Path);
                store.Save(Save("old", 0, "{}", "/w/a", "2026-01-01T00:00:00Z", "Old"));
                store.Save(Save("new", 0, "{}", "/w/a", "2026-01-03T00:00:00Z"));
                store.Save(Save("other", 0, "{}", "/w/b", "2026-01-02T00:00:00Z"));
                var ids = new Func<string, int?, string>((cwd, limit) => string.Join(",", store.List(new StoreQuery(cwd, limit)).Select(r => r.Id)));
                Expect.Equal("new,other,old", ids(null, null), "all, newest first");
                Expect.Equal("new,old", ids("/w/a", null), "one cwd");
                Expect.Equal("new", ids("/w/a", 1), "limit");
                Expect.Equal("", ids("/w/none", null), "unknown cwd");
                var old = store.List(new StoreQuery("/w/a", null)).Last();
                Expect.Equal("Old|/w/a|2026-01-01T00:00:00Z|1", old.Name + "|" + old.Cwd + "|" + old.UpdatedAt + "|" + old.MessageCount, "columns");
                Expect.True(store.List(new StoreQuery(null, null))[0].Name == null, "an unnamed session lists a null name");
            }
        }

        [Test]
        private static void DeletesAndAppendsTranscripts()
        {
            using (var db = new TempDb())
            {
                var store = new SqliteRobotaStore(db.Path);
                store.Save(Save("s1", 0, "{}"));
                store.Append("s1", "{\"a\":1}\n");
                store.Append("s1", "{\"a\":2}\n{\"a\":3}\n");
                store.Append("s2", "{\"b\":1}\n");
                Expect.Equal("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n", store.Transcript("s1"), "lines in order");
                Expect.True(store.Delete("s1"), "deleted");
                Expect.True(!store.Delete("s1"), "deleting again finds nothing");
                Expect.True(store.Load("s1") == null, "gone");
                Expect.Equal("", string.Join(",", store.List(new StoreQuery(null, null)).Select(r => r.Id)), "not listed");
                Expect.Equal("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n", store.Transcript("s1"), "the transcript is kept");
                Expect.Equal("saved 1", Describe(store.Save(Save("s1", 0, "{}"))), "the id can be created again");
            }
        }

        [Test]
        private static void ConcurrentSavesOfOneVersionHaveExactlyOneWinner()
        {
            using (var db = new TempDb())
            {
                new SqliteRobotaStore(db.Path).Save(Save("s1", 0, "{\"by\":\"creator\"}"));
                foreach (var expected in new long[] { 1, 0 })
                {
                    const int nodes = 8;
                    var results = new StoreSaveResult[nodes];
                    var start = new Barrier(nodes);
                    var id = expected == 0 ? "fresh" : "s1";
                    var errors = new List<Exception>();
                    var threads = Enumerable.Range(0, nodes).Select(i => new Thread(() =>
                    {
                        try
                        {
                            var store = new SqliteRobotaStore(db.Path); // one store per node, one file
                            start.SignalAndWait();
                            results[i] = store.Save(Save(id, expected, "{\"by\":" + i + "}"));
                        }
                        catch (Exception e)
                        {
                            lock (errors) errors.Add(e);
                            start.RemoveParticipant();
                        }
                    })).ToList();
                    threads.ForEach(t => t.Start());
                    threads.ForEach(t => t.Join());
                    Expect.Equal("", string.Join("; ", errors.Select(e => e.Message)), "errors of concurrent saves");
                    var winners = Enumerable.Range(0, nodes).Where(i => !results[i].IsConflict).ToList();
                    Expect.Equal(1, winners.Count, "winners with expected version " + expected + ": " + string.Join(",", results.Select(Describe)));
                    Expect.Equal(expected + 1, results[winners[0]].Version, "the winner's version");
                    Expect.True(results.All(r => r.Version == expected + 1), "every loser reports the winner's version: " + string.Join(",", results.Select(Describe)));
                    var stored = new SqliteRobotaStore(db.Path).Load(id);
                    Expect.Equal(expected + 1, stored.Version, "stored version");
                    Expect.Equal("{\"by\":" + winners[0] + "}", stored.SnapshotJson, "the winner's snapshot is stored");
                }
            }
        }

        [Test]
        private static void BadPathsAreClearErrors()
        {
            Expect.Throws<ArgumentException>(() => new SqliteRobotaStore(""), "empty path");
            var missing = Path.Combine(StoreFixtures.TempDir(), "no-such-dir", "sessions.db");
            var e = Expect.Throws<IOException>(() => new SqliteRobotaStore(missing), "a directory that does not exist");
            Expect.Contains(e.Message, "cannot open the SQLite session store \"" + missing + "\"", "message");
        }
    }
}
