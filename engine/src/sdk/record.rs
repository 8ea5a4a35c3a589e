//! `"record": "path.jsonl"`: the session's provider wrapped in a recorder
//! ([`crate::providers::recording::recorder`]).

use std::sync::Arc;

use super::config::SessionConfig;
use super::error::{SdkError, SdkResult};
use crate::core::provider::Provider;
use crate::providers::recording::recorder::RecordingProvider;

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
