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
                    // turn 0: "t1 " + tool + "abc"; turn 1: "de" + tool + "f"; turn 2 repeats the last
                    // turn: "f". A round after a tool round starts with the "\n\n" separator.
                    Expect.Equal("t1 |\n\n|a|b|c|d|e|\n\n|f|f", string.Join("|", deltas), delivery + ": every delta delivered in order");
                }
                Expect.Equal(3, completed, delivery + ": every TurnCompleted delivered");
                s.Dispose();
                Collect();
            }
            Expect.Equal(4, toolCalls, "every tool call answered");
            rt.Dispose();
            Collect();
        }

        /// <summary>Runs <paramref name="f"/> on a thread that then ends, so no stale stack slot of
        /// this thread (Mono scans stacks conservatively) keeps what it created reachable.</summary>
        private static T OnOtherThread<T>(Func<T> f)
        {
            var result = default(T);
            var t = new Thread(() => result = f());
            t.Start();
            t.Join();
            return result;
        }

        [Test]
        private static void UnreferencedSessionsFinishTheirTurnsThenAreCollected()
        {
            const int n = 40;
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"still \",\"here\"],\"delay_ms\":20}]"))
            {
                var running = OnOtherThread(() => Enumerable.Range(0, n).Select(i =>
                {
                    var s = rt.CreateSession(Fixtures.Session());
                    return Tuple.Create(s.RunAsync("orphan"), new WeakReference(s));
                }).ToList());
                Collect();
                Collect();
                foreach (var r in running)
                {
                    Expect.Equal("still here", Expect.Await(r.Item1, "RunAsync on an unreferenced session").Response, "a running turn keeps its session alive");
                }
                var idle = OnOtherThread(() => Enumerable.Range(0, n).Select(i =>
                {
                    var s = rt.CreateSession(Fixtures.Session());
                    s.TextDelta += (sender, e) => { };
                    return new WeakReference(s);
                }).ToList());
                for (var i = 0; i < 20; i++)
                {
                    Collect();
                }
                // Mono scans stacks conservatively, so a stray slot may pin one or two; a reference
                // cycle through the callback's GCHandle would pin them all.
                var idleCollected = idle.Count(w => !w.IsAlive);
                var finishedCollected = running.Count(r => !r.Item2.IsAlive);
                Expect.True(idleCollected >= n / 2, "idle sessions nobody references are collected: " + idleCollected + " of " + n);
                Expect.True(finishedCollected >= n / 2, "finished sessions nobody references are collected: " + finishedCollected + " of " + n);
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
