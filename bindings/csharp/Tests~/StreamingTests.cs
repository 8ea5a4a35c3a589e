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

        private const string InlineTurns =
            "[{\"thinking\":[\"hm\"],\"deltas\":[\"Call\",\"ing.\"],\"tool_calls\":[{\"id\":\"call_0\",\"name\":\"lookup\",\"arguments\":{\"key\":\"k\"}}]}," +
            "{\"deltas\":[\"Do\",\"ne \",\"wörld.\"]}]";

        /// <summary>
        /// One turn with a host tool answered inside its callback (a synchronous handler), then
        /// Submit + Wait, a fork and Close, in <paramref name="delivery"/>; returns the first
        /// turn's event kinds and writes its streamed text.
        /// </summary>
        private static string InlineScenario(Delivery delivery, string name, out string text)
        {
            using (var rt = Fixtures.Runtime(InlineTurns))
            {
                var seen = new System.Collections.Generic.List<string>();
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    lock (seen) seen.Add(call.ToolName + ":" + call.Arguments["key"]);
                    return "value of " + call.Arguments["key"];
                });
                using (var s = rt.CreateSession(Fixtures.Session(delivery)))
                {
                    Expect.Equal(name, (string)s.State()["delivery"], "the session's delivery");
                    var rec = new Recorder(s);
                    RobotaStatus? inside = null;
                    s.TurnStarted += (sender, e) =>
                    {
                        if (inside != null) return;
                        try
                        {
                            s.Wait(0, 0);
                            inside = RobotaStatus.Ok;
                        }
                        catch (RobotaException ex)
                        {
                            inside = ex.Code;
                        }
                    };
                    var r = Expect.Await(s.RunAsync("look k up"), "RunAsync");
                    Expect.Equal("Done wörld.", r.Response, "response");
                    Expect.Equal("complete", r.StopReason, "stop reason");
                    Expect.Equal(RobotaStatus.Reentrant, inside ?? RobotaStatus.Ok, "Wait inside a callback");
                    lock (seen) Expect.Equal("lookup:k", string.Join(",", seen), "the tool was called once with the model's arguments");
                    Expect.Contains(s.MessagesJson(), "\"role\":\"tool\",\"content\":\"value of k\"", "the tool's answer in history");
                    var first = rec.Events;
                    Expect.Equal(1, first.Count(e => e.Kind == EventKind.TurnCompleted), "RunAsync completes after the turn's events were routed");
                    var me = Thread.CurrentThread.ManagedThreadId;
                    Expect.True(rec.Threads.All(t => t != me), "callbacks on a library thread");
                    text = string.Concat(first.Where(e => e.Kind == EventKind.TextDelta).Select(e => e.Text));

                    // Wait means delivered: once it returns, the turn's TURN_COMPLETED was handled.
                    var t2 = s.Submit("again");
                    Expect.Equal(RobotaStatus.Ok, s.Wait(t2, 60000), "Wait");
                    var done = rec.Of(EventKind.TurnCompleted);
                    Expect.Equal(2, done.Count, "both turns' TURN_COMPLETED were delivered when Wait returned");
                    Expect.Equal(t2, done[1].TurnId, "the second is the submitted turn");
                    Expect.Contains(done[1].Payload, "offline:again", "echo fallback");

                    using (var f = s.Fork(delivery))
                    {
                        Expect.Equal(name, (string)f.State()["delivery"], "the fork's delivery");
                        var fr = Expect.Await(f.RunAsync("forked"), "fork RunAsync");
                        Expect.Equal("complete", fr.StopReason, "the fork runs a turn");
                    }

                    s.Close();
                    rec.WaitFor(EventKind.SessionClosed);
                    Expect.Equal(EventKind.SessionClosed, rec.Kinds.Last(), "session_closed is last");
                    return string.Join(",", first.Select(e => e.Kind));
                }
            }
        }

        [Test]
        private static void InlineModeDeliversTheSameEventsAsThreadModeWithAHostTool()
        {
            string inlineText, threadText;
            var inline = InlineScenario(Delivery.Inline, "inline", out inlineText);
            var thread = InlineScenario(Delivery.Thread, "thread", out threadText);
            Expect.Equal("Calling.\n\nDone wörld.", inlineText, "inline text");
            Expect.Equal(threadText, inlineText, "same text as thread delivery");
            Expect.Equal(thread, inline, "same events, same order as thread delivery");
            // started, thinking, the first round's text, the tool, the second round's text, completed
            var k = inline.Split(',').ToList();
            var order = new[]
            {
                k.IndexOf("TurnStarted"), k.IndexOf("ThinkingDelta"), k.IndexOf("TextDelta"), k.IndexOf("ToolStart"),
                k.IndexOf("ToolEnd"), k.LastIndexOf("TextDelta"), k.IndexOf("TurnCompleted"),
            };
            for (var i = 0; i < order.Length; i++)
            {
                Expect.True(order[i] >= 0 && (i == 0 || order[i] > order[i - 1]), "event order: " + inline);
            }
            Expect.True(order[0] == 0 && order[order.Length - 1] == k.Count - 1, "turn_started first, turn_completed last: " + inline);
        }

        [Test]
        private static void InlineModeToolAnsweredLaterFromAnotherThread()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"late\"}")))
            {
                var pending = new System.Threading.Tasks.TaskCompletionSource<object>();
                var started = new Signal();
                int callbackThread = 0, completerThread = 0;
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    callbackThread = Thread.CurrentThread.ManagedThreadId;
                    started.Set();
                    return pending.Task; // the worker is not held: the answer comes later
                });
                using (var s = rt.CreateSession(Fixtures.Session(Delivery.Inline)))
                {
                    var rec = new Recorder(s);
                    var task = s.RunAsync("find late");
                    started.Wait("the tool call");
                    rec.WaitFor(EventKind.ToolStart);
                    Expect.True(!task.IsCompleted, "the turn waits for the tool");
                    var completer = new Thread(() =>
                    {
                        completerThread = Thread.CurrentThread.ManagedThreadId;
                        pending.SetResult("late answer");
                    });
                    completer.Start();
                    var r = Expect.Await(task, "RunAsync");
                    completer.Join();
                    Expect.Equal("Done.", r.Response, "response");
                    Expect.Equal("Calling.\n\nDone.", rec.Text, "text");
                    Expect.True(callbackThread != Thread.CurrentThread.ManagedThreadId && callbackThread != completerThread, "called on a library thread, answered on another");
                    Expect.Contains(s.MessagesJson(), "\"role\":\"tool\",\"content\":\"late answer\"", "the late answer in history");
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
