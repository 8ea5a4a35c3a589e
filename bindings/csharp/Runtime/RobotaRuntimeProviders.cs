using System;
using System.Threading;

namespace Robota
{
    /// <summary>The runtime's host providers (<see cref="RegisterProvider(string, ProviderCapabilities, IModelProvider)"/>).</summary>
    public sealed partial class RobotaRuntime
    {
        private int providerCount;

        /// <summary>
        /// Registers <paramref name="provider"/> as provider <paramref name="name"/>: sessions
        /// (<c>new SessionConfig(name, model)</c>), subagents, team templates, compaction, hooks
        /// and <see cref="Query"/> use it like a provider profile, and each model call runs
        /// <see cref="IModelProvider.Stream"/>. A name already used by a profile of the runtime
        /// config or an earlier registration throws <see cref="RobotaException"/> with
        /// <see cref="RobotaStatus.InvalidConfig"/> (the first one stays). In pump delivery, the
        /// calls of a session run on the thread that calls its <see cref="RobotaSession.Dispatch"/>.
        /// </summary>
        public void RegisterProvider(string name, ProviderCapabilities capabilities, IModelProvider provider)
        {
            if (name == null) throw new ArgumentNullException(nameof(name));
            if (provider == null) throw new ArgumentNullException(nameof(provider));
            ThrowIfDisposed();
            var nameBytes = Utf8.Encode(name);
            var caps = capabilities == null ? null : Utf8.Encode(capabilities.ToJson());
            var reg = new ProviderRegistration(name, Handle.DangerousGetHandle(), provider);
            Callbacks.Register(reg, (IntPtr ud, out IntPtr err) =>
                NativeMethods.robota_runtime_register_provider(Handle, nameBytes, caps, Callbacks.Provider, ud, Callbacks.Free, out err));
            Interlocked.Increment(ref providerCount);
        }

        /// <summary>A provider registered by delegate (<see cref="ModelProvider.Create"/>).</summary>
        public void RegisterProvider(string name, ProviderCapabilities capabilities,
            Func<ModelRequest, IModelStream, CancellationToken, System.Threading.Tasks.Task> streamAsync) =>
            RegisterProvider(name, capabilities, ModelProvider.Create(streamAsync));

        /// <summary>
        /// Registers <paramref name="provider"/> with each <see cref="IModelProvider.Stream"/> posted to
        /// <paramref name="context"/> (a Unity or UI main thread, any delivery mode); an exception
        /// it throws ends the call as in <see cref="RegisterProvider(string, ProviderCapabilities, IModelProvider)"/>.
        /// </summary>
        public void RegisterProvider(string name, ProviderCapabilities capabilities, IModelProvider provider, SynchronizationContext context)
        {
            if (provider == null) throw new ArgumentNullException(nameof(provider));
            if (context == null) throw new ArgumentNullException(nameof(context));
            RegisterProvider(name, capabilities, new ContextProvider(provider, context));
        }

        /// <summary>True once a host provider is registered (pump sessions then route its calls to Dispatch).</summary>
        internal bool HasProviders => Volatile.Read(ref providerCount) > 0;
    }

    /// <summary>Posts each call of a provider to a <see cref="SynchronizationContext"/>.</summary>
    internal sealed class ContextProvider : IModelProvider
    {
        private readonly IModelProvider inner;
        private readonly SynchronizationContext context;

        internal ContextProvider(IModelProvider inner, SynchronizationContext context)
        {
            this.inner = inner;
            this.context = context;
        }

        public void Stream(ModelRequest request, IModelStream stream, CancellationToken cancellationToken)
        {
            context.Post(_ =>
            {
                var own = (ModelStream)stream;
                if (own.Ended)
                {
                    return; // cancelled before the context ran it
                }
                try
                {
                    inner.Stream(request, stream, cancellationToken);
                }
                catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested || own.Ended)
                {
                }
                catch (Exception e)
                {
                    try
                    {
                        own.FailFrom(e);
                    }
                    catch (Exception refused)
                    {
                        RobotaLibrary.Report(refused);
                    }
                }
            }, null);
        }
    }
}
