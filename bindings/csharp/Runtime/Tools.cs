using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace Robota
{
    /// <summary>A host tool's definition (the tool registration JSON).</summary>
    public sealed class ToolDefinition
    {
        /// <summary>Creates a definition; <paramref name="inputSchemaJson"/> is a JSON Schema object.</summary>
        public ToolDefinition(string name, string description, string inputSchemaJson = "{\"type\":\"object\"}")
        {
            Name = name ?? throw new ArgumentNullException(nameof(name));
            Description = description ?? string.Empty;
            InputSchemaJson = inputSchemaJson ?? throw new ArgumentNullException(nameof(inputSchemaJson));
        }

        /// <summary>The tool name the model calls.</summary>
        public string Name { get; }

        /// <summary>What the tool does (shown to the model).</summary>
        public string Description { get; }

        /// <summary>The JSON Schema of the arguments.</summary>
        public string InputSchemaJson { get; }

        /// <summary>A read-only tool needs no permission in default mode.</summary>
        public bool ReadOnly { get; set; }

        /// <summary>How long a call may take before it fails (null = the library default).</summary>
        public int? TimeoutMs { get; set; }

        /// <summary>The registration document.</summary>
        public string ToJson()
        {
            var d = new Dictionary<string, object>
            {
                { "name", Name },
                { "description", Description },
                { "input_schema", new JsonRaw(InputSchemaJson) },
                { "read_only", ReadOnly },
            };
            if (TimeoutMs.HasValue)
            {
                d["timeout_ms"] = TimeoutMs.Value;
            }
            return Json.Serialize(d);
        }
    }

    /// <summary>The handler behind one registered tool (the GCHandle target of its registration).</summary>
    internal sealed class ToolRegistration
    {
        private readonly Func<ToolCall, object> sync;
        private readonly Func<ToolCall, Task<object>> async;
        private readonly WeakReference<RuntimeHandle> runtime;

        internal ToolRegistration(string name, RuntimeHandle runtime, Func<ToolCall, object> sync, Func<ToolCall, Task<object>> async)
        {
            Name = name;
            this.runtime = new WeakReference<RuntimeHandle>(runtime);
            this.sync = sync;
            this.async = async;
        }

        internal string Name { get; }

        /// <summary>True when calls are answered by a handler (false: ToolCallRequested events).</summary>
        internal bool HasHandler => sync != null || async != null;

        /// <summary>Runs the handler for one call; never throws (a handler's exception fails the call).</summary>
        internal void Invoke(IntPtr sessionPtr, ulong callId, IntPtr toolName, string input)
        {
            var core = SessionCore.Find(sessionPtr);
            RuntimeHandle rt = core?.Runtime;
            if (rt == null)
            {
                runtime.TryGetTarget(out rt);
            }
            var name = Utf8.IsAscii(toolName, Name) ? Name : Utf8.DecodeZ(toolName);
            Run(new ToolCall(rt, core, callId, name, input));
        }

        /// <summary>Runs the handler for a call built by the caller (pull delivery routes calls here too).</summary>
        internal void Run(ToolCall call)
        {
            if (!HasHandler)
            {
                call.Finish(null, new InvalidOperationException("no handler for host tool \"" + call.ToolName + "\""));
                return;
            }
            call.Track();
            if (sync != null)
            {
                object result;
                try
                {
                    result = sync(call);
                }
                catch (Exception e)
                {
                    call.Finish(null, e);
                    return;
                }
                call.Finish(result, null);
                return;
            }
            Task<object> task;
            try
            {
                task = async(call);
            }
            catch (Exception e)
            {
                call.Finish(null, e);
                return;
            }
            if (task == null)
            {
                call.Finish(null, new InvalidOperationException("the async handler returned a null Task"));
                return;
            }
            task.ContinueWith(
                (t, state) =>
                {
                    var c = (ToolCall)state;
                    if (t.IsFaulted)
                    {
                        c.Finish(null, t.Exception);
                    }
                    else if (t.IsCanceled)
                    {
                        c.Finish(null, new OperationCanceledException());
                    }
                    else
                    {
                        c.Finish(t.Result, null);
                    }
                },
                call,
                System.Threading.CancellationToken.None,
                TaskContinuationOptions.ExecuteSynchronously,
                TaskScheduler.Default);
        }
    }
}
