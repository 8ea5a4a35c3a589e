using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Robota.Tests
{
    /// <summary>Host providers that fail: error classes, host exceptions, refused pushes, the timeout, registration checks.</summary>
    internal static class ProviderErrorTests
    {
        private static RobotaRuntime Runtime() => ProviderTests.Runtime();

        private static SessionConfig Session(Delivery delivery = Delivery.Thread, params string[] tools) => ProviderTests.Session(delivery, tools);

        [Test]
        private static void SilenceTimesTheCallOutAndCancelsIt()
        {
            using (var rt = Runtime())
            {
                var cancels = 0;
                var cancelled = new Signal();
                string reason = null;
                var p = new ProviderTests.Scripted((r, s, ct) => ct.Register(() =>
                {
                    Interlocked.Increment(ref cancels);
                    reason = s.CancelReason;
                    cancelled.Set();
                }));
                rt.RegisterProvider("local", new ProviderCapabilities { TimeoutMs = 50, MaxRetries = 0 }, p);
                using (var s = rt.CreateSession(Session()))
                {
                    var e = Expect.Throws<RobotaProviderException>(() => s.RunAsync("hi").Wait(), "the timed-out turn");
                    Expect.Contains(e.Message, "host provider \"local\": no event for 50 ms", "the timeout names the provider");
                    cancelled.Wait("the cancellation of the timed-out call");
                    Expect.Equal(1, Volatile.Read(ref cancels), "the host's code saw the cancellation once");
                    Expect.Equal("timeout", reason, "cancel reason");
                    Expect.Equal(1, p.Calls, "no retry with max_retries 0");
                }
            }
        }

        [Test]
        private static void AuthenticationErrorFailsTheTurnNamingTheProvider()
        {
            using (var rt = Runtime())
            {
                var p = new ProviderTests.Scripted((r, s, ct) => s.Fail(ModelErrorClass.Authentication, "key rejected"));
                rt.RegisterProvider("local", new ProviderCapabilities { MaxRetries = 2 }, p);
                using (var s = rt.CreateSession(Session()))
                {
                    var rec = new Recorder(s);
                    var e = Expect.Throws<RobotaProviderException>(() => s.RunAsync("hi").Wait(), "the failed turn");
                    Expect.Equal("Authentication Error: host provider \"local\": key rejected", e.Message, "message names the provider and carries the host's text");
                    Expect.Equal("AUTHENTICATION_ERROR", e.ErrorCode, "error code");
                    Expect.True(!e.Recoverable, "not recoverable");
                    Expect.Equal(1, p.Calls, "authentication errors are not retried");
                    rec.WaitFor(EventKind.TurnCompleted);
                    Expect.Equal(1, rec.Count(EventKind.Error), "one error event");
                }
            }
        }

        [Test]
        private static void ExceptionsOfTheHostsCodeFailTheCallWithoutCrashing()
        {
            using (var rt = Runtime())
            {
                var p = new ProviderTests.Scripted(
                    (r, s, ct) => { throw new InvalidOperationException("decoder crashed"); },
                    (r, s, ct) => { throw new ModelProviderException(ModelErrorClass.ModelNotAvailable, "weights not loaded"); });
                rt.RegisterProvider("local", new ProviderCapabilities { MaxRetries = 3 }, p);
                using (var s = rt.CreateSession(Session()))
                {
                    var e = Expect.Throws<RobotaProviderException>(() => s.RunAsync("hi").Wait(), "the failed turn");
                    // The class the host's exception chose: model_not_available (its text is the library's).
                    Expect.Equal("Model \"tiny-1\" is not available for provider \"local\"", e.Message, "the second call's error ends the turn");
                    Expect.Equal("MODEL_NOT_AVAILABLE", e.ErrorCode, "error code");
                    Expect.Equal(2, p.Calls, "the provider-class error was retried, model_not_available was not");
                    Expect.Equal("1,2", string.Join(",", p.Requests.Select(r => r.Attempt)), "attempts");
                }
            }
        }

        [Test]
        private static void ToolCallForAnUnknownToolFailsTheTurn()
        {
            using (var rt = Runtime())
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call => "unused");
                RobotaException refused = null;
                var afterRefusal = true;
                var roundOver = new Signal();
                var p = new ProviderTests.Scripted((r, s, ct) =>
                {
                    s.Text("Calling.");
                    refused = Expect.Fails(RobotaStatus.InvalidConfig, () => s.ToolCall("call_x", "launch_missiles", "{}"),
                        "event_json: tool call \"call_x\" names tool \"launch_missiles\", which the request did not offer (offered: lookup)");
                    afterRefusal = s.Done();
                    roundOver.Set();
                });
                rt.RegisterProvider("local", null, p);
                using (var s = rt.CreateSession(Session(Delivery.Thread, "lookup")))
                {
                    var e = Expect.Throws<RobotaProviderException>(() => s.RunAsync("go").Wait(), "the failed turn");
                    roundOver.Wait("the provider's round"); // the turn may fail before the push returns
                    Expect.Equal("Provider Error (local): host provider \"local\": bad event for call " + p.Request(0).CallId + ": " + refused.Message,
                        e.Message, "the turn's error names the provider and the refused event");
                    Expect.True(refused != null, "the push was refused");
                    Expect.True(!afterRefusal, "the refused push ended the call");
                    Expect.Equal(1, p.Calls, "not retried");
                }
            }
        }

        [Test]
        private static void ArgumentsThatAreNotJsonFailTheTurn()
        {
            using (var rt = Runtime())
            {
                rt.RegisterTool(Fixtures.ReadOnlyTool(), call => "unused");
                RobotaException refused = null;
                var doneAfterRefusal = true;
                var roundOver = new Signal();
                var p = new ProviderTests.Scripted((r, s, ct) =>
                {
                    refused = Expect.Fails(RobotaStatus.InvalidJson, () => s.ToolCall("call_x", "lookup", "{\"key\":"), "event_json is not valid JSON");
                    doneAfterRefusal = s.Done();
                    roundOver.Set();
                });
                rt.RegisterProvider("local", null, p);
                using (var s = rt.CreateSession(Session(Delivery.Thread, "lookup")))
                {
                    var e = Expect.Throws<RobotaProviderException>(() => s.RunAsync("go").Wait(), "the failed turn");
                    roundOver.Wait("the provider's round");
                    Expect.True(!doneAfterRefusal, "the refused push ended the call");
                    Expect.Equal("Provider Error (local): host provider \"local\": bad event for call " + p.Request(0).CallId + ": " + refused.Message,
                        e.Message, "the turn's error");
                    Expect.Equal(1, p.Calls, "not retried");
                }
            }
        }

        [Test]
        private static void RegistrationChecksItsArguments()
        {
            var config = new RuntimeConfig().AddProvider("s", ProviderConfig.Scripted("[]"));
            using (var rt = new RobotaRuntime(config))
            {
                var p = new ProviderTests.Scripted();
                rt.RegisterProvider("local", null, p);
                Expect.Fails(RobotaStatus.InvalidConfig, () => rt.RegisterProvider("local", null, p), "\"local\"");
                Expect.Fails(RobotaStatus.InvalidConfig, () => rt.RegisterProvider("s", null, p), "\"s\"");
                Expect.Throws<ArgumentNullException>(() => rt.RegisterProvider(null, null, p), "null name");
                Expect.Throws<ArgumentNullException>(() => rt.RegisterProvider("x", null, (IModelProvider)null), "null provider");
                Expect.Equal(0, p.Calls, "no call");
            }
            Expect.Equal(
                "{\"models\":[\"a\",\"b\"],\"context_window\":4096,\"max_output_tokens\":512,\"vision\":true,\"thinking\":false,\"max_retries\":0,\"timeout_ms\":1500}",
                new ProviderCapabilities { Models = new List<string> { "a", "b" }, ContextWindow = 4096, MaxOutputTokens = 512, Vision = true, Thinking = false, MaxRetries = 0, TimeoutMs = 1500 }.ToJson(),
                "capabilities document");
        }
    }
}
