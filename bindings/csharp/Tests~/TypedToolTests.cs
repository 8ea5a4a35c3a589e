using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Threading;
using System.Threading.Tasks;

namespace Robota.Tests
{
    public enum Unit
    {
        Celsius,
        Fahrenheit,
    }

    public sealed class Place
    {
        [Description("Latitude in degrees")]
        public double Lat { get; set; }

        public double? Lon { get; set; }
    }

    [Description("Weather arguments")]
    public sealed class WeatherArgs
    {
        [Description("The city")]
        public string City { get; set; }

        public int Days { get; set; }

        public Unit? Unit { get; set; }

        public List<string> Tags { get; set; }

        [DefaultValue(null)]
        public Place Where { get; set; }

        public bool Hourly;
    }

    /// <summary>Tools from typed methods and argument classes: derived schemas, converted arguments, named errors.</summary>
    internal static class TypedToolTests
    {
        [Test]
        private static void SchemaFromAnArgumentsClass()
        {
            var tool = RobotaTool.Create<WeatherArgs>("weather", null, (a, ct) => Task.FromResult("x"));
            Expect.Equal("Weather arguments", tool.Definition.Description, "[Description] of the class");
            Expect.Equal(
                "{\"type\":\"object\",\"properties\":{" +
                "\"city\":{\"type\":\"string\",\"description\":\"The city\"}," +
                "\"days\":{\"type\":\"integer\"}," +
                "\"unit\":{\"type\":\"string\",\"enum\":[\"Celsius\",\"Fahrenheit\"]}," +
                "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}," +
                "\"where\":{\"type\":\"object\",\"properties\":{\"lat\":{\"type\":\"number\",\"description\":\"Latitude in degrees\"},\"lon\":{\"type\":\"number\"}},\"required\":[\"lat\"]}," +
                "\"hourly\":{\"type\":\"boolean\"}}," +
                "\"required\":[\"city\",\"days\",\"tags\",\"hourly\"]}",
                tool.Definition.InputSchemaJson, "schema");
        }

        [Description("Adds two numbers")]
        private static long Add(long a, [Description("The second")] long b = 2, CancellationToken ct = default(CancellationToken)) => a + b;

        [Test]
        private static void SchemaFromAMethod()
        {
            var tool = RobotaTool.FromMethod((Func<long, long, CancellationToken, long>)Add);
            Expect.Equal("Add", tool.Definition.Name, "name");
            Expect.Equal("Adds two numbers", tool.Definition.Description, "description");
            Expect.Equal(
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\",\"description\":\"The second\"}},\"required\":[\"a\"]}",
                tool.Definition.InputSchemaJson, "schema (the token is not an argument)");
            var bad = Expect.Throws<NotSupportedException>(() => RobotaTool.FromMethod((Func<IntPtr, string>)(p => "x"), "bad"), "unsupported type");
            Expect.Contains(bad.Message, "argument \"p\" has type System.IntPtr", "names the parameter");
        }

        [Test]
        private static void TheHandlerGetsTypedArguments()
        {
            var args = "{\"city\":\"Paris\",\"days\":19.0,\"unit\":\"Fahrenheit\",\"tags\":[\"a\",\"b\"],\"where\":{\"lat\":1.5},\"hourly\":true}";
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("weather", args)))
            {
                WeatherArgs got = null;
                rt.AddTool<WeatherArgs>("weather", "Forecast", (a, ct) =>
                {
                    got = a;
                    return Task.FromResult("sunny in " + a.City);
                });
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    s.PermissionRequested += (o, r) => r.Allow();
                    var r2 = Expect.Await(s.RunAsync("go"), "RunAsync");
                    Expect.Equal("Done.", r2.Response, "response");
                    Expect.Equal("Paris", got.City, "string");
                    Expect.Equal(19, got.Days, "integer from 19.0");
                    Expect.Equal((Unit?)Unit.Fahrenheit, got.Unit, "enum");
                    Expect.Equal("a,b", string.Join(",", got.Tags), "list");
                    Expect.Equal(1.5, got.Where.Lat, "nested class");
                    Expect.Equal((double?)null, got.Where.Lon, "optional absent");
                    Expect.True(got.Hourly, "bool field");
                    Expect.Contains(s.MessagesJson(), "\"content\":\"sunny in Paris\"", "result in history");
                    Expect.Equal("weather", r2.ToolCalls[0].Name, "typed tool summary");
                }
            }
        }

        [Test]
        private static void AWrongArgumentFailsTheCallNamingIt()
        {
            // The library checks the derived schema first (types, required); the binding checks
            // what the schema cannot say (the range of the .NET type).
            var cases = new[]
            {
                new[] { "{\"n\":19.5}", "Parameter \\\"n\\\" must be an integer, got number" },
                new[] { "{}", "Missing required parameter: n" },
                new[] { "{\"n\":3000000000}", "invalid arguments: argument \\\"n\\\" is out of range for Int32: 3000000000" },
            };
            foreach (var c in cases)
            {
                using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("Twice", c[0])))
                {
                    var calls = 0;
                    rt.AddTool(RobotaTool.FromMethod((Func<int, int>)(n => { calls++; return 2 * n; }), "Twice"));
                    using (var s = rt.CreateSession(Fixtures.Session()))
                    {
                        s.PermissionRequested += (o, r) => r.Allow();
                        var rec = new Recorder(s);
                        Expect.Await(s.RunAsync("go"), "RunAsync");
                        Expect.Equal(0, calls, "the method did not run for " + c[0]);
                        Expect.Equal("error", rec.Of(EventKind.ToolEnd)[0].GetString("result"), "tool_end result");
                        Expect.Contains(s.MessagesJson(), c[1], "the model sees which argument");
                    }
                }
            }
        }

        private static async Task<Dictionary<string, object>> AddAsync(long a, long b = 2, CancellationToken ct = default(CancellationToken))
        {
            await Task.Yield();
            return new Dictionary<string, object> { { "sum", a + b } };
        }

        [Test]
        private static void AMethodToolReturnsJsonAndAwaitsTasks()
        {
            using (var rt = Fixtures.Runtime(Fixtures.ToolTurns("Add", "{\"a\":40}")))
            {
                rt.AddTool(RobotaTool.FromMethod((Func<long, long, CancellationToken, Task<Dictionary<string, object>>>)AddAsync, "Add"));
                using (var s = rt.CreateSession(Fixtures.Session()))
                {
                    s.PermissionRequested += (o, r) => r.Allow();
                    Expect.Await(s.RunAsync("go"), "RunAsync");
                    Expect.Contains(s.MessagesJson(), "{\\\"sum\\\":42}", "the default b = 2 and the JSON result");
                }
            }
        }
    }
}
