using System.Collections.Generic;

namespace Robota.Tests
{
    public sealed class CityAnswer
    {
        public string City { get; set; }

        public int Days { get; set; }
    }

    /// <summary>Structured output: typed answers, the session's schema, the forced final_answer tool, schema errors.</summary>
    internal static class StructuredOutputTests
    {
        private const string CitySchema = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"],\"additionalProperties\":false}";

        [Test]
        private static void RunAsyncOfTReturnsTheTypedAnswer()
        {
            // The scripted provider has no native form: a matching text needs no extra call, another
            // text is followed by one call forcing the final_answer tool, whose input is the answer.
            var turns = "[{\"text\":\"{\\\"city\\\":\\\"Oslo\\\",\\\"days\\\":3}\"}," +
                        "{\"text\":\"Bergen, two days.\"}," +
                        "{\"tool_calls\":[{\"name\":\"final_answer\",\"arguments\":{\"city\":\"Bergen\",\"days\":2}}]}]";
            using (var rt = Fixtures.Runtime(turns))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                var a = Expect.Await(s.RunAsync<CityAnswer>("Where?"), "first");
                Expect.Equal("Oslo", a.City, "city");
                Expect.Equal(3, a.Days, "days");
                var b = Expect.Await(s.RunAsync<CityAnswer>("Next?"), "second");
                Expect.Equal("Bergen", b.City, "forced city");
                Expect.Equal(2, b.Days, "forced days");
            }
        }

        [Test]
        private static void TheSessionsSchemaGivesOutputAndAMismatchIsASchemaError()
        {
            var turns = "[{\"text\":\"{\\\"city\\\":\\\"Oslo\\\"}\"}," +
                        "{\"text\":\"Oslo\"},{\"tool_calls\":[{\"name\":\"final_answer\",\"arguments\":{\"town\":1}}]}," +
                        "{\"text\":\"Oslo!\"},{\"tool_calls\":[{\"name\":\"final_answer\",\"arguments\":{\"city\":7}}]}]";
            using (var rt = Fixtures.Runtime(turns))
            {
                var cfg = Fixtures.Session();
                cfg.OutputSchemaJson = CitySchema;
                using (var s = rt.CreateSession(cfg))
                {
                    var r = Expect.Await(s.RunAsync("Where?"), "matching");
                    Expect.Equal("{\"city\":\"Oslo\"}", r.OutputJson, "output JSON");
                    Expect.Equal("Oslo", (string)((Dictionary<string, object>)r.Output)["city"], "output");
                    var e = Expect.Throws<RobotaProviderException>(() => Expect.Await(s.RunAsync("Again?"), "failing"), "schema error");
                    Expect.Equal("SCHEMA_ERROR", e.ErrorCode, "code");
                    Expect.Contains(e.Message, "Parameter \"city\" must be a string, got number", "the last problem");
                }
            }
        }

        [Test]
        private static void ABadSchemaIsRefusedNamingIt()
        {
            using (var rt = Fixtures.Runtime("[]"))
            using (var s = rt.CreateSession(Fixtures.Session()))
            {
                Expect.Fails(RobotaStatus.InvalidConfig, () => Expect.Await(s.RunStructuredAsync("x", "[1]"), "bad"), "field \"output_schema\" must be a JSON Schema object");
            }
        }
    }
}
