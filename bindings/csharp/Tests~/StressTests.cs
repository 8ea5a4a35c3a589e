using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace Robota.Tests
{
    internal static class StressTests
    {
        private static void Collect()
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
        }

        [Test]
        private static void GcPressureBetweenEveryStepLosesNoCallback()
        {
            Collect();
            var rt = Fixtures.Runtime(
                "[{\"text\":\"t1 \",\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"g1\"}}]},{\"deltas\":[\"a\",\"b\",\"c\"]}," +
                "{\"deltas\":[\"d\",\"e\"],\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"g2\"}}]},{\"deltas\":[\"f\"]}]",
                "repeat_last");
            Collect();
            var toolCalls = 0;
            rt.RegisterTool(Fixtures.ReadOnlyTool(), async call =>
            {
                Collect();
                await Task.Yield();
                Collect();
                Interlocked.Increment(ref toolCalls);
                return (object)new Dictionary<string, object> { { "key", call.Arguments["key"] } };
            });
            Collect();
            foreach (var delivery in new[] { Delivery.Thread, Delivery.Pump })
            {
                var s = rt.CreateSession(Fixtures.Session(delivery));
                Collect();
                var deltas = new List<string>();
                var completed = 0;
                s.TextDelta += (sender, e) => { Collect(); lock (deltas) deltas.Add(e.Text); };
                s.TurnCompleted += (sender, r) => Interlocked.Increment(ref completed);
                Collect();
                for (var turn = 0; turn < 3; turn++)
                {
                    var task = s.RunAsync("turn " + turn);
                    Collect();
                    while (!task.IsCompleted)
                    {
                        if (delivery == Delivery.Pump)
                        {
                            s.Dispatch(1, 1000);
                        }
                        else
                        {
                            task.Wait(1000);
                        }
                        Collect();
                    }
                    Expect.Equal("complete", task.Result.StopReason, "turn " + turn);
                    Collect();
                }
                lock (deltas)
                {
                    // turn 0: "t1 " + tool + "abc"; turn 1: "de" + tool + "f"; turn 2 repeats the last turn: "f".
                    Expect.Equal("t1 |a|b|c|d|e|f|f", string.Join("|", deltas), delivery + ": every delta delivered in order");
                }
                Expect.Equal(3, completed, delivery + ": every TurnCompleted delivered");
                s.Dispose();
                Collect();
            }
            Expect.Equal(4, toolCalls, "every tool call answered");
            rt.Dispose();
            Collect();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static Task<TurnResult> RunOnAnUnreferencedSession(RobotaRuntime rt, out WeakReference weak)
        {
            var s = rt.CreateSession(Fixtures.Session());
            weak = new WeakReference(s);
            return s.RunAsync("orphan");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference IdleUnreferencedSession(RobotaRuntime rt)
        {
            var s = rt.CreateSession(Fixtures.Session());
            s.TextDelta += (sender, e) => { };
            return new WeakReference(s);
        }

        [Test]
        private static void UnreferencedSessionFinishesItsTurnThenIsCollected()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"still \",\"here\"],\"delay_ms\":20}]"))
            {
                WeakReference weak;
                var task = RunOnAnUnreferencedSession(rt, out weak);
                Collect();
                Collect();
                Expect.Equal("still here", Expect.Await(task, "RunAsync on an unreferenced session").Response, "the running turn kept its session alive");
                var idle = IdleUnreferencedSession(rt);
                for (var i = 0; i < 20 && (idle.IsAlive || weak.IsAlive); i++)
                {
                    Collect();
                }
                Expect.True(!idle.IsAlive, "an idle session nobody references is collected (no GCHandle cycle)");
                Expect.True(!weak.IsAlive, "a finished session nobody references is collected");
            }
        }

        [Test]
        private static void HundredConcurrentSessions()
        {
            using (var rt = Fixtures.Runtime("[]"))
            {
                var sessions = Enumerable.Range(0, 100)
                    .Select(i => rt.CreateSession(Fixtures.Session(i % 2 == 0 ? Delivery.Thread : Delivery.Pump)))
                    .ToList();
                var deltas = new int[100];
                for (var i = 0; i < 100; i++)
                {
                    var idx = i;
                    sessions[i].TextDelta += (sender, e) => Interlocked.Increment(ref deltas[idx]);
                }
                var tasks = sessions.Select((s, i) => s.RunAsync("question " + i)).ToList();
                // Pump sessions are pumped from worker threads, all at once.
                var pumps = Enumerable.Range(0, 100).Where(i => i % 2 == 1).Select(i => Task.Run(() =>
                {
                    while (!tasks[i].IsCompleted)
                    {
                        sessions[i].Dispatch(0, 1000);
                    }
                })).ToArray();
                Expect.True(Task.WaitAll(tasks.Cast<Task>().ToArray(), TimeSpan.FromSeconds(60)), "all 100 turns complete");
                Task.WaitAll(pumps, TimeSpan.FromSeconds(60));
                for (var i = 0; i < 100; i++)
                {
                    Expect.Equal("offline:question " + i, tasks[i].Result.Response, "session " + i + " answered its own question");
                    Expect.Equal(1, Volatile.Read(ref deltas[i]), "session " + i + " deltas");
                }
                var ids = new HashSet<string>(sessions.Select(s => s.SessionId));
                Expect.Equal(100, ids.Count, "distinct session ids");
                foreach (var s in sessions)
                {
                    s.Dispose();
                }
            }
        }
    }
}
