using System;
using System.IO;

namespace Robota.Tests
{
    internal static class ReplayTests
    {
        [Test]
        private static void ARecordedSessionReplaysOfflineAndACostBudgetIsShown()
        {
            var dir = Path.Combine(Path.GetTempPath(), "robota-cs-replay-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
            try
            {
                var rec = Path.Combine(dir, "rec.jsonl");
                var cfg = new RuntimeConfig()
                    .AddProvider("s", ProviderConfig.Scripted(Fixtures.ToolTurns("lookup", "{\"key\":\"k\"}")))
                    .AddProvider("rep", ProviderConfig.Replay(rec, strict: true));
                using (var rt = new RobotaRuntime(cfg))
                {
                    rt.RegisterTool(Fixtures.ReadOnlyTool(), call => "found");
                    string recorded;
                    using (var s = rt.CreateSession(new SessionConfig("s", "m") { Cwd = dir, Record = "rec.jsonl" }))
                        recorded = Expect.Await(s.RunAsync("go"), "recorded turn").Response;
                    Expect.Contains(File.ReadAllText(rec), "{\"robota_recording\":1", "header");
                    using (var s = rt.CreateSession(new SessionConfig("rep", "m") { Cwd = dir }))
                    {
                        var replayed = Expect.Await(s.RunAsync("go"), "replayed turn").Response;
                        Expect.Equal(recorded, replayed, "replayed answer");
                        Expect.Equal("Done.", replayed, "answer");
                    }
                    using (var s = rt.CreateSession(new SessionConfig("rep", "m") { Cwd = dir }))
                    {
                        var e = Expect.Throws<RobotaException>(() => Expect.Await(s.RunAsync("other"), "strict"), "strict replay");
                        Expect.Contains(e.Message, "message 0 (role user): field \"content\": recorded \"go\", got \"other\"", "difference");
                    }
                    var unpriced = new SessionConfig("s", "m") { Budget = new SessionBudget { MaxCostUsd = 1.0 } };
                    Expect.Fails(RobotaStatus.InvalidConfig, () => rt.CreateSession(unpriced).Dispose(), "needs the price of model \"m\"");
                    var priced = new SessionConfig("s", "claude-haiku-4-5") { Budget = new SessionBudget { MaxCostUsd = 0.5 } };
                    using (var s = rt.CreateSession(priced))
                        Expect.Contains((string)s.Command("cost")["message"], "Cost: $0 of $0.5", "cost command");
                }
            }
            finally
            {
                Directory.Delete(dir, true);
            }
        }
    }
}
