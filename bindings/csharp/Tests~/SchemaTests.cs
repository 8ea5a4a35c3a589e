using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Robota.Tests
{
    internal static class SchemaTests
    {
        /// <summary>The top-level keys of docs/schema/NAME.schema.json (the tests run from target/csharp).</summary>
        private static List<string> SchemaKeys(string name)
        {
            var path = Path.Combine(AppDomain.CurrentDomain.BaseDirectory, "..", "..", "docs", "schema", name + ".schema.json");
            var schema = Json.ParseObject(File.ReadAllText(path));
            var keys = ((Dictionary<string, object>)schema["properties"]).Keys.ToList();
            Expect.True(keys.Count > 0, name + ".schema.json has properties");
            return keys;
        }

        private static void ExpectCovers(string schema, string type, string json, params string[] elsewhere)
        {
            var have = Json.ParseObject(json);
            foreach (var key in SchemaKeys(schema))
            {
                Expect.True(have.ContainsKey(key) || elsewhere.Contains(key),
                    schema + ".schema.json key \"" + key + "\" cannot be expressed by " + type + " (document: " + json + ")");
            }
        }

        /// <summary>
        /// RuntimeConfig and SessionConfig express every top-level key of the library's document
        /// schemas (generated from the library's document types): a key the library accepts that
        /// the config types cannot set fails here, naming it.
        /// </summary>
        [Test]
        private static void ConfigTypesCoverTheDocumentSchemas()
        {
            var rc = new RuntimeConfig
            {
                WorkerThreads = 1, SessionDir = "x", RequestTimeoutMs = 1, RequestTimeoutDecision = "allow", Strict = false,
            };
            rc.Env["A"] = "b";
            rc.PluginDirs.Add("/p");
            rc.AddProvider("p", ProviderConfig.Anthropic());
            ExpectCovers("runtime", "RuntimeConfig", rc.ToJson());

            var sc = new SessionConfig("p", "m")
            {
                SystemPrompt = "x", Cwd = "x", Tools = new List<string> { "Read" }, PermissionMode = "plan",
                Allow = new List<string> { "Read" }, Deny = new List<string>(), HooksJson = "{}", MaxRounds = 1,
                Delivery = Delivery.Pull, SessionId = "x", Persist = true, Settings = "none", SystemPromptMode = "append",
                Language = "x", Temperature = 0.5, MaxTokens = 1, ThinkingBudgetTokens = 1, NativeWebSearch = true, PromptCache = "5m",
                ToolConfigJson = "{}", ToolEnvJson = "{}", SandboxJson = "{}", McpServersJson = "{}", ContextWindow = 1, ToolChoice = ToolChoice.Auto, OutputSchemaJson = "{}",
                AutoCompactThreshold = 0.5, CompactInstructions = "x", Budget = new SessionBudget(), TranscriptDir = "x",
                Commands = new List<HostCommand> { new HostCommand { Name = "x", Description = "x" } },
                Agents = new Dictionary<string, AgentDefinition> { { "a", new AgentDefinition() } },
                HostIo = true, Record = "x", Team = true, Name = "x", ReplayEvents = true, RequestTimeoutMs = 1, Strict = false,
            };
            // `snapshot` is the resume document's: RobotaRuntime.ResumeSession writes it.
            ExpectCovers("session", "SessionConfig", sc.ToJson(), "snapshot");
        }
    }
}
