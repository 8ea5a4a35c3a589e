using System;
using System.Collections.Generic;
using System.Globalization;

namespace Robota
{
    /// <summary>
    /// The runtime's session store (the GCHandle target of its registration): turns each store
    /// request (<c>{"v":1,"op":"load"|"save"|"delete"|"list"|"append",...}</c>) into a call of the
    /// host's <see cref="IRobotaStore"/> and answers it by id with robota_store_complete.
    /// </summary>
    internal sealed class StoreRegistration
    {
        private readonly IRobotaStore store;
        private readonly WeakReference<RuntimeHandle> runtime;

        internal StoreRegistration(RuntimeHandle runtime, IRobotaStore store)
        {
            this.runtime = new WeakReference<RuntimeHandle>(runtime);
            this.store = store;
        }

        /// <summary>Answers request <paramref name="id"/> with the store's result; never throws.</summary>
        internal void Invoke(ulong id, string requestJson)
        {
            string answer;
            try
            {
                answer = Json.Serialize(Answer(Json.ParseObject(requestJson)));
            }
            catch (Exception e)
            {
                answer = ErrorAnswer(e.Message);
            }
            RuntimeHandle rt;
            if (!runtime.TryGetTarget(out rt) || rt == null || rt.IsClosed)
            {
                return;
            }
            try
            {
                IntPtr err;
                var status = NativeMethods.robota_store_complete(rt, id, Utf8.Encode(answer), out err);
                if (status == (int)RobotaStatus.InvalidJson || status == (int)RobotaStatus.InvalidConfig)
                {
                    // The store returned something the library refuses (a snapshot that is not a
                    // JSON object, a version below 1): the operation fails now, naming it, instead
                    // of waiting for its timeout.
                    var refused = Errors.Take(status, err);
                    // Taken (freed): the next call writes err only when it fails.
                    err = IntPtr.Zero;
                    NativeMethods.robota_store_complete(rt, id, Utf8.Encode(ErrorAnswer("the store's answer was refused: " + refused.Message)), out err);
                }
                // ROBOTA_E_STALE after a timeout is expected: nobody waits for the answer any more.
                Errors.Free(err);
            }
            catch (ObjectDisposedException)
            {
                // The runtime is gone: nobody waits for the answer.
            }
        }

        private static string ErrorAnswer(string message) =>
            Json.Serialize(new Dictionary<string, object> { { "error", string.IsNullOrEmpty(message) ? "the session store failed" : message } });

        private object Answer(Dictionary<string, object> request)
        {
            var op = Json.GetString(request, "op");
            var sessionId = Json.GetString(request, "session_id");
            switch (op)
            {
                case "load":
                    var stored = store.Load(Required(sessionId, op));
                    return stored == null
                        ? new Dictionary<string, object> { { "found", false } }
                        : new Dictionary<string, object> { { "version", stored.Version }, { "snapshot", new JsonRaw(stored.SnapshotJson) } };
                case "save":
                    return Save(Required(sessionId, op), request);
                case "delete":
                    return new Dictionary<string, object> { { "deleted", store.Delete(Required(sessionId, op)) } };
                case "list":
                    return List(request);
                case "append":
                    store.Append(Required(sessionId, op), Json.GetString(request, "lines") ?? string.Empty);
                    return new Dictionary<string, object>();
                default:
                    throw new NotSupportedException("unknown store op \"" + op + "\"");
            }
        }

        private object Save(string sessionId, Dictionary<string, object> request)
        {
            object snapshot, summary;
            request.TryGetValue("snapshot", out snapshot);
            request.TryGetValue("summary", out summary);
            var save = new StoreSaveRequest(
                sessionId,
                Members.Long(request, "expected_version"),
                Json.Serialize(snapshot),
                StoredSessionSummary.FromJson(sessionId, summary as IDictionary<string, object>));
            var result = store.Save(save);
            return result.IsConflict
                ? new Dictionary<string, object> { { "conflict", true }, { "version", result.Version } }
                : new Dictionary<string, object> { { "version", result.Version } };
        }

        private object List(Dictionary<string, object> request)
        {
            object limit;
            int? max = null;
            if (request.TryGetValue("limit", out limit) && limit is long n)
            {
                max = (int)Math.Min(Math.Max(n, 0), int.MaxValue);
            }
            var rows = store.List(new StoreQuery(Json.GetString(request, "cwd"), max));
            var sessions = new List<object>();
            if (rows != null)
            {
                foreach (var row in rows)
                {
                    if (row != null)
                    {
                        sessions.Add(row.ToJson());
                    }
                }
            }
            return new Dictionary<string, object> { { "sessions", sessions } };
        }

        private static string Required(string sessionId, string op)
        {
            if (sessionId == null)
            {
                throw new FormatException(string.Format(CultureInfo.InvariantCulture, "store request \"{0}\" has no \"session_id\"", op));
            }
            return sessionId;
        }
    }
}
