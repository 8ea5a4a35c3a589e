using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;

namespace Robota
{
    /// <summary>
    /// One request of the host I/O port: the built-in tools of a session created with
    /// <see cref="SessionConfig.HostIo"/> read, write, stat, list and execute through the
    /// runtime's handler (<see cref="RobotaRuntime.SetHostIo"/>) instead of the operating system
    /// (iOS, consoles, sandboxes, virtual file systems). Paths are absolute, normalized and
    /// permission-checked by the library.
    /// </summary>
    public sealed class HostIoRequest
    {
        internal HostIoRequest(ulong id, Dictionary<string, object> d, string json, CancellationToken token)
        {
            Id = id;
            CancellationToken = token;
            Json = json;
            Op = Robota.Json.GetString(d, "op");
            Path = Robota.Json.GetString(d, "path");
            Content = Robota.Json.GetString(d, "content");
            Command = Robota.Json.GetString(d, "command");
            Cwd = Robota.Json.GetString(d, "cwd");
        }

        /// <summary>The request id (unique per runtime).</summary>
        public ulong Id { get; }

        /// <summary>Cancelled when the request becomes void (its turn ended or was aborted, it timed out: REQUEST_CANCELLED).</summary>
        public CancellationToken CancellationToken { get; }

        /// <summary><c>read</c>, <c>write</c>, <c>stat</c>, <c>list</c> or <c>exec</c>.</summary>
        public string Op { get; }

        /// <summary>The absolute path (file ops).</summary>
        public string Path { get; }

        /// <summary>The content to write (<c>write</c>).</summary>
        public string Content { get; }

        /// <summary>The shell command (<c>exec</c>).</summary>
        public string Command { get; }

        /// <summary>The working directory (<c>exec</c>).</summary>
        public string Cwd { get; }

        /// <summary>The whole request document (<c>timeout_ms</c>, <c>env</c>, ...).</summary>
        public string Json { get; }
    }

    /// <summary>The runtime's host I/O handler (the GCHandle target of its registration).</summary>
    internal sealed class HostIoRegistration
    {
        private readonly Func<HostIoRequest, IDictionary<string, object>> handler;
        private readonly WeakReference<RuntimeHandle> runtime;
        private readonly ConcurrentDictionary<ulong, CancellationTokenSource> running = new ConcurrentDictionary<ulong, CancellationTokenSource>();

        internal HostIoRegistration(RuntimeHandle runtime, Func<HostIoRequest, IDictionary<string, object>> handler)
        {
            this.runtime = new WeakReference<RuntimeHandle>(runtime);
            this.handler = handler;
        }

        /// <summary>Cancels the token of request <paramref name="id"/> while its handler runs.</summary>
        internal void Cancel(ulong id)
        {
            CancellationTokenSource c;
            if (running.TryGetValue(id, out c))
            {
                ToolCall.CancelLater(c);
            }
        }

        /// <summary>Answers request <paramref name="id"/> with the handler's result; never throws.</summary>
        internal void Invoke(ulong id, string requestJson)
        {
            string answer;
            var cancel = new CancellationTokenSource();
            running[id] = cancel;
            try
            {
                var d = Robota.Json.ParseObject(requestJson);
                var result = handler(new HostIoRequest(id, d, requestJson, cancel.Token));
                answer = Robota.Json.Serialize(result ?? new Dictionary<string, object>());
            }
            catch (NotSupportedException)
            {
                answer = "{\"error\":\"unsupported\"}";
            }
            catch (Exception e)
            {
                answer = Robota.Json.Serialize(new Dictionary<string, object> { { "error", e.Message } });
            }
            finally
            {
                running.TryRemove(id, out cancel);
            }
            RuntimeHandle rt;
            if (!runtime.TryGetTarget(out rt) || rt == null || rt.IsClosed)
            {
                return;
            }
            try
            {
                IntPtr err;
                // ROBOTA_E_STALE after an abort is expected: the turn no longer waits.
                NativeMethods.robota_host_io_complete(rt, id, Utf8.Encode(answer), out err);
                Errors.Free(err);
            }
            catch (ObjectDisposedException)
            {
                // The runtime is gone: nobody waits for the answer.
            }
        }
    }
}
