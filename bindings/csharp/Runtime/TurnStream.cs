using System;
using System.Collections;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;

namespace Robota
{
    /// <summary>
    /// The events of one turn, pulled one at a time (<see cref="RobotaSession.Stream"/>), from
    /// TURN_STARTED to TURN_COMPLETED. After the TURN_COMPLETED event, the next step
    /// (<see cref="MoveNext()"/> or <see cref="NextAsync"/>) returns false and <see cref="Result"/>
    /// holds the turn's result — or that step throws the turn's failure: <see cref="RobotaProviderException"/>
    /// / <see cref="RobotaBudgetException"/> for a failed turn, <see cref="OperationCanceledException"/>
    /// when the stream's token aborted it, <see cref="ObjectDisposedException"/> when the session
    /// was disposed. A turn aborted by <see cref="RobotaSession.Abort"/> ends normally with
    /// <see cref="TurnResult.IsAborted"/>. A step that times out throws <see cref="RobotaTimeoutException"/>
    /// and the turn goes on (step again); a step's own token cancels that wait only. In pump and
    /// pull delivery <see cref="MoveNext()"/> dispatches / reads the session's events itself
    /// (unless another thread does). Disposing the stream before the turn ended aborts the turn.
    /// </summary>
    public sealed class TurnStream : IEnumerator<RobotaEvent>
    {
        private const int Slice = 50;
        private readonly RobotaSession session;
        private readonly ConcurrentQueue<RobotaEvent> queue = new ConcurrentQueue<RobotaEvent>(); // Queue<T> is in System.dll on .NET Framework
        private readonly SemaphoreSlim available = new SemaphoreSlim(0);
        private Task<TurnResult> task;
        private TurnResult result;
        private bool ended;
        private bool finished;

        internal TurnStream(RobotaSession session)
        {
            this.session = session;
        }

        internal void Attach(Task<TurnResult> turnTask, ulong turnId)
        {
            task = turnTask;
            TurnId = turnId;
            // The end, whatever it is (also a session disposed without TURN_COMPLETED), wakes a
            // waiting step: an empty queue after it means the end.
            task.ContinueWith(_ => available.Release(), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }

        internal void Push(RobotaEvent ev)
        {
            queue.Enqueue(ev);
            available.Release();
        }

        /// <summary>The turn's id (0 when the token was already cancelled and nothing was submitted).</summary>
        public ulong TurnId { get; private set; }

        /// <summary>The event of the last successful step.</summary>
        public RobotaEvent Current { get; private set; }

        object IEnumerator.Current => Current;

        /// <summary>Completes with the turn (the same outcome <see cref="RobotaSession.RunAsync(string, CancellationToken)"/> has).</summary>
        public Task<TurnResult> Completion => task;

        /// <summary>
        /// The turn's result once a step returned false; throws <see cref="InvalidOperationException"/>
        /// before that (read the stream to its end first).
        /// </summary>
        public TurnResult Result
        {
            get
            {
                if (!finished)
                {
                    throw new InvalidOperationException("the turn has not ended: step the stream until MoveNext returns false first");
                }
                return result;
            }
        }

        /// <summary>The next event, waiting as long as it takes.</summary>
        public bool MoveNext() => MoveNext(Timeout.Infinite, CancellationToken.None);

        /// <summary>The next event; <paramref name="cancellationToken"/> cancels this wait only.</summary>
        public bool MoveNext(CancellationToken cancellationToken) => MoveNext(Timeout.Infinite, cancellationToken);

        /// <summary>
        /// The next event within <paramref name="timeoutMs"/> (-1 = no limit); throws
        /// <see cref="RobotaTimeoutException"/> when none came (the turn goes on).
        /// </summary>
        public bool MoveNext(int timeoutMs, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (timeoutMs < -1)
            {
                throw new ArgumentOutOfRangeException(nameof(timeoutMs), "timeoutMs must be -1 (no limit) or more");
            }
            if (ended)
            {
                return Finish();
            }
            if (!WaitOne(timeoutMs, cancellationToken))
            {
                throw RobotaException.Create(RobotaStatus.Timeout, "no event of the turn within " + timeoutMs.ToString(CultureInfo.InvariantCulture) + " ms (the turn goes on)");
            }
            return Take();
        }

        /// <summary>
        /// The next event, asynchronously (true) or the end (false, or the turn's failure thrown);
        /// <paramref name="cancellationToken"/> cancels this wait only. In pump delivery it
        /// completes as the host's <see cref="RobotaSession.Dispatch"/> runs.
        /// </summary>
        public async Task<bool> NextAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            if (ended)
            {
                return Finish();
            }
            await available.WaitAsync(cancellationToken).ConfigureAwait(false);
            return Take();
        }

        private bool WaitOne(int timeoutMs, CancellationToken ct)
        {
            var mode = session.DeliveryName();
            if (mode != "pump" && mode != "pull")
            {
                return available.Wait(timeoutMs, ct);
            }
            var deadline = timeoutMs < 0 ? DateTime.MaxValue : DateTime.UtcNow.AddMilliseconds(timeoutMs);
            while (true)
            {
                if (available.Wait(0))
                {
                    return true;
                }
                ct.ThrowIfCancellationRequested();
                var left = deadline == DateTime.MaxValue ? Slice : (int)Math.Max(0, (deadline - DateTime.UtcNow).TotalMilliseconds);
                if (left == 0)
                {
                    return false;
                }
                var slice = Math.Min(left, Slice);
                try
                {
                    if (mode == "pump")
                    {
                        session.Dispatch(0, slice);
                    }
                    else
                    {
                        session.NextEvent(slice);
                    }
                }
                catch (RobotaException e) when (e.Code == RobotaStatus.Busy || e.Code == RobotaStatus.Closed)
                {
                    // Another thread dispatches (pump) or read the rest (pull): wait for it.
                    if (available.Wait(slice, ct))
                    {
                        return true;
                    }
                }
            }
        }

        private bool Take()
        {
            RobotaEvent ev;
            if (!queue.TryDequeue(out ev))
            {
                ended = true; // the turn's task ended without (further) events
                return Finish();
            }
            Current = ev;
            if (ev.Kind == EventKind.TurnCompleted)
            {
                ended = true;
            }
            return true;
        }

        private bool Finish()
        {
            finished = true;
            result = task.GetAwaiter().GetResult(); // the turn's failure, thrown as is
            return false;
        }

        /// <summary>Not supported: a turn cannot be replayed.</summary>
        public void Reset() => throw new NotSupportedException("a turn stream cannot be reset");

        /// <summary>Aborts the turn when it has not ended yet.</summary>
        public void Dispose()
        {
            if (task == null || task.IsCompleted || session.IsDisposed)
            {
                return;
            }
            try
            {
                if (TurnId != 0)
                {
                    session.Abort(TurnId);
                }
            }
            catch (Exception e) when (e is RobotaException || e is ObjectDisposedException)
            {
                // Ended or gone meanwhile.
            }
        }
    }
}
