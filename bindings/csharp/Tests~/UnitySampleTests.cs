using System;
using System.Reflection;
using System.Threading;

namespace Robota.Tests
{
    internal static class UnitySampleTests
    {
        private static void Message(object behaviour, string name)
        {
            behaviour.GetType().GetMethod(name, BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public).Invoke(behaviour, null);
        }

        [Test]
        private static void PumpSampleRunsEverythingInsideUpdateOnTheMainThread()
        {
            var chat = new RobotaPumpChat();
            Message(chat, "Start");
            var main = Thread.CurrentThread.ManagedThreadId;
            var guard = System.Diagnostics.Stopwatch.StartNew();
            // A frame loop as Unity's player loop runs it: Update() polls Dispatch(max, 0) and returns.
            while (chat.LastResult == null)
            {
                Expect.True(guard.Elapsed < TimeSpan.FromSeconds(60), "the turn finishes within 60 s of frames");
                Message(chat, "Update");
                Thread.Yield();
            }
            Expect.Equal("complete", chat.LastResult.StopReason, "stop reason");
            Expect.Equal("Spawning.\n\nA cube is at x=1.5.", chat.Transcript, "transcript built in Update()");
            Expect.Equal(1, chat.Spawned, "host tool ran once");
            Expect.True(Thread.CurrentThread.ManagedThreadId == main, "same thread");
            lock (UnityEngine.Debug.Lines)
            {
                Expect.True(UnityEngine.Debug.Lines.Exists(l => l.StartsWith("spawn_cube {\"x\":1.5}")), "tool logged from Update: " + string.Join(" | ", UnityEngine.Debug.Lines));
                Expect.True(!UnityEngine.Debug.Lines.Exists(l => l.StartsWith("EXCEPTION")), "no exception logged");
            }
            Message(chat, "OnDestroy");
            Message(chat, "Update"); // after OnDestroy: a no-op, never a crash
        }
    }
}
