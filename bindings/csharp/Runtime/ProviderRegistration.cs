using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Robota
{
    /// <summary>
    /// One host provider (the GCHandle target of <c>robota_runtime_register_provider</c>): turns
    /// each call document into a <see cref="ModelRequest"/> and a <see cref="ModelStream"/>, runs
    /// the provider off the library's thread, and cancels the stream's token on the cancel document.
    /// </summary>
    internal sealed class ProviderRegistration : IReleasable
    {
        private readonly ConcurrentDictionary<ulong, ModelStream> calls = new ConcurrentDictionary<ulong, ModelStream>();
        private readonly IModelProvider provider;

        internal ProviderRegistration(string name, IntPtr runtimePtr, IModelProvider provider)
        {
            Name = name;
            RuntimePtr = runtimePtr;
            this.provider = provider;
        }

        internal string Name { get; }

        /// <summary>
        /// The native runtime, by address: pushes go through it even after the RobotaRuntime object
        /// was disposed (its sessions keep it alive); a freed one answers INVALID_HANDLE, never UB.
        /// </summary>
        internal IntPtr RuntimePtr { get; }

        /// <summary>A document from the library's thread: routes it and returns at once. Never throws.</summary>
        internal void Receive(ulong callId, string json)
        {
            Dictionary<string, object> d;
            try
            {
                d = Json.ParseObject(json);
            }
            catch (FormatException e)
            {
                RobotaLibrary.Report(new FormatException("host provider \"" + Name + "\": unreadable request document: " + e.Message, e));
                return;
            }
            var type = Json.GetString(d, "type");
            if (type == "cancel")
            {
                ModelStream cancelled;
                if (calls.TryRemove(callId, out cancelled))
                {
                    cancelled.Cancel(Json.GetString(d, "reason"));
                }
                return;
            }
            if (type != "call")
            {
                return; // a document kind of a newer library: not ours to answer
            }
            var stream = new ModelStream(this, callId);
            calls[callId] = stream;
            var request = new ModelRequest(callId, d, json);
            var pump = ProviderPump.Find(RuntimePtr, request.SessionId);
            if (pump != null)
            {
                pump.Enqueue(() => Run(request, stream));
                return;
            }
            // Stream may block for the whole generation (a local token loop): a thread of its own.
            Task.Factory.StartNew(() => Run(request, stream), CancellationToken.None,
                TaskCreationOptions.LongRunning | TaskCreationOptions.DenyChildAttach, TaskScheduler.Default);
        }

        /// <summary>Runs the provider for one call; its exception ends the call. Never throws.</summary>
        internal void Run(ModelRequest request, ModelStream stream)
        {
            if (stream.Ended)
            {
                return; // cancelled before it started (a pump nobody dispatched in time)
            }
            try
            {
                provider.Stream(request, stream, stream.Token);
            }
            catch (OperationCanceledException) when (stream.Token.IsCancellationRequested || stream.Ended)
            {
                // The call is over already.
            }
            catch (Exception e)
            {
                try
                {
                    stream.FailFrom(e);
                }
                catch (Exception refused)
                {
                    RobotaLibrary.Report(refused);
                }
            }
        }

        /// <summary>A call that ended (its end taken, stale or refused): no cancel is expected for it.</summary>
        internal void Forget(ulong callId)
        {
            ModelStream s;
            calls.TryRemove(callId, out s);
        }

        /// <inheritdoc />
        public void Released()
        {
            foreach (var kv in calls)
            {
                ModelStream s;
                if (calls.TryRemove(kv.Key, out s))
                {
                    s.Cancel("session_closed"); // the runtime went away
                }
            }
        }
    }
}
