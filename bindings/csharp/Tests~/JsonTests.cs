using System;
using System.Collections.Generic;

namespace Robota.Tests
{
    internal static class JsonTests
    {
        [Test]
        private static void ParsesEveryValueKind()
        {
            var d = Json.ParseObject(" {\"s\":\"a\\\"b\\\\c\\n\\u00e9\\ud83c\\udf89\",\"i\":-42,\"big\":18446744073709551615,\"f\":1.5e2," +
                                     "\"t\":true,\"n\":null,\"a\":[1,[],{}],\"o\":{\"x\":false}} ");
            Expect.Equal("a\"b\\c\né🎉", (string)d["s"], "string escapes and surrogate pairs");
            Expect.Equal(-42L, (long)d["i"], "integer");
            Expect.Equal(ulong.MaxValue, (ulong)d["big"], "u64 above long.MaxValue");
            Expect.Equal(150.0, (double)d["f"], "exponent");
            Expect.Equal(true, (bool)d["t"], "true");
            Expect.True(d.ContainsKey("n") && d["n"] == null, "null");
            Expect.Equal(3, ((List<object>)d["a"]).Count, "array");
            Expect.Equal(false, (bool)((Dictionary<string, object>)d["o"])["x"], "nested object");
        }

        [Test]
        private static void RoundTripsAndKeepsOrder()
        {
            var text = "{\"z\":1,\"a\":[true,null,\"x\\ty\"],\"m\":{\"k\":-0.25},\"u\":\"\\u0001\"}";
            Expect.Equal(text, Json.Serialize(Json.Parse(text)), "round trip");
            var raw = Json.Serialize(new Dictionary<string, object> { { "r", new JsonRaw("{\"pre\":1}") }, { "l", new[] { 1, 2 } }, { "d", 0.1 } });
            Expect.Equal("{\"r\":{\"pre\":1},\"l\":[1,2],\"d\":0.1}", raw, "JsonRaw, arrays, doubles in invariant culture");
        }

        [Test]
        private static void SharedKeysAndSmallIntegersReadAsBefore()
        {
            var d = Json.ParseObject("{\"k\":-129,\"k\":-128,\"n\":[0,1023,1024,-1],\"esc\\u0061\":\"x\"}");
            Expect.Equal(-128L, (long)d["k"], "the last of duplicate members wins");
            var n = (List<object>)d["n"];
            Expect.Equal(1023L, (long)n[1], "cached integer");
            Expect.Equal(1024L, (long)n[2], "integer past the cache");
            Expect.Equal(-1L, (long)n[3], "negative cached integer");
            Expect.True(d.ContainsKey("esca"), "an escaped key is unescaped");
            var again = Json.ParseObject("{\"k\":1}");
            Expect.Equal(1L, (long)again["k"], "a reused key reads its own value");
            Expect.Equal("\"a\\\"b\\nc\\u0001\"", Json.Serialize("a\"b\nc\u0001"), "escapes between runs");
            Expect.Equal("-9223372036854775808", Json.Serialize(new List<object> { long.MinValue }).Trim('[', ']'), "long.MinValue");
            Expect.Equal("[-42,0,7]", Json.Serialize(new List<object> { -42, 0L, 7 }), "integers in a list");
        }

        [Test]
        private static void BadInputNamesTheOffset()
        {
            var cases = new Dictionary<string, string>
            {
                { "{\"a\":}", "offset 5" },
                { "[1,2", "offset 4" },
                { "\"open", "unterminated string" },
                { "01", "leading zero" },
                { "{} x", "unexpected text after the JSON value" },
                { "{\"a\" 1}", "expected ':'" },
                { "\"\\q\"", "unknown escape" },
                { "", "unexpected end of input" },
                { "nul", "expected null" },
            };
            foreach (var c in cases)
            {
                var e = Expect.Throws<FormatException>(() => Json.Parse(c.Key), "parse " + c.Key);
                Expect.Contains(e.Message, c.Value, "message for " + c.Key);
            }
            Expect.Throws<FormatException>(() => Json.ParseObject("[]"), "not an object");
            Expect.Throws<FormatException>(() => Json.Parse(new string('[', 300) + new string(']', 300)), "too deep");
            var bad = Expect.Throws<ArgumentException>(() => Json.Serialize(new object()), "unsupported type");
            Expect.Contains(bad.Message, "System.Object", "names the type");
            Expect.Throws<ArgumentException>(() => Json.Serialize(double.NaN), "NaN");
        }

        [Test]
        private static void ConfigsSerialize()
        {
            var rc = new RuntimeConfig { WorkerThreads = 1 }.AddProvider("a", ProviderConfig.Anthropic("$ENV:K"));
            Expect.Equal("{\"v\":1,\"providers\":{\"a\":{\"kind\":\"anthropic\",\"api_key\":\"$ENV:K\"}},\"worker_threads\":1}", rc.ToJson(), "runtime config");
            var sc = new SessionConfig("a", "m") { Delivery = Delivery.Pump, Tools = new List<string> { "Read" }, Deny = new List<string> { "Bash" }, MaxRounds = 3 };
            Expect.Equal("{\"v\":1,\"provider\":\"a\",\"model\":\"m\",\"delivery\":\"pump\",\"tools\":[\"Read\"],\"permissions\":{\"allow\":[],\"deny\":[\"Bash\"]},\"max_rounds\":3}", sc.ToJson(), "session config");
            var sc2 = new SessionConfig("a", "m")
            {
                Transcript = true,
                Budget = new SessionBudget { MaxCostUsd = 1.5 },
                Commands = new List<HostCommand> { new HostCommand { Name = "deploy", Description = "Ship it" } },
            };
            Expect.Equal("{\"v\":1,\"provider\":\"a\",\"model\":\"m\",\"delivery\":\"thread\",\"budget\":{\"max_cost_usd\":1.5},\"transcript\":true,\"commands\":[{\"name\":\"deploy\",\"description\":\"Ship it\"}]}", sc2.ToJson(), "transcript, budget cost, commands");
            sc2.TranscriptDir = "/logs";
            Expect.Contains(sc2.ToJson(), "\"transcript\":\"/logs\"", "transcript directory");
            var mcp = new SessionConfig("a", "m") { McpServersJson = "{\"fs\":{\"command\":\"mcp-server-filesystem\",\"args\":[\"/tmp\"]}}" };
            Expect.Equal("{\"v\":1,\"provider\":\"a\",\"model\":\"m\",\"delivery\":\"thread\",\"mcp_servers\":{\"fs\":{\"command\":\"mcp-server-filesystem\",\"args\":[\"/tmp\"]}}}", mcp.ToJson(), "session config with MCP servers");
            var td = new ToolDefinition("t", "d") { ReadOnly = true, TimeoutMs = 5 };
            Expect.Equal("{\"name\":\"t\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"},\"read_only\":true,\"timeout_ms\":5}", td.ToJson(), "tool definition");
        }
    }
}
