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

        /// <summary>The Robota taxonomy code (e.g. <c>"PROVIDER_ERROR"</c>), or null.</summary>
        public string ErrorCode { get; }

        /// <summary>The Robota taxonomy category (e.g. <c>"provider"</c>), or null.</summary>
        public string Category { get; }

        /// <summary>Whether retrying may succeed (taxonomy <c>recoverable</c>; false when unknown).</summary>
        public bool Recoverable { get; }

        /// <summary>The raw details JSON, or null.</summary>
        public string Details { get; }

        /// <summary>Builds an exception from an ERROR event payload (<c>{"code","category","recoverable","message"}</c>).</summary>
        internal static RobotaException FromErrorEvent(RobotaStatus status, IDictionary<string, object> payload, string fallback)
        {
            var msg = Json.GetString(payload, "message") ?? fallback;
            return new RobotaException(status, msg, payload == null ? null : Json.Serialize(payload));
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
                return new RobotaException((RobotaStatus)status, StatusText(status));
            }
            try
            {
                var code = NativeMethods.robota_error_code(error);
                var message = Utf8.DecodeZ(NativeMethods.robota_error_message(error)) ?? StatusText(status);
                var details = Utf8.DecodeZ(NativeMethods.robota_error_details(error));
                return new RobotaException((RobotaStatus)code, message, details);
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
