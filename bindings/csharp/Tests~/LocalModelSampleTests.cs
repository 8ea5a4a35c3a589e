using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Robota.Tests
{
    /// <summary>The local-model sample (Samples~/LocalModelProvider) in pump delivery, as a Unity frame loop drives it.</summary>
    internal static class LocalModelSampleTests
    {
        /// <summary>A token model that answers with a tool call, then with the tool's result; records prompts and threads.</summary>
        private sealed class FakeTokenModel : ITokenModel
        {
            internal readonly List<string> Prompts = new List<string>();
            internal readonly List<int> Threads = new List<int>();
            internal readonly List<int> StartThreads = new List<int>();

            public IEnumerator<string> Generate(string prompt, int maxTokens)
            {
                Prompts.Add(prompt);
                StartThreads.Add(Thread.CurrentThread.ManagedThreadId); // inside the provider's Stream
                return Tokens(prompt).GetEnumerator();
            }

            private IEnumerable<string> Tokens(string prompt)
            {
                var tokens = prompt.Contains("<|im_start|>tool\n")
                    ? new[] { "It is ", "42." }
                    : new[] { "Let me ", "check.", "<tool", "_call>{\"name\":\"lookup\",", "\"arguments\":{\"key\":\"k\"}}", "</tool_call>" };
                foreach (var t in tokens)
                {
                    Threads.Add(Thread.CurrentThread.ManagedThreadId);
                    yield return t;
                }
            }
        }

        [Test]
        private static void TokenLoopProviderRunsOnThePumpThread()
        {
            var main = Thread.CurrentThread.ManagedThreadId;
            using (var rt = new RobotaRuntime(new RuntimeConfig()))
            {
                var toolThread = 0;
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    toolThread = Thread.CurrentThread.ManagedThreadId;
                    return "42";
                });
                var model = new FakeTokenModel();
                var provider = new TokenLoopProvider(model, tokensPerStep: 1);
                rt.RegisterProvider("local", new ProviderCapabilities { Models = new List<string> { "tiny-1" } }, provider);
                using (var s = rt.CreateSession(new SessionConfig("local", "tiny-1") { Delivery = Delivery.Pump, Tools = new List<string> { "lookup" } }))
                {
                    var deltas = new List<string>();
                    s.TextDelta += (o, e) => deltas.Add(e.Text);
                    var turn = s.RunAsync("what is k?");
                    var guard = System.Diagnostics.Stopwatch.StartNew();
                    // A frame loop as Unity's player loop runs it: Update() dispatches, then steps the model.
                    while (!turn.IsCompleted)
                    {
                        Expect.True(guard.Elapsed < TimeSpan.FromSeconds(60), "the turn finishes within 60 s of frames");
                        s.Dispatch(0, 0);
                        provider.Step();
                        Thread.Yield();
                    }
                    var result = turn.Result;
                    Expect.Equal("It is 42.", result.Response, "response");
                    Expect.Equal("Let me |check.|\n\n|It is |42.", string.Join("|", deltas), "deltas (the library separates the rounds)");
                    Expect.Equal(2, model.Prompts.Count, "model calls");
                    Expect.Equal(8, model.Threads.Count, "tokens decoded");
                    Expect.Equal(main + "," + main, string.Join(",", model.StartThreads), "Stream ran inside Dispatch on the pump thread");
                    Expect.True(model.Threads.All(t => t == main), "every token decoded on the pump thread");
                    Expect.Equal(main, toolThread, "the tool ran on the pump thread");
                    Expect.Equal(0, provider.Running, "no generation left");
                    Expect.Contains(model.Prompts[1],
                        "<|im_start|>user\nwhat is k?<|im_end|>\n" +
                        "<|im_start|>assistant\nLet me check.<tool_call>{\"name\":\"lookup\",\"arguments\":{\"key\":\"k\"}}</tool_call><|im_end|>\n" +
                        "<|im_start|>tool\n42<|im_end|>\n<|im_start|>assistant\n", "second prompt");
                    Expect.True(model.Prompts[1].StartsWith("<|im_start|>system\n", StringComparison.Ordinal), "tools in the system part");
                }
            }
        }
    }
}
