using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace Robota.Tests
{
    /// <summary>Host-supplied providers: a model written in C# behind <see cref="IModelProvider"/>.</summary>
    internal static class ProviderTests
    {
        /// <summary>Answers call N with round N of a script; records every request and the thread it ran on.</summary>
        internal sealed class Scripted : IModelProvider
        {
            private readonly Action<ModelRequest, IModelStream, CancellationToken>[] rounds;
            internal readonly List<ModelRequest> Requests = new List<ModelRequest>();
            internal readonly List<int> Threads = new List<int>();

            internal Scripted(params Action<ModelRequest, IModelStream, CancellationToken>[] rounds)
            {
                this.rounds = rounds;
            }

            public void Stream(ModelRequest request, IModelStream stream, CancellationToken cancellationToken)
            {
                int i;
                lock (Requests)
                {
                    i = Requests.Count;
                    Requests.Add(request);
                    Threads.Add(Thread.CurrentThread.ManagedThreadId);
                }
                if (i >= rounds.Length)
                {
                    throw new InvalidOperationException("unexpected model call " + (i + 1));
                }
                rounds[i](request, stream, cancellationToken);
            }

            internal ModelRequest Request(int i)
            {
                lock (Requests)
                {
                    return Requests[i];
                }
            }

            internal int Calls
            {
                get
                {
                    lock (Requests)
                    {
                        return Requests.Count;
                    }
                }
            }
        }

        internal static RobotaRuntime Runtime() => new RobotaRuntime(new RuntimeConfig());

        internal static SessionConfig Session(Delivery delivery = Delivery.Thread, params string[] tools)
        {
            var c = new SessionConfig("local", "tiny-1") { Delivery = delivery };
            if (tools.Length > 0)
            {
                c.Tools = new List<string>(tools);
            }
            return c;
        }

        /// <summary>One line per message: role, text, tool calls, and what a tool message answers.</summary>
        internal static string Describe(ModelRequest r) => string.Join("\n", r.Messages.Select(m =>
            m.Role + ":" + m.Text +
            string.Concat(m.ToolCalls.Select(c => " ->" + c.Id + "=" + c.Name + c.ArgumentsJson)) +
            (m.Role == "tool" ? " <-" + m.ToolCallId + "=" + m.ToolName + (m.IsError ? " error" : "") : "")));

        [Test]
        private static void TwoToolRoundsRunOnACSharpProvider()
        {
            using (var rt = Runtime())
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call => "value of " + call.Arguments["key"]);
                string taken = null;
                var secondRound = new Signal();
                var p = new Scripted(
                    (r, s, ct) =>
                    {
                        s.Text("Looking a up.");
                        s.ToolCall("call_a", "lookup", "{\"key\":\"a\"}");
                        s.Done();
                    },
                    (r, s, ct) => new Thread(() =>
                    {
                        // Answered later, from a thread of the host's own.
                        taken = s.ToolCall("call_b", "lookup", "{\"key\":\"b\"}") + "," + s.Done("tool_use") + "," + s.Text("late");
                        secondRound.Set();
                    }).Start(),
                    (r, s, ct) =>
                    {
                        s.Text("a and b ");
                        s.Text("found.");
                        s.Usage(120, 7);
                        s.Done();
                    });
                rt.RegisterProvider("local", new ProviderCapabilities { Models = new List<string> { "tiny-1" }, ContextWindow = 8192 }, p);
                using (var s = rt.CreateSession(Session(Delivery.Thread, "lookup")))
                {
                    var rec = new Recorder(s);
                    var result = Expect.Await(s.RunAsync("find a and b"), "RunAsync");
                    Expect.Equal("complete", result.StopReason, "stop reason");
                    Expect.Equal("a and b found.", result.Response, "response");
                    Expect.Equal(3, p.Calls, "model calls");
                    secondRound.Wait("the second round's thread");
                    Expect.Equal("True,True,False", taken, "tool call and done taken, a push after the end refused");
                    Expect.Equal("Looking a up.\n\na and b found.", rec.Text, "streamed text (the library separates the rounds)");
                    Expect.Equal(2, rec.Count(EventKind.ToolEnd), "tool runs");
                    var first = p.Request(0);
                    Expect.Equal("local", first.Provider, "provider");
                    Expect.Equal("tiny-1", first.Model, "model");
                    Expect.Equal(1, first.Attempt, "attempt");
                    Expect.Equal("auto", first.ToolChoice, "tool choice");
                    Expect.Equal("lookup|Looks a key up", string.Join(",", first.Tools.Select(t => t.Name + "|" + t.Description)), "tools offered");
                    Expect.Equal(Json.Serialize(Json.Parse(Fixtures.LookupSchema)), Json.Serialize(Json.Parse(first.Tools[0].InputSchemaJson)), "tool schema");
                    Expect.Equal(s.SessionId, first.SessionId, "session id");
                    Expect.Equal("user:find a and b", Describe(first), "round 1 messages");
                    Expect.Equal(
                        "user:find a and b\n" +
                        "assistant:Looking a up. ->call_a=lookup{\"key\":\"a\"}\n" +
                        "tool:value of a <-call_a=lookup",
                        Describe(p.Request(1)), "round 2 sees the tool result");
                    Expect.Equal(
                        "user:find a and b\n" +
                        "assistant:Looking a up. ->call_a=lookup{\"key\":\"a\"}\n" +
                        "tool:value of a <-call_a=lookup\n" +
                        "assistant: ->call_b=lookup{\"key\":\"b\"}\n" +
                        "tool:value of b <-call_b=lookup",
                        Describe(p.Request(2)), "round 3 sees both");
                    Expect.True(p.Request(0).CallId != 0 && p.Request(1).CallId != p.Request(0).CallId && p.Request(2).CallId != p.Request(1).CallId, "distinct call ids");
                    var history = s.MessagesJson();
                    Expect.Contains(history, "\"content\":\"a and b found.\"", "final answer in history");
                    Expect.Contains(history, "\"content\":\"value of b\"", "second tool result in history");
                }
            }
        }

        [Test]
        private static void StreamedToolCallAndThinking()
        {
            using (var rt = Runtime())
            {
                var seen = new List<string>();
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    lock (seen) seen.Add(call.ArgumentsJson);
                    return "found";
                });
                var p = new Scripted(
                    (r, s, ct) =>
                    {
                        s.Thinking("pondering");
                        s.ToolCallStart("call_s", "lookup");
                        s.ToolCallDelta("call_s", "{\"ke");
                        s.ToolCallDelta("call_s", "y\":\"s\"}");
                        s.ToolCallEnd("call_s");
                        s.Done();
                    },
                    (r, s, ct) =>
                    {
                        s.Text("ok");
                        s.Done("end_turn");
                    });
                rt.RegisterProvider("local", null, p);
                using (var s = rt.CreateSession(Session(Delivery.Thread, "lookup")))
                {
                    var rec = new Recorder(s);
                    var result = Expect.Await(s.RunAsync("look s up"), "RunAsync");
                    Expect.Equal("ok", result.Response, "response");
                    Expect.Equal("pondering", string.Concat(rec.Of(EventKind.ThinkingDelta).Select(e => e.Text)), "thinking");
                    Expect.Equal("{\"key\":\"s\"}", string.Join(",", seen), "the fragments joined are the arguments");
                    Expect.Equal("user:look s up\nassistant: ->call_s=lookup{\"key\":\"s\"}\ntool:found <-call_s=lookup", Describe(p.Request(1)), "round 2");
                }
            }
        }

        [Test]
        private static void TextDeltasStreamInOrderFromAnAsyncProvider()
        {
            using (var rt = Runtime())
            {
                var pushed = Enumerable.Range(0, 40).Select(i => "t" + i + " ").ToList();
                rt.RegisterProvider("local", null, async (request, stream, ct) =>
                {
                    await Task.Yield();
                    foreach (var t in pushed)
                    {
                        stream.Report(t); // IProgress<string>: a text delta
                    }
                    // The task's end is the call's end (Done).
                });
                using (var s = rt.CreateSession(Session()))
                {
                    var rec = new Recorder(s);
                    var result = Expect.Await(s.RunAsync("count"), "RunAsync");
                    Expect.Equal(string.Concat(pushed), result.Response, "response");
                    Expect.Equal(string.Join("|", pushed), string.Join("|", rec.Of(EventKind.TextDelta).Select(e => e.Text)), "deltas, one event each, in order");
                    Expect.Equal(EventKind.TurnCompleted, rec.Kinds.Last(), "turn completed last");
                }
            }
        }

        [Test]
        private static void AbortMidStreamCancelsTheCallOnce()
        {
            using (var rt = Runtime())
            {
                var cancels = 0;
                var lateTaken = true;
                string reason = null;
                var cancelled = new Signal();
                var p = new Scripted(
                    (r, s, ct) =>
                    {
                        s.Text("partial");
                        ct.Register(() =>
                        {
                            Interlocked.Increment(ref cancels);
                            reason = s.CancelReason;
                            lateTaken = s.Text("too late");
                            cancelled.Set();
                        });
                        // Never ends by itself: only the abort ends this call.
                    },
                    (r, s, ct) =>
                    {
                        s.Text("second turn");
                        s.Done();
                    });
                rt.RegisterProvider("local", null, p);
                using (var s = rt.CreateSession(Session()))
                {
                    var rec = new Recorder(s);
                    var task = s.RunAsync("stream then hang");
                    rec.WaitFor(EventKind.TextDelta);
                    s.Abort();
                    var result = Expect.Await(task, "the aborted turn");
                    Expect.True(result.IsAborted, "turn aborted, got " + result.StopReason);
                    cancelled.Wait("the provider's cancellation");
                    Expect.True(!lateTaken, "a push after the cancellation is refused");
                    Expect.Equal("aborted", reason, "cancel reason");
                    Expect.Equal("partial", rec.Text, "streamed before the abort");
                    // The session goes on; the aborted call is not cancelled again.
                    var next = Expect.Await(s.RunAsync("again"), "second turn");
                    Expect.Equal("second turn", next.Response, "second response");
                    Expect.Equal(1, Volatile.Read(ref cancels), "cancellations seen by the host's code");
                    Expect.Equal(2, p.Calls, "model calls (no retry of the aborted one)");
                    Expect.Equal("user:stream then hang\nassistant:partial\n\n[This response was interrupted by the user]\nuser:again", Describe(p.Request(1)), "history after the abort");
                }
            }
        }

        [Test]
        private static void DisposingTheSessionCancelsItsCall()
        {
            using (var rt = Runtime())
            {
                var started = new Signal();
                var cancelled = new Signal();
                string reason = null;
                var p = new Scripted((r, s, ct) =>
                {
                    ct.Register(() =>
                    {
                        reason = s.CancelReason;
                        cancelled.Set();
                    });
                    started.Set();
                });
                rt.RegisterProvider("local", null, p);
                var session = rt.CreateSession(Session());
                var task = session.RunAsync("hi");
                started.Wait("the model call");
                session.Dispose();
                cancelled.Wait("the cancellation of the call");
                Expect.Equal("session_closed", reason, "cancel reason");
                Expect.Throws<ObjectDisposedException>(() => task.Wait(), "the waiting turn");
            }
        }

        [Test]
        private static void PumpSessionStartsACallDuringABlockingDispatch()
        {
            var main = Thread.CurrentThread.ManagedThreadId;
            using (var rt = Runtime())
            {
                var p = new Scripted((r, s, ct) => new Thread(() =>
                {
                    s.Text("from a worker");
                    s.Done();
                }).Start());
                rt.RegisterProvider("local", null, p);
                using (var s = rt.CreateSession(Session(Delivery.Pump)))
                {
                    var task = s.RunAsync("hi");
                    // Dispatch waits without a timeout: the queued call must start inside it
                    // (no event comes before the provider answers).
                    while (!task.IsCompleted)
                    {
                        s.Dispatch(0, -1);
                    }
                    Expect.Equal("from a worker", task.Result.Response, "response");
                    Expect.Equal(main.ToString(), string.Join(",", p.Threads), "Stream ran inside Dispatch");
                }
            }
        }

        [Test]
        private static void DriveOnThePumpThreadIsRefusedWithAHostProvider()
        {
            using (var rt = Runtime())
            {
                var p = new Scripted();
                rt.RegisterProvider("local", null, p);
                using (var s = rt.CreateSession(Session(Delivery.Pump)))
                {
                    s.Dispatch(0, 0); // this thread is the pump loop now
                    var e = Expect.Throws<InvalidOperationException>(() => s.Drive("x"), "Drive on the pump thread");
                    Expect.Contains(e.Message, "would block the pump loop: host providers are registered", "message");
                    Expect.Equal(0L, s.GetState().MessageCount, "nothing was submitted");
                    Expect.Equal(0, p.Calls, "no model call");
                }
            }
        }

        [Test]
        private static void ContextProviderRunsOnTheContextsThread()
        {
            var main = Thread.CurrentThread.ManagedThreadId;
            var context = new QueueContext();
            using (var rt = Runtime())
            {
                var p = new Scripted((r, s, ct) =>
                {
                    s.Text("on the main thread");
                    s.Done();
                });
                rt.RegisterProvider("local", null, p, context);
                using (var s = rt.CreateSession(Session()))
                {
                    var task = s.RunAsync("hi");
                    task.ContinueWith(t => context.Post(_ => { }, null)); // wakes the loop below
                    context.RunUntil(() => task.IsCompleted, "the turn");
                    Expect.Equal("on the main thread", task.Result.Response, "response");
                    Expect.Equal(main.ToString(), string.Join(",", p.Threads), "Stream ran on the context's thread");
                }
            }
        }

        [Test]
        private static void QueryRunsOnTheHostProvider()
        {
            using (var rt = Runtime())
            {
                var p = new Scripted((r, s, ct) =>
                {
                    s.Text("pong");
                    s.Done();
                });
                rt.RegisterProvider("local", null, p);
                var result = rt.Query(Session(), "ping");
                Expect.Equal("pong", Json.GetString(result, "response"), "response");
                Expect.Equal("user:ping", Describe(p.Request(0)), "request");
            }
        }
    }
}
