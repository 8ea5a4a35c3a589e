/// A session's hard limits (`"budget"`), counted over the session's life; `nil` fields are
/// unlimited. A turn that would exceed one stops with `StopReason.budget` (`Session.run` throws
/// `RobotaError` with code `.budget`), and later submits throw `.budget`.
public struct SessionBudget: Codable, Sendable, Equatable {
    /// Input + output tokens of all model calls.
    public var maxTotalTokens: Int64?
    /// Wall time of all turns (ms).
    public var maxWallMS: Int64?
    /// Tool calls run.
    public var maxToolCalls: Int64?
    /// Model calls made.
    public var maxModelCalls: Int64?
    /// Estimated cost in USD (needs the model's price in the model table).
    public var maxCostUSD: Double?

    public init(maxTotalTokens: Int64? = nil, maxWallMS: Int64? = nil, maxToolCalls: Int64? = nil, maxModelCalls: Int64? = nil,
                maxCostUSD: Double? = nil) {
        self.maxTotalTokens = maxTotalTokens
        self.maxWallMS = maxWallMS
        self.maxToolCalls = maxToolCalls
        self.maxModelCalls = maxModelCalls
        self.maxCostUSD = maxCostUSD
    }

    enum CodingKeys: String, CodingKey {
        case maxTotalTokens = "max_total_tokens"
        case maxWallMS = "max_wall_ms"
        case maxToolCalls = "max_tool_calls"
        case maxModelCalls = "max_model_calls"
        case maxCostUSD = "max_cost_usd"
    }
}
