using System;

namespace Robota.Tests
{
    internal static class BudgetTests
    {
        [Test]
        private static void ABudgetStopsTheTurnAndLaterSubmits()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k\"}")))
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call => "found");
                var cfg = Fixtures.Session();
                cfg.Budget = new SessionBudget { MaxModelCalls = 1 };
                using (var s = rt.CreateSession(cfg))
                {
                    var rec = new Recorder(s);
                    var e = Expect.Throws<RobotaException>(() => Expect.Await(s.RunAsync("go"), "RunAsync"), "budget stop");
                    Expect.Equal(RobotaStatus.Budget, e.Code, "status");
                    Expect.Contains(e.Message, "budget exceeded: max_model_calls is 1 and 1 were used", "message");
                    rec.WaitFor(EventKind.TurnCompleted);
                    Expect.Contains(rec.Of(EventKind.TurnCompleted)[0].Payload, "\"stop_reason\":\"budget\"", "stop reason");
                    Expect.Contains(rec.Of(EventKind.Error)[0].Payload, "\"code\":\"BUDGET_EXCEEDED\"", "error event");
                    Expect.Fails(RobotaStatus.Budget, () => s.Submit("more"), "max_model_calls");
                }
                var bad = Fixtures.Session();
                bad.Budget = new SessionBudget { MaxToolCalls = -1 };
                Expect.Fails(RobotaStatus.InvalidConfig, () => rt.CreateSession(bad).Dispose(), "\"max_tool_calls\" must be a non-negative integer");
            }
        }
    }
}
