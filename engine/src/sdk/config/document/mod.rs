//! The runtime document (`robota_runtime_new`) and the session document (`robota_session_new`,
//! also the overrides of resume and fork), each defined once as a Rust type: the types give the
//! parser its known keys ([`keys`]: the field names of the `Deserialize` derive, in declaration
//! order, which is the order the unknown-key message lists them in) and the JSON Schemas of
//! `docs/schema/` ([`runtime_schema`], [`session_schema`]; `ROBOTA_BLESS=1 cargo test --test
//! engine schema` writes them). The parser reads a document into its type field by field
//! ([`super::read`], which keeps the messages that name the offending field) and checks the
//! typed values; a snapshot keeps a session's config as its [`SessionDocument`].

mod from_config;
mod keys;
mod nested;
mod runtime;
mod session;

pub use keys::{keys, runtime_keys, runtime_schema, session_keys, session_schema};
pub use nested::{
    AgentDocument, BudgetDocument, CommandDocument, McpServerDocument, PermissionsDocument,
    ThinkingDocument,
};
pub use runtime::{ProviderProfile, RuntimeDocument, TimeoutDecisionName};
pub use session::{
    DeliveryName, PermissionModeName, SessionDocument, SettingsName, SystemPromptModeName,
    ThresholdDocument, TranscriptDocument,
};
