//! The executor seam (`IHookTypeExecutor`) and the registry: command + http are always present,
//! extra executors (prompt, agent, a host's callbacks) are added next to them, never instead.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::command::CommandExecutor;
use super::http::HttpExecutor;
use super::types::{HookDefinition, HookResult};

/// Runs hook definitions of one `type`.
#[async_trait]
pub trait HookExecutor: Send + Sync {
    /// The `type` this executor handles (`command`, `http`, `host`, …).
    fn kind(&self) -> &str;
    /// Runs one definition with the hook input (the stdin JSON). Must never panic; a failure is
    /// `{exit_code: 1, stderr: <why>}`. Should stop early when `cancel` fires.
    async fn execute(
        &self,
        def: &HookDefinition,
        input: &Value,
        cancel: CancellationToken,
    ) -> HookResult;
}

/// Executors by kind.
#[derive(Clone)]
pub struct HookExecutorRegistry {
    executors: BTreeMap<String, Arc<dyn HookExecutor>>,
}

/// Kinds that are always registered and cannot be replaced.
pub const BUILTIN_HOOK_KINDS: [&str; 2] = ["command", "http"];

impl Default for HookExecutorRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for HookExecutorRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookExecutorRegistry")
            .field("kinds", &self.kinds())
            .finish()
    }
}

impl HookExecutorRegistry {
    /// The built-ins: `command` (process env as base) and `http`.
    pub fn new() -> Self {
        Self::with_command_executor(CommandExecutor::new())
    }

    /// The built-ins with a configured command executor (e.g. the settings `env` overlay).
    pub fn with_command_executor(command: CommandExecutor) -> Self {
        Self::with_builtins(command, HttpExecutor::new())
    }

    /// The built-ins as given (e.g. an `http` executor over the runtime's shared client).
    pub fn with_builtins(command: CommandExecutor, http: HttpExecutor) -> Self {
        let mut executors: BTreeMap<String, Arc<dyn HookExecutor>> = BTreeMap::new();
        executors.insert("command".into(), Arc::new(command));
        executors.insert("http".into(), Arc::new(http));
        HookExecutorRegistry { executors }
    }

    /// Adds an executor. A kind that is already registered (a built-in or an earlier extra) is an
    /// error naming the kind: built-ins are never replaced.
    pub fn register(&mut self, executor: Arc<dyn HookExecutor>) -> Result<(), String> {
        let kind = executor.kind().trim().to_string();
        if kind.is_empty() {
            return Err("hook executor kind must be a non-empty string".into());
        }
        if self.executors.contains_key(&kind) {
            let what = if BUILTIN_HOOK_KINDS.contains(&kind.as_str()) {
                "a built-in executor, which cannot be replaced"
            } else {
                "already registered"
            };
            return Err(format!("hook executor kind \"{kind}\" is {what}"));
        }
        self.executors.insert(kind, executor);
        Ok(())
    }

    /// The built-ins plus `extras` (see [`Self::register`]).
    pub fn with_extras(
        mut self,
        extras: impl IntoIterator<Item = Arc<dyn HookExecutor>>,
    ) -> Result<Self, String> {
        for e in extras {
            self.register(e)?;
        }
        Ok(self)
    }

    /// The executor for `kind`.
    pub fn get(&self, kind: &str) -> Option<&Arc<dyn HookExecutor>> {
        self.executors.get(kind)
    }

    /// Registered kinds, sorted.
    pub fn kinds(&self) -> Vec<String> {
        self.executors.keys().cloned().collect()
    }
}
