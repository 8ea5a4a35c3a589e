using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;

namespace Robota.Tests
{
    internal static class RequestTests
    {
        private const string TwoToolTurns =
            "[{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"a\"}}]},{\"text\":\"ok1\"}," +
            "{\"tool_calls\":[{\"name\":\"lookup\",\"arguments\":{\"key\":\"b\"}}]},{\"text\":\"ok2\"}]";

        [Test]
        private static void PermissionAllowRunsTheToolDenyDoesNot()
        {
            using (var rt = Fixtures.Runtime(TwoToolTurns))
            {
                var calls = 0;
                rt.RegisterTool(Fixtures.WriteTool(), c => { Interlocked.Increment(ref calls); return "ran"; });
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    var rec = new Recorder(s);
                    var allow = true;
                    PermissionRequest last = null;
                    s.PermissionRequested += (sender, req) =>
                    {
                        last = req;
                        Expect.True(allow ? req.Allow() : req.Deny(), "answer accepted");
                    };
                    Expect.Equal("ok1", Expect.Await(s.RunAsync("allow it"), "turn 1").Response, "turn 1");
                    Expect.Equal(1, calls, "allowed tool ran");
                    Expect.Equal("lookup", last.ToolName, "tool name");
                    Expect.Equal("a", (string)last.Arguments["key"], "arguments");
                    Expect.Contains(last.Reason, "needs approval in default mode", "reason");
                    Expect.True(!last.Allow(), "a second answer is stale");
                    allow = false;
                    Expect.Equal("ok2", Expect.Await(s.RunAsync("deny it"), "turn 2").Response, "turn 2");
                    Expect.Equal(1, calls, "denied tool did not run");
                    rec.WaitFor(EventKind.ToolEnd, 2);
                    Expect.Equal("denied", rec.Of(EventKind.ToolEnd)[1].GetString("result"), "tool_end result");
                    Expect.Contains(s.MessagesJson(), "Permission denied. The user did not approve this action.", "history");
                }
            }
        }

        [Test]
        private static void PermissionWithoutSubscriberIsDenied()
        {
            using (var rt = Fixtures.Runtime(TwoToolTurns))
            {
                var calls = 0;
                rt.RegisterTool(Fixtures.WriteTool(), c => { calls++; return "ran"; });
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    Expect.Await(s.RunAsync("nobody asked"), "RunAsync");
                    Expect.Equal(0, calls, "not run");
                    Expect.Contains(s.MessagesJson(), "Permission denied.", "history");
                }
            }
        }

        [Test]
        private static void PermissionAnsweredLaterFromAnotherThreadWithRemember()
        {
            using (var rt = Fixtures.Runtime(TwoToolTurns))
            {
                var calls = 0;
                rt.RegisterTool(Fixtures.WriteTool(), c => { Interlocked.Increment(ref calls); return "ran"; });
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    var asked = 0;
                    s.PermissionRequested += (sender, req) =>
                    {
                        Interlocked.Increment(ref asked);
                        new Thread(() => req.Allow(remember: true)).Start();
                    };
                    Expect.Await(s.RunAsync("first"), "turn 1");
                    Expect.Await(s.RunAsync("second"), "turn 2");
                    Expect.Equal(2, calls, "both calls ran");
                    Expect.Equal(1, asked, "remember approves the tool for the session");
                    Expect.Contains((string)s.Command("permissions")["message"], "Session-approved tools: lookup", "permissions command");
                }
            }
        }

        // A Bash call's permission request names the sandbox mode its command would run in (the
        // session's sandbox.mode, "workspace-write" by default); another tool's request names none.
        [Test]
        private static void PermissionRequestOfBashNamesItsSandbox()
        {
            var dir = Path.Combine(Path.GetTempPath(), "robota-cs-sandbox-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
            try
            {
                const string Bash = "{\"command\":\"true\"}";
                Expect.Equal("workspace-write", AskedSandbox(dir, "Bash", Bash, null), "default session");
                Expect.Equal("read-only", AskedSandbox(dir, "Bash", Bash, "{\"mode\":\"read-only\"}"), "read-only session");
                Expect.Equal(null, AskedSandbox(dir, "Write", "{\"filePath\":\"a.txt\",\"content\":\"x\"}", null), "Write");
                Expect.True(!File.Exists(Path.Combine(dir, "a.txt")), "denied Write wrote nothing");
            }
            finally
            {
                Directory.Delete(dir, true);
            }
        }

        // Runs one call of tool in a session of Bash and Write (sandbox as given, or the default),
        // denies its permission request and returns the request's Sandbox.
        private static string AskedSandbox(string dir, string tool, string argsJson, string sandboxJson)
        {
            var turns = "[{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"" + tool + "\",\"arguments\":" + argsJson + "}]},{\"text\":\"done\"}]";
            using (var rt = Fixtures.Runtime(turns))
            {
                var cfg = Fixtures.Session(Delivery.Thread, "Bash", "Write");
                cfg.Cwd = dir;
                if (sandboxJson != null)
                {
                    cfg.Extra["sandbox"] = new JsonRaw(sandboxJson);
                }
                using (var s = rt.CreateSession(cfg))
                {
                    var asked = new List<PermissionRequest>();
                    s.PermissionRequested += (sender, req) =>
                    {
                        lock (asked) asked.Add(req);
                        Expect.True(req.Deny(), "deny accepted");
                    };
                    Expect.Equal("done", Expect.Await(s.RunAsync("go"), "RunAsync").Response, tool + " turn");
                    Expect.Contains(s.MessagesJson(), "Permission denied. The user did not approve this action.", "history");
                    lock (asked)
                    {
                        Expect.Equal(1, asked.Count, tool + " permission requests");
                        Expect.Equal(tool, asked[0].ToolName, "tool name");
                        return asked[0].Sandbox;
                    }
                }
            }
        }

        [Test]
        private static void HostHookBlocksTheTool()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"secret\"}")))
            {
                var calls = 0;
                rt.RegisterTool(Fixtures.ReadOnlyTool(), c => { calls++; return "leaked"; });
                var cfg = Fixtures.Session();
                cfg.HooksJson = "{\"PreToolUse\":[{\"matcher\":\"look\",\"hooks\":[{\"type\":\"host\"}]}]}";
                using (var s = rt.CreateSession(cfg))
                {
                    HookRequest seen = null;
                    s.HookRequested += (sender, h) =>
                    {
                        seen = h;
                        Expect.True(h.Block("not allowed here"), "block accepted");
                    };
                    Expect.Await(s.RunAsync("go"), "RunAsync");
                    Expect.Equal(0, calls, "blocked tool did not run");
                    Expect.Equal("PreToolUse", seen.HookEventName, "hook event");
                    Expect.Equal("lookup", seen.ToolName, "tool");
                    Expect.Contains(seen.Event.Payload, "\"tool_input\":{\"key\":\"secret\"}", "hook input");
                    Expect.Contains(s.MessagesJson(), "Blocked by hook: not allowed here", "history");
                    Expect.Fails(RobotaStatus.NotFound, () => rt.RespondToRequest(424242, "{\"exit_code\":0}"), "was never issued");
                }
            }
        }

        [Test]
        private static void HostHookPassLetsTheToolRun()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"fine\"}")))
            {
                var calls = 0;
                rt.RegisterTool(Fixtures.ReadOnlyTool(), c => { calls++; return "ok"; });
                var cfg = Fixtures.Session();
                cfg.HooksJson = "{\"PreToolUse\":[{\"matcher\":\"\",\"hooks\":[{\"type\":\"host\"}]}]}";
                using (var s = rt.CreateSession(cfg))
                {
                    var hooks = 0;
                    s.HookRequested += (sender, h) => { hooks++; h.Pass(); };
                    Expect.Await(s.RunAsync("go"), "RunAsync");
                    Expect.Equal(1, hooks, "hook asked once");
                    Expect.Equal(1, calls, "tool ran");
                }
            }
        }
    
        [Test]
        private static void HostCommandAnsweredFromTheEventCallback()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"shipping\"]}]"))
            {
                var cfg = Fixtures.Session();
                cfg.Tools = new System.Collections.Generic.List<string>();
                cfg.Commands = new System.Collections.Generic.List<HostCommand>
                {
                    new HostCommand { Name = "deploy", Description = "Ship it", ArgumentHint = "<env>" },
                };
                using (var s = rt.CreateSession(cfg))
                {
                    s.EventReceived += (sender, e) =>
                    {
                        if (e.Kind != EventKind.CommandRequest) return;
                        var id = Json.GetUInt64(e.Data, "request_id");
                        var answer = e.GetString("args") == "prod"
                            ? "{\"message\":\"Deployed prod.\"}"
                            : "{\"prompt\":\"Ship it now.\"}";
                        Expect.True(rt.RespondToRequest(id, answer), "answer accepted");
                    };
                    Expect.Contains((string)s.Command("help")["message"], "Host commands:\n  /deploy — Ship it", "help");
                    var r = s.Command("deploy", "prod");
                    Expect.Equal("Deployed prod.", (string)r["message"], "command result");
                    Expect.Equal("shipping", Expect.Await(s.RunAsync("/deploy"), "slash input").Response, "turn");
                    Expect.Contains(s.MessagesJson(), "Ship it now.", "the host's prompt was the turn");
                }
            }
        }
    }
}
