using System;
using System.Collections.Generic;
using System.IO;

namespace Robota.Tests
{
    internal static class DiffTests
    {
        private static string Call(string id, string tool, string argsJson) =>
            "{\"tool_calls\":[{\"id\":\"" + id + "\",\"name\":\"" + tool + "\",\"arguments\":" + argsJson + "}]}";

        private static string Lines(IReadOnlyList<DiffLine> lines)
        {
            var parts = new List<string>();
            foreach (var l in lines)
            {
                parts.Add(l.Type + "|" + l.Content + "|" + l.LineNumber);
            }
            return string.Join(", ", parts);
        }

        // A built-in Write and Edit that change a file carry their exact diff on the tool_end
        // event; a failed Edit carries none.
        [Test]
        private static void ToolEndCarriesEditAndWriteDiffs()
        {
            var dir = Path.Combine(Path.GetTempPath(), "robota-cs-diff-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
            try
            {
                var turns = "[" +
                    Call("w1", "Write", "{\"filePath\":\"notes.txt\",\"content\":\"a\\nb\\n\"}") + "," +
                    Call("e1", "Edit", "{\"filePath\":\"notes.txt\",\"oldString\":\"b\",\"newString\":\"B\\nc\"}") + "," +
                    Call("e2", "Edit", "{\"filePath\":\"notes.txt\",\"oldString\":\"zzz\",\"newString\":\"y\"}") + "," +
                    "{\"text\":\"done\"}]";
                using (var rt = Fixtures.Runtime(turns))
                {
                    var cfg = Fixtures.Session(Delivery.Thread, "Write", "Edit");
                    cfg.Cwd = dir;
                    cfg.PermissionMode = "bypassPermissions";
                    using (var s = rt.CreateSession(cfg))
                    {
                        var rec = new Recorder(s);
                        var r = Expect.Await(s.RunAsync("go"), "RunAsync");
                        Expect.Equal("done", r.Response, "response");
                        rec.WaitFor(EventKind.TurnCompleted);
                        var ends = rec.Of(EventKind.ToolEnd);
                        Expect.Equal(3, ends.Count, "tool ends");
                        Expect.Equal("notes.txt", ends[0].DiffFile, "write diff file");
                        Expect.Equal("add|a|1, add|b|2", Lines(ends[0].DiffLines), "write diff lines");
                        Expect.Equal("notes.txt", ends[1].DiffFile, "edit diff file");
                        Expect.Equal("remove|b|2, add|B|2, add|c|3", Lines(ends[1].DiffLines), "edit diff lines");
                        Expect.Equal(new DiffLine("remove", "b", 2), ends[1].DiffLines[0], "a diff line equals its value");
                        Expect.Equal(null, ends[2].DiffFile, "failed edit: no diff file");
                        Expect.Equal(0, ends[2].DiffLines.Count, "failed edit: no diff lines");
                        Expect.Equal(0, rec.Of(EventKind.ToolStart)[0].DiffLines.Count, "tool_start: no diff lines");
                        Expect.Equal("a\nB\nc\n", File.ReadAllText(Path.Combine(dir, "notes.txt")), "file");
                    }
                }
            }
            finally
            {
                Directory.Delete(dir, true);
            }
        }
    }
}
