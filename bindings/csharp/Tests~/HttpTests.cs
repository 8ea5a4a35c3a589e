using System.Collections.Generic;
using System.Threading;

namespace Robota.Tests
{
    internal static class HttpTests
    {
        [Test]
        private static void StreamingAndHostToolOverHttp()
        {
            using (var fake = new FakeServer())
            using (var rt = fake.Runtime())
            {
                fake.Send("{\"cmd\":\"enqueue\",\"kind\":\"openai\",\"text\":[\"Hel\",\"lo\"],\"tools\":[[\"call_1\",\"lookup\",\"{\\\"key\\\":\\\"h\\\"}\"]]}");
                fake.Send("{\"cmd\":\"enqueue\",\"kind\":\"openai\",\"text\":[\"Found \",\"it.\"],\"usage\":[12,4]}");
                string key = null;
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call =>
                {
                    key = (string)call.Arguments["key"];
                    return new Dictionary<string, object> { { "found", true } };
                });
                using (var s = rt.CreateSession(new SessionConfig("fake", "gpt-test")))
                {
                    var rec = new Recorder(s);
                    var r = Expect.Await(s.RunAsync("find h"), "RunAsync over HTTP");
                    Expect.Equal("Found it.", r.Response, "response");
                    Expect.Equal("h", key, "tool arguments from the wire");
                    rec.WaitFor(EventKind.TurnCompleted);
                    Expect.Equal("Hello\n\nFound it.", rec.Text, "streamed text");
                    Expect.Equal("success", rec.Of(EventKind.ToolEnd)[0].GetString("result"), "tool_end");
                    Expect.Contains(s.MessagesJson(), "\"role\":\"tool\",\"content\":\"{\\\"found\\\":true}\"", "tool result in history");
                    var requests = (List<object>)fake.Send("{\"cmd\":\"requests\"}")["requests"];
                    Expect.Equal(2, requests.Count, "two model requests");
                    var second = (Dictionary<string, object>)requests[1];
                    Expect.Equal("/v1/chat/completions", (string)second["path"], "endpoint");
                    var body = second["body"] as string ?? Json.Serialize(second["body"]);
                    Expect.Contains(body, "{\\\"found\\\":true}", "the tool result went back to the model");
                    Expect.Contains(body, "\"tool_call_id\":\"call_1\"", "answering the model's call id");
                }
            }
        }

        [Test]
        private static void CancellationMidStreamOverHttp()
        {
            using (var fake = new FakeServer())
            using (var rt = fake.Runtime())
            {
                fake.Send("{\"cmd\":\"enqueue\",\"kind\":\"openai\",\"text\":[\"part\",\"ial\",\"never\"],\"hang_after\":3}");
                using (var s = rt.CreateSession(new SessionConfig("fake", "gpt-test")))
                using (var cts = new CancellationTokenSource())
                {
                    var rec = new Recorder(s);
                    var task = s.RunAsync("stall", cts.Token);
                    rec.WaitFor(EventKind.TextDelta, 2);
                    cts.Cancel();
                    Expect.Throws<System.OperationCanceledException>(() => task.Wait(), "cancelled");
                    rec.WaitFor(EventKind.TurnCompleted);
                    var done = rec.Of(EventKind.TurnCompleted)[0];
                    Expect.Equal("aborted", done.GetString("stop_reason"), "stop reason");
                    Expect.Equal("partial", done.GetString("response"), "partial response");
                    Expect.NotContains(rec.Text, "never", "nothing after the stall");
                }
            }
        }

        [Test]
        private static void HttpErrorBecomesRobotaException()
        {
            using (var fake = new FakeServer())
            using (var rt = fake.Runtime())
            {
                fake.Send("{\"cmd\":\"enqueue_error\",\"status\":401,\"body\":\"{\\\"error\\\":{\\\"message\\\":\\\"bad key\\\"}}\"}");
                using (var s = rt.CreateSession(new SessionConfig("fake", "gpt-test")))
                {
                    var e = Expect.Throws<RobotaException>(() => s.RunAsync("x").Wait(), "failed turn");
                    Expect.Equal(RobotaStatus.Provider, e.Code, "status");
                    Expect.Contains(e.Message, "returned HTTP 401: bad key", "message names the HTTP failure");
                    Expect.Equal("user", e.Category, "category from the ERROR event");
                    Expect.Equal("AUTHENTICATION_ERROR", e.ErrorCode, "taxonomy code from the ERROR event");
                }
            }
        }

        [Test]
        private static void ToolChoiceReachesTheServer()
        {
            using (var fake = new FakeServer())
            using (var rt = fake.Runtime())
            {
                fake.Send("{\"cmd\":\"enqueue\",\"kind\":\"openai\",\"text\":[\"a\"]}");
                fake.Send("{\"cmd\":\"enqueue\",\"kind\":\"openai\",\"text\":[\"b\"]}");
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call => "x");
                var bad = new SessionConfig("fake", "gpt-test") { ToolChoice = ToolChoice.Tool("deploy") };
                var e = Expect.Throws<RobotaException>(() => rt.CreateSession(bad).Dispose(), "unknown named tool");
                Expect.Equal(RobotaStatus.InvalidConfig, e.Code, "status");
                Expect.Contains(e.Message, "no tool named \"deploy\"", "names the tool");
                var cfg = new SessionConfig("fake", "gpt-test") { ToolChoice = ToolChoice.Required, ContextWindow = 4096 };
                Expect.Contains(cfg.ToJson(), "\"context_window\":4096", "context window in the document");
                using (var s = rt.CreateSession(cfg))
                {
                    Expect.Equal(RobotaStatus.Ok, s.Wait(s.Submit("one"), 30000), "first turn");
                    Expect.Equal(RobotaStatus.Ok, s.Wait(s.Submit("two", ToolChoice.Tool(Fixtures.ReadOnlyTool().Name)), 30000), "second turn");
                    var requests = (List<object>)fake.Send("{\"cmd\":\"requests\"}")["requests"];
                    Expect.Equal(2, requests.Count, "two model requests");
                    System.Func<int, string> Body = i =>
                    {
                        var r = (Dictionary<string, object>)requests[i];
                        return r["body"] as string ?? Json.Serialize(r["body"]);
                    };
                    Expect.Contains(Body(0), "\"tool_choice\":\"required\"", "session tool choice");
                    Expect.Contains(Body(1), "\"tool_choice\":{", "turn tool choice");
                    Expect.Contains(Body(1), "\"name\":\"" + Fixtures.ReadOnlyTool().Name + "\"", "the named tool");
                }
            }
        }
    }
}
