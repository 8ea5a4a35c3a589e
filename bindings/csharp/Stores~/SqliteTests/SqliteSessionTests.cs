using Robota.Stores.Sqlite;
using static Robota.Tests.StoreFixtures;

namespace Robota.Tests
{
    /// <summary>Real sessions persisting through <see cref="SqliteRobotaStore"/>: two runtimes (nodes), one database file.</summary>
    internal static class SqliteSessionTests
    {
        [Test]
        private static void ASecondRuntimeResumesASessionFromTheDatabase()
        {
            using (var db = new SqliteStoreTests.TempDb())
            using (var fake = new FakeServer())
            {
                foreach (var text in new[] { "first answer", "second answer", "third answer", "stale answer" })
                {
                    Answer(fake, text);
                }
                string history;
                using (var a = Node(fake, new SqliteRobotaStore(db.Path)))
                using (var s = a.CreateSession(Persisted("cs-sqlite")))
                {
                    Expect.Await(s.RunAsync("q1"), "q1");
                    Expect.Await(s.RunAsync("q2"), "q2");
                    history = s.MessagesJson();
                    Expect.Equal(2L, new SqliteRobotaStore(db.Path).Load("cs-sqlite").Version, "two saves");

                    using (var b = Node(fake, new SqliteRobotaStore(db.Path)))
                    {
                        Expect.Contains(b.ListSessionsJson("{\"limit\":10}"), "\"id\":\"cs-sqlite\"", "listed by the other node");
                        using (var r = b.ResumeSessionById("cs-sqlite"))
                        {
                            Expect.Equal(history, r.MessagesJson(), "the other node loads the whole history");
                            Expect.Equal("third answer", Expect.Await(r.RunAsync("q3"), "q3").Response, "q3");
                        }
                        InOrder(RequestBody(fake, 2), "the other node's turn sends the whole history",
                            "\"content\":\"q1\"", "\"content\":\"first answer\"", "\"content\":\"q2\"", "\"content\":\"second answer\"", "\"content\":\"q3\"");
                        var stored = new SqliteRobotaStore(db.Path).Load("cs-sqlite");
                        Expect.Equal(3L, stored.Version, "three saves");
                        Expect.Contains(stored.SnapshotJson, "\"content\":\"third answer\"", "the other node's turn is stored");

                        var e = Expect.Throws<RobotaConflictException>(() => Expect.Await(s.RunAsync("q4"), "the first node's stale turn"), "stale node");
                        Expect.Equal(2L, e.ExpectedVersion, "expected version");
                        Expect.Equal(3L, e.StoredVersion, "stored version");
                        Expect.NotContains(new SqliteRobotaStore(db.Path).Load("cs-sqlite").SnapshotJson, "stale answer", "nothing overwritten");

                        b.DeleteSession("cs-sqlite");
                        Expect.True(new SqliteRobotaStore(db.Path).Load("cs-sqlite") == null, "deleted from the database");
                        Expect.Fails(RobotaStatus.NotFound, () => a.ResumeSessionById("cs-sqlite"), "cs-sqlite");
                    }
                }
            }
        }
    }
}
