using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Robota.Tests
{
    /// <summary>A SynchronizationContext that queues work items for one test thread (a Unity main thread stand-in).</summary>
    internal sealed class QueueContext : SynchronizationContext
    {
        private readonly Queue<KeyValuePair<SendOrPostCallback, object>> items = new Queue<KeyValuePair<SendOrPostCallback, object>>();

        public override void Post(SendOrPostCallback d, object state)
        {
            lock (items)
            {
                items.Enqueue(new KeyValuePair<SendOrPostCallback, object>(d, state));
                Monitor.PulseAll(items);
            }
        }

        /// <summary>Runs queued work items on the calling thread until <paramref name="done"/> holds.</summary>
        internal void RunUntil(Func<bool> done, string what)
        {
            var deadline = DateTime.UtcNow.AddSeconds(60);
            while (!done())
            {
                KeyValuePair<SendOrPostCallback, object> item;
                lock (items)
                {
                    while (items.Count == 0)
                    {
                        var left = deadline - DateTime.UtcNow;
                        if (left <= TimeSpan.Zero || !Monitor.Wait(items, left))
                        {
                            throw new Exception("timed out waiting for " + what);
                        }
                    }
                    item = items.Dequeue();
                }
                item.Key(item.Value);
            }
        }
    }

    /// <summary>Unity helpers: events on a captured context, Drive refused where it would block the pump loop.</summary>
    internal static class ContextTests
    {
        [Test]
        private static void EventsAndRequestsArriveOnTheContextInOrder()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k\"}")))
            {
                rt.RegisterTool(Fixtures.WriteTool(), call => "found");
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    var ctx = new QueueContext();
                    var rec = new Recorder(s);
                    var me = Thread.CurrentThread.ManagedThreadId;
                    var seen = new List<EventKind>();
                    var threads = new List<int>();
                    TurnResult done = null;
                    using (var posted = s.PostEventsTo(ctx))
                    {
                        posted.EventReceived += (o, e) => { seen.Add(e.Kind); threads.Add(Thread.CurrentThread.ManagedThreadId); };
                        posted.PermissionRequested += (o, r) =>
                        {
                            threads.Add(Thread.CurrentThread.ManagedThreadId);
                            Expect.Equal("lookup", r.ToolName, "tool");
                            r.Allow();
                        };
                        posted.TurnCompleted += (o, r) => done = r;
                        s.Submit("go");
                        ctx.RunUntil(() => done != null, "the turn on the context");
                    }
                    Expect.Equal("Done.", done.Response, "response");
                    Expect.True(threads.All(t => t == me), "every handler ran on the context's thread");
                    Expect.Equal(string.Join(",", rec.Kinds), string.Join(",", seen), "the same events in the same order");
                    Expect.Contains(s.MessagesJson(), "\"content\":\"found\"", "allowed on the context thread");
                }
            }
        }

        [Test]
        private static void ACommandRequestIsAnsweredOnTheContext()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"shipping\"]}]"))
            {
                var cfg = Fixtures.Session();
                cfg.Tools = new List<string>();
                cfg.Commands = new List<HostCommand> { new HostCommand { Name = "deploy", Description = "Ship it" } };
                using (var s = rt.CreateSession(cfg))
                {
                    var ctx = new QueueContext();
                    var me = Thread.CurrentThread.ManagedThreadId;
                    var handlerThread = 0;
                    TurnResult done = null;
                    using (var posted = s.PostEventsTo(ctx))
                    {
                        posted.CommandRequested += (o, c) =>
                        {
                            handlerThread = Thread.CurrentThread.ManagedThreadId;
                            Expect.Equal("prod", c.Args, "args");
                            Expect.True(c.Prompt("Ship " + c.Args + " now."), "prompt accepted");
                        };
                        posted.TurnCompleted += (o, r) => done = r;
                        s.Submit("/deploy prod");
                        ctx.RunUntil(() => done != null, "the command's turn on the context");
                    }
                    Expect.Equal(me, handlerThread, "the command handler ran on the context's thread");
                    Expect.Equal("shipping", done.Response, "the turn ran");
                    Expect.Contains(s.MessagesJson(), "Ship prod now.", "the host's prompt was the turn");
                }
            }
        }

        [Test]
        private static void AToolHandlerRunsOnTheContext()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k\"}")))
            {
                var ctx = new QueueContext();
                var me = Thread.CurrentThread.ManagedThreadId;
                var handlerThread = 0;
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    handlerThread = Thread.CurrentThread.ManagedThreadId;
                    return "main:" + call.Arguments["key"];
                }, ctx);
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    var turn = s.RunAsync("go");
                    ctx.RunUntil(() => handlerThread != 0, "the handler on the context");
                    Expect.Equal("Done.", Expect.Await(turn, "RunAsync").Response, "response");
                    Expect.Equal(me, handlerThread, "the handler ran on the context's thread");
                    Expect.Contains(s.MessagesJson(), "\"content\":\"main:k\"", "its result");
                }
            }
        }

        [Test]
        private static void CurrentContextIsRequired()
        {
            using (var rt = Fixtures.Runtime("[]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                SynchronizationContext.SetSynchronizationContext(null);
                var e = Expect.Throws<InvalidOperationException>(() => s.PostEventsToCurrentContext(), "no context");
                Expect.Contains(e.Message, "this thread has no SynchronizationContext", "message");
            }
        }

        [Test]
        private static void DriveOnThePumpThreadIsRefusedWhenTheTurnCanAskTheHost()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"ok\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session(Delivery.Pump)))
            {
                s.Dispatch(0, 0); // this thread is the pump loop now
                s.PermissionRequested += (o, r) => r.Allow();
                var e = Expect.Throws<InvalidOperationException>(() => s.Drive("x"), "Drive on the pump thread");
                Expect.Contains(e.Message, "Drive on the thread that pumps this session (it calls Dispatch) would block the pump loop: request handlers are subscribed", "message");
                Expect.Equal(0L, s.GetState().MessageCount, "nothing was submitted");
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call => "x");
                e = Expect.Throws<InvalidOperationException>(() => s.Drive("x"), "with host tools");
                Expect.Contains(e.Message, "host tools are registered", "message");
                // Another thread may drive: this thread keeps pumping meanwhile.
                var driven = System.Threading.Tasks.Task.Run(() => s.Drive("x"));
                while (!driven.IsCompleted)
                {
                    try
                    {
                        s.Dispatch(0, 20);
                    }
                    catch (RobotaBusyException)
                    {
                        // Drive hands its turn over itself once it ended.
                    }
                }
                Expect.Equal("ok", driven.Result.Response, "driven off the pump thread");
            }
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"ok\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session(Delivery.Pump)))
            {
                s.Dispatch(0, 0);
                Expect.Equal("ok", s.Drive("x").Response, "a turn that cannot ask the host drives on the pump thread");
            }
        }

        [Test]
        private static void TypedResultAndState()
        {
            using (var rt = Fixtures.Runtime("[{\"text\":\"Calling.\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"lookup\",\"arguments\":{\"key\":\"k\"}}],\"usage\":{\"input_tokens\":10,\"output_tokens\":3}},{\"deltas\":[\"Done.\"],\"usage\":{\"input_tokens\":12,\"output_tokens\":6}}]"))
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call => "found");
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    var r = s.Drive("go");
                    Expect.Equal("complete", r.StopReason, "stop reason");
                    Expect.Equal("Done.", r.Text, "text");
                    Expect.Equal(22L, r.Usage.InputTokens, "input tokens");
                    Expect.Equal(9L, r.Usage.OutputTokens, "output tokens");
                    Expect.Equal(31L, r.Usage.TotalTokens, "total tokens");
                    Expect.Equal(22L, (long)r.Usage["input_tokens"], "raw member");
                    Expect.Equal(1, r.ToolCalls.Count, "tool calls");
                    Expect.Equal("lookup", r.ToolCalls[0].Name, "tool name");
                    Expect.Equal("{\"key\":\"k\"}", r.ToolCalls[0].ArgumentsJson, "tool args");
                    Expect.True(r.Context.MaxTokens > 0, "context window");
                    Expect.True(r.Started && !r.IsFailed && !r.IsAborted, "flags");
                    Expect.Equal(null, r.ErrorMessage, "no error");
                    var st = s.GetState();
                    Expect.Equal(s.SessionId, st.SessionId, "session id");
                    Expect.Equal((long)st.Raw["message_count"], st.MessageCount, "messages");
                    Expect.True(st.MessageCount > 0, "messages counted");
                    Expect.Equal("m", st.Model, "model");
                    Expect.Equal("thread", st.Delivery, "delivery");
                    Expect.Equal("default", st.PermissionMode, "permission mode");
                    Expect.True(!st.Executing && st.CurrentTurn == null && st.QueuedTurn == null, "idle");
                    Expect.Equal("s", (string)st["provider"], "raw member");
                }
            }
        }
    }
}
