using System.Collections.Generic;

namespace Robota.Tests
{
    internal static class SubagentTests
    {
        // The scripted parent calls Agent; the child (a fresh scripted provider) asks for Agent
        // too, which it lacks (no nesting), then echoes its task.
        [Test]
        private static void SubagentEventsArriveForASessionDefinedAgent()
        {
            const string turns = "[{\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"Agent\",\"arguments\":" +
                                 "{\"prompt\":\"sub-task\",\"subagent_type\":\"helper\"}}]}]";
            using (var rt = Fixtures.Runtime(turns))
            {
                var cfg = Fixtures.Session();
                cfg.PermissionMode = "bypassPermissions";
                cfg.Agents = new Dictionary<string, AgentDefinition>
                {
                    { "helper", new AgentDefinition { Description = "Helps", Prompt = "You help." } },
                };
                using (var s = rt.CreateSession(cfg))
                {
                    var rec = new Recorder(s);
                    Expect.Await(s.RunAsync("go"), "RunAsync");
                    rec.WaitFor(EventKind.TurnCompleted);
                    var subs = rec.Of(EventKind.Subagent);
                    Expect.True(subs.Count >= 3, "subagent events: " + subs.Count);
                    Expect.Contains(subs[0].Payload, "\"agent_type\":\"helper\"", "agent type");
                    Expect.Contains(subs[0].Payload, "\"parent_tool_call_id\":\"call_1\"", "parent call");
                    Expect.Contains(subs[0].Payload, "\"type\":\"turn_started\"", "first child event");
                    Expect.Contains(subs[subs.Count - 1].Payload, "\"response\":\"offline:sub-task\"", "child answer");
                    Expect.Equal(EventKind.Subagent, subs[0].Kind, "kind");
                }
            }
        }
    }
}
