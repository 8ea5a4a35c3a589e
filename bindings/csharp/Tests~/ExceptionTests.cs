using System;
using System.Threading;

namespace Robota.Tests
{
    /// <summary>Each status maps to its exception class, with the library's message.</summary>
    internal static class ExceptionTests
    {
        private static T Mapped<T>(RobotaStatus status, Action a, string messagePart) where T : RobotaException
        {
            var e = Expect.Throws<RobotaException>(a, "expected " + typeof(T).Name);
            Expect.Equal(typeof(T), e.GetType(), "exception class for \"" + e.Message + "\"");
            Expect.Equal(status, e.Status, "Status");
            Expect.Equal(status, e.Code, "Code");
            Expect.Contains(e.Message, messagePart, "message");
            return (T)e;
        }

        [Test]
        private static void InvalidJsonAndConfig()
        {
            using (var rt = Fixtures.Runtime("[]"))
            {
                Mapped<RobotaInvalidJsonException>(RobotaStatus.InvalidJson, () => rt.CreateSession("{not json").Dispose(), "JSON");
                Mapped<RobotaNotFoundException>(RobotaStatus.NotFound, () => rt.CreateSession(new SessionConfig("nope", "m")).Dispose(), "unknown provider \"nope\"");
                var bad = Fixtures.Session();
                bad.Budget = new SessionBudget { MaxToolCalls = -1 };
                Mapped<RobotaInvalidConfigException>(RobotaStatus.InvalidConfig, () => rt.CreateSession(bad).Dispose(), "\"max_tool_calls\" must be a non-negative integer");
            }
        }

        [Test]
        private static void NotFoundUnsupportedAndClosed()
        {
            using (var rt = Fixtures.Runtime("[]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                Mapped<RobotaNotFoundException>(RobotaStatus.NotFound, () => rt.DeleteSession("no-such-session"), "no-such-session");
                Mapped<RobotaUnsupportedException>(RobotaStatus.Unsupported, () => s.Dispatch(), "Delivery.Pump");
                s.Close();
                var e = Expect.Throws<RobotaException>(() => Expect.Await(s.RunAsync("x"), "RunAsync"), "closed session");
                Expect.Equal(typeof(RobotaClosedException), e.GetType(), "a refused submit is the task's exception");
            }
        }

        [Test]
        private static void BusyWhenAPromptIsQueued()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"x\"],\"hang\":true}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var rec = new Recorder(s);
                s.Submit("one");
                rec.WaitFor(EventKind.TextDelta);
                s.Submit("two");
                Mapped<RobotaBusyException>(RobotaStatus.Busy, () => s.Submit("three"), "queued");
                s.Abort();
            }
        }

        [Test]
        private static void ProviderFailureCarriesTheErrorClassAndHttpStatus()
        {
            using (var fake = new FakeServer())
            using (var rt = fake.Runtime())
            {
                fake.Send("{\"cmd\":\"enqueue_error\",\"status\":401,\"body\":\"{\\\"error\\\":{\\\"message\\\":\\\"bad key\\\"}}\"}");
                using (var s = rt.CreateSession(new SessionConfig("fake", "gpt-test")))
                {
                    var e = Expect.Throws<RobotaProviderException>(() => Expect.Await(s.RunAsync("x"), "RunAsync"), "failed turn");
                    Expect.Equal(RobotaStatus.Provider, e.Status, "status");
                    Expect.Equal((int?)401, e.HttpStatus, "HTTP status");
                    Expect.Equal("AUTHENTICATION_ERROR", e.ErrorClass, "error class");
                    Expect.Contains(e.Message, "returned HTTP 401: bad key", "message");
                }
            }
            using (var rt = Fixtures.Runtime("[{\"error\":{\"kind\":\"provider\",\"message\":\"boom\"}}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var e = Expect.Throws<RobotaProviderException>(() => s.Drive("x"), "failed driven turn");
                Expect.Equal((int?)null, e.HttpStatus, "no HTTP answer behind it");
                Expect.Contains(e.Message, "boom", "message");
                Expect.Equal("error", e.Result.StopReason, "the failed turn's result");
                Expect.Contains(e.Result.ErrorMessage, "boom", "its error");
            }
            Expect.Equal((int?)503, ((RobotaProviderException)RobotaException.Create(RobotaStatus.Provider, "p returned HTTP 503: x")).HttpStatus, "parsed status");
            Expect.Equal((int?)null, ((RobotaProviderException)RobotaException.Create(RobotaStatus.Provider, "p returned HTTP 5030")).HttpStatus, "not a 3-digit status");
        }

        [Test]
        private static void AbortedDriveAndBudget()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"x\"],\"hang\":true}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                s.TextDelta += (o, ev) => ThreadPool.QueueUserWorkItem(_ => s.Abort());
                Mapped<RobotaAbortedException>(RobotaStatus.Aborted, () => s.Drive("x"), "abort");
            }
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k\"}")))
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call => "found");
                var cfg = Fixtures.Session();
                cfg.Budget = new SessionBudget { MaxModelCalls = 1 };
                using (var s = rt.CreateSession(cfg))
                {
                    var e = Expect.Throws<RobotaBudgetException>(() => Expect.Await(s.RunAsync("go"), "RunAsync"), "budget stop");
                    Expect.Equal("BUDGET_EXCEEDED", e.ErrorCode, "code");
                }
            }
        }

        [Test]
        private static void TimeoutAndReentrant()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"x\"],\"hang\":true}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            using (var turn = s.Stream("x"))
            {
                while (turn.Current == null || turn.Current.Kind != EventKind.TextDelta)
                {
                    Expect.True(turn.MoveNext(), "events before the stall");
                }
                Mapped<RobotaTimeoutException>(RobotaStatus.Timeout, () => turn.MoveNext(30), "no event of the turn within 30 ms");
                RobotaException inside = null;
                var done = new Signal();
                s.TurnCompleted += (o, r) =>
                {
                    inside = Expect.Throws<RobotaException>(() => s.Wait(0, 0), "Wait inside a handler");
                    done.Set();
                };
                s.Abort();
                done.Wait("the aborted turn's TURN_COMPLETED");
                Expect.Equal(typeof(RobotaReentrantException), inside.GetType(), "class");
            }
        }
    }
}
