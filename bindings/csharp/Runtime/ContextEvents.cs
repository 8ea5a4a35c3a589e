using System;
using System.Threading;

namespace Robota
{
    /// <summary>
    /// A session's events posted to a <see cref="SynchronizationContext"/> (a Unity or UI main
    /// thread), in the order they happened: handlers run where that context runs its work items,
    /// so they may touch the scene or UI. Made by <see cref="RobotaSession.PostEventsTo"/>. The request
    /// events (<see cref="ToolCallRequested"/>, <see cref="PermissionRequested"/>, <see cref="HookRequested"/>, <see cref="CommandRequested"/>)
    /// subscribe to the session only once a handler is added here (a request nobody handles keeps
    /// the session's default answer); answer them on the context thread, now or later. Dispose
    /// stops the posting (work items already posted still run, and find no handler).
    /// </summary>
    public sealed class ContextEvents : IDisposable
    {
        private readonly RobotaSession session;
        private readonly SynchronizationContext context;
        private readonly object gate = new object();
        private EventHandler<RobotaEvent> eventReceived;
        private EventHandler<TurnResult> turnCompleted;
        private EventHandler<ToolCall> toolCallRequested;
        private EventHandler<PermissionRequest> permissionRequested;
        private EventHandler<HookRequest> hookRequested;
        private EventHandler<CommandRequest> commandRequested;
        private bool disposed;

        internal ContextEvents(RobotaSession session, SynchronizationContext context)
        {
            this.session = session;
            this.context = context;
            session.EventReceived += OnEvent;
            session.TurnCompleted += OnTurnCompleted;
        }

        /// <summary>The context the events are posted to.</summary>
        public SynchronizationContext Context => context;

        /// <summary>Every event of the session.</summary>
        public event EventHandler<RobotaEvent> EventReceived { add { lock (gate) eventReceived += value; } remove { lock (gate) eventReceived -= value; } }

        /// <summary>A turn ended.</summary>
        public event EventHandler<TurnResult> TurnCompleted { add { lock (gate) turnCompleted += value; } remove { lock (gate) turnCompleted -= value; } }

        /// <summary>A call of a tool registered without a handler (see <see cref="RobotaSession.ToolCallRequested"/>).</summary>
        public event EventHandler<ToolCall> ToolCallRequested
        {
            add { lock (gate) { if (toolCallRequested == null) session.ToolCallRequested += OnToolCall; toolCallRequested += value; } }
            remove { lock (gate) { toolCallRequested -= value; if (toolCallRequested == null) session.ToolCallRequested -= OnToolCall; } }
        }

        /// <summary>A tool needs approval (see <see cref="RobotaSession.PermissionRequested"/>).</summary>
        public event EventHandler<PermissionRequest> PermissionRequested
        {
            add { lock (gate) { if (permissionRequested == null) session.PermissionRequested += OnPermission; permissionRequested += value; } }
            remove { lock (gate) { permissionRequested -= value; if (permissionRequested == null) session.PermissionRequested -= OnPermission; } }
        }

        /// <summary>A host hook runs (see <see cref="RobotaSession.HookRequested"/>).</summary>
        public event EventHandler<HookRequest> HookRequested
        {
            add { lock (gate) { if (hookRequested == null) session.HookRequested += OnHook; hookRequested += value; } }
            remove { lock (gate) { hookRequested -= value; if (hookRequested == null) session.HookRequested -= OnHook; } }
        }

        /// <summary>A host command runs (see <see cref="RobotaSession.CommandRequested"/>).</summary>
        public event EventHandler<CommandRequest> CommandRequested
        {
            add { lock (gate) { if (commandRequested == null) session.CommandRequested += OnCommand; commandRequested += value; } }
            remove { lock (gate) { commandRequested -= value; if (commandRequested == null) session.CommandRequested -= OnCommand; } }
        }

        private void OnEvent(object sender, RobotaEvent e) => Post(() => eventReceived, sender, e);

        private void OnTurnCompleted(object sender, TurnResult e) => Post(() => turnCompleted, sender, e);

        private void OnToolCall(object sender, ToolCall e) => Post(() => toolCallRequested, sender, e);

        private void OnPermission(object sender, PermissionRequest e) => Post(() => permissionRequested, sender, e);

        private void OnHook(object sender, HookRequest e) => Post(() => hookRequested, sender, e);

        private void OnCommand(object sender, CommandRequest e) => Post(() => commandRequested, sender, e);

        /// <summary>Posts one event; the handlers are read when the work item runs.</summary>
        private void Post<T>(Func<EventHandler<T>> handlers, object sender, T args)
        {
            context.Post(_ =>
            {
                EventHandler<T> h;
                lock (gate)
                {
                    h = disposed ? null : handlers();
                }
                SessionCore.Raise(h, sender, args);
            }, null);
        }

        /// <summary>Stops posting and unsubscribes from the session.</summary>
        public void Dispose()
        {
            lock (gate)
            {
                if (disposed)
                {
                    return;
                }
                disposed = true;
                session.EventReceived -= OnEvent;
                session.TurnCompleted -= OnTurnCompleted;
                if (toolCallRequested != null) session.ToolCallRequested -= OnToolCall;
                if (permissionRequested != null) session.PermissionRequested -= OnPermission;
                if (hookRequested != null) session.HookRequested -= OnHook;
                if (commandRequested != null) session.CommandRequested -= OnCommand;
            }
        }
    }
}
