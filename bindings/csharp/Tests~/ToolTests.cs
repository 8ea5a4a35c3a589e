using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Robota.Tests
{
    internal static class ToolTests
    {
        [Test]
        private static void SyncHandlerResultIsTheToolResult()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k1\"}")))
            {
                var seen = new List<string>();
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    lock (seen) seen.Add(call.ToolName + ":" + call.ArgumentsJson + ":" + call.Arguments["key"]);
                    Expect.True(call.Session != null, "the call knows its session");
                    return new Dictionary<string, object> { { "value", 42 } };
                });
                Expect.Fails(RobotaStatus.InvalidConfig, () => rt.RegisterTool(Fixtures.ReadOnlyTool(), c => 1), "tool \"lookup\" is already registered");
                using (var s = rt.CreateSession(Fixtures.Session(Delivery.Thread, "lookup")))
                {
                    var rec = new Recorder(s);
                    var r = Expect.Await(s.RunAsync("find k1"), "RunAsync");
                    Expect.Equal("Done.", r.Response, "response");
                    Expect.Equal("lookup:{\"key\":\"k1\"}:k1", string.Join(",", seen), "one call with the model's arguments");
                    rec.WaitFor(EventKind.TurnCompleted);
                    Expect.Contains(rec.Of(EventKind.ToolEnd)[0].Payload, "\"result\":\"success\"", "tool_end");
                    Expect.Contains(rec.Of(EventKind.ToolEnd)[0].Payload, "\"output\":\"{\\\"value\\\":42}\"", "tool_end output");
                    Expect.Contains(s.MessagesJson(), "\"role\":\"tool\",\"content\":\"{\\\"value\\\":42}\"", "tool result in history");
                    Expect.Equal("lookup", (string)((Dictionary<string, object>)r.ToolSummaries[0])["name"], "tool summary");
                }
            }
        }

        [Test]
        private static void AsyncHandlerCompletedFromAnotherThread()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k2\"}")))
            {
                var pending = new TaskCompletionSource<object>();
                var started = new Signal();
                int callbackThread = 0, completerThread = 0;
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    callbackThread = Thread.CurrentThread.ManagedThreadId;
                    started.Set();
                    return pending.Task;
                });
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    var task = s.RunAsync("find k2");
                    started.Wait("the tool call");
                    Expect.True(!task.IsCompleted, "the turn waits for the tool");
                    var completer = new Thread(() =>
                    {
                        completerThread = Thread.CurrentThread.ManagedThreadId;
                        pending.SetResult("plain text result");
                    });
                    completer.Start();
                    var r = Expect.Await(task, "RunAsync");
                    completer.Join();
                    Expect.Equal("Done.", r.Response, "response");
                    Expect.True(callbackThread != completerThread && completerThread != 0, "completed on another thread");
                    Expect.Contains(s.MessagesJson(), "\"role\":\"tool\",\"content\":\"plain text result\"", "async result in history");
                }
            }
        }

        [Test]
        private static void AsyncLambdaHandlerAwaitsAndReturns()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k3\"}")))
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), async call =>
                {
                    await Task.Yield();
                    return (object)new List<object> { call.Arguments["key"], 7, true, null };
                });
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    Expect.Await(s.RunAsync("go"), "RunAsync");
                    Expect.Contains(s.MessagesJson(), "\"content\":\"[\\\"k3\\\",7,true,null]\"", "list result");
                }
            }
        }

        [Test]
        private static void HandlerlessToolIsAnsweredThroughToolCallRequestedLater()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k4\"}")))
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool());
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    ToolCall got = null;
                    var arrived = new Signal();
                    s.ToolCallRequested += (sender, call) =>
                    {
                        got = call;
                        arrived.Set();
                    };
                    var task = s.RunAsync("k4");
                    arrived.Wait("ToolCallRequested");
                    Expect.Equal("lookup", got.ToolName, "tool name");
                    Expect.Equal("k4", (string)got.Arguments["key"], "arguments");
                    var ok = false;
                    var t = new Thread(() => ok = got.Complete(new JsonRaw("{\"answer\":\"from a thread\"}")));
                    t.Start();
                    t.Join();
                    Expect.True(ok, "Complete accepted");
                    Expect.True(!got.Complete("again"), "a second answer is stale (false)");
                    Expect.Await(task, "RunAsync");
                    Expect.Contains(s.MessagesJson(), "{\\\"answer\\\":\\\"from a thread\\\"}", "raw JSON result");
                    Expect.True(!rt.CompleteToolCall(got.CallId, "{}"), "runtime-level complete of an answered call is stale");
                    Expect.Fails(RobotaStatus.NotFound, () => rt.CompleteToolCall(987654, "{}"), "was never issued");
                }
            }
        }

        [Test]
        private static void ExceptionInSyncHandlerBecomesTheToolsFailure()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"x\"}")))
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), (Func<ToolCall, object>)(call => { throw new InvalidOperationException("boom"); }));
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    var rec = new Recorder(s);
                    var r = Expect.Await(s.RunAsync("go"), "RunAsync");
                    Expect.Equal("Done.", r.Response, "the turn goes on after a failed tool");
                    rec.WaitFor(EventKind.ToolEnd);
                    var end = rec.Of(EventKind.ToolEnd)[0];
                    Expect.Equal("error", end.GetString("result"), "tool_end result");
                    Expect.Contains(end.GetString("output"), "tool handler threw InvalidOperationException: boom", "tool_end output");
                }
            }
        }

        [Test]
        private static void ExceptionInAsyncHandlerBecomesTheToolsFailure()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"x\"}")))
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), async call =>
                {
                    await Task.Yield();
                    throw new ArgumentException("bad key");
                });
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    var rec = new Recorder(s);
                    Expect.Await(s.RunAsync("go"), "RunAsync");
                    rec.WaitFor(EventKind.ToolEnd);
                    Expect.Equal("error", rec.Of(EventKind.ToolEnd)[0].GetString("result"), "tool_end result");
                    Expect.Contains(s.MessagesJson(), "tool handler threw ArgumentException: bad key", "failure in history");
                }
            }
        }

        [Test]
        private static void UnserializableResultBecomesTheToolsFailure()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"x\"}")))
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call => new Thread(() => { }));
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    Expect.Await(s.RunAsync("go"), "RunAsync");
                    Expect.Contains(s.MessagesJson(), "cannot write a value of type System.Threading.Thread as JSON", "failure names the type");
                }
            }
        }

        [Test]
        private static void ExceptionInEventHandlerIsReportedAndDeliveryGoesOn()
        {
            Expect.ExpectingReports = true;
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\",\"b\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                s.TextDelta += (sender, e) => { throw new InvalidOperationException("handler bug " + e.Text); };
                var rec = new Recorder(s);
                Expect.Equal("ab", Expect.Await(s.RunAsync("x"), "RunAsync").Response, "the turn completes");
                rec.WaitFor(EventKind.TurnCompleted);
                Expect.Equal(2, rec.Count(EventKind.TextDelta), "both deltas still delivered");
                lock (Expect.ReportedExceptions)
                {
                    Expect.Equal(2, Expect.ReportedExceptions.Count, "each handler exception reported once");
                    Expect.Contains(Expect.ReportedExceptions[0].Message, "handler bug a", "the reported exception");
                }
            }
        }
    }
}
