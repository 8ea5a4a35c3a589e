//! A session as the parent of its subagents ([`crate::sdk::subagent::Parent`]).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::Inner;
use crate::core::hooks::{HookEvent, HookRunOutcome};
use crate::sdk::config::SessionConfig;
use crate::sdk::host::tools::SessionLink;
use crate::sdk::subagent::Parent;

#[async_trait]
impl Parent for Inner {
    fn config(&self) -> SessionConfig {
        self.config_in_force()
    }

    fn link(&self) -> Arc<SessionLink> {
        self.core.link.clone()
    }

    fn session_id(&self) -> String {
        self.session_id.clone()
    }

    fn tool_names(&self) -> Vec<String> {
        self.session
            .agent()
            .config()
            .tools
            .iter()
            .map(|t| t.name().to_string())
            .collect()
    }

    async fn fire_hook(&self, event: HookEvent, fields: Map<String, Value>) -> HookRunOutcome {
        self.session
            .fire_hook(event, || fields, CancellationToken::new())
            .await
    }
}
