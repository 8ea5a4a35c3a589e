using System;
using System.Collections.Generic;

namespace Robota.Tests
{
    internal static class HostIoTests
    {
        private const string Turns =
            "[{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"Write\",\"arguments\":{\"filePath\":\"a.txt\",\"content\":\"alpha\\n\"}}]}," +
            "{\"tool_calls\":[{\"id\":\"c2\",\"name\":\"Read\",\"arguments\":{\"filePath\":\"/vfs/a.txt\"}}]}," +
            "{\"tool_calls\":[{\"id\":\"c3\",\"name\":\"Grep\",\"arguments\":{\"pattern\":\"alp\"}}]}," +
            "{\"tool_calls\":[{\"id\":\"c4\",\"name\":\"Bash\",\"arguments\":{\"command\":\"ls\"}}]}," +
            "{\"text\":\"Done.\"}]";

        /// <summary>An in-memory file system without a shell.</summary>
        private sealed class MemFs
        {
            internal readonly Dictionary<string, string> Files = new Dictionary<string, string>();
            internal readonly List<string> Ops = new List<string>();

            internal IDictionary<string, object> Serve(HostIoRequest r)
            {
                lock (this)
                {
                    Ops.Add(r.Op + " " + r.Path);
                    string c;
                    switch (r.Op)
                    {
                        case "stat":
                            if (r.Path == "/vfs") return new Dictionary<string, object> { { "exists", true }, { "is_dir", true } };
                            var ok = Files.TryGetValue(r.Path, out c);
                            return new Dictionary<string, object> { { "exists", ok }, { "is_dir", false }, { "size", ok ? c.Length : 0 } };
                        case "read":
                            if (!Files.TryGetValue(r.Path, out c)) throw new InvalidOperationException("no such file");
                            return new Dictionary<string, object> { { "content", c } };
                        case "write":
                            Files[r.Path] = r.Content;
                            return null;
                        case "list":
                            var entries = new List<object>();
                            foreach (var p in Files.Keys)
                            {
                                if (p.StartsWith(r.Path + "/", StringComparison.Ordinal) && p.IndexOf('/', r.Path.Length + 1) < 0)
                                {
                                    entries.Add(new Dictionary<string, object> { { "name", p.Substring(r.Path.Length + 1) }, { "is_dir", false } });
                                }
                            }
                            return new Dictionary<string, object> { { "entries", entries } };
                        default:
                            throw new NotSupportedException();
                    }
                }
            }
        }

        private static void Check(RobotaSession s, MemFs fs)
        {
            var m = s.MessagesJson();
            Expect.Contains(m, "Written 6 bytes to a.txt", "Write through the host");
            Expect.Contains(m, "[File: /vfs/a.txt (1 lines)]\\\\n1\\\\talpha", "Read through the host");
            Expect.Contains(m, "{\\\"success\\\":true,\\\"output\\\":\\\"/vfs/a.txt\\\"}", "Grep walks through list + read");
            Expect.Contains(m, "host I/O exec is not supported by the host", "no shell");
            lock (fs) Expect.Equal("alpha\n", fs.Files["/vfs/a.txt"], "the host's file");
        }

        [Test]
        private static void ToolsRunOnTheHostsFileSystem()
        {
            using (var rt = Fixtures.Runtime(Turns))
            {
                var cfg = new SessionConfig("s", "m") { HostIo = true, Cwd = "/vfs", PermissionMode = "bypassPermissions" };
                Expect.Fails(RobotaStatus.InvalidConfig, () => rt.CreateSession(cfg).Dispose(), "needs a host I/O callback");
                var fs = new MemFs();
                rt.SetHostIo(fs.Serve);
                using (var s = rt.CreateSession(cfg))
                {
                    var r = Expect.Await(s.RunAsync("work"), "RunAsync");
                    Expect.Equal("Done.", r.Response, "response");
                    Check(s, fs);
                }
                Expect.Fails(RobotaStatus.Stale, () => rt.CompleteHostIo(1, "{}"), "stale");
            }
        }

        [Test]
        private static void PullDeliveryRoutesRequestsToTheHandler()
        {
            using (var rt = Fixtures.Runtime(Turns))
            {
                var fs = new MemFs();
                rt.SetHostIo(fs.Serve);
                var cfg = new SessionConfig("s", "m") { HostIo = true, Cwd = "/vfs", PermissionMode = "bypassPermissions", Delivery = Delivery.Pull };
                using (var s = rt.CreateSession(cfg))
                {
                    var task = s.RunAsync("work");
                    int requests = 0;
                    while (true)
                    {
                        var ev = s.NextEvent(60000);
                        Expect.True(ev != null, "an event within the timeout");
                        if (ev.Kind == EventKind.HostIo)
                        {
                            requests++;
                            Expect.Contains(ev.Payload, "\"request\":{\"v\":1,\"op\":", "host_io payload");
                        }
                        if (ev.Kind == EventKind.TurnCompleted) break;
                    }
                    Expect.True(requests >= 5, "host I/O events: " + requests);
                    Expect.Equal("Done.", Expect.Await(task, "RunAsync").Response, "response");
                    Check(s, fs);
                }
            }
        }
    }
}
