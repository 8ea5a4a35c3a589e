using System;
using System.Collections.Generic;
using System.Text;
using System.Threading;

namespace Robota
{
    /// <summary>
    /// A permission, hook or command request waiting for the host's answer. Answer once, from any thread,
    /// now or later; an answer after the request was answered, timed out or aborted returns false.
    /// </summary>
    public abstract class HostRequest : EventArgs
    {
        private readonly SessionCore core;
        private readonly CancellationTokenSource cancel = new CancellationTokenSource();

        internal HostRequest(SessionCore core, RobotaEvent ev)
        {
            this.core = core;
            Event = ev;
            RequestId = Json.GetUInt64(ev.Data, "request_id");
        }

        /// <summary>The request id (unique per runtime).</summary>
        public ulong RequestId { get; }

        /// <summary>The event that carried the request (full payload in <see cref="RobotaEvent.Data"/>).</summary>
        public RobotaEvent Event { get; }

        /// <summary>Set once an answer was accepted by this object.</summary>
        public bool IsAnswered { get; private set; }

        /// <summary>
        /// Cancelled when the request becomes void before it was answered (its turn ended or was
        /// aborted, it timed out, the session closed or was disposed: REQUEST_CANCELLED); an answer
        /// after that is stale.
        /// </summary>
        public CancellationToken CancellationToken => cancel.Token;

        internal void Cancel() => ToolCall.CancelLater(cancel);

        /// <summary>
        /// Sends a raw response document. Returns false when the request is stale (already
        /// answered, timed out, aborted); throws <see cref="RobotaException"/> for a malformed
        /// answer (the request keeps waiting). Works after the RobotaRuntime object was disposed
        /// (the session keeps the native runtime alive).
        /// </summary>
        public bool Respond(string responseJson)
        {
            IntPtr err;
            var status = core.Respond(RequestId, Utf8.Encode(responseJson ?? throw new ArgumentNullException(nameof(responseJson))), out err);
            if (status == (int)RobotaStatus.Stale)
            {
                Errors.Free(err);
                core.Untrack(this);
                return false;
            }
            Errors.Check(status, err);
            IsAnswered = true;
            core.Untrack(this);
            return true;
        }
    }

    /// <summary>The library asks whether a tool may run (ROBOTA_EVENT_PERMISSION_REQUEST).</summary>
    public sealed class PermissionRequest : HostRequest
    {
        internal PermissionRequest(SessionCore core, RobotaEvent ev) : base(core, ev)
        {
        }

        /// <summary>The tool asking.</summary>
        public string ToolName => Event.GetString("tool_name");

        /// <summary>Why approval is needed.</summary>
        public string Reason => Event.GetString("reason");

        /// <summary>
        /// For a call of the <c>Bash</c> tool only: the sandbox mode its command runs in,
        /// <c>"workspace-write"</c> (the default), <c>"read-only"</c> or <c>"off"</c> (also for a
        /// <see cref="SessionConfig.HostIo"/> session); null for other tools.
        /// </summary>
        public string Sandbox => Event.GetString("sandbox");

        /// <summary>The tool's arguments (JSON object as a dictionary).</summary>
        public Dictionary<string, object> Arguments
        {
            get
            {
                object v;
                return Event.Data.TryGetValue("arguments", out v) && v is Dictionary<string, object> d ? d : new Dictionary<string, object>();
            }
        }

        /// <summary>Allows the call; <paramref name="remember"/> approves the tool for the rest of the session.</summary>
        public bool Allow(bool remember = false) =>
            Respond(remember ? "{\"decision\":\"allow\",\"remember\":true}" : "{\"decision\":\"allow\",\"remember\":false}");

        /// <summary>Denies the call (the model is told the user did not approve it).</summary>
        public bool Deny() => Respond("{\"decision\":\"deny\",\"remember\":false}");
    }

    /// <summary>A host hook runs (ROBOTA_EVENT_HOOK_REQUEST for hooks of <c>"type":"host"</c>).</summary>
    public sealed class HookRequest : HostRequest
    {
        internal HookRequest(SessionCore core, RobotaEvent ev) : base(core, ev)
        {
        }

        /// <summary>The hook event (<c>"PreToolUse"</c>, <c>"PostToolUse"</c>, <c>"UserPromptSubmit"</c>, ...).</summary>
        public string HookEventName => Event.GetString("hook_event_name");

        /// <summary>The tool concerned, for tool hooks.</summary>
        public string ToolName => Event.GetString("tool_name");

        /// <summary>Answers with a hook result: exit code 0 passes, 2 blocks (stderr is the reason).</summary>
        public bool Respond(int exitCode, string stdout = "", string stderr = "")
        {
            var sb = new StringBuilder("{\"exit_code\":");
            sb.Append(exitCode).Append(",\"stdout\":");
            Json.WriteString(sb, stdout ?? string.Empty);
            sb.Append(",\"stderr\":");
            Json.WriteString(sb, stderr ?? string.Empty);
            sb.Append('}');
            return Respond(sb.ToString());
        }

        /// <summary>Lets the action go ahead (exit code 0).</summary>
        public bool Pass() => Respond(0);

        /// <summary>Blocks the action (exit code 2) with <paramref name="reason"/> shown to the model.</summary>
        public bool Block(string reason) => Respond(2, string.Empty, reason);
    }

    /// <summary>
    /// A host command runs (ROBOTA_EVENT_COMMAND_REQUEST, one of <see cref="SessionConfig.Commands"/>):
    /// by <see cref="RobotaSession.Command"/> or as input <c>/name args</c>.
    /// </summary>
    public sealed class CommandRequest : HostRequest
    {
        internal CommandRequest(SessionCore core, RobotaEvent ev) : base(core, ev)
        {
        }

        /// <summary>The command's name (without the slash).</summary>
        public string Name => Event.GetString("name");

        /// <summary>Its argument text (may be empty).</summary>
        public string Args => Event.GetString("args") ?? string.Empty;

        /// <summary>The command succeeded with <paramref name="message"/> as its answer.</summary>
        public bool Reply(string message) => Respond(Answer(message, true, null));

        /// <summary>The command failed (run as input, the turn fails with <c>COMMAND_FAILED</c>).</summary>
        public bool Fail(string message) => Respond(Answer(message, false, null));

        /// <summary>The command submits <paramref name="prompt"/> as a turn.</summary>
        public bool Prompt(string prompt, string message = "") =>
            Respond(Answer(message, true, prompt ?? throw new ArgumentNullException(nameof(prompt))));

        private static string Answer(string message, bool success, string prompt)
        {
            var sb = new StringBuilder("{\"message\":");
            Json.WriteString(sb, message ?? string.Empty);
            sb.Append(",\"success\":").Append(success ? "true" : "false");
            if (prompt != null)
            {
                sb.Append(",\"prompt\":");
                Json.WriteString(sb, prompt);
            }
            return sb.Append('}').ToString();
        }
    }
}
