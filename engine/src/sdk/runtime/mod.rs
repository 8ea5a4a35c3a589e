//! The runtime: one tokio runtime and one HTTP pool shared by all its sessions, the provider
//! profiles of the config, host tools and the answerable-id registry.

//!
//! The folder holds the runtime and what runs on it: the worker threads, the library's own
//! work, callback threads, caller-driven reactors, wake batching, signal handling and which
//! threads are the library's own.

mod callback_threads;
pub mod caller_drive;
pub mod library_work;
mod signals;
pub mod thread_role;
pub mod wake_batch;
pub mod workers;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde_json::Value;

use crate::core::env_ref::EnvVars;
use crate::core::provider::Provider;
use crate::providers::{create_provider_with, new_http_client, ProviderKind};
use crate::sdk::config::{parse_runtime_config, RuntimeConfig};
use crate::sdk::error::{list_or_none, ErrorCode, SdkError, SdkResult};
use crate::sdk::events::HostToolHandler;
use crate::sdk::host::pending::PendingRegistry;
use crate::sdk::host::tools::HostToolDef;
use crate::sdk::runtime::library_work::LibraryWork;
use crate::tools::{StdFs, TokioProcess, ToolEnv, ToolsConfig};

/// What sessions and their tasks share. The workers' tokio runtime is taken out and shut down
/// by [`Runtime`]'s drop, so the last reference can be dropped anywhere, including on a worker
/// thread.
pub struct RuntimeShared {
    /// The runtime's async workers, started at their first use ([`Self::spawn_work`]).
    workers: crate::sdk::runtime::workers::Workers,
    /// The shared HTTP connection pool.
    http: reqwest::Client,
    /// Context windows the servers told, by base URL and model (asked once per runtime).
    windows: Arc<crate::providers::ContextWindows>,
    /// The parsed config.
    config: RuntimeConfig,
    /// Host tools by registration order.
    tools: RwLock<Vec<Arc<HostToolDef>>>,
    /// Team templates: the built-ins and the host's (`robota_runtime_register_template`).
    templates: crate::sdk::team::TemplateRegistry,
    /// Ids waiting for host answers.
    pending: PendingRegistry,
    /// The host I/O callback registration (opaque here; `robota_runtime_set_host_io`).
    host_io: RwLock<Option<Arc<dyn crate::sdk::host::io_handler::HostIoHandler>>>,
    /// The host's session store (`robota_runtime_set_store`).
    store: crate::sdk::persistence::port::StorePort,
    next_session: AtomicU64,
    /// Library tasks and threads, awaited when the runtime goes away.
    work: LibraryWork,
    /// Reactors of host threads that drive their own turns (`robota_session_run`).
    callers: crate::sdk::runtime::caller_drive::CallerReactors,
    /// Built-in tool instances by working directory, shared by the sessions of this runtime
    /// (they are stateless; sharing keeps idle sessions small and creation fast).
    builtins: Mutex<std::collections::HashMap<(String, String), Arc<dyn crate::core::tool::Tool>>>,
    /// The default sandbox of the shared built-ins, per working directory (one temp dir each).
    sandboxes: Mutex<std::collections::HashMap<String, Option<Arc<crate::core::sandbox::Sandbox>>>>,
    /// MCP server connections shared by the sessions (same definition, one connection).
    mcp: Arc<crate::sdk::mcp::McpRegistry>,
    /// [`RuntimeConfig::env`] as looked up by settings and `$ENV:` references (built once;
    /// cheap to clone).
    env_vars: EnvVars,
    /// The providers one instance of which serves every session ([`ProviderKind::shareable`]),
    /// by profile name; built once when the runtime starts.
    shared_providers: BTreeMap<String, Arc<dyn Provider>>,
    /// The providers the host registered (`robota_runtime_register_provider`).
    host_providers: crate::sdk::host::provider::HostProviders,
}

impl RuntimeShared {
    /// Spawns `task` on the workers (starting them if they have not started), counted as
    /// library work. When the workers cannot start, `task` is dropped unpolled and the error
    /// returned.
    pub fn spawn_work<F>(&self, task: F) -> SdkResult<()>
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let (handle, placed) = self.workers.place()?;
        self.work.spawn(handle, placed, Box::pin(task));
        Ok(())
    }

    /// A new session number (owner of pending ids).
    pub fn next_session_uid(&self) -> u64 {
        self.next_session.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The provider of profile `name` for a new session: the runtime's instance for kinds
    /// without per-conversation state ([`ProviderKind::shareable`]), a fresh one otherwise.
    pub fn make_provider(&self, name: &str) -> SdkResult<Arc<dyn Provider>> {
        self.make_session_provider(name, None, None)
    }

    /// Like [`Self::make_provider`]; a host provider is bound to the session `session_id`
    /// (its calls carry the id, their cancellation the session's `reason`).
    pub fn make_session_provider(
        &self,
        name: &str,
        session_id: Option<&str>,
        reason: Option<crate::sdk::host::provider::CancelReasonFn>,
    ) -> SdkResult<Arc<dyn Provider>> {
        if let Some(p) = self.shared_providers.get(name) {
            return Ok(p.clone());
        }
        if let Some(h) = self.host_providers.get(name) {
            return Ok(h.bind(session_id.map(str::to_string), reason));
        }
        let Some((kind, profile)) = self.config.providers.get(name) else {
            let known = self.provider_names();
            return Err(SdkError::new(
                ErrorCode::NotFound,
                format!(
                    "unknown provider \"{name}\" (configured: {})",
                    list_or_none(&known)
                ),
            ));
        };
        build_provider(name, *kind, profile, &self.http, &self.windows)
    }

    /// The names of the config's provider profiles and of the host's providers, sorted.
    fn provider_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.config.providers.keys().cloned().collect();
        names.extend(self.host_providers.names());
        names.sort();
        names
    }

    /// The kind of the runtime config's provider profile `name` (`None` for a host provider or
    /// an unknown name).
    pub fn profile_kind(&self, name: &str) -> Option<ProviderKind> {
        self.config.providers.get(name).map(|(kind, _)| *kind)
    }

    /// Whether the runtime config has a provider profile `name`.
    pub fn has_profile(&self, name: &str) -> bool {
        self.config.providers.contains_key(name)
    }

    /// Whether `name` is a provider the host registered.
    pub fn is_host_provider(&self, name: &str) -> bool {
        self.host_providers.get(name).is_some()
    }

    /// The host's providers and their open calls.
    pub fn host_providers(&self) -> &crate::sdk::host::provider::HostProviders {
        &self.host_providers
    }

    /// The built-in tool `name` for `cwd` (one shared instance per runtime and directory), on
    /// the runtime's HTTP client.
    pub fn builtin_tool(&self, name: &str, cwd: &str) -> Option<Arc<dyn crate::core::tool::Tool>> {
        let key = (name.to_string(), cwd.to_string());
        let mut cache = self.builtins.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = cache.get(&key) {
            return Some(t.clone());
        }
        let config = ToolsConfig {
            http_client: Some(self.http.clone()),
            ..ToolsConfig::default()
        };
        let mut env = ToolEnv::with_ports(
            std::path::Path::new(cwd),
            Arc::new(StdFs),
            Arc::new(TokioProcess),
            config,
        );
        env.sandbox = self
            .sandboxes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(cwd.to_string())
            .or_insert_with(|| {
                crate::core::sandbox::Sandbox::new(Default::default(), &env.cwd)
                    .ok()
                    .flatten()
                    .map(Arc::new)
            })
            .clone();
        let t = crate::tools::builtin_tool_in(name, &env)?;
        cache.insert(key, t.clone());
        Some(t)
    }

    /// Host tool definitions (snapshot).
    pub fn host_tools(&self) -> Vec<Arc<HostToolDef>> {
        self.tools.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The shared HTTP connection pool (cheap to clone).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// The registry of ids waiting for host answers.
    pub fn pending(&self) -> &PendingRegistry {
        &self.pending
    }

    /// The configured session directory, if the config names one.
    pub fn configured_session_dir(&self) -> Option<&str> {
        self.config.session_dir.as_deref()
    }

    /// How long a request waits for the host's answer, unless a session says otherwise.
    pub fn request_timeout_ms(&self) -> u64 {
        self.config.request_timeout_ms
    }

    /// What an unanswered permission request decides when it times out.
    pub fn request_timeout_decision(&self) -> crate::sdk::config::TimeoutDecision {
        self.config.request_timeout_decision
    }

    /// The runtime profile `provider` names: a profile of that name, else the first profile
    /// (by name) of that provider kind; the error lists the configured profiles.
    pub fn resolve_profile(&self, provider: &str) -> Result<String, String> {
        let profiles = &self.config.providers;
        if profiles.contains_key(provider) || self.is_host_provider(provider) {
            return Ok(provider.to_string());
        }
        let kind = ProviderKind::parse(provider);
        if let Some((name, _)) = profiles.iter().find(|(_, (k, _))| Some(*k) == kind) {
            return Ok(name.clone());
        }
        let known = self.provider_names();
        Err(format!(
            "unknown provider \"{provider}\" (configured: {})",
            list_or_none(&known)
        ))
    }

    /// A provider built from a settings profile, on the runtime's HTTP pool and window cache.
    pub fn provider_from_profile(
        &self,
        name: &str,
        kind: ProviderKind,
        profile: &Value,
    ) -> SdkResult<Arc<dyn Provider>> {
        build_provider(name, kind, profile, &self.http, &self.windows)
    }

    /// The team templates (built-ins and the host's).
    pub fn templates(&self) -> &crate::sdk::team::TemplateRegistry {
        &self.templates
    }

    /// The plugin folders the host registered (`plugin_dirs`).
    pub fn plugin_dirs(&self) -> &[std::path::PathBuf] {
        &self.config.plugin_dirs
    }

    /// The environment settings and `$ENV:` references read (cheap to clone).
    pub fn env_vars(&self) -> &EnvVars {
        &self.env_vars
    }

    /// The MCP connections the sessions share.
    pub fn mcp_registry(&self) -> &Arc<crate::sdk::mcp::McpRegistry> {
        &self.mcp
    }

    /// Replaces the host I/O handler, returning the previous one.
    pub fn register_host_io(
        &self,
        handler: Option<Arc<dyn crate::sdk::host::io_handler::HostIoHandler>>,
    ) -> Option<Arc<dyn crate::sdk::host::io_handler::HostIoHandler>> {
        let mut slot = self.host_io.write().unwrap_or_else(|p| p.into_inner());
        std::mem::replace(&mut *slot, handler)
    }

    /// The registered host I/O handler, if any.
    pub fn host_io(&self) -> Option<Arc<dyn crate::sdk::host::io_handler::HostIoHandler>> {
        self.host_io
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The session store port (its handler is the host's store, if any).
    pub fn store_port(&self) -> &crate::sdk::persistence::port::StorePort {
        &self.store
    }

    /// The workers' tokio handle, starting them if needed; `Closed` once the runtime is gone.
    pub fn worker_handle(&self) -> SdkResult<&tokio::runtime::Handle> {
        self.workers.handle()
    }

    /// Whether the workers have started.
    pub fn workers_started(&self) -> bool {
        self.workers.started()
    }

    /// Drives `turn` on the calling thread (see [`caller_drive::CallerReactors::drive`]);
    /// gives it back when no reactor can start.
    pub fn drive_on_caller<F: std::future::Future<Output = ()> + Send + 'static>(
        &self,
        turn: F,
    ) -> Result<(), std::pin::Pin<Box<F>>> {
        self.callers.drive(&self.work, turn)
    }

    /// Runs `job` on a callback thread; false when none could start.
    pub fn run_on_callback_thread(&self, job: Box<dyn FnOnce() + Send>) -> bool {
        self.work.run_on_callback_thread(job)
    }
}

/// Creates a provider from its profile (`crate::providers::create_provider`); the profile's
/// own `kind` decides. Every kind refuses an unknown key (a `scripted` entry too).
pub fn build_provider(
    name: &str,
    _kind: ProviderKind,
    profile: &Value,
    http: &reqwest::Client,
    windows: &Arc<crate::providers::ContextWindows>,
) -> SdkResult<Arc<dyn Provider>> {
    create_provider_with(name, profile, http, &EnvVars::process(), windows).map_err(|e| {
        let mut err = SdkError::robota(ErrorCode::InvalidConfig, &e);
        err.message = format!("runtime config: {}", err.message);
        err
    })
}

/// Builds every provider profile once, surfacing broken profiles when the runtime starts
/// rather than at the first session, and returns the instances sessions share
/// ([`ProviderKind::shareable`]). A `replay` recording is read per session (it may not exist
/// yet): only its profile is checked here.
fn check_providers(
    config: &RuntimeConfig,
    http: &reqwest::Client,
    windows: &Arc<crate::providers::ContextWindows>,
) -> SdkResult<BTreeMap<String, Arc<dyn Provider>>> {
    let mut shared = BTreeMap::new();
    let vars = EnvVars::with_vars(config.env.clone());
    for (name, (kind, profile)) in &config.providers {
        // Its `$ENV:` keys are secrets: no child process may inherit them.
        crate::core::child_env::register_references(profile, &|n| vars.get(n));
        if *kind == ProviderKind::Replay {
            crate::providers::recording::replay::ReplayProfile::parse(name, profile).map_err(
                |e| {
                    let mut err = SdkError::robota(ErrorCode::InvalidConfig, &e);
                    err.message = format!("runtime config: {}", err.message);
                    err
                },
            )?;
            continue;
        }
        let p = build_provider(name, *kind, profile, http, windows)?;
        if kind.shareable() {
            shared.insert(name.clone(), p);
        }
    }
    Ok(shared)
}

/// A runtime (owns the tokio runtime; drop it from any thread).
pub struct Runtime {
    shared: Arc<RuntimeShared>,
}

impl Runtime {
    /// Parses the config JSON and starts the runtime.
    pub fn from_json(config_json: &str) -> SdkResult<Runtime> {
        let config = parse_runtime_config(config_json)?;
        let http = new_http_client().map_err(|e| {
            SdkError::new(
                ErrorCode::Internal,
                format!("cannot build the HTTP client: {e}"),
            )
        })?;
        let windows = Arc::new(crate::providers::ContextWindows::new());
        let shared_providers = check_providers(&config, &http, &windows)?;
        let shared = Arc::new(RuntimeShared {
            env_vars: EnvVars::with_vars(config.env.clone()),
            workers: crate::sdk::runtime::workers::Workers::new(config.worker_threads),
            http,
            windows,
            config,
            tools: RwLock::new(Vec::new()),
            templates: Default::default(),
            pending: PendingRegistry::new(),
            host_io: RwLock::new(None),
            store: Default::default(),
            next_session: AtomicU64::new(0),
            work: LibraryWork::default(),
            callers: Default::default(),
            builtins: Mutex::new(std::collections::HashMap::new()),
            sandboxes: Mutex::new(std::collections::HashMap::new()),
            mcp: Default::default(),
            shared_providers,
            host_providers: Default::default(),
        });
        crate::log_at!(
            crate::core::log::INFO,
            "robota::runtime",
            "runtime started: {} provider(s), {}",
            shared.config.providers.len(),
            match shared.config.worker_threads {
                Some(n) => format!("{n} worker thread(s)"),
                None => "a worker thread per core".to_string(),
            }
        );
        Ok(Runtime { shared })
    }

    /// The shared part.
    pub fn shared(&self) -> &Arc<RuntimeShared> {
        &self.shared
    }

    /// Registers a host tool from its JSON (`{name, description, input_schema, read_only?, timeout_ms?}`).
    pub fn register_tool(
        &self,
        tool_json: &str,
        handler: Option<Arc<dyn HostToolHandler>>,
    ) -> SdkResult<()> {
        let def = HostToolDef::from_json(tool_json, handler)?;
        let mut tools = self.shared.tools.write().unwrap_or_else(|p| p.into_inner());
        if tools.iter().any(|t| t.name == def.name) {
            return Err(SdkError::config(format!(
                "tool \"{}\" is already registered on this runtime",
                def.name
            )));
        }
        // The first schema compile of a process is the expensive one: start it now, beside
        // the host's next steps, instead of on the path of the first tool call.
        if let Some(j) = def.warm_up() {
            self.shared.work.track_thread(j);
        }
        tools.push(Arc::new(def));
        Ok(())
    }

    /// Registers a team template from its JSON (see [`crate::sdk::team::templates`]); an id that
    /// exists already is refused.
    pub fn register_template(&self, template_json: &str) -> SdkResult<()> {
        let t = crate::sdk::team::Template::from_json(template_json)?;
        self.shared.templates.register(t)
    }

    /// Names of the registered host tools.
    pub fn tool_names(&self) -> BTreeMap<String, bool> {
        self.shared
            .host_tools()
            .iter()
            .map(|t| (t.name.clone(), t.read_only))
            .collect()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shared.work.wait_idle();
        // Nobody can answer the host's store any more (its handle is gone): transcript lines
        // still on their way fail at once instead of waiting for an answer.
        drop(self.shared.store.register(None));
        // The last transcript lines of the sessions it ran (freeing a session does not wait).
        crate::session::transcript::settle_all();
        let on_worker = tokio::runtime::Handle::try_current().is_ok();
        for rt in self.shared.workers.stop() {
            if on_worker {
                rt.shutdown_background();
            } else {
                rt.shutdown_timeout(Duration::from_secs(5));
            }
        }
    }
}
