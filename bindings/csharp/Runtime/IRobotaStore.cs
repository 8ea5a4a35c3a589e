using System.Collections.Generic;

namespace Robota
{
    /// <summary>
    /// A session store the host plugs into a runtime (<see cref="RobotaRuntime.SetStore"/>): a
    /// database shared by several nodes instead of the local session directory. Sessions with
    /// <see cref="SessionConfig.Persist"/> save through it after each turn,
    /// <see cref="RobotaRuntime.ResumeSessionById"/> loads through it,
    /// <see cref="RobotaRuntime.ListSessionsJson"/> and <see cref="RobotaRuntime.DeleteSession"/>
    /// list and delete through it, and transcripts (<see cref="SessionConfig.Transcript"/>) are
    /// appended to it.
    /// <para>
    /// Each method runs on a worker thread (never the library's own), possibly several at once,
    /// and may block (a disk, a network). An exception fails the operation with
    /// <see cref="RobotaStatus.Io"/> carrying its message; an answer later than the runtime's
    /// <c>request_timeout_ms</c> is dropped (the operation failed with <see cref="RobotaStatus.Timeout"/>).
    /// </para>
    /// </summary>
    public interface IRobotaStore
    {
        /// <summary>The stored session, or null when there is none (the resume fails with <see cref="RobotaStatus.NotFound"/>).</summary>
        StoredSession Load(string sessionId);

        /// <summary>
        /// Saves atomically with an optimistic version check: for <see cref="StoreSaveRequest.ExpectedVersion"/>
        /// 0 insert the session (it exists already: a conflict), otherwise update it only while the
        /// store still holds that version (<c>UPDATE ... WHERE id = @id AND version = @expected</c>;
        /// no row: a conflict). Returns <see cref="StoreSaveResult.Saved"/> with the new version
        /// (expected + 1) or <see cref="StoreSaveResult.Conflict"/> with the stored version (0 when
        /// there is none); the turn that saved then fails with <see cref="RobotaConflictException"/>.
        /// </summary>
        StoreSaveResult Save(StoreSaveRequest request);

        /// <summary>Deletes a session; false when there was none (<see cref="RobotaStatus.NotFound"/>).</summary>
        bool Delete(string sessionId);

        /// <summary>The sessions of <see cref="StoreQuery.Cwd"/> (null: all), newest <see cref="StoredSessionSummary.UpdatedAt"/> first, at most <see cref="StoreQuery.Limit"/>.</summary>
        IList<StoredSessionSummary> List(StoreQuery query);

        /// <summary>Appends transcript lines of a session (one or more complete JSONL lines, each ending in <c>"\n"</c>).</summary>
        void Append(string sessionId, string lines);
    }
}
