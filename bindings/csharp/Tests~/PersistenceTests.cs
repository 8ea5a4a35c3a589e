using System.Collections.Generic;

namespace Robota.Tests
{
    internal static class PersistenceTests
    {
        [Test]
        private static void SaveResumeAndForkAreIndependent()
        {
            // A scripted profile takes no api_key (unknown keys are refused): the secret sits in a
            // second, unused profile the snapshot must not reveal either.
            var cfgJson = new RuntimeConfig()
                .AddProvider("s", new ProviderConfig("scripted"))
                .AddProvider("h", new ProviderConfig("anthropic") { ApiKey = "sk-very-secret" });
            cfgJson.Providers["s"].Extra["turns"] = new JsonRaw("[{\"text\":\"first answer\"}]");
            using (var rt = new RobotaRuntime(cfgJson))
            {
                var sc = Fixtures.Session();
                sc.SystemPrompt = "sys";
                using (var s = rt.CreateSession(sc))
                {
                    Expect.Equal("first answer", Expect.Await(s.RunAsync("q1"), "q1").Response, "q1");
                    var snap = s.Save();
                    Expect.Contains(snap, "\"kind\":\"robota.session\"", "snapshot kind");
                    Expect.Contains(snap, "\"content\":\"first answer\"", "snapshot history");
                    Expect.NotContains(snap, "sk-very-secret", "snapshot never holds keys");
                    using (var resumed = rt.ResumeSession(snap, new Dictionary<string, object> { { "delivery", "pump" } }))
                    {
                        Expect.Equal(s.MessagesJson(), resumed.MessagesJson(), "resumed history equals the saved one");
                        Expect.Equal(s.SessionId, resumed.SessionId, "same id");
                        Expect.Equal((long)s.State()["message_count"], (long)resumed.State()["message_count"], "message count restored");
                        var t = resumed.RunAsync("q2");
                        while (!t.IsCompleted) resumed.Dispatch(0, 1000);
                        // A resumed session gets a fresh provider instance: the script starts over.
                        Expect.Equal("first answer", t.Result.Response, "resumed session answers (pump override applied)");
                        var conv = resumed.MessagesJson();
                        var i1 = conv.IndexOf("\"content\":\"q1\"");
                        var i2 = conv.IndexOf("\"content\":\"q2\"");
                        Expect.True(i1 >= 0 && i2 > i1, "the resumed conversation continues the saved one: " + conv);
                    }
                    using (var f = s.Fork(Delivery.Pull))
                    {
                        Expect.True(f.SessionId != s.SessionId, "fork has a new id");
                        var t = f.RunAsync("only in fork");
                        while (!t.IsCompleted) f.NextEvent(30000);
                        Expect.Contains(f.MessagesJson(), "only in fork", "fork history");
                        Expect.Contains(f.MessagesJson(), "\"content\":\"first answer\"", "fork keeps the original history");
                        Expect.NotContains(s.MessagesJson(), "only in fork", "original untouched");
                        Expect.Equal("pull", (string)f.State()["delivery"], "fork override applied");
                    }
                    Expect.Fails(RobotaStatus.InvalidConfig, () => rt.ResumeSession("{\"kind\":\"other\"}"), "snapshot: field \"kind\" must be \"robota.session\"");
                }
            }
        }

        [Test]
        private static void PersistedSessionResumesById()
        {
            var dir = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "robota-cs-" + System.Guid.NewGuid().ToString("N"));
            try
            {
                var cfg = new RuntimeConfig { SessionDir = dir }.AddProvider("s", ProviderConfig.Scripted());
                string id, history;
                using (var rt = new RobotaRuntime(cfg))
                using (var s = rt.CreateSession(new SessionConfig("s", "m") { Persist = true }))
                {
                    Expect.Equal("offline:remember me", Expect.Await(s.RunAsync("remember me"), "RunAsync").Response, "response");
                    id = s.SessionId;
                    history = s.MessagesJson();
                }
                using (var rt = new RobotaRuntime(cfg))
                using (var r = rt.ResumeSessionById(id))
                {
                    Expect.Equal(id, r.SessionId, "same id");
                    Expect.Equal(history, r.MessagesJson(), "history read back from the session directory");
                }
                using (var rt = new RobotaRuntime(cfg))
                {
                    Expect.Fails(RobotaStatus.NotFound, () => rt.ResumeSessionById("no-such-session"), "no-such-session");
                }
            }
            finally
            {
                if (System.IO.Directory.Exists(dir))
                {
                    System.IO.Directory.Delete(dir, true);
                }
            }
        }

        [Test]
        private static void StoreListsAndDeletesSessions()
        {
            var dir = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "robota-cs-store-" + System.Guid.NewGuid().ToString("N"));
            try
            {
                var cfg = new RuntimeConfig { SessionDir = dir }.AddProvider("s", ProviderConfig.Scripted());
                using (var rt = new RobotaRuntime(cfg))
                {
                    Expect.Equal("{\"v\":1,\"sessions\":[],\"skipped\":[]}", rt.ListSessionsJson(), "empty store");
                    var sc = new SessionConfig("s", "m") { Persist = true, SessionId = "cs-1", ContextWindow = 100000, AutoCompactThreshold = 0.5, CompactInstructions = "keep decisions" };
                    using (var s = rt.CreateSession(sc))
                    {
                        Expect.Await(s.RunAsync("hello"), "RunAsync");
                        var snap = s.Save();
                        Expect.Contains(snap, "\"context_window\":100000", "context window in the snapshot");
                        Expect.Contains(snap, "\"compact_instructions\":\"keep decisions\"", "compact instructions in the snapshot");
                    }
                    System.IO.File.WriteAllText(System.IO.Path.Combine(dir, "bad.json"), "{");
                    var list = rt.ListSessionsJson("{\"limit\":5}");
                    Expect.Contains(list, "\"id\":\"cs-1\"", "listed");
                    Expect.Contains(list, "\"message_count\":1", "message count");
                    Expect.Contains(list, "\"skipped\":[{\"file\":\"bad.json\"", "corrupt file named");
                    Expect.Fails(RobotaStatus.NotFound, () => rt.DeleteSession("nope"), "nope");
                    rt.DeleteSession("cs-1");
                    Expect.NotContains(rt.ListSessionsJson(), "cs-1", "deleted");
                }
            }
            finally
            {
                if (System.IO.Directory.Exists(dir))
                {
                    System.IO.Directory.Delete(dir, true);
                }
            }
        }

        [Test]
        private static void CompactCommandReplacesHistory()
        {
            using (var rt = Fixtures.Runtime("[{\"text\":\"answer\"},{\"text\":\"the summary\"}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                Expect.Await(s.RunAsync("q"), "RunAsync");
                var res = s.CommandJson("{\"name\":\"compact\",\"args\":\"focus\"}");
                Expect.Contains(res, "\"message\":\"Context compacted: ", "compacted");
                Expect.Contains(s.MessagesJson(), "[Context Summary]\\nthe summary", "summary in history");
            }
        }

        [Test]
        private static void CommandsAndViews()
        {
            using (var rt = Fixtures.Runtime("[]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                Expect.Await(s.RunAsync("hello"), "RunAsync");
                var messages = s.Messages();
                Expect.True(messages.Count >= 2, "conversation has the exchange");
                var last = (Dictionary<string, object>)messages[messages.Count - 1];
                Expect.Equal("assistant", (string)last["role"], "last role");
                Expect.Equal("offline:hello", (string)last["content"], "last content");
                Expect.Contains(s.MessagesJson("history"), "\"entries\"", "history view");
                var mode = s.Command("mode", "plan");
                Expect.True((bool)mode["success"], "mode command succeeded");
                Expect.Equal("plan", (string)s.State()["permission_mode"], "mode applied");
                Expect.Fails(RobotaStatus.NotFound, () => s.Command("no-such-command"), "no-such-command");
                Expect.Contains(s.CommandJson("{\"name\":\"help\"}"), "\"success\":true", "raw command");
                var cleared = s.Command("clear");
                Expect.True((bool)cleared["success"], "clear");
                Expect.Equal(0, s.Messages("messages").Count, "chat entries cleared");
                Expect.NotContains(s.MessagesJson(), "offline:hello", "conversation cleared");
            }
        }

        [Test]
        private static void InjectMessageJoinsTheConversation()
        {
            using (var rt = Fixtures.Runtime("[]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                s.InjectMessage("user", "The code word is kiwi.");
                s.InjectMessage("assistant", "Noted.");
                Expect.Fails(RobotaStatus.InvalidConfig, () => s.InjectMessage("tool", "x"), "role \"tool\" cannot be injected");
                Expect.Await(s.RunAsync("hello"), "RunAsync");
                var roles = new List<string>();
                foreach (var m in s.Messages())
                {
                    var d = (Dictionary<string, object>)m;
                    roles.Add((string)d["role"] + ":" + (string)d["content"]);
                }
                var joined = string.Join("|", roles);
                Expect.Contains(joined, "user:The code word is kiwi.|assistant:Noted.|user:hello|assistant:offline:hello", "conversation order");
            }
        }
    }
}
