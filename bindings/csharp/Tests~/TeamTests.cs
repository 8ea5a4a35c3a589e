namespace Robota.Tests
{
    internal static class TeamTests
    {
        private const string Greeter =
            "{\"id\":\"greeter\",\"name\":\"Greeter\",\"provider\":\"c\",\"model\":\"m\",\"temperature\":0.5,\"systemMessage\":\"You greet.\"}";

        [Test]
        private static void ARegisteredTemplateRunsThroughAssignTask()
        {
            var cfg = new RuntimeConfig()
                .AddProvider("s", ProviderConfig.Scripted(
                    "[{\"tool_calls\":[{\"id\":\"a1\",\"name\":\"assignTask\",\"arguments\":{\"templateId\":\"greeter\",\"jobDescription\":\"greet\"}}]}," +
                    "{\"text\":\"done\"}]"))
                .AddProvider("c", ProviderConfig.Scripted("[{\"text\":\"hello from the child\"}]"));
            using (var rt = new RobotaRuntime(cfg))
            {
                rt.RegisterTemplate(Greeter);
                Expect.Fails(RobotaStatus.InvalidConfig, () => rt.RegisterTemplate(Greeter), "template \"greeter\" is already registered");
                Expect.Fails(RobotaStatus.InvalidConfig,
                    () => rt.RegisterTemplate("{\"id\":\"x\",\"name\":\"X\",\"provider\":\"c\",\"model\":\"m\"}"),
                    "missing required field \"systemMessage\"");
                Expect.Fails(RobotaStatus.InvalidJson, () => rt.RegisterTemplate("{\"id\":"), "");
                var sc = Fixtures.Session();
                sc.Team = true;
                sc.PermissionMode = "bypassPermissions";
                using (var s = rt.CreateSession(sc))
                {
                    var r = Expect.Await(s.RunAsync("delegate"), "RunAsync");
                    Expect.Equal("done", r.Response, "response");
                    Expect.Contains(Fixtures.ConversationJson(s),
                        "\"role\":\"tool\",\"content\":\"{\\\"response\\\":\\\"hello from the child\\\",\\\"templateId\\\":\\\"greeter\\\"}\"",
                        "tool result");
                }
            }
        }
    }
}
