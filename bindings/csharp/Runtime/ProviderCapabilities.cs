using System.Collections.Generic;

namespace Robota
{
    /// <summary>What a host provider offers (the registration's capabilities document).</summary>
    public sealed class ProviderCapabilities
    {
        /// <summary>The model ids it serves (null: any).</summary>
        public List<string> Models { get; set; }

        /// <summary>The context window in tokens (null: the library's default).</summary>
        public long? ContextWindow { get; set; }

        /// <summary>The output limit in tokens.</summary>
        public long? MaxOutputTokens { get; set; }

        /// <summary>It reads images.</summary>
        public bool? Vision { get; set; }

        /// <summary>It streams thinking.</summary>
        public bool? Thinking { get; set; }

        /// <summary>Retries of a recoverable error (null: 2).</summary>
        public int? MaxRetries { get; set; }

        /// <summary>A call with no event for this long fails as a recoverable provider error (null: 300000).</summary>
        public long? TimeoutMs { get; set; }

        /// <summary>The capabilities document.</summary>
        public string ToJson()
        {
            var d = new Dictionary<string, object>();
            if (Models != null) d["models"] = Models;
            if (ContextWindow.HasValue) d["context_window"] = ContextWindow.Value;
            if (MaxOutputTokens.HasValue) d["max_output_tokens"] = MaxOutputTokens.Value;
            if (Vision.HasValue) d["vision"] = Vision.Value;
            if (Thinking.HasValue) d["thinking"] = Thinking.Value;
            if (MaxRetries.HasValue) d["max_retries"] = MaxRetries.Value;
            if (TimeoutMs.HasValue) d["timeout_ms"] = TimeoutMs.Value;
            return Json.Serialize(d);
        }
    }
}
