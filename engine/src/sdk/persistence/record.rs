//! `"record": "path.jsonl"`: the session's provider wrapped in a recorder
//! ([`crate::providers::recording::recorder`]).

use std::sync::Arc;

use crate::core::provider::Provider;
use crate::providers::recording::recorder::RecordingProvider;
use crate::sdk::config::SessionConfig;
use crate::sdk::error::{SdkError, SdkResult};

/// `provider`, recording into `cfg.record` when set (an unopenable or foreign file is refused,
/// naming it).
pub fn wrap(provider: Arc<dyn Provider>, cfg: &SessionConfig) -> SdkResult<Arc<dyn Provider>> {
    match &cfg.record {
        None => Ok(provider),
        Some(path) => RecordingProvider::open(provider, path)
            .map(|r| Arc::new(r) as Arc<dyn Provider>)
            .map_err(|e| SdkError::config(format!("session config: field \"record\": {e}"))),
    }
}
