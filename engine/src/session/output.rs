//! Tool-result texts of the enforcer: the failure JSON and Robota's refusal wordings.
//! (Long outputs are cut by the one truncation policy, [`crate::core::truncation`].)

/// The denial text (reference wording; more detail may follow it).
pub const PERMISSION_DENIED: &str = "Permission denied. The user did not approve this action.";
/// Prefix of a PreToolUse block.
pub const BLOCKED_BY_HOOK_PREFIX: &str = "Blocked by hook: ";

/// `{"success":false,"output":"","error":<message>}` with Robota's key order.
pub fn failure_json(message: &str) -> String {
    let quoted = serde_json::to_string(message).unwrap_or_else(|_| "\"\"".to_string());
    format!("{{\"success\":false,\"output\":\"\",\"error\":{quoted}}}")
}
