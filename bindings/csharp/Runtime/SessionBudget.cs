using System.Collections.Generic;

namespace Robota
{
    /// <summary>
    /// A session's hard limits (the session JSON's <c>"budget"</c>), counted over the session's
    /// life; null fields are unlimited. A turn that would exceed one stops with
    /// <c>stop_reason:"budget"</c> (<see cref="RobotaSession.RunAsync(string, System.Threading.CancellationToken)"/> throws
    /// <see cref="RobotaException"/> with <see cref="RobotaStatus.Budget"/>), and later submits
    /// fail with the same status.
    /// </summary>
    public sealed class SessionBudget
    {
        /// <summary>Input + output tokens of all model calls.</summary>
        public long? MaxTotalTokens { get; set; }

        /// <summary>Cost in USD of all model calls, from the model's list price in the library's
        /// model table (a model without a price is refused at session creation).</summary>
        public double? MaxCostUsd { get; set; }

        /// <summary>Wall time of all turns (ms).</summary>
        public long? MaxWallMs { get; set; }

        /// <summary>Tool calls run.</summary>
        public long? MaxToolCalls { get; set; }

        /// <summary>Model calls made.</summary>
        public long? MaxModelCalls { get; set; }

        internal Dictionary<string, object> ToDictionary()
        {
            var d = new Dictionary<string, object>();
            if (MaxTotalTokens.HasValue) d["max_total_tokens"] = MaxTotalTokens.Value;
            if (MaxCostUsd.HasValue) d["max_cost_usd"] = MaxCostUsd.Value;
            if (MaxWallMs.HasValue) d["max_wall_ms"] = MaxWallMs.Value;
            if (MaxToolCalls.HasValue) d["max_tool_calls"] = MaxToolCalls.Value;
            if (MaxModelCalls.HasValue) d["max_model_calls"] = MaxModelCalls.Value;
            return d;
        }
    }
}
