// A Unity MonoBehaviour driving a Robota session in pump delivery: every callback (text deltas,
// tool calls, permission requests, turn completion) runs inside Update() on the main thread,
// so handlers may touch GameObjects, UI and other Unity objects directly.
using System.Collections.Generic;
using System.Text;
using System.Threading.Tasks;
using Robota;
using UnityEngine;

public class RobotaPumpChat : MonoBehaviour
{
    [Tooltip("Sent when the scene starts.")]
    public string prompt = "Spawn a cube, please.";

    [Tooltip("Callbacks delivered per frame at most (0 = all queued).")]
    public int maxEventsPerFrame = 64;

    [Tooltip("Leave empty for the offline scripted provider; else an OpenAI-compatible base URL.")]
    public string baseUrl = "";

    public string model = "offline";

    private const string OfflineScript =
        "[{\"text\":\"Spawning.\",\"tool_calls\":[{\"name\":\"spawn_cube\",\"arguments\":{\"x\":1.5}}]}," +
        "{\"deltas\":[\"A cube \",\"is at x=1.5.\"]}]";

    private RobotaRuntime runtime;
    private RobotaSession session;
    private Task<TurnResult> turn;
    private readonly StringBuilder transcript = new StringBuilder();

    /// <summary>What the assistant said so far (bind it to a UI Text).</summary>
    public string Transcript => transcript.ToString();

    /// <summary>Cubes spawned by the host tool.</summary>
    public int Spawned { get; private set; }

    /// <summary>The last finished turn, or null.</summary>
    public TurnResult LastResult { get; private set; }

    private void Start()
    {
        var config = new RuntimeConfig();
        config.AddProvider("main", string.IsNullOrEmpty(baseUrl)
            ? ProviderConfig.Scripted(OfflineScript)
            : ProviderConfig.OpenAICompatible(baseUrl));
        runtime = new RobotaRuntime(config);

        // Runs inside Dispatch(), i.e. on the main thread: creating GameObjects is safe here.
        runtime.RegisterTool(
            new ToolDefinition("spawn_cube", "Spawns a cube at x",
                "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"}}}") { ReadOnly = true },
            call =>
            {
                Spawned++;
                Debug.Log("spawn_cube " + call.ArgumentsJson);
                return new Dictionary<string, object> { { "spawned", true } };
            });

        session = runtime.CreateSession(new SessionConfig("main", model) { Delivery = Delivery.Pump });
        session.TextDelta += (s, e) => transcript.Append(e.Text);
        session.PermissionRequested += (s, req) => req.Allow(); // or show a dialog and answer later
        session.TurnCompleted += (s, r) =>
        {
            LastResult = r;
            Debug.Log("turn " + r.TurnId + " " + r.StopReason + ": " + r.Response);
        };
        turn = session.RunAsync(prompt);
    }

    private void Update()
    {
        if (session == null)
        {
            return;
        }
        // Never blocks (timeout 0): delivers what is queued and returns.
        session.Dispatch(maxEventsPerFrame, 0);
        if (turn != null && turn.IsFaulted)
        {
            Debug.LogException(turn.Exception);
            turn = null;
        }
    }

    private void OnDestroy()
    {
        // Never blocks; no callback runs after it returns.
        session?.Dispose();
        runtime?.Dispose();
        session = null;
    }
}
