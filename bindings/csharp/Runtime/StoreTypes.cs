using System;
using System.Collections.Generic;

namespace Robota
{
    /// <summary>A session as a store holds it: its version and its snapshot (<see cref="IRobotaStore.Load"/>).</summary>
    public sealed class StoredSession
    {
        /// <summary>A stored session: <paramref name="version"/> (1 or more) and the snapshot object as JSON text.</summary>
        public StoredSession(long version, string snapshotJson)
        {
            if (version < 1)
            {
                throw new ArgumentOutOfRangeException(nameof(version), version, "a stored session's version is 1 or more");
            }
            Version = version;
            SnapshotJson = snapshotJson ?? throw new ArgumentNullException(nameof(snapshotJson));
        }

        /// <summary>The version the store holds (1 after the first save, one more per save).</summary>
        public long Version { get; }

        /// <summary>The snapshot object (<see cref="RobotaSession.Save"/>'s document) as JSON text.</summary>
        public string SnapshotJson { get; }
    }

    /// <summary>
    /// The columns of a saved session a listing shows (<see cref="IRobotaStore.List"/>), copied from
    /// its snapshot on every save (<see cref="StoreSaveRequest.Summary"/>).
    /// </summary>
    public sealed class StoredSessionSummary
    {
        /// <summary>A listing row. <paramref name="name"/> may be null (an unnamed session).</summary>
        public StoredSessionSummary(string id, string name, string cwd, string createdAt, string updatedAt, long messageCount)
        {
            Id = id ?? throw new ArgumentNullException(nameof(id));
            Name = name;
            Cwd = cwd ?? string.Empty;
            CreatedAt = createdAt ?? string.Empty;
            UpdatedAt = updatedAt ?? string.Empty;
            MessageCount = messageCount;
        }

        /// <summary>The session id.</summary>
        public string Id { get; }

        /// <summary>The user-facing name (null when unnamed).</summary>
        public string Name { get; }

        /// <summary>The session's working directory.</summary>
        public string Cwd { get; }

        /// <summary>ISO 8601 creation time.</summary>
        public string CreatedAt { get; }

        /// <summary>ISO 8601 time of the last save (listings are newest first by this).</summary>
        public string UpdatedAt { get; }

        /// <summary>Successful turns.</summary>
        public long MessageCount { get; }

        internal static StoredSessionSummary FromJson(string id, IDictionary<string, object> d) =>
            new StoredSessionSummary(id, Json.GetString(d, "name"), Json.GetString(d, "cwd"), Json.GetString(d, "created_at"),
                Json.GetString(d, "updated_at"), Members.Long(d, "message_count"));

        internal Dictionary<string, object> ToJson() => new Dictionary<string, object>
        {
            { "id", Id }, { "name", Name }, { "cwd", Cwd }, { "created_at", CreatedAt }, { "updated_at", UpdatedAt }, { "message_count", MessageCount },
        };
    }

    /// <summary>
    /// One save of a session (<see cref="IRobotaStore.Save"/>): store <see cref="SnapshotJson"/> as
    /// version <c>ExpectedVersion + 1</c> only if the store still holds <see cref="ExpectedVersion"/>
    /// (0: the session is new and must not exist yet).
    /// </summary>
    public sealed class StoreSaveRequest
    {
        /// <summary>A save request (hosts build one only to test a store).</summary>
        public StoreSaveRequest(string sessionId, long expectedVersion, string snapshotJson, StoredSessionSummary summary)
        {
            SessionId = sessionId ?? throw new ArgumentNullException(nameof(sessionId));
            ExpectedVersion = expectedVersion;
            SnapshotJson = snapshotJson ?? throw new ArgumentNullException(nameof(snapshotJson));
            Summary = summary ?? throw new ArgumentNullException(nameof(summary));
        }

        /// <summary>The session id.</summary>
        public string SessionId { get; }

        /// <summary>The version this node loaded (0 when it created the session).</summary>
        public long ExpectedVersion { get; }

        /// <summary>The snapshot object as JSON text.</summary>
        public string SnapshotJson { get; }

        /// <summary>The listing columns, copied from the snapshot.</summary>
        public StoredSessionSummary Summary { get; }
    }

    /// <summary>The outcome of <see cref="IRobotaStore.Save"/>: saved as a new version, or a conflict.</summary>
    public struct StoreSaveResult
    {
        private StoreSaveResult(bool conflict, long version)
        {
            IsConflict = conflict;
            Version = version;
        }

        /// <summary>Saved: the store now holds <paramref name="newVersion"/> (the expected version + 1).</summary>
        public static StoreSaveResult Saved(long newVersion) => new StoreSaveResult(false, newVersion);

        /// <summary>Not saved: the store holds <paramref name="storedVersion"/> instead of the expected one (0: the session was deleted).</summary>
        public static StoreSaveResult Conflict(long storedVersion) => new StoreSaveResult(true, storedVersion);

        /// <summary>True when the store refused the save (its version was not the expected one).</summary>
        public bool IsConflict { get; }

        /// <summary>The new version (saved) or the version the store holds (conflict).</summary>
        public long Version { get; }
    }

    /// <summary>What <see cref="IRobotaStore.List"/> returns: sessions of one working directory (or all), at most a number (or all).</summary>
    public sealed class StoreQuery
    {
        /// <summary>A listing query; null members mean "all".</summary>
        public StoreQuery(string cwd, int? limit)
        {
            Cwd = cwd;
            Limit = limit;
        }

        /// <summary>Only sessions whose working directory is this one (null: every session).</summary>
        public string Cwd { get; }

        /// <summary>At most this many sessions, newest first (null: all).</summary>
        public int? Limit { get; }
    }
}
