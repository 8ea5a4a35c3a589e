using System;
using System.Threading;
using System.Threading.Tasks;

namespace Robota.Tests
{
    internal static class CancellationTests
    {
        [Test]
        private static void CancellationTokenAbortsMidStream()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"part\",\"ial\"],\"hang\":true}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            using (var cts = new CancellationTokenSource())
            {
                var rec = new Recorder(s);
                var task = s.RunAsync("stall", cts.Token);
                rec.WaitFor(EventKind.TextDelta, 2);
                Expect.True(!task.IsCompleted, "the turn hangs until cancelled");
                cts.Cancel();
                Expect.Throws<OperationCanceledException>(() => task.Wait(), "cancelled RunAsync");
                Expect.True(task.IsCanceled, "the task is cancelled, not faulted");
                rec.WaitFor(EventKind.TurnCompleted);
                var done = rec.Of(EventKind.TurnCompleted)[0];
                Expect.Equal("aborted", done.GetString("stop_reason"), "stop reason");
                Expect.Equal("partial", done.GetString("response"), "partial response");
                Expect.Contains(s.MessagesJson(), "\"content\":\"partial\",\"state\":\"interrupted\"", "interrupted message kept");
                // The session stays usable.
                Expect.Equal("offline:again", Expect.Await(s.RunAsync("again"), "next turn").Response, "next turn");
            }
        }

        [Test]
        private static void CancellationTokenAbortsMidToolAndCancelsTheCall()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"slow\"}")))
            {
                var started = new Signal();
                var observed = new Signal();
                ToolCall seen = null;
                rt.RegisterTool(Fixtures.ReadOnlyTool(), async call =>
                {
                    seen = call;
                    started.Set();
                    try
                    {
                        await Task.Delay(Timeout.Infinite, call.CancellationToken);
                    }
                    catch (OperationCanceledException)
                    {
                        observed.Set();
                        throw;
                    }
                    return (object)"never";
                });
                using (var s = rt.CreateSession(Fixtures.Session()))
                using (var cts = new CancellationTokenSource())
                {
                    var rec = new Recorder(s);
                    var task = s.RunAsync("slow", cts.Token);
                    started.Wait("the tool call");
                    cts.Cancel();
                    Expect.Throws<OperationCanceledException>(() => task.Wait(), "cancelled RunAsync");
                    observed.Wait("the handler's token to fire");
                    rec.WaitFor(EventKind.ToolCallCancelled);
                    Expect.Equal(seen.CallId, Json.GetUInt64(rec.Of(EventKind.ToolCallCancelled)[0].Data, "call_id"), "cancelled call id");
                    Expect.True(!seen.Complete("late"), "answering a cancelled call is stale");
                    rec.WaitFor(EventKind.TurnCompleted);
                    Expect.Equal("aborted", rec.Of(EventKind.TurnCompleted)[0].GetString("stop_reason"), "stop reason");
                    Expect.Contains(rec.Of(EventKind.ToolEnd)[0].Payload, "Execution interrupted by user", "tool_end");
                }
            }
        }

        [Test]
        private static void AlreadyCancelledTokenSubmitsNothing()
        {
            using (var rt = Fixtures.Runtime("[]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var cancelled = new CancellationToken(true);
                var task = s.RunAsync("x", cancelled); // no synchronous throw
                Expect.True(task.IsCanceled, "a cancelled task");
                Expect.Throws<OperationCanceledException>(() => task.Wait(), "awaiting it");
                Expect.Equal(0L, (long)s.State()["message_count"], "nothing was submitted");
            }
        }

        [Test]
        private static void AbortWithoutTokenReturnsAnAbortedResult()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"x\"],\"hang\":true}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var rec = new Recorder(s);
                var task = s.RunAsync("x");
                rec.WaitFor(EventKind.TextDelta);
                s.Abort();
                var r = Expect.Await(task, "RunAsync");
                Expect.True(r.IsAborted, "aborted result, stop reason " + r.StopReason);
                Expect.Equal("x", r.Response, "partial response");
            }
        }

        [Test]
        private static void CancellingAQueuedTurnLeavesTheRunningOne()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\"],\"hang\":true}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            using (var cts = new CancellationTokenSource())
            {
                var rec = new Recorder(s);
                var running = s.RunAsync("first");
                rec.WaitFor(EventKind.TextDelta);
                var queued = s.RunAsync("second", cts.Token);
                Expect.True(s.GetState().QueuedTurn.HasValue, "the second turn is queued");
                cts.Cancel();
                Expect.Throws<OperationCanceledException>(() => queued.Wait(), "the queued turn is cancelled");
                Expect.True(queued.IsCanceled, "cancelled, not faulted");
                rec.WaitFor(EventKind.TurnCompleted);
                var dropped = rec.Of(EventKind.TurnCompleted)[0];
                Expect.Equal("aborted", dropped.GetString("stop_reason"), "the queued turn's end");
                Expect.Contains(dropped.Payload, "\"started\":false", "it never started");
                var st = s.GetState();
                Expect.True(st.Executing && !running.IsCompleted, "the running turn goes on");
                Expect.Equal((ulong?)null, st.QueuedTurn, "nothing queued");
                Expect.Throws<RobotaNotFoundException>(() => s.Abort(999), "a turn never issued");
                s.Abort();
                Expect.True(Expect.Await(running, "first").IsAborted, "then aborted");
            }
        }
    }
}
