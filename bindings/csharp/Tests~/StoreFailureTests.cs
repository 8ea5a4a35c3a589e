using System;
using System.Linq;

namespace Robota.Tests
{
    /// <summary>A failing, wrong or silent session store gives clear errors, never a crash.</summary>
    internal static class StoreFailureTests
    {
        private static RobotaRuntime Runtime(IRobotaStore store, int? requestTimeoutMs = null)
        {
            var rt = new RobotaRuntime(new RuntimeConfig { RequestTimeoutMs = requestTimeoutMs }.AddProvider("s", ProviderConfig.Scripted("[]", "echo")));
            rt.SetStore(store);
            return rt;
        }

        [Test]
        private static void AThrowingStoreFailsTheOperationWithItsMessage()
        {
            var store = new MemoryStore { Fail = op => new InvalidOperationException("database offline during " + op) };
            using (var rt = Runtime(store))
            {
                Expect.Fails(RobotaStatus.Io, () => rt.ResumeSessionById("cs-any"), "database offline during load");
                Expect.Fails(RobotaStatus.Io, () => rt.ListSessionsJson(), "database offline during list");
                Expect.Fails(RobotaStatus.Io, () => rt.DeleteSession("cs-any"), "database offline during delete");
            }
        }

        [Test]
        private static void AFailedSaveIsAWarningAndTheTurnCompletes()
        {
            var store = new MemoryStore { Fail = op => op == "save" ? new InvalidOperationException("disk full") : null };
            using (var rt = Runtime(store))
            using (var s = rt.CreateSession(new SessionConfig("s", "m") { Persist = true, SessionId = "cs-unsaved" }))
            {
                var rec = new Recorder(s);
                Expect.Equal("offline:hello", Expect.Await(s.RunAsync("hello"), "RunAsync").Response, "the turn's answer");
                rec.WaitFor(EventKind.TurnCompleted);
                var warnings = rec.Of(EventKind.Warning).Select(w => w.GetString("message")).Where(m => m.Contains("persist")).ToList();
                Expect.Equal("could not persist the session: session store: save failed: disk full", string.Join(" / ", warnings), "the warning carries the store's message");
                Expect.Equal("save cs-unsaved 0", string.Join("|", store.Calls), "one save tried");
                Expect.True(store.Get("cs-unsaved") == null, "nothing stored");
            }
        }

        [Test]
        private static void AMissingSessionIsNotFound()
        {
            using (var rt = Runtime(new MemoryStore()))
            {
                Expect.Fails(RobotaStatus.NotFound, () => rt.ResumeSessionById("cs-missing"), "cs-missing");
            }
        }

        [Test]
        private static void ASnapshotThatIsNotJsonIsRefusedAtOnce()
        {
            var store = new MemoryStore { LoadOverride = id => new StoredSession(1, "{not json") };
            using (var rt = Runtime(store))
            {
                Expect.Fails(RobotaStatus.Io, () => rt.ResumeSessionById("cs-bad"), "the store's answer was refused");
            }
        }

        [Test]
        private static void AStoreThatNeverAnswersTimesOutNamingTheOp()
        {
            var release = new Signal();
            var store = new MemoryStore();
            store.LoadOverride = id =>
            {
                release.Wait("the test to release the load");
                return null;
            };
            using (var rt = Runtime(store, 300))
            {
                try
                {
                    var e = Expect.Fails(RobotaStatus.Timeout, () => rt.ResumeSessionById("cs-slow"), "load");
                    Expect.Contains(e.Message, "load", "the timed-out op is named");
                }
                finally
                {
                    release.Set(); // the late answer is stale: dropped without an error
                }
                store.LoadOverride = null;
                Expect.Fails(RobotaStatus.NotFound, () => rt.ResumeSessionById("cs-after"), "cs-after");
            }
        }

        [Test]
        private static void AnswersToUnknownRequestsAreRefused()
        {
            using (var rt = Runtime(new MemoryStore()))
            {
                Expect.Fails(RobotaStatus.NotFound, () => rt.CompleteStoreRequest(987654321, "{}"), "987654321");
            }
        }

        [Test]
        private static void TheConflictStatusMapsToItsException()
        {
            var e = RobotaException.Create(RobotaStatus.Conflict, "stale",
                "{\"code\":\"CONFLICT\",\"category\":\"store\",\"recoverable\":false,\"message\":\"stale\",\"session_id\":\"s1\",\"expected_version\":4,\"stored_version\":6}");
            var c = (RobotaConflictException)e;
            Expect.Equal("s1", c.SessionId, "session id");
            Expect.Equal(4L, c.ExpectedVersion, "expected version");
            Expect.Equal(6L, c.StoredVersion, "stored version");
            Expect.Equal("store", c.Category, "category");
            Expect.Equal(-20, (int)RobotaStatus.Conflict, "ROBOTA_E_CONFLICT");
        }
    }
}
