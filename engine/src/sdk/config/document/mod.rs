//! The runtime document (`robota_runtime_new`) and the session document (`robota_session_new`,
//! also the overrides of resume and fork), each defined once as a Rust type: the types give the
//! parser its known keys ([`keys`]: the field names of the `Deserialize` derive, in declaration
//! order, which is the order the unknown-key message lists them in) and the JSON Schemas of
//! `docs/schema/` ([`runtime_schema`], [`session_schema`]; `ROBOTA_BLESS=1 cargo test --test
//! engine schema` writes them). The values are converted by the parser field by field
//! ([`super::parse_runtime_config`], [`super::parse_session_map`]), which keeps the messages that
//! name the offending field; a typed value of these types is what the parser accepts.

mod from_config;
mod keys;
mod nested;
mod runtime;
mod session;

pub use keys::{keys, runtime_keys, runtime_schema, session_keys, session_schema};
pub use nested::{
    AgentDocument, BudgetDocument, CommandDocument, HookGroupDocument, McpServerDocument,
    PermissionsDocument, ThinkingDocument, ToolConfigDocument,
};
pub use runtime::{ProviderProfile, RuntimeDocument, TimeoutDecisionName};
pub use session::{
    DeliveryName, PermissionModeName, SessionDocument, SettingsName, SystemPromptModeName,
    ThresholdDocument, ToolChoiceDocument, ToolChoiceMode, TranscriptDocument,
};
