// The floor benchmark's C# host: the scenario of benches/floor/host.c (read it: this mirrors it)
// run through the C# binding's idiomatic API (bindings/csharp) under Mono, so the bench can put
// the binding's CPU per turn and allocations per text delta beside the C host's.
// Built by benches/bindings/build_csharp.sh.
//
//   FloorHost.exe MODE KIND BASE_URL PATTERN
//     MODE single : one scenario; {"first_delta_ns":T,"done_ns":T,"peak_rss_kb":N} (CLOCK_MONOTONIC)
//     MODE warm   : one warm-up scenario, then 50 in a row;
//                   {"wall_ns","cpu_ns","scenarios":50,"peak_rss_kb","alloc_bytes","deltas"}
//     MODE conc   : 100 scenarios at once; {"wall_ns","cpu_ns","scenarios":100,"peak_rss_kb"}
//     KIND        : anthropic | openai
//     PATTERN     : task  - a Task per session: await session.RunAsync (thread delivery, the default)
//                   drive - a thread-pool Task per session calling the blocking session.Drive
//                           (inline delivery: every callback runs on that thread, in the call)
//                   one   - one thread for everything, the Unity way: pump delivery, turns submitted
//                           with RunAsync, the thread calls Dispatch over the live sessions
//
// Exit 0 when every scenario saw 53 model text deltas and 3 tool calls; 3 when not; 2 when the
// binding threw; 64 for a bad command line.
//
// Allocations: Mono 6.8 counts no allocations at run time and has no GC.GetTotalAllocatedBytes,
// so "alloc_bytes" is the managed bytes allocated over the 50 scenarios, summed over every thread
// that ran the binding's or this host's code: GC.GetAllocatedBytesForCurrentThread, read on each
// such thread (AllocMeter.Touch: in the handlers and after each scenario), per thread the last
// reading less the one at the start. Allocation COUNTS: run it under
// `mono --profile=log:alloc,output=FILE` and read `mprof-report --reports=alloc FILE`.
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using Robota;

internal static class FloorHost
{
    private const int WarmRuns = 50;
    private const int ConcRuns = 100;
    private const int DeltasPerScenario = 53;
    private const int ToolCallsPerScenario = 3;
    private const string Prompt = "Add 1 and 2, three times.";

    private static RobotaRuntime runtime;
    private static SessionConfig sessionConfig;
    private static long toolCalls;

    private static int Main(string[] args)
    {
        if (args.Length != 4)
        {
            Console.Error.WriteLine("usage: FloorHost.exe single|warm|conc anthropic|openai BASE_URL task|drive|one");
            return 64;
        }
        string mode = args[0], kind = args[1], url = args[2], pattern = args[3];
        Delivery delivery;
        switch (pattern)
        {
            case "task": delivery = Delivery.Thread; break;
            case "drive": delivery = Delivery.Inline; break;
            case "one": delivery = Delivery.Pump; break;
            default:
                Console.Error.WriteLine("floor_host: unknown pattern " + pattern);
                return 64;
        }
        if (mode != "single" && mode != "warm" && mode != "conc")
        {
            Console.Error.WriteLine("floor_host: unknown mode " + mode);
            return 64;
        }
        try
        {
            runtime = new RobotaRuntime(new RuntimeConfig().AddProvider("p", new ProviderConfig(kind)
            {
                BaseUrl = url,
                ApiKey = "floor-key",
                MaxRetries = 0,
            }));
            runtime.RegisterTool(
                new ToolDefinition("add", "Adds two integers.",
                    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}")
                { ReadOnly = true },
                Add);
            sessionConfig = new SessionConfig("p", "m")
            {
                Tools = new List<string> { "add" },
                PermissionMode = "bypassPermissions",
                Delivery = delivery,
            };
            Console.WriteLine(Measure(mode, pattern));
            runtime.Dispose();
            return 0;
        }
        catch (Exception e)
        {
            var inner = e is AggregateException agg && agg.InnerExceptions.Count == 1 ? agg.InnerExceptions[0] : e;
            Console.Error.WriteLine("floor_host: " + (inner is CheckFailed ? inner.Message : inner.ToString()));
            return inner is CheckFailed ? 3 : 2;
        }
    }

    /// <summary>The host tool: {"a":N,"b":M} in, the sum (a JSON number) out.</summary>
    private static object Add(ToolCall call)
    {
        var sum = Convert.ToInt64(call.Arguments["a"]) + Convert.ToInt64(call.Arguments["b"]);
        Interlocked.Increment(ref toolCalls);
        AllocMeter.Touch();
        return sum;
    }

    private static string Measure(string mode, string pattern)
    {
        if (mode == "single")
        {
            var sc = new Scenario();
            Run(pattern, new[] { sc }, false);
            var done = Clock.MonotonicNs();
            CheckTools(1);
            return "{\"first_delta_ns\":" + sc.FirstDeltaNs + ",\"done_ns\":" + done + ",\"peak_rss_kb\":" + PeakRssKb() + "}";
        }
        if (mode == "warm")
        {
            var warmup = new Scenario();
            Run(pattern, new[] { warmup }, true);
            var runs = new Scenario[WarmRuns];
            for (var i = 0; i < runs.Length; i++) runs[i] = new Scenario();
            AllocMeter.Start();
            long t0 = Clock.MonotonicNs(), c0 = Clock.CpuNs();
            Run(pattern, runs, true);
            long wall = Clock.MonotonicNs() - t0, cpu = Clock.CpuNs() - c0;
            var bytes = AllocMeter.Total();
            CheckTools(WarmRuns + 1);
            long deltas = 0;
            foreach (var sc in runs) deltas += sc.Deltas;
            return "{\"wall_ns\":" + wall + ",\"cpu_ns\":" + cpu + ",\"scenarios\":" + WarmRuns + ",\"peak_rss_kb\":" + PeakRssKb() +
                   ",\"alloc_bytes\":" + bytes + ",\"deltas\":" + deltas + "}";
        }
        var all = new Scenario[ConcRuns];
        for (var i = 0; i < all.Length; i++) all[i] = new Scenario();
        long w0 = Clock.MonotonicNs(), cp0 = Clock.CpuNs();
        Run(pattern, all, false);
        long w = Clock.MonotonicNs() - w0, cp = Clock.CpuNs() - cp0;
        CheckTools(ConcRuns);
        return "{\"wall_ns\":" + w + ",\"cpu_ns\":" + cp + ",\"scenarios\":" + ConcRuns + ",\"peak_rss_kb\":" + PeakRssKb() + "}";
    }

    /// <summary>Runs <paramref name="scenarios"/> one after the other (<paramref name="sequential"/>) or all at once.</summary>
    private static void Run(string pattern, Scenario[] scenarios, bool sequential)
    {
        if (pattern == "one")
        {
            if (sequential)
            {
                foreach (var sc in scenarios) Pump(new[] { sc });
            }
            else
            {
                Pump(scenarios);
            }
            return;
        }
        Func<Scenario, Task> start;
        if (pattern == "task") start = RunTurnAsync;
        else start = sc => Task.Run(() => DriveTurn(sc));
        (sequential ? InSequence(start, scenarios) : AllAtOnce(start, scenarios)).GetAwaiter().GetResult();
    }

    private static async Task InSequence(Func<Scenario, Task> start, Scenario[] scenarios)
    {
        foreach (var sc in scenarios)
        {
            await start(sc).ConfigureAwait(false);
            AllocMeter.Touch();
        }
    }

    private static Task AllAtOnce(Func<Scenario, Task> start, Scenario[] scenarios)
    {
        var tasks = new Task[scenarios.Length];
        for (var i = 0; i < tasks.Length; i++) tasks[i] = start(scenarios[i]);
        return Task.WhenAll(tasks);
    }

    /// <summary>task: a new session, one awaited turn (events on the library's callback threads).</summary>
    private static async Task RunTurnAsync(Scenario sc)
    {
        using (var session = runtime.CreateSession(sessionConfig))
        {
            session.TextDelta += sc.OnTextDelta;
            session.TurnCompleted += OnTurnCompleted;
            await session.RunAsync(Prompt).ConfigureAwait(false);
        }
        sc.Check();
    }

    /// <summary>drive: a new session whose turn this thread runs (inline delivery: callbacks here too).</summary>
    private static void DriveTurn(Scenario sc)
    {
        using (var session = runtime.CreateSession(sessionConfig))
        {
            session.TextDelta += sc.OnTextDelta;
            session.Drive(Prompt);
        }
        sc.Check();
        AllocMeter.Touch();
    }

    /// <summary>
    /// one: this thread creates the sessions (pump delivery), submits their turns and dispatches
    /// every live session until its turn completed. When a pass over them delivered nothing, it
    /// waits in one session's Dispatch (the next live one in turn) for up to 1 ms, 100 ms when only
    /// that one is left: no spinning.
    /// </summary>
    private static void Pump(Scenario[] scenarios)
    {
        var n = scenarios.Length;
        var sessions = new RobotaSession[n];
        var turns = new Task<TurnResult>[n];
        for (var i = 0; i < n; i++)
        {
            sessions[i] = runtime.CreateSession(sessionConfig);
            sessions[i].TextDelta += scenarios[i].OnTextDelta;
            turns[i] = sessions[i].RunAsync(Prompt);
        }
        int live = n, next = 0;
        while (live > 0)
        {
            var delivered = 0;
            for (var i = 0; i < n; i++)
            {
                if (sessions[i] == null) continue;
                delivered += sessions[i].Dispatch();
                if (!turns[i].IsCompleted) continue;
                sessions[i].Dispose();
                sessions[i] = null;
                live--;
                turns[i].GetAwaiter().GetResult(); // the turn's failure, if any
                scenarios[i].Check();
            }
            if (delivered == 0 && live > 0)
            {
                while (sessions[next % n] == null) next++;
                sessions[next % n].Dispatch(0, live == 1 ? 100 : 1);
                next++;
            }
        }
        AllocMeter.Touch();
    }

    /// <summary>task: the last event on a library callback thread; its allocations are read there.</summary>
    private static void OnTurnCompleted(object sender, TurnResult result) => AllocMeter.Touch();

    private static void CheckTools(long scenarios)
    {
        var calls = Interlocked.Read(ref toolCalls);
        if (calls != scenarios * ToolCallsPerScenario)
        {
            throw new CheckFailed(calls + " tool calls for " + scenarios + " scenarios");
        }
    }

    /// <summary>VmHWM of this process, in KB.</summary>
    private static long PeakRssKb()
    {
        foreach (var line in File.ReadAllLines("/proc/self/status"))
        {
            if (line.StartsWith("VmHWM:", StringComparison.Ordinal))
            {
                return long.Parse(line.Substring(6).Trim().Split(' ')[0]);
            }
        }
        return 0;
    }

    /// <summary>One scenario's counts, written by the session's handlers.</summary>
    private sealed class Scenario
    {
        private long deltas;
        private long firstDeltaNs;

        internal long Deltas => Interlocked.Read(ref deltas);

        internal long FirstDeltaNs => Interlocked.Read(ref firstDeltaNs);

        /// <summary>The library streams a "\n\n" separator between rounds' texts: not a model delta.</summary>
        internal void OnTextDelta(object sender, RobotaEvent e)
        {
            if (e.Text == "\n\n") return;
            if (Interlocked.Read(ref firstDeltaNs) == 0) Interlocked.CompareExchange(ref firstDeltaNs, Clock.MonotonicNs(), 0);
            Interlocked.Increment(ref deltas);
            AllocMeter.Touch();
        }

        internal void Check()
        {
            if (Deltas != DeltasPerScenario)
            {
                throw new CheckFailed(Deltas + " text deltas, expected " + DeltasPerScenario);
            }
        }
    }

    private sealed class CheckFailed : Exception
    {
        internal CheckFailed(string message) : base(message)
        {
        }
    }

    /// <summary>
    /// Managed bytes allocated, summed over the threads that touched the meter: each keeps its
    /// last GC.GetAllocatedBytesForCurrentThread reading, and the reading at <see cref="Start"/>.
    /// </summary>
    private static class AllocMeter
    {
        private sealed class Slot
        {
            internal long Base;
            internal long Last;
        }

        [ThreadStatic] private static Slot mine;
        private static readonly List<Slot> Slots = new List<Slot>();

        internal static void Touch()
        {
            var s = mine;
            if (s == null)
            {
                s = mine = new Slot();
                var now = GC.GetAllocatedBytesForCurrentThread();
                Volatile.Write(ref s.Base, now);
                Volatile.Write(ref s.Last, now);
                lock (Slots) Slots.Add(s);
                return;
            }
            Volatile.Write(ref s.Last, GC.GetAllocatedBytesForCurrentThread());
        }

        internal static void Start()
        {
            Touch();
            lock (Slots)
            {
                foreach (var s in Slots) Volatile.Write(ref s.Base, Volatile.Read(ref s.Last));
            }
        }

        internal static long Total()
        {
            Touch();
            long sum = 0;
            lock (Slots)
            {
                foreach (var s in Slots) sum += Volatile.Read(ref s.Last) - Volatile.Read(ref s.Base);
            }
            return sum;
        }
    }

    private static class Clock
    {
        [StructLayout(LayoutKind.Sequential)]
        private struct Timespec
        {
            public long Sec;
            public long Nsec;
        }

        [StructLayout(LayoutKind.Sequential)]
        private struct Rusage
        {
            public long UtimeSec, UtimeUsec, StimeSec, StimeUsec;
            public long MaxRss, IxRss, IdRss, IsRss, MinFlt, MajFlt, NSwap, InBlock, OuBlock, MsgSnd, MsgRcv, NSignals, NvCsw, NivCsw;
        }

        [DllImport("libc", EntryPoint = "clock_gettime")]
        private static extern int ClockGettime(int clock, out Timespec ts);

        [DllImport("libc", EntryPoint = "getrusage")]
        private static extern int Getrusage(int who, out Rusage usage);

        /// <summary>CLOCK_MONOTONIC in ns (the driver compares it across processes).</summary>
        internal static long MonotonicNs()
        {
            Timespec ts;
            ClockGettime(1, out ts);
            return ts.Sec * 1000000000L + ts.Nsec;
        }

        /// <summary>getrusage(RUSAGE_SELF) user + system time, in ns.</summary>
        internal static long CpuNs()
        {
            Rusage ru;
            Getrusage(0, out ru);
            return (ru.UtimeSec + ru.StimeSec) * 1000000000L + (ru.UtimeUsec + ru.StimeUsec) * 1000L;
        }
    }
}
