using System;
using System.Diagnostics;
using System.IO;

namespace Robota.Tests
{
    /// <summary>
    /// The project's fake model server (examples/fake_model_server.rs) as a child process: one
    /// hello line with the base URL, then one JSON command per line, one JSON answer per line.
    /// Path: $ROBOTA_FAKE_SERVER, else target/debug/examples/fake_model_server under the repo.
    /// </summary>
    internal sealed class FakeServer : IDisposable
    {
        private readonly Process proc;

        internal FakeServer()
        {
            var path = Environment.GetEnvironmentVariable("ROBOTA_FAKE_SERVER");
            if (string.IsNullOrEmpty(path))
            {
                path = Path.Combine(AppDomain.CurrentDomain.BaseDirectory, "..", "debug", "examples", "fake_model_server");
            }
            if (!File.Exists(path))
            {
                throw new Exception("fake model server not found at " + path + " (cargo build --example fake_model_server, or set ROBOTA_FAKE_SERVER)");
            }
            proc = Process.Start(new ProcessStartInfo(path)
            {
                UseShellExecute = false,
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
            });
            var hello = Json.ParseObject(proc.StandardOutput.ReadLine() ?? "{}");
            BaseUrl = Json.GetString(hello, "base_url") ?? throw new Exception("fake server sent no base_url");
        }

        /// <summary><c>http://127.0.0.1:PORT</c>.</summary>
        internal string BaseUrl { get; }

        /// <summary>Sends one command and returns its answer; throws unless it is <c>"ok":true</c>.</summary>
        internal System.Collections.Generic.Dictionary<string, object> Send(string commandJson)
        {
            proc.StandardInput.WriteLine(commandJson);
            proc.StandardInput.Flush();
            var answer = Json.ParseObject(proc.StandardOutput.ReadLine() ?? "{}");
            if (!Json.GetBool(answer, "ok"))
            {
                throw new Exception("fake server refused " + commandJson + ": " + Json.Serialize(answer));
            }
            return answer;
        }

        /// <summary>A runtime with one openai-compatible provider "fake" pointing at the server.</summary>
        internal RobotaRuntime Runtime()
        {
            var p = ProviderConfig.OpenAICompatible(BaseUrl + "/v1", "test-key");
            p.MaxRetries = 0;
            p.TimeoutMs = 30000;
            return new RobotaRuntime(new RuntimeConfig().AddProvider("fake", p));
        }

        public void Dispose()
        {
            try
            {
                proc.StandardInput.Close(); // the server exits when stdin closes
                if (!proc.WaitForExit(10000))
                {
                    proc.Kill();
                }
            }
            finally
            {
                proc.Dispose();
            }
        }
    }
}
