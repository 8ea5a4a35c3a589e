// A console chat on Robota Native: streaming text, a host tool, a y/n permission prompt.
// Offline by default (the scripted provider); pass an OpenAI-compatible server to talk to a model:
//   mono ConsoleChat.exe                                   # offline demo
//   mono ConsoleChat.exe http://127.0.0.1:8080/v1 my-model  # llama.cpp, vLLM, Ollama, LM Studio, ...
// Without a terminal on stdin (CI) it runs one demo turn, answers the prompt "y", and exits.
using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Robota;

internal static class ConsoleChat
{
    private const string OfflineScript =
        "[{\"text\":\"Let me save that note.\",\"tool_calls\":[{\"name\":\"save_note\",\"arguments\":{\"text\":\"buy milk\"}}]}," +
        "{\"deltas\":[\"Saved \",\"your note \",\"(#1).\"]}]";

    private static int notes;

    private static async Task<int> Run(string[] args)
    {
        var config = new RuntimeConfig();
        string model;
        if (args.Length >= 2)
        {
            config.AddProvider("main", ProviderConfig.OpenAICompatible(args[0], args.Length >= 3 ? args[2] : null));
            model = args[1];
        }
        else
        {
            config.AddProvider("main", ProviderConfig.Scripted(OfflineScript, "echo"));
            model = "offline";
        }

        using (var runtime = new RobotaRuntime(config))
        {
            // A host tool that changes state: the session asks permission before each call.
            runtime.RegisterTool(
                new ToolDefinition("save_note", "Saves a note for the user",
                    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}"),
                call =>
                {
                    var id = ++notes;
                    Console.WriteLine("\n[tool] save_note(\"" + call.Arguments["text"] + "\") -> #" + id);
                    return new Dictionary<string, object> { { "saved", true }, { "id", id } };
                });

            using (var session = runtime.CreateSession(new SessionConfig("main", model) { SystemPrompt = "You are a helpful assistant." }))
            {
                var interactive = !Console.IsInputRedirected;
                session.TextDelta += (s, e) => Console.Write(e.Text);
                session.PermissionRequested += (s, req) =>
                {
                    Console.Write("\nAllow " + req.ToolName + " " + Json.Serialize(req.Arguments) + "? [y/n] ");
                    var answer = interactive ? Console.ReadLine() : "y";
                    if (!interactive)
                    {
                        Console.WriteLine(answer);
                    }
                    if (answer != null && answer.Trim().StartsWith("y", StringComparison.OrdinalIgnoreCase))
                    {
                        req.Allow();
                    }
                    else
                    {
                        req.Deny();
                    }
                };

                Console.WriteLine("Robota " + RobotaLibrary.Version + " console chat (" + model + "). Empty line quits.");
                while (true)
                {
                    string line;
                    if (interactive)
                    {
                        Console.Write("\n> ");
                        line = Console.ReadLine();
                    }
                    else
                    {
                        line = notes == 0 ? "Please note: buy milk" : null;
                        if (line != null)
                        {
                            Console.WriteLine("> " + line);
                        }
                    }
                    if (string.IsNullOrWhiteSpace(line))
                    {
                        return 0;
                    }
                    try
                    {
                        var result = await session.RunAsync(line);
                        Console.WriteLine("\n[" + result.StopReason + "]");
                    }
                    catch (RobotaException e)
                    {
                        Console.WriteLine("\n[error " + e.Code + " " + e.Category + "] " + e.Message);
                    }
                }
            }
        }
    }

    private static int Main(string[] args) => Run(args).GetAwaiter().GetResult();
}
