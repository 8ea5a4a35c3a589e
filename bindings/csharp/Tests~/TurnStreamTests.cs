using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace Robota.Tests
{
    /// <summary>Per-call streaming: RunAsync's IProgress and the pull-style TurnStream.</summary>
    internal static class TurnStreamTests
    {
        /// <summary>Records reports in order, on the reporting thread (Progress&lt;T&gt; would post them to the pool).</summary>
        private sealed class Collect : IProgress<RobotaEvent>
        {
            internal readonly List<RobotaEvent> Events = new List<RobotaEvent>();

            public void Report(RobotaEvent value)
            {
                lock (Events) Events.Add(value);
            }
        }

        [Test]
        private static void ProgressGetsTheEventsOfItsTurnOnly()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"one\"],\"delay_ms\":20},{\"deltas\":[\"tw\",\"o\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var rec = new Recorder(s);
                var first = s.Submit("first");
                var progress = new Collect();
                var r = Expect.Await(s.RunAsync("second", progress), "RunAsync");
                Expect.Equal("two", r.Response, "response");
                Expect.True(rec.Events.Count(e => e.TurnId == first && e.Kind == EventKind.TextDelta) == 1, "the first turn streamed too");
                List<RobotaEvent> evs;
                lock (progress.Events) evs = new List<RobotaEvent>(progress.Events);
                Expect.True(evs.All(e => e.TurnId == r.TurnId), "only turn " + r.TurnId + ": " + string.Join(",", evs.Select(e => e.TurnId)));
                Expect.Equal(EventKind.TurnStarted, evs.First().Kind, "first");
                Expect.Equal(EventKind.TurnCompleted, evs.Last().Kind, "last");
                Expect.Equal("two", string.Concat(evs.Where(e => e.Kind == EventKind.TextDelta).Select(e => e.Text)), "deltas");
            }
        }

        [Test]
        private static void StreamYieldsTheTurnThenItsResult()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"He\",\"llo\"],\"usage\":{\"input_tokens\":7,\"output_tokens\":2}}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var kinds = new List<EventKind>();
                var text = "";
                using (var turn = s.Stream("hi"))
                {
                    Expect.Throws<InvalidOperationException>(() => { var x = turn.Result; }, "Result before the end");
                    while (turn.MoveNext())
                    {
                        kinds.Add(turn.Current.Kind);
                        Expect.Equal(turn.TurnId, turn.Current.TurnId, "the stream's turn");
                        if (turn.Current.Kind == EventKind.TextDelta) text += turn.Current.Text;
                    }
                    Expect.Equal("Hello", text, "deltas");
                    Expect.Equal(EventKind.TurnStarted, kinds.First(), "first");
                    Expect.Equal(EventKind.TurnCompleted, kinds.Last(), "last");
                    Expect.Equal("Hello", turn.Result.Text, "result");
                    Expect.Equal(7L, turn.Result.Usage.InputTokens, "usage");
                    Expect.True(!turn.MoveNext(), "the end stays the end");
                }
            }
        }

        [Test]
        private static void StreamThrowsTheTurnsFailureFromTheLastStep()
        {
            using (var rt = Fixtures.Runtime("[{\"error\":{\"kind\":\"provider\",\"message\":\"boom\"}}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            using (var turn = s.Stream("x"))
            {
                var kinds = new List<EventKind>();
                var e = Expect.Throws<RobotaProviderException>(() =>
                {
                    while (turn.MoveNext()) kinds.Add(turn.Current.Kind);
                }, "the last step");
                Expect.Contains(e.Message, "boom", "message");
                Expect.Equal(EventKind.Error, kinds[kinds.Count - 2], "ERROR before");
                Expect.Equal(EventKind.TurnCompleted, kinds.Last(), "TURN_COMPLETED was yielded");
            }
        }

        [Test]
        private static void StreamTokenAbortsTheTurnAndDisposeAbortsToo()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\"],\"hang\":true},{\"deltas\":[\"b\"],\"hang\":true}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            using (var cts = new CancellationTokenSource())
            {
                var rec = new Recorder(s);
                using (var turn = s.Stream("x", cts.Token))
                {
                    do Expect.True(turn.MoveNext(), "events"); while (turn.Current.Kind != EventKind.TextDelta);
                    cts.Cancel();
                    Expect.Throws<OperationCanceledException>(() => { while (turn.MoveNext()) { } }, "cancelled");
                    Expect.True(turn.Completion.IsCanceled, "the turn's task is cancelled");
                }
                var second = s.Stream("y");
                Expect.True(Expect.Await(second.NextAsync(), "NextAsync"), "TURN_STARTED");
                Expect.Equal(EventKind.TurnStarted, second.Current.Kind, "first event");
                do Expect.True(Expect.Await(second.NextAsync(), "NextAsync"), "events"); while (second.Current.Kind != EventKind.TextDelta);
                Expect.Equal("b", second.Current.Text, "delta");
                second.Dispose();
                rec.WaitFor(EventKind.TurnCompleted, 2);
                Expect.Equal("aborted", rec.Of(EventKind.TurnCompleted)[1].GetString("stop_reason"), "disposing mid-turn aborts it");
            }
        }

        [Test]
        private static void StreamPumpsAPumpSessionItself()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"pu\",\"mp\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session(Delivery.Pump)))
            {
                var rec = new Recorder(s);
                var me = Thread.CurrentThread.ManagedThreadId;
                using (var turn = s.Stream("x"))
                {
                    var text = "";
                    while (turn.MoveNext(5000))
                    {
                        if (turn.Current.Kind == EventKind.TextDelta) text += turn.Current.Text;
                    }
                    Expect.Equal("pump", text, "text");
                    Expect.Equal("pump", turn.Result.Response, "result");
                }
                Expect.True(rec.Threads.All(t => t == me), "handlers ran on the stepping thread");
            }
        }

        [Test]
        private static void AlreadyCancelledStreamSubmitsNothing()
        {
            using (var rt = Fixtures.Runtime("[]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            using (var turn = s.Stream("x", new CancellationToken(true)))
            {
                Expect.Throws<OperationCanceledException>(() => turn.MoveNext(), "the first step");
                Expect.Equal(0UL, turn.TurnId, "no turn");
                Expect.Equal(0L, s.GetState().MessageCount, "nothing was submitted");
            }
        }
    }
}
