using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Threading;
using System.Threading.Tasks;

namespace Robota.Tests
{
    /// <summary>Marks a test method: <c>public static void Name()</c> in a class of this assembly.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    internal sealed class TestAttribute : Attribute
    {
    }

    /// <summary>
    /// A dependency-free test runner (Mono 6.8 has no NUnit console in Debian's mono-mcs): runs
    /// every [Test] method (or those whose name contains an argument), prints one line per test
    /// and closes with "N passed, N failed"; exits 1 on any failure.
    /// </summary>
    internal static class TestRunner
    {
        /// <summary>Longest a single test may run before it counts as failed (a guard, not a sync).</summary>
        private static readonly TimeSpan Limit = TimeSpan.FromSeconds(90);

        private static int Main(string[] args)
        {
            var tests = typeof(TestRunner).Assembly.GetTypes()
                .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static))
                .Where(m => m.GetCustomAttributes(typeof(TestAttribute), false).Length > 0)
                .Where(m => args.Length == 0 || args.Any(a => (m.DeclaringType.Name + "." + m.Name).Contains(a)))
                .OrderBy(m => m.DeclaringType.Name).ThenBy(m => m.Name)
                .ToList();
            var unhandled = new List<Exception>();
            RobotaLibrary.CallbackException += e =>
            {
                lock (unhandled)
                {
                    unhandled.Add(e);
                }
            };
            int passed = 0, failed = 0;
            foreach (var m in tests)
            {
                var name = m.DeclaringType.Name + "." + m.Name;
                lock (unhandled)
                {
                    unhandled.Clear();
                }
                Expect.ReportedExceptions = unhandled;
                string failure = null;
                var started = DateTime.UtcNow;
                var task = Task.Run(() => m.Invoke(null, null));
                try
                {
                    if (!task.Wait(Limit))
                    {
                        failure = "did not finish within " + Limit.TotalSeconds + " s";
                    }
                }
                catch (AggregateException e)
                {
                    var inner = e.InnerException is TargetInvocationException tie ? tie.InnerException : e.InnerException;
                    failure = inner.GetType().Name + ": " + inner.Message + "\n" + inner.StackTrace;
                }
                if (failure == null)
                {
                    lock (unhandled)
                    {
                        if (unhandled.Count > 0 && !Expect.ExpectingReports)
                        {
                            failure = "a callback handler threw: " + unhandled[0];
                        }
                    }
                }
                Expect.ExpectingReports = false;
                var ms = (int)(DateTime.UtcNow - started).TotalMilliseconds;
                if (failure == null)
                {
                    passed++;
                    Console.WriteLine("PASS " + name + " (" + ms + " ms)");
                }
                else
                {
                    failed++;
                    Console.WriteLine("FAIL " + name + ": " + failure);
                }
            }
            Console.WriteLine(passed + " passed, " + failed + " failed");
            return failed == 0 && passed > 0 ? 0 : 1;
        }
    }

    /// <summary>Assertions that say what differed.</summary>
    internal static class Expect
    {
        internal static List<Exception> ReportedExceptions;
        internal static bool ExpectingReports;

        internal static void True(bool cond, string what)
        {
            if (!cond)
            {
                throw new Exception("expected: " + what);
            }
        }

        internal static void Equal<T>(T expected, T actual, string what = "value")
        {
            if (!EqualityComparer<T>.Default.Equals(expected, actual))
            {
                throw new Exception(what + ": expected <" + expected + "> but got <" + actual + ">");
            }
        }

        internal static void Contains(string haystack, string needle, string what = "text")
        {
            if (haystack == null || !haystack.Contains(needle))
            {
                throw new Exception(what + ": <" + haystack + "> does not contain <" + needle + ">");
            }
        }

        internal static void NotContains(string haystack, string needle, string what = "text")
        {
            if (haystack != null && haystack.Contains(needle))
            {
                throw new Exception(what + ": <" + haystack + "> unexpectedly contains <" + needle + ">");
            }
        }

        internal static T Throws<T>(Action a, string what) where T : Exception
        {
            try
            {
                a();
            }
            catch (T e)
            {
                return e;
            }
            catch (AggregateException e) when (e.InnerException is T inner)
            {
                return inner;
            }
            catch (Exception e)
            {
                throw new Exception(what + ": expected " + typeof(T).Name + " but got " + e.GetType().Name + ": " + e.Message);
            }
            throw new Exception(what + ": expected " + typeof(T).Name + " but nothing was thrown");
        }

        internal static RobotaException Fails(RobotaStatus code, Action a, string messagePart)
        {
            var e = Throws<RobotaException>(a, "expected RobotaException " + code);
            Equal(code, e.Code, "status of \"" + e.Message + "\"");
            Contains(e.Message, messagePart, "error message");
            return e;
        }

        /// <summary>Waits for a task with a generous guard (the task itself is the synchronisation).</summary>
        internal static T Await<T>(Task<T> t, string what)
        {
            if (!t.Wait(TimeSpan.FromSeconds(60)))
            {
                throw new Exception("timed out: " + what);
            }
            return t.Result;
        }
    }

    /// <summary>Records a session's events; waits on conditions, never on sleeps.</summary>
    internal sealed class Recorder
    {
        private readonly List<RobotaEvent> events = new List<RobotaEvent>();
        private readonly List<int> threads = new List<int>();

        internal Recorder(RobotaSession s)
        {
            s.EventReceived += (sender, e) =>
            {
                lock (events)
                {
                    events.Add(e);
                    threads.Add(Thread.CurrentThread.ManagedThreadId);
                    Monitor.PulseAll(events);
                }
            };
        }

        internal List<RobotaEvent> Events
        {
            get
            {
                lock (events)
                {
                    return new List<RobotaEvent>(events);
                }
            }
        }

        internal List<int> Threads
        {
            get
            {
                lock (events)
                {
                    return new List<int>(threads);
                }
            }
        }

        internal int Count(EventKind k) => Events.Count(e => e.Kind == k);

        internal List<RobotaEvent> Of(EventKind k) => Events.Where(e => e.Kind == k).ToList();

        internal string Text => string.Concat(Of(EventKind.TextDelta).Select(e => e.Text));

        internal List<EventKind> Kinds => Events.Select(e => e.Kind).ToList();

        /// <summary>Blocks until <paramref name="n"/> events of kind <paramref name="k"/> arrived.</summary>
        internal void WaitFor(EventKind k, int n = 1)
        {
            var deadline = DateTime.UtcNow.AddSeconds(60);
            lock (events)
            {
                while (events.Count(e => e.Kind == k) < n)
                {
                    var left = deadline - DateTime.UtcNow;
                    if (left <= TimeSpan.Zero || !Monitor.Wait(events, left))
                    {
                        if (events.Count(e => e.Kind == k) >= n)
                        {
                            return;
                        }
                        throw new Exception("timed out waiting for " + n + " " + k + " event(s); got: " + string.Join(", ", events.Select(e => e.Kind)));
                    }
                }
            }
        }
    }

    /// <summary>A one-shot signal with a guard deadline.</summary>
    internal sealed class Signal
    {
        private readonly ManualResetEventSlim ev = new ManualResetEventSlim();

        internal void Set() => ev.Set();

        internal bool IsSet => ev.IsSet;

        internal void Wait(string what)
        {
            if (!ev.Wait(TimeSpan.FromSeconds(60)))
            {
                throw new Exception("timed out waiting for " + what);
            }
        }
    }
}
