using System.Collections.Generic;

namespace Robota.Tests
{
    internal static class McpTests
    {
        private const string NoMcp = "this build of the library has no MCP support (cargo feature \"mcp\")";

        // robota_session_state's "mcp_servers" (docs/subagents-team-mcp.md "MCP tool servers") through State(): a
        // server that cannot start is "failed" with the reason, the "mcp" command says the same,
        // and the session still answers.
        [Test]
        private static void AServerThatCannotStartIsFailedInTheStateAndTheSessionWorks()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"fine\"]}]"))
            {
                var config = Fixtures.Session();
                config.McpServersJson = "{\"gone\":{\"command\":\"/nonexistent/robota-mcp-server\"}}";
                using (var s = rt.CreateSession(config))
                {
                    var servers = (List<object>)s.State()["mcp_servers"];
                    Expect.Equal(1, servers.Count, "one server");
                    var gone = (Dictionary<string, object>)servers[0];
                    Expect.Equal("gone", (string)gone["name"], "name");
                    Expect.Equal("stdio", (string)gone["transport"], "transport");
                    Expect.Equal("failed", (string)gone["state"], "state");
                    Expect.Equal(0L, (long)gone["tools"], "tools");
                    // "cannot start …" (a build without the "mcp" cargo feature: NoMcp).
                    var reason = (string)gone["reason"];
                    Expect.True(reason.StartsWith("cannot start \"/nonexistent/robota-mcp-server\": ") || reason == NoMcp, "reason: " + reason);
                    Expect.Equal("MCP servers:\n  gone (stdio) \u2014 failed: " + reason, (string)s.Command("mcp")["message"], "mcp command");
                    Expect.Equal("fine", Expect.Await(s.RunAsync("hi"), "turn").Response, "the session answers");
                }
            }
            using (var rt = Fixtures.Runtime("[]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                Expect.Equal(0, ((List<object>)s.State()["mcp_servers"]).Count, "no servers: an empty list");
            }
        }
    }
}
