//! The settings of a running [`InteractiveSession`]: identity, config in force, permission
//! mode, model and name.

use std::sync::Arc;

use super::{InteractiveSession, PermissionState};
use crate::core::permissions::PermissionMode;
use crate::core::util::{new_uuid, prefixed_id};
use crate::sdk::config::SessionConfig;
use crate::sdk::error::{ErrorCode, SdkError, SdkResult};
use crate::sdk::runtime::RuntimeShared;

impl super::Inner {
    /// The config with the model, permission mode and lists in force.
    pub(super) fn config_in_force(&self) -> SessionConfig {
        let mut c = SessionConfig::clone(&self.cfg.lock().unwrap_or_else(|p| p.into_inner()));
        c.model = self.session.agent().config().model.clone();
        c.permission_mode = self.session.permission_mode();
        c.permissions = self.session.enforcer().lists().clone();
        c
    }
}

impl InteractiveSession {
    /// The runtime this session runs on.
    pub fn shared(&self) -> &Arc<RuntimeShared> {
        &self.inner.core.link.shared
    }

    /// The link to the host (events, answerable ids).
    pub fn link(&self) -> &Arc<crate::sdk::host::tools::SessionLink> {
        &self.inner.core.link
    }

    /// The working directory (relative paths of tools and of prompt images resolve here).
    pub fn cwd(&self) -> &std::path::Path {
        self.inner.session.cwd()
    }

    /// Session id.
    pub fn session_id(&self) -> &str {
        &self.inner.session_id
    }

    /// Creation time.
    pub fn created_at(&self) -> &str {
        &self.inner.created_at
    }

    /// The session's budget (`"budget"`), if any.
    pub fn budget(&self) -> Option<&std::sync::Arc<crate::core::budget::Budget>> {
        self.inner.budget.as_ref()
    }

    /// The config now in force (model and mode changes applied).
    pub fn config(&self) -> SessionConfig {
        let mut c = self.inner.config_in_force();
        c.name = self.name();
        c
    }

    /// Permission state snapshot (read from the session's enforcer).
    pub fn permission_state(&self) -> PermissionState {
        let session = &self.inner.session;
        PermissionState {
            mode: session.permission_mode(),
            lists: session.enforcer().lists().clone(),
            session_allowed: session.session_allowed_tools().into_iter().collect(),
        }
    }

    /// Sets the permission mode (applies to the next tool call); an assembled system prompt's
    /// Permission Mode section follows it from the next model call.
    pub fn set_permission_mode(&self, mode: PermissionMode) {
        self.inner.session.set_permission_mode(mode);
        let message = {
            let mut cfg = self.inner.cfg.lock().unwrap_or_else(|p| p.into_inner());
            let Some(prompt) = cfg.params.prompt.as_mut() else {
                return;
            };
            if prompt.mode == mode {
                return;
            }
            Arc::make_mut(prompt).mode = mode;
            crate::sdk::project::assembly::system_message(&cfg)
        };
        // The message was built from valid inputs; a refusal leaves the previous prompt.
        let _ = self.inner.session.set_system_message(&message);
    }

    /// Changes the model for the next turn.
    pub fn set_model(&self, model: &str) -> SdkResult<()> {
        self.inner
            .session
            .set_model(model)
            .map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))
    }

    /// Emits the problems found while assembling the session (settings files, `$ENV:`
    /// references, skills, agent definitions, MCP servers) as `WARNING` events `{"code", "message"}`
    /// (`SETTINGS_INVALID`, `SKILL_INVALID`, `AGENT_INVALID`, `MCP_SERVER` or `PLUGIN_INVALID`), once.
    pub fn emit_startup_warnings(&self) {
        let warnings = std::mem::take(
            &mut self
                .inner
                .cfg
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .params
                .warnings,
        );
        for w in warnings {
            let code = if w.starts_with("skill ") {
                "SKILL_INVALID"
            } else if w.starts_with("agent definition ") {
                "AGENT_INVALID"
            } else if w.starts_with("MCP server ") {
                "MCP_SERVER"
            } else if w.starts_with("plugin ") {
                "PLUGIN_INVALID"
            } else {
                "SETTINGS_INVALID"
            };
            self.inner.core.link.emit(
                crate::sdk::events::WARNING,
                serde_json::json!({"code": code, "message": w}),
            );
        }
    }

    /// Sets the response language; the system prompt changes from the next turn.
    pub fn set_language(&self, language: &str) -> SdkResult<()> {
        let message = {
            let mut cfg = self.inner.cfg.lock().unwrap_or_else(|p| p.into_inner());
            cfg.params.language = Some(language.to_string());
            crate::sdk::project::assembly::system_message(&cfg)
        };
        self.inner
            .session
            .set_system_message(&message)
            .map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))
    }

    /// User-facing name.
    pub fn name(&self) -> Option<String> {
        self.inner.core.lock().name.clone()
    }

    /// Renames the session.
    pub fn set_name(&self, name: &str) {
        self.inner.core.lock().name = Some(name.to_string());
        self.persist_if_enabled(0);
    }

    /// With `persist: true`, saves the session now. A failure is a `WARNING` event; a
    /// conflict (another node saved the session first) is an `ERROR` event `CONFLICT`, and the
    /// turn `turn_id` (when not 0) ends with it.
    pub(super) fn persist_if_enabled(&self, turn_id: u64) {
        let persist = self.inner.cfg.lock().map(|c| c.persist).unwrap_or(false);
        if !persist {
            return;
        }
        let Err(e) = crate::sdk::persistence::snapshot::persist(self) else {
            return;
        };
        let link = &self.inner.core.link;
        match (e.code, e.details) {
            (crate::sdk::error::ErrorCode::Conflict, Some(details)) => {
                link.emit_event(crate::sdk::events::Event::json(
                    crate::sdk::events::ERROR,
                    turn_id,
                    (*details).clone(),
                ));
                if turn_id != 0 {
                    self.inner.core.lock().store_conflict = Some((e.message, *details));
                }
            }
            _ => link.emit_event(crate::sdk::events::Event::json(
                crate::sdk::events::WARNING,
                turn_id,
                serde_json::json!({"message": format!("could not persist the session: {}", e.message)}),
            )),
        }
    }

    /// The session store's version this session replaces at its next save (0: new).
    pub fn store_version(&self) -> u64 {
        self.inner.core.lock().store_version
    }

    /// Records the version the session store now holds for this session.
    pub(crate) fn set_store_version(&self, version: u64) {
        self.inner.core.lock().store_version = version;
    }

    /// Session-approved tools.
    pub fn session_allowed(&self) -> Vec<String> {
        self.permission_state()
            .session_allowed
            .into_iter()
            .collect()
    }

    /// A new unique id (helper for forks).
    pub fn new_session_id() -> String {
        prefixed_id("session")
    }

    /// Entry id helper (kept for hosts adding entries).
    pub fn new_entry_id() -> String {
        new_uuid()
    }
}
