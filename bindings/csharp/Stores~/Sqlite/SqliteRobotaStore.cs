using System;
using System.Collections.Generic;
using System.Data;
using System.Globalization;
using System.IO;
using System.Text;
using Mono.Data.Sqlite;

namespace Robota.Stores.Sqlite
{
    /// <summary>
    /// A Robota session store (<see cref="IRobotaStore"/>) in one SQLite database file, over Mono's
    /// <c>Mono.Data.Sqlite</c> (needs the native libsqlite3). Several runtimes and processes may
    /// share the file: every save is one atomic statement with an optimistic version check, so two
    /// nodes advancing the same session at once give one success and one conflict. Each call opens
    /// its own connection: the store is thread-safe.
    /// <code>
    /// runtime.SetStore(new SqliteRobotaStore("/var/lib/app/sessions.db"));
    /// </code>
    /// Tables (created when missing): <c>robota_sessions</c> (id, version, snapshot and the listing
    /// columns) and <c>robota_transcripts</c> (appended transcript lines, kept when a session is deleted).
    /// </summary>
    public sealed class SqliteRobotaStore : IRobotaStore
    {
        private const string Schema =
            "CREATE TABLE IF NOT EXISTS robota_sessions (" +
            " id TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL, snapshot TEXT NOT NULL," +
            " name TEXT, cwd TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, message_count INTEGER NOT NULL);" +
            "CREATE INDEX IF NOT EXISTS robota_sessions_cwd_updated ON robota_sessions (cwd, updated_at);" +
            "CREATE INDEX IF NOT EXISTS robota_sessions_updated ON robota_sessions (updated_at);" +
            "CREATE TABLE IF NOT EXISTS robota_transcripts (" +
            " seq INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, lines TEXT NOT NULL);" +
            "CREATE INDEX IF NOT EXISTS robota_transcripts_session ON robota_transcripts (session_id, seq);";

        private const string Columns = "name = @name, cwd = @cwd, created_at = @created_at, updated_at = @updated_at, message_count = @message_count";

        private readonly string connectionString;

        /// <summary>
        /// Opens (creates when missing) the database at <paramref name="databasePath"/> and its tables;
        /// throws <see cref="IOException"/> naming the path when it cannot be opened.
        /// <paramref name="busyTimeoutSeconds"/> is how long a call waits for another writer's lock.
        /// </summary>
        public SqliteRobotaStore(string databasePath, int busyTimeoutSeconds = 30)
        {
            if (string.IsNullOrEmpty(databasePath))
            {
                throw new ArgumentException("the SQLite database path is empty", nameof(databasePath));
            }
            // Write-ahead logging lets readers go on while one node writes. Mono.Data.Sqlite sets
            // the journal mode on every open (DELETE unless told), so it is part of the connection.
            connectionString = string.Format(CultureInfo.InvariantCulture, "Data Source={0};Version=3;Journal Mode=WAL;Default Timeout={1}", databasePath, busyTimeoutSeconds);
            try
            {
                using (var c = Open())
                {
                    Execute(c, null, Schema);
                }
            }
            catch (SqliteException e)
            {
                throw new IOException("cannot open the SQLite session store \"" + databasePath + "\": " + e.Message, e);
            }
        }

        /// <inheritdoc />
        public StoredSession Load(string sessionId)
        {
            using (var c = Open())
            using (var cmd = Command(c, null, "SELECT version, snapshot FROM robota_sessions WHERE id = @id", "@id", sessionId))
            using (var r = cmd.ExecuteReader())
            {
                return r.Read() ? new StoredSession(r.GetInt64(0), r.GetString(1)) : null;
            }
        }

        /// <inheritdoc />
        public StoreSaveResult Save(StoreSaveRequest request)
        {
            if (request == null)
            {
                throw new ArgumentNullException(nameof(request));
            }
            using (var c = Open())
            using (var tx = c.BeginTransaction(IsolationLevel.Serializable))
            {
                int changed;
                if (request.ExpectedVersion == 0)
                {
                    changed = Write(c, tx, request,
                        "INSERT INTO robota_sessions (id, version, snapshot, name, cwd, created_at, updated_at, message_count)" +
                        " VALUES (@id, 1, @snapshot, @name, @cwd, @created_at, @updated_at, @message_count) ON CONFLICT(id) DO NOTHING");
                }
                else
                {
                    changed = Write(c, tx, request,
                        "UPDATE robota_sessions SET version = version + 1, snapshot = @snapshot, " + Columns +
                        " WHERE id = @id AND version = @expected");
                }
                if (changed == 1)
                {
                    tx.Commit();
                    return StoreSaveResult.Saved(request.ExpectedVersion + 1);
                }
                using (var cmd = Command(c, tx, "SELECT version FROM robota_sessions WHERE id = @id", "@id", request.SessionId))
                {
                    var stored = cmd.ExecuteScalar();
                    tx.Commit();
                    return StoreSaveResult.Conflict(stored == null || stored is DBNull ? 0 : Convert.ToInt64(stored, CultureInfo.InvariantCulture));
                }
            }
        }

        /// <inheritdoc />
        public bool Delete(string sessionId)
        {
            using (var c = Open())
            using (var cmd = Command(c, null, "DELETE FROM robota_sessions WHERE id = @id", "@id", sessionId))
            {
                return cmd.ExecuteNonQuery() > 0;
            }
        }

        /// <inheritdoc />
        public IList<StoredSessionSummary> List(StoreQuery query)
        {
            var sql = new StringBuilder("SELECT id, name, cwd, created_at, updated_at, message_count FROM robota_sessions");
            if (query?.Cwd != null)
            {
                sql.Append(" WHERE cwd = @cwd");
            }
            sql.Append(" ORDER BY updated_at DESC, id LIMIT @limit");
            var rows = new List<StoredSessionSummary>();
            using (var c = Open())
            // SQLite: a negative LIMIT is none.
            using (var cmd = Command(c, null, sql.ToString(), "@cwd", query?.Cwd, "@limit", query?.Limit ?? -1))
            {
                using (var r = cmd.ExecuteReader())
                {
                    while (r.Read())
                    {
                        rows.Add(new StoredSessionSummary(r.GetString(0), r.IsDBNull(1) ? null : r.GetString(1), r.GetString(2),
                            r.GetString(3), r.GetString(4), r.GetInt64(5)));
                    }
                }
            }
            return rows;
        }

        /// <inheritdoc />
        public void Append(string sessionId, string lines)
        {
            using (var c = Open())
            using (var cmd = Command(c, null, "INSERT INTO robota_transcripts (session_id, lines) VALUES (@id, @lines)", "@id", sessionId, "@lines", lines ?? string.Empty))
            {
                cmd.ExecuteNonQuery();
            }
        }

        /// <summary>The transcript of a session: every appended line in order (empty when there is none).</summary>
        public string Transcript(string sessionId)
        {
            var sb = new StringBuilder();
            using (var c = Open())
            using (var cmd = Command(c, null, "SELECT lines FROM robota_transcripts WHERE session_id = @id ORDER BY seq", "@id", sessionId))
            using (var r = cmd.ExecuteReader())
            {
                while (r.Read())
                {
                    sb.Append(r.GetString(0));
                }
            }
            return sb.ToString();
        }

        private SqliteConnection Open()
        {
            var c = new SqliteConnection(connectionString);
            try
            {
                c.Open();
                return c;
            }
            catch
            {
                c.Dispose();
                throw;
            }
        }

        private static int Write(SqliteConnection c, SqliteTransaction tx, StoreSaveRequest request, string sql)
        {
            var s = request.Summary;
            using (var cmd = Command(c, tx, sql, "@id", request.SessionId, "@expected", request.ExpectedVersion, "@snapshot", request.SnapshotJson,
                "@name", s.Name, "@cwd", s.Cwd, "@created_at", s.CreatedAt, "@updated_at", s.UpdatedAt, "@message_count", s.MessageCount))
            {
                return cmd.ExecuteNonQuery();
            }
        }

        /// <summary>A command with the parameters (name, value pairs) its SQL uses; null values are SQL NULL.</summary>
        private static SqliteCommand Command(SqliteConnection c, SqliteTransaction tx, string sql, params object[] parameters)
        {
            var cmd = new SqliteCommand(sql, c, tx);
            for (var i = 0; i + 1 < parameters.Length; i += 2)
            {
                var name = (string)parameters[i];
                if (sql.Contains(name))
                {
                    cmd.Parameters.AddWithValue(name, parameters[i + 1] ?? DBNull.Value);
                }
            }
            return cmd;
        }

        private static void Execute(SqliteConnection c, SqliteTransaction tx, string sql)
        {
            using (var cmd = new SqliteCommand(sql, c, tx))
            {
                cmd.ExecuteNonQuery();
            }
        }
    }
}
