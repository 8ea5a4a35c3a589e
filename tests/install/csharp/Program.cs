// The C# consumer of the NuGet package Robota.Native (tests/install/drive.py describes the turn it
// runs). Built against the restored package only: lib/net461/Robota.dll, with the package's
// runtimes/linux-x64/native/librobota.so next to the executable (tests/install/csharp/run.sh).
using System;
using System.Text;
using Robota;

internal static class Program
{
    private const string AddSchema =
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
        + "\"required\":[\"a\",\"b\"]}";

    private static int Main()
    {
        string baseUrl = Environment.GetEnvironmentVariable("ROBOTA_BASE_URL");
        if (string.IsNullOrEmpty(baseUrl))
        {
            Console.Error.WriteLine("ROBOTA_BASE_URL is not set");
            return 1;
        }
        try
        {
            RobotaLibrary.EnsureCompatible();
            Console.WriteLine("text " + RunTurn(baseUrl));
            return 0;
        }
        catch (RobotaException e)
        {
            Console.Error.WriteLine("[" + e.Code + "] " + e.Message);
            return 1;
        }
    }

    // One streamed turn with the host tool "add"; returns the turn's text.
    private static string RunTurn(string baseUrl)
    {
        var config = new RuntimeConfig().AddProvider("fake", new ProviderConfig("openai-compatible")
        {
            BaseUrl = baseUrl,
            ApiKey = "test",
        });
        using (var runtime = new RobotaRuntime(config))
        {
            runtime.RegisterTool(new ToolDefinition("add", "Adds two integers", AddSchema) { ReadOnly = true }, Add);
            using (var session = runtime.CreateSession(new SessionConfig("fake", "fake-model")))
            {
                var text = new StringBuilder();
                session.TextDelta += (s, e) => text.Append(e.Text);
                session.RunAsync("What is 2 + 3?").GetAwaiter().GetResult();
                return text.ToString();
            }
        }
    }

    private static object Add(ToolCall call)
    {
        Console.WriteLine("tool add " + call.ArgumentsJson);
        long a = Convert.ToInt64(call.Arguments["a"]);
        long b = Convert.ToInt64(call.Arguments["b"]);
        return new JsonRaw((a + b).ToString());
    }
}
