using System.Collections.Generic;

namespace Robota.Tests
{
    internal static class QueryTests
    {
        [Test]
        private static void QueryReturnsTheAnswerUsageAndConversation()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"Hel\",\"lo\"],\"usage\":{\"input_tokens\":4,\"output_tokens\":2}}]"))
            {
                var cfg = new SessionConfig("s", "m") { SystemPrompt = "sys", Language = "ko", Temperature = 0.5, MaxTokens = 100 };
                var res = rt.Query(cfg, "hi");
                Expect.Equal("Hello", (string)res["response"], "response");
                Expect.Equal("complete", (string)res["stop_reason"], "stop reason");
                Expect.Equal(6L, (long)((Dictionary<string, object>)res["usage"])["total_tokens"], "usage");
                Expect.True(!res.ContainsKey("session_id"), "no session id without persist");
                var msgs = (List<object>)res["messages"];
                Expect.Equal(3, msgs.Count, "system, user, assistant");
                Expect.Equal("sys\n\n## Response Language\nko", (string)((Dictionary<string, object>)msgs[0])["content"], "system prompt with the language");
                Expect.Fails(RobotaStatus.InvalidConfig, () => rt.QueryJson("{\"v\":1,\"provider\":\"s\",\"model\":\"m\"}"), "query_json: missing required field \"prompt\"");
                Expect.Fails(RobotaStatus.NotFound, () => rt.Query(new SessionConfig("nope", "m"), "hi"), "nope");
            }
        }
    }
}
