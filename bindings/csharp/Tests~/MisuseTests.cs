using System;
using System.Threading.Tasks;

namespace Robota.Tests
{
    internal static class MisuseTests
    {
        [Test]
        private static void BadConfigsNameTheProblem()
        {
            Expect.Fails(RobotaStatus.InvalidJson, () => new RobotaRuntime("{not json"), "config_json is not valid JSON");
            Expect.Fails(RobotaStatus.InvalidConfig, () => new RobotaRuntime("{\"v\":1}"), "missing required field \"providers\"");
            Expect.Fails(RobotaStatus.InvalidConfig, () => new RobotaRuntime(new RuntimeConfig().AddProvider("x", new ProviderConfig("telepathy"))), "unknown kind \"telepathy\"");
            Expect.Fails(RobotaStatus.VersionMismatch, () => new RobotaRuntime("{\"v\":2,\"providers\":{}}"), "");
            Expect.Throws<ArgumentNullException>(() => new RobotaRuntime((string)null), "null config");
            using (var rt = Fixtures.Runtime("[]"))
            {
                Expect.Fails(RobotaStatus.NotFound, () => rt.CreateSession(new SessionConfig("nope", "m")), "unknown provider \"nope\" (configured: s)");
                Expect.Fails(RobotaStatus.NotFound, () => rt.CreateSession(Fixtures.Session(Delivery.Thread, "Nope")), "unknown tool \"Nope\"");
                Expect.Fails(RobotaStatus.InvalidConfig, () => rt.CreateSession("{\"v\":1,\"provider\":\"s\"}"), "session config: missing required field \"model\"");
                Expect.Fails(RobotaStatus.InvalidConfig, () => rt.RegisterTool(new ToolDefinition("t", "d", "{\"type\":12}"), c => 1), "is not a valid JSON Schema");
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    Expect.Fails(RobotaStatus.InvalidConfig, () => s.SubmitJson("{\"display_input\":\"x\"}"), "input_json: missing required field \"text\"");
                    Expect.Fails(RobotaStatus.InvalidConfig, () => s.SubmitJson("{\"txt\":\"x\"}"), "input_json: field \"txt\" is not a known field");
                    Expect.Fails(RobotaStatus.InvalidJson, () => s.CommandJson("{"), "");
                    Expect.Throws<ArgumentNullException>(() => s.Submit(null), "null text");
                }
            }
        }

        [Test]
        private static void NullHandlersAreRefused()
        {
            using (var rt = Fixtures.Runtime("[]"))
            {
                Expect.Throws<ArgumentNullException>(() => rt.RegisterTool(Fixtures.ReadOnlyTool(), (Func<ToolCall, object>)null), "null sync handler");
                Expect.Throws<ArgumentNullException>(() => rt.RegisterTool(Fixtures.ReadOnlyTool(), (Func<ToolCall, Task<object>>)null), "null async handler");
                Expect.Throws<ArgumentNullException>(() => rt.RegisterTool(null, c => 1), "null definition");
                // A refused registration leaves the name free.
                rt.RegisterTool(Fixtures.ReadOnlyTool(), c => 1);
            }
        }

        [Test]
        private static void DisposedSessionThrowsObjectDisposedAndDoubleDisposeIsHarmless()
        {
            var cfg = new RuntimeConfig()
                .AddProvider("s", ProviderConfig.Scripted("[{\"deltas\":[\"x\"],\"hang\":true}]"))
                .AddProvider("e", ProviderConfig.Scripted());
            using (var rt = new RobotaRuntime(cfg))
            {
                var s = rt.CreateSession(Fixtures.Session());
                var rec = new Recorder(s);
                var pending = s.RunAsync("hang");
                rec.WaitFor(EventKind.TextDelta);
                s.Dispose();
                Expect.Throws<ObjectDisposedException>(() => pending.Wait(), "a waiting RunAsync fails when the session is disposed");
                s.Dispose();
                Expect.True(s.IsDisposed, "IsDisposed");
                Expect.Throws<ObjectDisposedException>(() => s.Submit("x"), "Submit");
                Expect.Throws<ObjectDisposedException>(() => s.RunAsync("x"), "RunAsync");
                Expect.Throws<ObjectDisposedException>(() => s.State(), "State");
                Expect.Throws<ObjectDisposedException>(() => s.Save(), "Save");
                Expect.Throws<ObjectDisposedException>(() => s.Dispatch(), "Dispatch");
                Expect.Throws<ObjectDisposedException>(() => s.Abort(), "Abort");
                Expect.Throws<ObjectDisposedException>(() => s.Fork(), "Fork");
                Expect.Throws<ObjectDisposedException>(() => s.Wait(), "Wait");
                // The runtime is unaffected.
                using (var s2 = rt.CreateSession(new SessionConfig("e", "m")))
                {
                    Expect.Equal("offline:y", Expect.Await(s2.RunAsync("y"), "new session").Response, "runtime still works");
                }
            }
        }

        [Test]
        private static void DisposedRuntimeThrowsObjectDisposedButItsSessionsLiveOn()
        {
            var rt = Fixtures.Runtime(Fixtures.ToolTurns("lookup", "{\"key\":\"k\"}"));
            rt.RegisterTool(Fixtures.WriteTool(), async call =>
            {
                await System.Threading.Tasks.Task.Yield();
                return (object)"answered after the runtime object was disposed";
            });
            var s = rt.CreateSession(Fixtures.Session());
            s.PermissionRequested += (sender, req) => Expect.True(req.Allow(), "permission answered");
            rt.Dispose();
            rt.Dispose();
            Expect.True(rt.IsDisposed, "IsDisposed");
            Expect.Throws<ObjectDisposedException>(() => rt.CreateSession(Fixtures.Session()), "CreateSession");
            Expect.Throws<ObjectDisposedException>(() => rt.RegisterTool(Fixtures.ReadOnlyTool("other"), c => 1), "RegisterTool");
            Expect.Throws<ObjectDisposedException>(() => rt.CompleteToolCall(1, "{}"), "CompleteToolCall");
            Expect.Equal("Done.", Expect.Await(s.RunAsync("still"), "the session outlives the runtime object").Response, "response");
            Expect.Contains(s.MessagesJson(), "answered after the runtime object was disposed", "tool and permission answered through the session");
            s.Dispose();
        }

        [Test]
        private static void BlockingCallsInsideCallbacksAreReentrantErrors()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\"]}]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                RobotaException waitError = null;
                string stateInside = null;
                s.TextDelta += (sender, e) =>
                {
                    try
                    {
                        s.Wait(0, 10);
                    }
                    catch (RobotaException x)
                    {
                        waitError = x;
                    }
                    stateInside = s.StateJson(); // non-blocking calls are allowed
                };
                Expect.Await(s.RunAsync("x"), "RunAsync");
                Expect.True(waitError != null, "Wait inside a callback throws");
                Expect.Equal(RobotaStatus.Reentrant, waitError.Code, "status");
                Expect.Contains(stateInside, "\"session_id\"", "State inside a callback works");
            }
        }

        [Test]
        private static void DisposingTheSessionInsideItsOwnCallbackIsSafe()
        {
            using (var rt = Fixtures.Runtime("[{\"deltas\":[\"a\",\"b\",\"c\"],\"delay_ms\":5}]"))
            {
                var s = rt.CreateSession(Fixtures.Session());
                var deltas = 0;
                s.TextDelta += (sender, e) =>
                {
                    deltas++;
                    ((RobotaSession)sender).Dispose();
                };
                var t = s.RunAsync("x");
                Expect.Throws<ObjectDisposedException>(() => t.Wait(), "RunAsync fails: disposed mid-turn");
                Expect.Equal(1, deltas, "no callback after the dispose returned");
            }
        }

        [Test]
        private static void LibraryInfo()
        {
            Expect.Equal(1u, RobotaLibrary.AbiVersion >> 16, "ABI major");
            Expect.True(!string.IsNullOrEmpty(RobotaLibrary.Version), "version");
            Expect.Contains(RobotaLibrary.StatusText(RobotaStatus.Stale), "stale", "status text");
            Expect.Equal("unknown status", RobotaLibrary.StatusText((RobotaStatus)(-999)), "unknown status text");
            RobotaLibrary.EnsureCompatible();
        }

        [Test]
        private static void LogHandlerReceivesLinesAndIsReleased()
        {
            var lines = new System.Collections.Generic.List<string>();
            RobotaLibrary.SetLogHandler((level, target, message) =>
            {
                lock (lines) lines.Add(level + " " + target + " " + message);
            }, LogLevel.Info);
            try
            {
                using (Fixtures.Runtime("[]"))
                {
                }
                lock (lines)
                {
                    Expect.True(lines.Exists(l => l.StartsWith("Info robota::runtime") && l.Contains("runtime started: 1 provider(s)")), "runtime start logged: " + string.Join(" | ", lines));
                }
            }
            finally
            {
                RobotaLibrary.SetLogHandler(null);
            }
            int before;
            lock (lines) before = lines.Count;
            using (Fixtures.Runtime("[]"))
            {
            }
            lock (lines) Expect.Equal(before, lines.Count, "no line after the handler was removed");
        }
    }
}
