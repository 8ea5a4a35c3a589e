using System;
using System.Collections.Generic;

namespace Robota
{
    /// <summary>
    /// A library error: the status code, the library's message naming what is wrong, and, when
    /// a Robota taxonomy error is behind it, its code, category and whether retrying may help.
    /// </summary>
    public class RobotaException : Exception
    {
        /// <summary>Creates an exception for a status and message (details optional).</summary>
        public RobotaException(RobotaStatus code, string message, string detailsJson = null)
            : base(message)
        {
            Code = code;
            Details = detailsJson;
            if (detailsJson == null)
            {
                return;
            }
            try
            {
                var d = Json.ParseObject(detailsJson);
                ErrorCode = Json.GetString(d, "code");
                Category = Json.GetString(d, "category");
                Recoverable = Json.GetBool(d, "recoverable");
            }
            catch (FormatException)
            {
                // Details are advisory; an unreadable document leaves the fields empty.
            }
        }

        /// <summary>The status code (ROBOTA_E_*).</summary>
        public RobotaStatus Code { get; }

        /// <summary>The status code (ROBOTA_E_*); the same as <see cref="Code"/>.</summary>
        public RobotaStatus Status => Code;

        /// <summary>The Robota taxonomy code (e.g. <c>"PROVIDER_ERROR"</c>), or null.</summary>
        public string ErrorCode { get; }

        /// <summary>The Robota taxonomy category (e.g. <c>"provider"</c>), or null.</summary>
        public string Category { get; }

        /// <summary>Whether retrying may succeed (taxonomy <c>recoverable</c>; false when unknown).</summary>
        public bool Recoverable { get; }

        /// <summary>The raw details JSON, or null.</summary>
        public string Details { get; }

        /// <summary>The result document of the failed or aborted turn behind this exception, when there is one.</summary>
        public TurnResult Result { get; internal set; }

        /// <summary>Builds an exception from an ERROR event payload (<c>{"code","category","recoverable","message"}</c>).</summary>
        internal static RobotaException FromErrorEvent(RobotaStatus status, IDictionary<string, object> payload, string fallback)
        {
            var msg = Json.GetString(payload, "message") ?? fallback;
            return Create(status, msg, payload == null ? null : Json.Serialize(payload));
        }

        /// <summary>
        /// The exception of the class for <paramref name="status"/>: <see cref="RobotaInvalidJsonException"/>,
        /// <see cref="RobotaInvalidConfigException"/>, <see cref="RobotaProviderException"/>, ... or a plain
        /// <see cref="RobotaException"/> for the other statuses.
        /// </summary>
        public static RobotaException Create(RobotaStatus status, string message, string detailsJson = null)
        {
            switch (status)
            {
                case RobotaStatus.InvalidJson:
                case RobotaStatus.InvalidUtf8:
                    return new RobotaInvalidJsonException(status, message, detailsJson);
                case RobotaStatus.InvalidConfig: return new RobotaInvalidConfigException(message, detailsJson);
                case RobotaStatus.Busy: return new RobotaBusyException(message, detailsJson);
                case RobotaStatus.NotFound: return new RobotaNotFoundException(message, detailsJson);
                case RobotaStatus.Stale: return new RobotaStaleException(message, detailsJson);
                case RobotaStatus.Timeout: return new RobotaTimeoutException(message, detailsJson);
                case RobotaStatus.Closed: return new RobotaClosedException(message, detailsJson);
                case RobotaStatus.Aborted: return new RobotaAbortedException(message, detailsJson);
                case RobotaStatus.Reentrant: return new RobotaReentrantException(message, detailsJson);
                case RobotaStatus.Unsupported: return new RobotaUnsupportedException(message, detailsJson);
                case RobotaStatus.Provider: return new RobotaProviderException(message, detailsJson);
                case RobotaStatus.Budget: return new RobotaBudgetException(message, detailsJson);
                case RobotaStatus.VersionMismatch: return new RobotaVersionMismatchException(message, detailsJson);
                case RobotaStatus.Conflict: return new RobotaConflictException(message, detailsJson);
                default: return new RobotaException(status, message, detailsJson);
            }
        }
    }

    /// <summary>Turns statuses and owned error objects into exceptions.</summary>
    internal static class Errors
    {
        /// <summary>Throws for a non-OK status, consuming (freeing) the error object.</summary>
        internal static void Check(int status, IntPtr error)
        {
            if (status == 0)
            {
                Free(error);
                return;
            }
            throw Take(status, error);
        }

        /// <summary>The exception for a failed call; frees the error object.</summary>
        internal static RobotaException Take(int status, IntPtr error)
        {
            if (error == IntPtr.Zero)
            {
                return RobotaException.Create((RobotaStatus)status, StatusText(status));
            }
            try
            {
                var code = NativeMethods.robota_error_code(error);
                var message = Utf8.DecodeZ(NativeMethods.robota_error_message(error)) ?? StatusText(status);
                var details = Utf8.DecodeZ(NativeMethods.robota_error_details(error));
                return RobotaException.Create((RobotaStatus)code, message, details);
            }
            finally
            {
                NativeMethods.robota_error_free(error);
            }
        }

        /// <summary>Frees an error object (no-op for NULL).</summary>
        internal static void Free(IntPtr error)
        {
            if (error != IntPtr.Zero)
            {
                NativeMethods.robota_error_free(error);
            }
        }

        /// <summary>The library's English text for a status.</summary>
        internal static string StatusText(int status) => Utf8.DecodeZ(NativeMethods.robota_status_str(status));
    }
}
