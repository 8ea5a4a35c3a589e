using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace Robota.Tests
{
    /// <summary>ABI 1.2: REQUEST_CANCELLED cancels handler tokens, results from the library, aborting one turn.</summary>
    internal static class Abi12Tests
    {
        [Test]
        private static void AVoidPermissionRequestCancelsItsToken()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k\"}")))
            {
                rt.RegisterTool(Fixtures.WriteTool(), call => "found");
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    var rec = new Recorder(s);
                    PermissionRequest pending = null;
                    var asked = new Signal();
                    var fired = new Signal();
                    RobotaEvent cancelledEvent = null;
                    s.RequestCancelled += (o, e) => cancelledEvent = e;
                    s.PermissionRequested += (o, r) =>
                    {
                        pending = r;
                        r.CancellationToken.Register(fired.Set);
                        asked.Set(); // answered later: the UI prompt case
                    };
                    var turn = s.RunAsync("go");
                    asked.Wait("the permission request");
                    Expect.True(!pending.CancellationToken.IsCancellationRequested, "not cancelled while pending");
                    s.Abort(pending.Event.TurnId);
                    fired.Wait("the request's token");
                    var r2 = Expect.Await(turn, "RunAsync");
                    Expect.True(r2.IsAborted, "aborted turn");
                    Expect.True(!pending.Allow(), "answering a cancelled request is stale");
                    var kinds = rec.Kinds;
                    var iReq = kinds.IndexOf(EventKind.PermissionRequest);
                    var iCancel = kinds.IndexOf(EventKind.RequestCancelled);
                    var iDone = kinds.IndexOf(EventKind.TurnCompleted);
                    Expect.True(iReq >= 0 && iReq < iCancel && iCancel < iDone, "request, then cancelled, then completed: " + string.Join(",", kinds));
                    var ev = rec.Of(EventKind.RequestCancelled)[0];
                    Expect.Equal(pending.RequestId, Json.GetUInt64(ev.Data, "request_id"), "request id");
                    Expect.Equal("permission", ev.GetString("request_kind"), "request kind");
                    Expect.Equal("aborted", ev.GetString("reason"), "reason");
                    Expect.Equal(ev.Payload, cancelledEvent.Payload, "the RequestCancelled C# event");
                }
            }
        }

        [Test]
        private static void WaitResultReadsTheLibrarysDocument()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"ok\"],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}},{\"error\":{\"kind\":\"provider\",\"message\":\"boom\"}}]"))
            using (var s = rt.CreateSession(Fixtures.Session(Delivery.Pump)))
            {
                // Nobody dispatches this pump session: the result comes from the library.
                var r = Expect.Await(s.RunResultAsync("x"), "RunResultAsync");
                Expect.Equal("ok", r.Text, "text");
                Expect.Equal(6L, r.Usage.TotalTokens, "usage");
                Expect.Equal("ok", s.WaitResult(r.TurnId, 0).Text, "again, by id");
                var e = Expect.Throws<RobotaProviderException>(() => Expect.Await(s.RunResultAsync("y"), "failing"), "failed turn");
                Expect.Contains(e.Message, "boom", "message");
                Expect.Equal("error", e.Result.StopReason, "the document says why");
                Expect.Throws<RobotaInvalidConfigException>(() => s.WaitResult(0), "turn 0");
                Expect.Throws<RobotaNotFoundException>(() => s.WaitResult(999), "never issued");
            }
        }

        [Test]
        private static void CancellingTheRunningTurnLeavesTheQueuedOne()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\"],\"hang\":true},{\"deltas\":[\"next\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            using (var cts = new CancellationTokenSource())
            {
                var rec = new Recorder(s);
                var running = s.RunAsync("first", cts.Token);
                rec.WaitFor(EventKind.TextDelta);
                var queued = s.RunAsync("second");
                cts.Cancel();
                Expect.Throws<OperationCanceledException>(() => running.Wait(), "the running turn is cancelled");
                Expect.Equal("next", Expect.Await(queued, "the queued turn").Response, "the queued turn runs");
            }
        }

        [Test]
        private static void TheUsersMessageComesRightAfterTurnStarted()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"x\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var rec = new Recorder(s);
                Expect.Await(s.RunAsync("hello"), "RunAsync");
                var kinds = rec.Kinds;
                Expect.Equal(EventKind.TurnStarted, kinds[0], "first");
                Expect.Equal(EventKind.Message, kinds[1], "second");
                Expect.Contains(rec.Events[1].Payload, "\"role\":\"user\"", "the user's message");
            }
        }

        [Test]
        private static void AVoidHostIoRequestCancelsItsToken()
        {
            using (var rt = Fixtures.Runtime("[{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"Read\",\"arguments\":{\"filePath\":\"/vfs/a.txt\"}}]}]"))
            {
                var started = new Signal();
                var observed = new Signal();
                ulong ioId = 0;
                rt.SetHostIo(r =>
                {
                    ioId = r.Id;
                    started.Set();
                    if (r.CancellationToken.WaitHandle.WaitOne(TimeSpan.FromSeconds(60)))
                    {
                        observed.Set();
                    }
                    throw new OperationCanceledException(r.CancellationToken);
                });
                var cfg = new SessionConfig("s", "m") { HostIo = true, Cwd = "/vfs", PermissionMode = "bypassPermissions" };
                using (var s = rt.CreateSession(cfg))
                {
                    var rec = new Recorder(s);
                    var turn = s.RunAsync("read");
                    started.Wait("the host I/O request");
                    s.Abort();
                    observed.Wait("the request's token");
                    Expect.True(Expect.Await(turn, "RunAsync").IsAborted, "aborted turn");
                    var ev = rec.Of(EventKind.RequestCancelled).Single();
                    Expect.Equal("host_io", ev.GetString("request_kind"), "request kind");
                    Expect.Equal(ioId, Json.GetUInt64(ev.Data, "request_id"), "request id");
                    Expect.Equal("aborted", ev.GetString("reason"), "reason");
                }
            }
        }

        [Test]
        private static void AVoidHookRequestCancelsItsToken()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k\"}")))
            {
                var calls = 0;
                rt.RegisterTool(Fixtures.ReadOnlyTool(), c => { calls++; return "found"; });
                var cfg = Fixtures.Session();
                cfg.HooksJson = "{\"PreToolUse\":[{\"matcher\":\"\",\"hooks\":[{\"type\":\"host\"}]}]}";
                using (var s = rt.CreateSession(cfg))
                {
                    var rec = new Recorder(s);
                    HookRequest pending = null;
                    var asked = new Signal();
                    var fired = new Signal();
                    s.HookRequested += (o, h) =>
                    {
                        pending = h;
                        h.CancellationToken.Register(fired.Set);
                        asked.Set(); // answered later, or never
                    };
                    var turn = s.RunAsync("go");
                    asked.Wait("the hook request");
                    Expect.True(!pending.CancellationToken.IsCancellationRequested, "not cancelled while pending");
                    s.Abort(pending.Event.TurnId);
                    fired.Wait("the hook request's token");
                    Expect.True(Expect.Await(turn, "RunAsync").IsAborted, "aborted turn");
                    Expect.True(!pending.Pass(), "answering a cancelled hook request is stale");
                    Expect.Equal(0, calls, "the tool never ran");
                    var ev = rec.Of(EventKind.RequestCancelled).Single();
                    Expect.Equal(pending.RequestId, Json.GetUInt64(ev.Data, "request_id"), "request id");
                    Expect.Equal("hook", ev.GetString("request_kind"), "request kind");
                    Expect.Equal("aborted", ev.GetString("reason"), "reason");
                }
            }
        }

        [Test]
        private static void AVoidCommandRequestCancelsItsToken()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"shipping\"]}]"))
            {
                var cfg = Fixtures.Session();
                cfg.Tools = new System.Collections.Generic.List<string>();
                cfg.Commands = new System.Collections.Generic.List<HostCommand>
                {
                    new HostCommand { Name = "deploy", Description = "Ship it" },
                };
                using (var s = rt.CreateSession(cfg))
                {
                    var rec = new Recorder(s);
                    CommandRequest pending = null;
                    var asked = new Signal();
                    var fired = new Signal();
                    s.CommandRequested += (o, c) =>
                    {
                        if (c.Args == "now")
                        {
                            Expect.True(c.Reply("Deployed now."), "reply accepted");
                            return;
                        }
                        pending = c;
                        c.CancellationToken.Register(fired.Set);
                        asked.Set(); // a confirmation dialog, answered later or never
                    };
                    Expect.Equal("Deployed now.", (string)s.Command("deploy", "now")["message"], "typed reply");
                    var turn = s.RunAsync("/deploy prod");
                    asked.Wait("the command request");
                    Expect.Equal("deploy", pending.Name, "name");
                    Expect.Equal("prod", pending.Args, "args");
                    Expect.True(!pending.CancellationToken.IsCancellationRequested, "not cancelled while pending");
                    s.Abort(pending.Event.TurnId);
                    fired.Wait("the command request's token");
                    Expect.True(Expect.Await(turn, "RunAsync").IsAborted, "aborted turn");
                    Expect.True(!pending.Reply("too late"), "answering a cancelled command request is stale");
                    var ev = rec.Of(EventKind.RequestCancelled).Single();
                    Expect.Equal(pending.RequestId, Json.GetUInt64(ev.Data, "request_id"), "request id");
                    Expect.Equal("command", ev.GetString("request_kind"), "request kind");
                    Expect.Equal("aborted", ev.GetString("reason"), "reason");
                }
            }
        }

        [Test]
        private static void CancellingRunResultAsyncAbortsOnlyItsTurn()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\"],\"hang\":true},{\"deltas\":[\"next\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            using (var cts = new CancellationTokenSource())
            {
                var rec = new Recorder(s);
                var running = s.RunResultAsync("first", cts.Token);
                rec.WaitFor(EventKind.TextDelta);
                var queued = s.RunResultAsync("second");
                cts.Cancel();
                Expect.Throws<OperationCanceledException>(() => running.Wait(), "the running turn is cancelled");
                Expect.True(running.IsCanceled, "the task is cancelled, not faulted: " + running.Status);
                Expect.Equal("next", Expect.Await(queued, "the queued turn").Text, "the queued turn runs");
                var before = s.RunResultAsync("never sent", cts.Token);
                Expect.True(before.IsCanceled, "an already-cancelled token gives a cancelled task");
            }
        }
    }
}
