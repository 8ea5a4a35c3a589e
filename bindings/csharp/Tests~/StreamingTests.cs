using System;
using System.Linq;
using System.Threading;

namespace Robota.Tests
{
    internal static class StreamingTests
    {
        [Test]
        private static void ThreadModeStreamsDeltasInOrderOnALibraryThread()
        {
            using (var rt = Fixtures.Runtime("[{\"thinking\":[\"hm\",\"m\"],\"deltas\":[\"Hel\",\"lo\",\" wörld 🎉\"],\"usage\":{\"input_tokens\":10,\"output_tokens\":3}}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var rec = new Recorder(s);
                var thinking = "";
                s.ThinkingDelta += (sender, e) => thinking += e.Text;
                var deltas = new System.Collections.Generic.List<string>();
                s.TextDelta += (sender, e) =>
                {
                    Expect.True(ReferenceEquals(sender, s), "the sender is the session");
                    lock (deltas) deltas.Add(e.Text);
                };
                var result = Expect.Await(s.RunAsync("hi"), "RunAsync");
                Expect.Equal("Hello wörld 🎉", result.Response, "response");
                Expect.Equal("complete", result.StopReason, "stop reason");
                Expect.Equal(10L, (long)result.Usage["input_tokens"], "usage.input_tokens");
                rec.WaitFor(EventKind.TurnCompleted);
                Expect.Equal("Hel|lo| wörld 🎉", string.Join("|", deltas), "deltas in order");
                Expect.Equal("hmm", thinking, "thinking deltas");
                Expect.True(rec.Kinds.IndexOf(EventKind.ThinkingDelta) < rec.Kinds.IndexOf(EventKind.TextDelta), "thinking streams before the text");
                var kinds = rec.Kinds;
                Expect.Equal(EventKind.TurnStarted, kinds.First(), "first event");
                Expect.Equal(EventKind.TurnCompleted, kinds.Last(), "last event");
                Expect.True(kinds.LastIndexOf(EventKind.TextDelta) < kinds.LastIndexOf(EventKind.Message), "deltas come before the committed assistant message: " + string.Join(",", kinds));
                Expect.True(rec.Threads.All(t => t != Thread.CurrentThread.ManagedThreadId), "thread delivery calls back on a library thread");
                Expect.Contains(s.MessagesJson(), "\"role\":\"assistant\",\"content\":\"Hello wörld 🎉\"", "history");
            }
        }

        [Test]
        private static void PumpModeDeliversNothingUntilDispatchThenOnTheCallingThread()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\",\"b\",\"c\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session(Delivery.Pump)))
            {
                var rec = new Recorder(s);
                var task = s.RunAsync("x");
                Expect.Equal(RobotaStatus.Ok, s.Wait(0, 30000), "the turn finishes without a pump");
                Expect.Equal(0, rec.Events.Count, "no callback before Dispatch");
                Expect.True(!task.IsCompleted, "RunAsync completes only through Dispatch");
                var me = Thread.CurrentThread.ManagedThreadId;
                var total = 0;
                while (!task.IsCompleted)
                {
                    var n = s.Dispatch(2, 1000);
                    Expect.True(n >= 0 && n <= 2, "Dispatch(2) delivers at most 2, got " + n);
                    total += n;
                }
                Expect.Equal("abc", Expect.Await(task, "RunAsync").Response, "response");
                Expect.Equal("abc", rec.Text, "deltas");
                Expect.Equal(total, rec.Events.Count, "Dispatch counts what it delivered");
                Expect.True(rec.Threads.All(t => t == me), "pump delivery runs on the dispatching thread");
                Expect.Equal(0, s.Dispatch(0, 0), "nothing left");
            }
        }

        [Test]
        private static void PullModeRoutesEventsAndToolCallsThroughNextEvent()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"p\"}")))
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call => "pulled:" + call.Arguments["key"]);
                using (var s = rt.CreateSession(Fixtures.Session(Delivery.Pull)))
                {
                    Expect.True(s.NextEvent(0) == null, "no event before a submit");
                    var task = s.RunAsync("pull it");
                    var kinds = new System.Collections.Generic.List<EventKind>();
                    var text = "";
                    while (!task.IsCompleted)
                    {
                        var ev = s.NextEvent(30000);
                        Expect.True(ev != null, "an event within the timeout");
                        kinds.Add(ev.Kind);
                        if (ev.Kind == EventKind.TextDelta) text += ev.Text;
                    }
                    var r = Expect.Await(task, "RunAsync");
                    Expect.Equal("Done.", r.Response, "response");
                    Expect.Equal("Calling.\n\nDone.", text, "pulled text (rounds separated as in the other modes)");
                    Expect.True(kinds.Contains(EventKind.ToolCall), "the tool call arrives as an event in pull mode");
                    Expect.Contains(s.MessagesJson(), "\"role\":\"tool\",\"content\":\"pulled:p\"", "the registered handler answered the pulled call");
                    Expect.Fails(RobotaStatus.Unsupported, () => s.Dispatch(), "Dispatch needs a session created with Delivery.Pump");
                }
            }
        }

        [Test]
        private static void CloseDeliversSessionClosedLastAndRefusesSubmits()
        {
            using (var rt = Fixtures.Runtime("[]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var rec = new Recorder(s);
                Expect.Equal("offline:one", Expect.Await(s.RunAsync("one"), "RunAsync").Response, "echo fallback");
                s.Close();
                rec.WaitFor(EventKind.SessionClosed);
                Expect.Equal(EventKind.SessionClosed, rec.Kinds.Last(), "session_closed is last");
                Expect.Fails(RobotaStatus.Closed, () => s.Submit("two"), "closed");
            }
        }

        [Test]
        private static void FailedTurnThrowsRobotaExceptionWithTaxonomy()
        {
            using (var rt = Fixtures.Runtime("[{\"error\":{\"kind\":\"rate_limit\",\"message\":\"slow down\"}}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var rec = new Recorder(s);
                var e = Expect.Throws<RobotaException>(() => s.RunAsync("x").Wait(), "failed turn");
                Expect.Equal(RobotaStatus.Provider, e.Code, "status");
                Expect.Contains(e.Message, "slow down", "message");
                Expect.True(e.Category != null && e.ErrorCode != null, "category and code from the ERROR event: " + e.Details);
                Expect.True(e.Recoverable, "a rate limit is recoverable");
                rec.WaitFor(EventKind.TurnCompleted);
                Expect.Contains(rec.Of(EventKind.TurnCompleted)[0].Payload, "\"stop_reason\":\"error\"", "stop reason");
            }
        }

        [Test]
        private static void QueuedSubmitIsRefusedWithBusyAndWaitReportsTurns()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\"],\"hang\":true}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var rec = new Recorder(s);
                var t1 = s.Submit("first");
                rec.WaitFor(EventKind.TextDelta);
                var t2 = s.Submit("queued");
                Expect.Fails(RobotaStatus.Busy, () => s.Submit("third"), "already queued");
                Expect.Equal(RobotaStatus.Timeout, s.Wait(t1, 0), "the hanging turn is still running");
                s.Abort();
                Expect.Equal(RobotaStatus.Aborted, s.Wait(t1, 30000), "aborted turn");
                Expect.Equal(RobotaStatus.Aborted, s.Wait(t2, 30000), "abort drops the queued prompt");
                Expect.Fails(RobotaStatus.NotFound, () => s.Wait(999, 0), "999");
            }
        }
    }
}
