using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Robota.Tests
{
    /// <summary><see cref="RobotaSession.Drive(string)"/>: the turn run on the calling thread (robota_session_run).</summary>
    internal static class DriveTests
    {
        /// <summary>A round calling the host tool "lookup", then one answering "Done." with usage.</summary>
        private const string ToolTurns =
            "[{\"deltas\":[\"Call\",\"ing.\"],\"tool_calls\":[{\"id\":\"call_0\",\"name\":\"lookup\",\"arguments\":{\"key\":\"k\"}}]}," +
            "{\"deltas\":[\"Do\",\"ne.\"],\"usage\":{\"input_tokens\":10,\"output_tokens\":3}}]";

        /// <summary>What one turn gave: its result, the TurnCompleted handler's argument, events and threads.</summary>
        private sealed class Outcome
        {
            internal TurnResult Result;
            internal TurnResult Raised;
            internal List<EventKind> KindsAtReturn;
            internal List<int> EventThreads;
            internal List<int> ToolThreads;
            internal int CallerThread;
            internal string History;
        }

        /// <summary>One turn of <see cref="ToolTurns"/> with a synchronous host tool, by Drive or by RunAsync.</summary>
        private static Outcome ToolTurn(Delivery delivery, bool drive)
        {
            using (var rt = Fixtures.Runtime(ToolTurns))
            {
                var toolThreads = new List<int>();
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    lock (toolThreads) toolThreads.Add(Thread.CurrentThread.ManagedThreadId);
                    return "value of " + call.Arguments["key"];
                });
                using (var s = rt.CreateSession(Fixtures.Session(delivery)))
                {
                    var rec = new Recorder(s);
                    TurnResult raised = null;
                    s.TurnCompleted += (sender, r) => raised = r;
                    var o = new Outcome { CallerThread = Thread.CurrentThread.ManagedThreadId };
                    if (drive)
                    {
                        o.Result = s.Drive("look k up");
                        o.KindsAtReturn = rec.Kinds; // no wait: Drive returns after the turn's events
                    }
                    else
                    {
                        o.Result = Expect.Await(s.RunAsync("look k up"), "RunAsync");
                        rec.WaitFor(EventKind.TurnCompleted);
                        o.KindsAtReturn = rec.Kinds;
                    }
                    o.Raised = raised;
                    o.EventThreads = rec.Threads;
                    lock (toolThreads) o.ToolThreads = new List<int>(toolThreads);
                    o.History = s.MessagesJson();
                    return o;
                }
            }
        }

        [Test]
        private static void DriveReturnsWhatRunAsyncReturnsForAHostToolTurn()
        {
            var run = ToolTurn(Delivery.Thread, false);
            var drive = ToolTurn(Delivery.Thread, true);
            Expect.Equal("Done.", run.Result.Response, "RunAsync response");
            Expect.Equal("Done.", drive.Result.Response, "Drive response");
            Expect.Equal("complete", drive.Result.StopReason, "Drive stop reason");
            Expect.Equal(run.Result.StopReason, drive.Result.StopReason, "same stop reason");
            Expect.Equal(1UL, drive.Result.TurnId, "the driven turn's id");
            Expect.Equal(run.Result.TurnId, drive.Result.TurnId, "same turn id");
            Expect.Equal(10L, (long)drive.Result.Usage["input_tokens"], "usage.input_tokens");
            Expect.Equal(3L, (long)drive.Result.Usage["output_tokens"], "usage.output_tokens");
            Expect.Equal(Json.Serialize(run.Result.Usage.Raw), Json.Serialize(drive.Result.Usage.Raw), "same usage");
            Expect.Equal(1, drive.Result.ToolSummaries.Count, "one tool summary");
            Expect.Equal("lookup", (string)((Dictionary<string, object>)drive.Result.ToolSummaries[0])["name"], "tool summary");
            Expect.Equal(Json.Serialize(run.Result.ToolSummaries), Json.Serialize(drive.Result.ToolSummaries), "same tool summaries");
            Expect.Equal(1, drive.ToolThreads.Count, "the tool ran once");
            Expect.Contains(drive.History, "\"role\":\"tool\",\"content\":\"value of k\"", "the tool's answer in history");
            Expect.True(ReferenceEquals(drive.Raised, drive.Result), "Drive returns the result the TurnCompleted handler got");
        }

        [Test]
        private static void EveryEventOfTheDrivenTurnArrivedBeforeDriveReturned()
        {
            var run = ToolTurn(Delivery.Thread, false);
            var drive = ToolTurn(Delivery.Thread, true);
            Expect.Equal(string.Join(",", run.KindsAtReturn), string.Join(",", drive.KindsAtReturn), "the same events, in the same order, when Drive returned");
            Expect.Equal(EventKind.TurnStarted, drive.KindsAtReturn.First(), "first event");
            Expect.Equal(EventKind.TurnCompleted, drive.KindsAtReturn.Last(), "last event");
            Expect.Equal(1, drive.KindsAtReturn.Count(k => k == EventKind.TurnCompleted), "one TURN_COMPLETED");
            Expect.Equal(5, drive.KindsAtReturn.Count(k => k == EventKind.TextDelta), "five text deltas (the rounds' separator included)");
            Expect.Equal(1, drive.KindsAtReturn.Count(k => k == EventKind.ToolEnd), "one tool end");
            Expect.True(drive.EventThreads.All(t => t != drive.CallerThread), "thread delivery calls back on a library thread");
        }

        [Test]
        private static void InlineDeliveryCallsBackOnTheDrivingThread()
        {
            var drive = ToolTurn(Delivery.Inline, true);
            Expect.Equal("Done.", drive.Result.Response, "response");
            Expect.Equal("complete", drive.Result.StopReason, "stop reason");
            Expect.True(ReferenceEquals(drive.Raised, drive.Result), "TurnCompleted ran during the call");
            Expect.True(drive.EventThreads.Count > 0, "events were delivered");
            Expect.Equal(string.Empty, string.Join(",", drive.EventThreads.Where(t => t != drive.CallerThread)), "threads other than the caller's " + drive.CallerThread);
            Expect.Equal(drive.CallerThread.ToString(), string.Join(",", drive.ToolThreads), "the tool handler ran on the calling thread");
            // The same session type through RunAsync calls back on a library worker.
            var run = ToolTurn(Delivery.Inline, false);
            Expect.Equal("Done.", run.Result.Response, "RunAsync response");
            Expect.True(run.EventThreads.All(t => t != run.CallerThread), "RunAsync's inline callbacks on a library worker");
            Expect.Equal(string.Join(",", run.KindsAtReturn), string.Join(",", drive.KindsAtReturn), "the same events as RunAsync");
        }

        [Test]
        private static void DriveOverHttpAgainstTheFakeServer()
        {
            using (var fake = new FakeServer())
            using (var rt = fake.Runtime())
            {
                fake.Send("{\"cmd\":\"enqueue\",\"kind\":\"openai\",\"text\":[\"Hel\",\"lo\"],\"tools\":[[\"call_1\",\"lookup\",\"{\\\"key\\\":\\\"h\\\"}\"]],\"usage\":[10,5]}");
                fake.Send("{\"cmd\":\"enqueue\",\"kind\":\"openai\",\"text\":[\"Found \",\"it.\"],\"usage\":[12,4]}");
                fake.Send("{\"cmd\":\"enqueue\",\"kind\":\"openai\",\"text\":[\"Again.\"],\"usage\":[20,2]}");
                string key = null;
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    key = (string)call.Arguments["key"];
                    return new Dictionary<string, object> { { "found", true } };
                });
                using (var s = rt.CreateSession(new SessionConfig("fake", "gpt-test") { Delivery = Delivery.Inline }))
                {
                    var rec = new Recorder(s);
                    var me = Thread.CurrentThread.ManagedThreadId;
                    var r = s.Drive("find h");
                    Expect.Equal("Found it.", r.Response, "response");
                    Expect.Equal("complete", r.StopReason, "stop reason");
                    Expect.Equal(22L, (long)r.Usage["input_tokens"], "usage.input_tokens, both rounds");
                    Expect.Equal(9L, (long)r.Usage["output_tokens"], "usage.output_tokens, both rounds");
                    Expect.Equal("h", key, "tool arguments from the wire");
                    Expect.Equal("Hello\n\nFound it.", rec.Text, "streamed text, all delivered when Drive returned");
                    Expect.Equal(EventKind.TurnCompleted, rec.Kinds.Last(), "TURN_COMPLETED delivered last");
                    Expect.Equal("success", rec.Of(EventKind.ToolEnd)[0].GetString("result"), "tool_end");
                    Expect.True(rec.Threads.All(t => t == me), "inline delivery on the calling thread over HTTP");

                    var again = s.Drive("again");
                    Expect.Equal("Again.", again.Response, "second response");
                    Expect.Equal(r.TurnId + 1, again.TurnId, "second turn id");
                    Expect.Equal(20L, (long)again.Usage["input_tokens"], "second usage");

                    var requests = (List<object>)fake.Send("{\"cmd\":\"requests\"}")["requests"];
                    Expect.Equal(3, requests.Count, "three model requests");
                    var second = (Dictionary<string, object>)requests[1];
                    Expect.Equal("/v1/chat/completions", (string)second["path"], "endpoint");
                    var body = second["body"] as string ?? Json.Serialize(second["body"]);
                    Expect.Contains(body, "{\\\"found\\\":true}", "the tool result went back to the model");
                    Expect.Contains(body, "\"tool_call_id\":\"call_1\"", "answering the model's call id");
                }
            }
        }

        [Test]
        private static void AnAbortFromAnotherThreadMakesDriveThrowAborted()
        {
            foreach (var delivery in new[] { Delivery.Thread, Delivery.Inline })
            {
                using (var rt = Fixtures.Runtime("[{\"deltas\":[\"part\",\"ial\"],\"hang\":true}]"))
                using (var s = rt.CreateSession(Fixtures.Session(delivery)))
                {
                    var rec = new Recorder(s);
                    Exception aborterFailure = null;
                    var aborter = new Thread(() =>
                    {
                        try
                        {
                            rec.WaitFor(EventKind.TextDelta, 2);
                            s.Abort();
                        }
                        catch (Exception e)
                        {
                            aborterFailure = e;
                        }
                    });
                    aborter.Start();
                    var ex = Expect.Fails(RobotaStatus.Aborted, () => s.Drive("stall"), "was aborted");
                    aborter.Join();
                    Expect.True(aborterFailure == null, "the aborter: " + aborterFailure);
                    Expect.Equal("turn 1 was aborted", ex.Message, delivery + ": the library's message");
                    var done = rec.Of(EventKind.TurnCompleted);
                    Expect.Equal(1, done.Count, delivery + ": TURN_COMPLETED delivered before Drive threw");
                    Expect.Equal(1UL, done[0].TurnId, "its turn");
                    Expect.Equal("aborted", done[0].GetString("stop_reason"), "stop reason");
                    Expect.Equal("partial", done[0].GetString("response"), "partial response");
                    // The session stays usable.
                    var next = s.Drive("again");
                    Expect.Equal("offline:again", next.Response, delivery + ": next turn");
                    Expect.Equal(2UL, next.TurnId, "next turn id");
                }
            }
        }

        [Test]
        private static void AProviderFailureThrowsTheProviderError()
        {
            using (var rt = Fixtures.Runtime("[{\"error\":{\"kind\":\"rate_limit\",\"message\":\"slow down\"}}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var rec = new Recorder(s);
                var e = Expect.Fails(RobotaStatus.Provider, () => s.Drive("x"), "slow down");
                Expect.Equal("RATE_LIMIT_ERROR", e.ErrorCode, "taxonomy code: " + e.Details);
                Expect.Equal("provider", e.Category, "category: " + e.Details);
                Expect.True(e.Recoverable, "a rate limit is recoverable");
                Expect.Equal(1, rec.Count(EventKind.TurnCompleted), "TURN_COMPLETED delivered before Drive threw");
                Expect.Equal("error", rec.Of(EventKind.TurnCompleted)[0].GetString("stop_reason"), "stop reason");
            }
            using (var fake = new FakeServer())
            using (var rt = fake.Runtime())
            {
                fake.Send("{\"cmd\":\"enqueue_error\",\"status\":401,\"body\":\"{\\\"error\\\":{\\\"message\\\":\\\"bad key\\\"}}\"}");
                using (var s = rt.CreateSession(new SessionConfig("fake", "gpt-test")))
                {
                    var e = Expect.Fails(RobotaStatus.Provider, () => s.Drive("x"), "returned HTTP 401: bad key");
                    Expect.Equal("user", e.Category, "category");
                    Expect.Equal("AUTHENTICATION_ERROR", e.ErrorCode, "taxonomy code");
                    Expect.True(!e.Recoverable, "a bad key is not recoverable");
                }
            }
        }

        [Test]
        private static void RefusedCallsThrowTheLibraryStatus()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\"],\"hang\":true}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var rec = new Recorder(s);
                RobotaException inside = null;
                s.TurnStarted += (sender, e) =>
                {
                    try
                    {
                        s.Drive("inside");
                    }
                    catch (RobotaException ex)
                    {
                        inside = ex;
                    }
                };
                var t1 = s.Submit("first");
                rec.WaitFor(EventKind.TextDelta);
                Expect.True(inside != null, "Drive inside a handler threw RobotaException");
                Expect.Equal(RobotaStatus.Reentrant, inside.Code, "inside a handler");
                Expect.Equal("robota_session_run was called from inside a callback", inside.Message, "the library's message");
                var t2 = s.Submit("queued");
                Expect.Equal(t1 + 1, t2, "queued turn id");
                var busy = Expect.Fails(RobotaStatus.Busy, () => s.Drive("third"), "already queued");
                Expect.Equal(RobotaStatus.Busy, busy.Code, "busy");
                s.Abort();
                Expect.Equal(RobotaStatus.Aborted, s.Wait(t1, 30000), "aborted");
                s.Close();
                rec.WaitFor(EventKind.SessionClosed);
                Expect.Fails(RobotaStatus.Closed, () => s.Drive("late"), "closed");
            }
            var disposed = Fixtures.Runtime("[]").CreateSession(Fixtures.Session());
            disposed.Dispose();
            Expect.Throws<ObjectDisposedException>(() => disposed.Drive("x"), "Drive on a disposed session");
            disposed.Runtime.Dispose();
        }

        [Test]
        private static void DriveBehindARunningTurnIsQueuedAndReturnsItsOwnTurn()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"q\"}")))
            {
                var release = new System.Threading.Tasks.TaskCompletionSource<object>();
                var started = new Signal();
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    started.Set();
                    return release.Task;
                });
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    var rec = new Recorder(s);
                    var first = s.RunAsync("first");
                    started.Wait("the first turn's tool call");
                    TurnResult driven = null;
                    Exception failure = null;
                    var driver = new Thread(() =>
                    {
                        try
                        {
                            driven = s.Drive("second");
                        }
                        catch (Exception e)
                        {
                            failure = e;
                        }
                    });
                    driver.Start();
                    // The driver's prompt is queued behind the first turn: wait for the state to say so.
                    var deadline = DateTime.UtcNow.AddSeconds(60);
                    while (Json.GetUInt64(s.State(), "queued_turn") != 2UL)
                    {
                        Expect.True(DateTime.UtcNow < deadline && driver.IsAlive, "the driven prompt was queued");
                        Thread.Yield();
                    }
                    release.SetResult("released");
                    var r1 = Expect.Await(first, "the first turn");
                    driver.Join();
                    Expect.True(failure == null, "Drive: " + failure);
                    Expect.Equal("Done.", r1.Response, "the first turn's response");
                    Expect.Equal(1UL, r1.TurnId, "the first turn");
                    Expect.Equal(2UL, driven.TurnId, "Drive returns its own turn");
                    Expect.Equal("offline:second", driven.Response, "its own response");
                    Expect.Equal(2, rec.Count(EventKind.TurnCompleted), "both turns were delivered when Drive returned");
                }
            }
        }

        [Test]
        private static void PumpDeliveryHandsTheTurnOverOnTheDrivingThread()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\",\"b\",\"c\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session(Delivery.Pump)))
            {
                var rec = new Recorder(s);
                var me = Thread.CurrentThread.ManagedThreadId;
                var r = s.Drive("x");
                Expect.Equal("abc", r.Response, "response");
                Expect.Equal("complete", r.StopReason, "stop reason");
                Expect.Equal("abc", rec.Text, "deltas dispatched before Drive returned");
                Expect.Equal(EventKind.TurnCompleted, rec.Kinds.Last(), "TURN_COMPLETED last");
                Expect.True(rec.Threads.All(t => t == me), "handlers ran on the driving thread");
                Expect.Equal(0, s.Dispatch(0, 0), "nothing left to dispatch");
            }
        }

        [Test]
        private static void PumpDeliveryWithAHostToolNeedsAPumpingThreadMeanwhile()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"p\"}")))
            {
                var toolThreads = new List<int>();
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    lock (toolThreads) toolThreads.Add(Thread.CurrentThread.ManagedThreadId);
                    return "pumped:" + call.Arguments["key"];
                });
                using (var s = rt.CreateSession(Fixtures.Session(Delivery.Pump)))
                {
                    var rec = new Recorder(s);
                    var stop = new CancellationTokenSource();
                    var pumperId = 0;
                    Exception pumpFailure = null;
                    var pumper = new Thread(() =>
                    {
                        pumperId = Thread.CurrentThread.ManagedThreadId;
                        try
                        {
                            while (!stop.IsCancellationRequested)
                            {
                                s.Dispatch(0, 50);
                            }
                        }
                        catch (Exception e)
                        {
                            pumpFailure = e;
                        }
                    });
                    pumper.Start();
                    TurnResult r;
                    try
                    {
                        r = s.Drive("pump it");
                    }
                    finally
                    {
                        stop.Cancel();
                        pumper.Join();
                    }
                    Expect.True(pumpFailure == null, "the pumper: " + pumpFailure);
                    Expect.Equal("Done.", r.Response, "response");
                    Expect.Equal(1, rec.Count(EventKind.TurnCompleted), "TURN_COMPLETED routed before Drive returned");
                    Expect.Equal("Calling.\n\nDone.", rec.Text, "text");
                    lock (toolThreads) Expect.Equal(pumperId.ToString(), string.Join(",", toolThreads), "the tool call was dispatched by the pumping thread");
                    Expect.Contains(s.MessagesJson(), "\"role\":\"tool\",\"content\":\"pumped:p\"", "the tool's answer in history");
                }
            }
        }

        [Test]
        private static void PullDeliveryRoutesTheTurnThroughNextEventOnTheDrivingThread()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"pu\",\"ll\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session(Delivery.Pull)))
            {
                var rec = new Recorder(s);
                var me = Thread.CurrentThread.ManagedThreadId;
                var r = s.Drive("x");
                Expect.Equal("pull", r.Response, "response");
                Expect.Equal("pull", rec.Text, "deltas routed to the handlers before Drive returned");
                Expect.Equal(EventKind.TurnStarted, rec.Kinds.First(), "first event");
                Expect.Equal(EventKind.TurnCompleted, rec.Kinds.Last(), "TURN_COMPLETED last");
                Expect.True(rec.Threads.All(t => t == me), "routed on the driving thread");
                Expect.True(s.NextEvent(0) == null, "the turn's events were all read");
            }
        }
    }
}
