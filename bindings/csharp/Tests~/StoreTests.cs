using System;
using System.Collections.Generic;
using System.IO;
using static Robota.Tests.StoreFixtures;

namespace Robota.Tests
{
    /// <summary>The session store port (<see cref="RobotaRuntime.SetStore"/>) driven by real sessions against the fake model server.</summary>
    internal static class StoreTests
    {
        [Test]
        private static void TurnsSaveThroughTheStoreAndAnotherNodeResumesById()
        {
            var dir = TempDir();
            using (var fake = new FakeServer())
            {
                Answer(fake, "first answer");
                Answer(fake, "second answer");
                Answer(fake, "third answer");
                var store = new MemoryStore();
                string history;
                using (var a = Node(fake, store, dir))
                using (var s = a.CreateSession(Persisted("cs-store-1")))
                {
                    Expect.Equal("first answer", Expect.Await(s.RunAsync("q1"), "q1").Response, "q1");
                    Expect.Equal(1L, store.Get("cs-store-1").Version, "version after the first turn");
                    Expect.Await(s.RunAsync("q2"), "q2");
                    var row = store.Get("cs-store-1");
                    Expect.Equal(2L, row.Version, "version after the second turn");
                    Expect.Contains(row.Snapshot, "\"kind\":\"robota.session\"", "the snapshot is the session's");
                    InOrder(row.Snapshot, "saved history", "\"content\":\"q1\"", "\"content\":\"first answer\"", "\"content\":\"q2\"", "\"content\":\"second answer\"");
                    Expect.Equal("cs-store-1", row.Summary.Id, "summary id");
                    Expect.Equal(2L, row.Summary.MessageCount, "summary message count");
                    Expect.True(row.Summary.UpdatedAt.Length > 0 && row.Summary.CreatedAt.Length > 0, "summary times");
                    Expect.Equal("save cs-store-1 0|save cs-store-1 1", string.Join("|", store.Calls), "saves with the expected versions");
                    history = s.MessagesJson();
                }
                using (var b = Node(fake, store, dir))
                using (var r = b.ResumeSessionById("cs-store-1"))
                {
                    Expect.Equal(history, r.MessagesJson(), "history loaded from the store");
                    Expect.Equal("third answer", Expect.Await(r.RunAsync("q3"), "q3").Response, "q3");
                    Expect.Equal(3L, store.Get("cs-store-1").Version, "version after the other node's turn");
                    InOrder(RequestBody(fake, 2), "the other node's turn sends the whole history",
                        "\"content\":\"q1\"", "\"content\":\"first answer\"", "\"content\":\"q2\"", "\"content\":\"second answer\"", "\"content\":\"q3\"");
                }
                Expect.Equal("save cs-store-1 0|save cs-store-1 1|load cs-store-1|save cs-store-1 2", string.Join("|", store.Calls), "store calls");
            }
            Expect.True(!Directory.Exists(dir), "nothing was written to the session directory");
        }

        [Test]
        private static void ListAndDeleteGoThroughTheStore()
        {
            var store = new MemoryStore();
            store.Put(new StoredSessionSummary("old", "Old one", "/w/a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", 1), 1);
            store.Put(new StoredSessionSummary("new", null, "/w/a", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", 4), 3);
            store.Put(new StoredSessionSummary("other", "B", "/w/b", "2026-01-02T00:00:00Z", "2026-01-02T00:00:00Z", 2), 1);
            using (var rt = Fixtures.Runtime("[]"))
            {
                rt.SetStore(store);
                var all = rt.ListSessionsJson();
                InOrder(all, "every session, newest first", "\"id\":\"new\"", "\"id\":\"other\"", "\"id\":\"old\"");
                Expect.Contains(all, "\"id\":\"new\",\"name\":null,\"cwd\":\"/w/a\",\"created_at\":\"2026-01-02T00:00:00Z\",\"updated_at\":\"2026-01-03T00:00:00Z\",\"message_count\":4", "a row's columns");
                var one = rt.ListSessionsJson("{\"cwd\":\"/w/a\",\"limit\":1}");
                Expect.Contains(one, "\"id\":\"new\"", "the newest of /w/a");
                Expect.NotContains(one, "\"id\":\"old\"", "limit 1");
                Expect.NotContains(one, "\"id\":\"other\"", "cwd /w/a only");
                rt.DeleteSession("old");
                Expect.True(store.Get("old") == null, "deleted from the store");
                Expect.Fails(RobotaStatus.NotFound, () => rt.DeleteSession("nope"), "nope");
                Expect.Equal("list null null|list /w/a 1|delete old|delete nope", string.Join("|", store.Calls), "store calls");
            }
        }

        [Test]
        private static void AStaleSaveFailsTheTurnWithAConflictAndKeepsTheOtherVersion()
        {
            using (var fake = new FakeServer())
            {
                foreach (var text in new[] { "a1", "b1", "a2", "a3", "a4", "a5" })
                {
                    Answer(fake, text);
                }
                var store = new MemoryStore();
                using (var a = Node(fake, store))
                using (var b = Node(fake, store))
                using (var s = a.CreateSession(Persisted("cs-conflict")))
                {
                    Expect.Await(s.RunAsync("from A"), "A's first turn");
                    using (var other = b.ResumeSessionById("cs-conflict"))
                    {
                        Expect.Await(other.RunAsync("from B"), "B's turn");
                    }
                    var rec = new Recorder(s);
                    var e = Expect.Throws<RobotaConflictException>(() => Expect.Await(s.RunAsync("A again"), "A's stale turn"), "the stale turn");
                    Expect.Equal(RobotaStatus.Conflict, e.Status, "status");
                    Expect.Equal("CONFLICT", e.ErrorCode, "error code");
                    Expect.Equal("cs-conflict", e.SessionId, "session id");
                    Expect.Equal(1L, e.ExpectedVersion, "expected version");
                    Expect.Equal(2L, e.StoredVersion, "stored version");
                    rec.WaitFor(EventKind.TurnCompleted);
                    var kinds = rec.Kinds;
                    var error = kinds.IndexOf(EventKind.Error);
                    Expect.True(error >= 0 && error < kinds.IndexOf(EventKind.TurnCompleted), "an ERROR event before TURN_COMPLETED: " + string.Join(",", kinds));
                    Expect.Equal("CONFLICT", rec.Of(EventKind.Error)[0].GetString("code"), "ERROR event code");
                    var row = store.Get("cs-conflict");
                    Expect.Equal(2L, row.Version, "the store keeps B's version");
                    Expect.Contains(row.Snapshot, "\"content\":\"from B\"", "B's turn kept");
                    Expect.NotContains(row.Snapshot, "A again", "nothing overwritten");

                    var d = Expect.Throws<RobotaConflictException>(() => s.Drive("A once more"), "a driven stale turn");
                    Expect.Equal(2L, d.StoredVersion, "stored version (Drive)");
                    Expect.Equal(2L, store.Get("cs-conflict").Version, "still B's version");
                }
                using (var a = Node(fake, store))
                using (var b = Node(fake, store))
                using (var s = a.ResumeSessionById("cs-conflict"))
                {
                    Expect.Contains(s.MessagesJson(), "\"content\":\"from B\"", "resuming from the store gets B's turn");
                    Expect.Equal("a4", Expect.Await(s.RunAsync("A resumed"), "A after resuming").Response, "A continues");
                    Expect.Equal(3L, store.Get("cs-conflict").Version, "saved on top of B's version");
                    b.DeleteSession("cs-conflict");
                    var gone = Expect.Throws<RobotaConflictException>(() => Expect.Await(s.RunAsync("after delete"), "a turn of a deleted session"), "deleted meanwhile");
                    Expect.Equal(3L, gone.ExpectedVersion, "expected version (deleted)");
                    Expect.Equal(0L, gone.StoredVersion, "stored version 0: deleted");
                    Expect.True(store.Get("cs-conflict") == null, "not recreated");
                }
            }
        }

        [Test]
        private static void TranscriptLinesAreAppendedToTheStore()
        {
            var cwd = TempDir();
            Directory.CreateDirectory(cwd);
            try
            {
                using (var fake = new FakeServer())
                {
                    Answer(fake, "logged answer");
                    var store = new MemoryStore();
                    using (var rt = Node(fake, store))
                    using (var s = rt.CreateSession(new SessionConfig("fake", "gpt-test") { SessionId = "cs-log", Cwd = cwd, Transcript = true }))
                    {
                        Expect.Await(s.RunAsync("log me"), "RunAsync");
                    }
                    var lines = store.Transcript("cs-log");
                    Expect.True(lines != null && lines.EndsWith("\n", StringComparison.Ordinal), "transcript lines appended: " + lines);
                    foreach (var line in lines.TrimEnd('\n').Split('\n'))
                    {
                        Json.ParseObject(line); // each line is one JSON object
                    }
                    InOrder(lines, "the turn in the transcript", "log me", "logged answer");
                    Expect.True(!Directory.Exists(Path.Combine(cwd, ".robota")), "no local transcript file");
                }
            }
            finally
            {
                Directory.Delete(cwd, true);
            }
        }

        [Test]
        private static void RemovingTheStoreReturnsToTheSessionDirectory()
        {
            var dir = TempDir();
            try
            {
                using (var fake = new FakeServer())
                {
                    Answer(fake, "local");
                    var store = new MemoryStore();
                    using (var rt = Node(fake, store, dir))
                    {
                        rt.SetStore(null);
                        using (var s = rt.CreateSession(Persisted("cs-local")))
                        {
                            Expect.Await(s.RunAsync("q"), "RunAsync");
                        }
                        Expect.True(File.Exists(Path.Combine(dir, "cs-local.json")), "saved in the session directory");
                        Expect.Contains(rt.ListSessionsJson(), "\"id\":\"cs-local\"", "listed from the directory");
                    }
                    Expect.Equal(0, store.Calls.Count, "the removed store is not called");
                }
            }
            finally
            {
                if (Directory.Exists(dir))
                {
                    Directory.Delete(dir, true);
                }
            }
        }
    }
}
