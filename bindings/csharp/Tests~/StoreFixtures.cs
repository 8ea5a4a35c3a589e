using System;
using System.Collections.Generic;
using System.IO;

namespace Robota.Tests
{
    /// <summary>Nodes, fake model answers and assertions shared by the store tests (the SQLite adapter's tests too).</summary>
    internal static class StoreFixtures
    {
        /// <summary>A node: a runtime over the fake server whose sessions persist through <paramref name="store"/>.</summary>
        internal static RobotaRuntime Node(FakeServer fake, IRobotaStore store, string sessionDir = null, int? requestTimeoutMs = null)
        {
            var p = ProviderConfig.OpenAICompatible(fake.BaseUrl + "/v1", "test-key");
            p.MaxRetries = 0;
            p.TimeoutMs = 30000;
            var rt = new RobotaRuntime(new RuntimeConfig { SessionDir = sessionDir, RequestTimeoutMs = requestTimeoutMs }.AddProvider("fake", p));
            rt.SetStore(store);
            return rt;
        }

        /// <summary>Queues one plain answer of the fake model.</summary>
        internal static void Answer(FakeServer fake, string text) =>
            fake.Send("{\"cmd\":\"enqueue\",\"kind\":\"openai\",\"text\":[" + Json.Serialize(text) + "]}");

        /// <summary>The body of the fake server's model request number <paramref name="index"/>.</summary>
        internal static string RequestBody(FakeServer fake, int index)
        {
            var requests = (List<object>)fake.Send("{\"cmd\":\"requests\"}")["requests"];
            var r = (Dictionary<string, object>)requests[index];
            return r["body"] as string ?? Json.Serialize(r["body"]);
        }

        /// <summary>Asserts that <paramref name="parts"/> occur in <paramref name="text"/> in this order.</summary>
        internal static void InOrder(string text, string what, params string[] parts)
        {
            var at = -1;
            foreach (var p in parts)
            {
                var i = text.IndexOf(p, at + 1, StringComparison.Ordinal);
                Expect.True(i > at, what + ": <" + p + "> after the previous part in " + text);
                at = i;
            }
        }

        internal static SessionConfig Persisted(string id) => new SessionConfig("fake", "gpt-test") { Persist = true, SessionId = id };

        internal static string TempDir() => Path.Combine(Path.GetTempPath(), "robota-cs-store-" + Guid.NewGuid().ToString("N"));
    }
}
