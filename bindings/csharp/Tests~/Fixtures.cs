using System.Collections.Generic;

namespace Robota.Tests
{
    /// <summary>Runtimes and sessions on the offline scripted provider.</summary>
    internal static class Fixtures
    {
        internal const string LookupSchema =
            "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}},\"required\":[\"key\"]}";

        /// <summary>A turn calling tool <paramref name="tool"/> with <paramref name="argsJson"/>, then one answering "Done.".</summary>
        internal static string ToolTurns(string tool, string argsJson) =>
            "[{\"text\":\"Calling.\",\"tool_calls\":[{\"id\":\"call_0\",\"name\":\"" + tool + "\",\"arguments\":" + argsJson + "}]}," +
            "{\"deltas\":[\"Done.\"]}]";

        internal static RobotaRuntime Runtime(string turnsJson, string fallback = "echo") =>
            new RobotaRuntime(new RuntimeConfig().AddProvider("s", ProviderConfig.Scripted(turnsJson, fallback)));

        internal static SessionConfig Session(Delivery delivery = Delivery.Thread, params string[] tools)
        {
            var c = new SessionConfig("s", "m") { Delivery = delivery };
            if (tools.Length > 0)
            {
                c.Tools = new List<string>(tools);
            }
            return c;
        }

        /// <summary>A read-only tool (no permission prompt in default mode).</summary>
        internal static ToolDefinition ReadOnlyTool(string name = "lookup") =>
            new ToolDefinition(name, "Looks a key up", LookupSchema) { ReadOnly = true };

        /// <summary>A tool that changes things (asks permission in default mode).</summary>
        internal static ToolDefinition WriteTool(string name = "lookup") =>
            new ToolDefinition(name, "Changes things", LookupSchema);

        internal static string ConversationJson(RobotaSession s) => s.MessagesJson();
    }
}
