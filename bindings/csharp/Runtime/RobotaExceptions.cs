namespace Robota
{
    /// <summary><see cref="RobotaStatus.InvalidJson"/> or <see cref="RobotaStatus.InvalidUtf8"/>: a document is not valid JSON (UTF-8).</summary>
    public sealed class RobotaInvalidJsonException : RobotaException
    {
        internal RobotaInvalidJsonException(RobotaStatus status, string message, string detailsJson) : base(status, message, detailsJson)
        {
        }
    }

    /// <summary><see cref="RobotaStatus.InvalidConfig"/>: a document has missing or wrong fields (the message names them).</summary>
    public sealed class RobotaInvalidConfigException : RobotaException
    {
        internal RobotaInvalidConfigException(string message, string detailsJson) : base(RobotaStatus.InvalidConfig, message, detailsJson)
        {
        }
    }

    /// <summary><see cref="RobotaStatus.Busy"/>: a prompt is already queued, or a command needs an idle session.</summary>
    public sealed class RobotaBusyException : RobotaException
    {
        internal RobotaBusyException(string message, string detailsJson) : base(RobotaStatus.Busy, message, detailsJson)
        {
        }
    }

    /// <summary><see cref="RobotaStatus.NotFound"/>: a name or id that does not exist (or whose result was dropped).</summary>
    public sealed class RobotaNotFoundException : RobotaException
    {
        internal RobotaNotFoundException(string message, string detailsJson) : base(RobotaStatus.NotFound, message, detailsJson)
        {
        }
    }

    /// <summary><see cref="RobotaStatus.Stale"/>: a request or call that was already answered, timed out or cancelled.</summary>
    public sealed class RobotaStaleException : RobotaException
    {
        internal RobotaStaleException(string message, string detailsJson) : base(RobotaStatus.Stale, message, detailsJson)
        {
        }
    }

    /// <summary><see cref="RobotaStatus.Timeout"/>: a wait ran out (the turn goes on).</summary>
    public sealed class RobotaTimeoutException : RobotaException
    {
        internal RobotaTimeoutException(string message, string detailsJson) : base(RobotaStatus.Timeout, message, detailsJson)
        {
        }
    }

    /// <summary><see cref="RobotaStatus.Closed"/>: the session is closed.</summary>
    public sealed class RobotaClosedException : RobotaException
    {
        internal RobotaClosedException(string message, string detailsJson) : base(RobotaStatus.Closed, message, detailsJson)
        {
        }
    }

    /// <summary>
    /// <see cref="RobotaStatus.Aborted"/>: the turn was aborted (<see cref="RobotaSession.Abort"/>,
    /// <see cref="RobotaSession.Close"/>). A cancelled <c>CancellationToken</c> gives an
    /// <see cref="System.OperationCanceledException"/> instead.
    /// </summary>
    public sealed class RobotaAbortedException : RobotaException
    {
        internal RobotaAbortedException(string message, string detailsJson) : base(RobotaStatus.Aborted, message, detailsJson)
        {
        }
    }

    /// <summary><see cref="RobotaStatus.Reentrant"/>: a blocking call was made from inside a callback.</summary>
    public sealed class RobotaReentrantException : RobotaException
    {
        internal RobotaReentrantException(string message, string detailsJson) : base(RobotaStatus.Reentrant, message, detailsJson)
        {
        }
    }

    /// <summary><see cref="RobotaStatus.Unsupported"/>: not supported in this delivery mode or by this build.</summary>
    public sealed class RobotaUnsupportedException : RobotaException
    {
        internal RobotaUnsupportedException(string message, string detailsJson) : base(RobotaStatus.Unsupported, message, detailsJson)
        {
        }
    }

    /// <summary><see cref="RobotaStatus.VersionMismatch"/>: a document or library of another major version.</summary>
    public sealed class RobotaVersionMismatchException : RobotaException
    {
        internal RobotaVersionMismatchException(string message, string detailsJson) : base(RobotaStatus.VersionMismatch, message, detailsJson)
        {
        }
    }

    /// <summary><see cref="RobotaStatus.Budget"/>: the session's budget stopped the turn.</summary>
    public sealed class RobotaBudgetException : RobotaException
    {
        internal RobotaBudgetException(string message, string detailsJson) : base(RobotaStatus.Budget, message, detailsJson)
        {
        }
    }

    /// <summary>
    /// <see cref="RobotaStatus.Conflict"/>: the session store refused a save because the session
    /// changed since this node loaded it (another node saved it, or deleted it). Nothing was
    /// overwritten: the store keeps the other version; resume the session from the store
    /// (<see cref="RobotaRuntime.ResumeSessionById"/>) to continue.
    /// </summary>
    public sealed class RobotaConflictException : RobotaException
    {
        internal RobotaConflictException(string message, string detailsJson) : base(RobotaStatus.Conflict, message, detailsJson)
        {
            var d = detailsJson == null ? null : Json.ObjectOrEmpty(detailsJson);
            SessionId = Json.GetString(d, "session_id");
            ExpectedVersion = (long)Json.GetUInt64(d, "expected_version");
            StoredVersion = (long)Json.GetUInt64(d, "stored_version");
        }

        /// <summary>The session whose save conflicted (null when the details do not name it).</summary>
        public string SessionId { get; }

        /// <summary>The version this node had loaded and expected the store to still hold.</summary>
        public long ExpectedVersion { get; }

        /// <summary>The version the store holds (0 when the session was deleted).</summary>
        public long StoredVersion { get; }
    }

    /// <summary>
    /// <see cref="RobotaStatus.Provider"/>: the turn failed. <see cref="RobotaException.ErrorCode"/> is the
    /// error class (<c>AUTHENTICATION_ERROR</c>, <c>RATE_LIMIT_ERROR</c>, <c>NETWORK_ERROR</c>,
    /// <c>PROVIDER_ERROR</c>, ...) and <see cref="HttpStatus"/> the HTTP status the provider answered.
    /// </summary>
    public sealed class RobotaProviderException : RobotaException
    {
        internal RobotaProviderException(string message, string detailsJson) : base(RobotaStatus.Provider, message, detailsJson)
        {
            HttpStatus = HttpStatusOf(message);
        }

        /// <summary>The provider's HTTP status (null when the failure was not an HTTP answer, e.g. a network error).</summary>
        public int? HttpStatus { get; }

        /// <summary>The status of the library's text "... returned HTTP 429: ..." (null when absent).</summary>
        private static int? HttpStatusOf(string message)
        {
            const string marker = "returned HTTP ";
            var i = message == null ? -1 : message.IndexOf(marker, System.StringComparison.Ordinal);
            if (i < 0 || i + marker.Length + 3 > message.Length)
            {
                return null;
            }
            var digits = message.Substring(i + marker.Length, 3);
            int code;
            var after = i + marker.Length + 3;
            var ends = after == message.Length || !char.IsDigit(message[after]);
            return ends && int.TryParse(digits, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out code) ? code : (int?)null;
        }

        /// <summary>The error class (<see cref="RobotaException.ErrorCode"/>: <c>RATE_LIMIT_ERROR</c>, ...), or null.</summary>
        public string ErrorClass => ErrorCode;
    }
}
