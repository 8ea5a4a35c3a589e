//! Building an [`InteractiveSession`]: the tool set (built-ins and host tools), hooks, the
//! host approval and hook bridges, and the generic session underneath.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use super::{Core, Inner, InteractiveSession, Restore, State, PROVIDER_IDLE_TIMEOUT_MS};
use crate::core::hooks::HookExecutor;
use crate::core::store::ConversationStore;
use crate::core::tool::Tool;
use crate::core::util::{now_iso, prefixed_id};
use crate::sdk::commands::skill_tool;
use crate::sdk::config::SessionConfig;
use crate::sdk::error::{list_or_none, ErrorCode, SdkError, SdkResult};
use crate::sdk::events::EventSink;
use crate::sdk::host::cancelled::CancelReason;
use crate::sdk::host::session_requests::{HostApproval, HostHookExecutor};
use crate::sdk::host::tools::{SessionHostTool, SessionLink};
use crate::sdk::project::assembly;
use crate::sdk::runtime::RuntimeShared;
use crate::sdk::subagent;
use crate::session::{ApprovalHandler, Session, SessionObserver, SessionOptions};

/// Refuses session configs this build cannot honour.
fn check_config(shared: &RuntimeShared, cfg: &SessionConfig) -> SdkResult<()> {
    if cfg.host_io
        && cfg.delivery != crate::sdk::config::Delivery::Pull
        && shared.host_io().is_none()
    {
        return Err(SdkError::config(
            "session config: \"host_io\": true needs a host I/O callback (robota_runtime_set_host_io) or \"delivery\": \"pull\"",
        ));
    }
    Ok(())
}

/// The session's tools: all built-ins (`WebSearch` only with a backend, see
/// [`assembly::offers_web_search`]) and host tools, then `Agent` and `Skill` when offered, or
/// exactly the ones `cfg.tools` names (host tools win a name clash; `Skill` is skipped when
/// the session has no model-invocable skill); an unknown name is [`ErrorCode::NotFound`]
/// listing the available ones.
// Never inlined: a frame of its own, left before the session underneath is built
// (`InteractiveSession::new_boxed`).
#[inline(never)]
fn session_tools(
    shared: &RuntimeShared,
    cfg: &SessionConfig,
    link: &Arc<SessionLink>,
    tool_env: Option<&crate::tools::ToolEnv>,
    agent: Option<Arc<dyn Tool>>,
    skill: Option<Arc<dyn Tool>>,
) -> SdkResult<Vec<Arc<dyn Tool>>> {
    let host_defs = shared.host_tools();
    let host_env = cfg
        .host_io
        .then(|| crate::sdk::host::io::tool_env(shared, &cfg.cwd, link));
    let builtin = |n: &str| match &host_env {
        Some(env) => crate::tools::builtin_tool_in(n, env),
        None => assembly::builtin(shared, tool_env, n, &cfg.cwd),
    };
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    match &cfg.tools {
        None => {
            let web_search = assembly::offers_web_search(shared, cfg);
            for n in crate::tools::BUILTIN_TOOL_NAMES {
                if n == "WebSearch" && !web_search {
                    continue;
                }
                if let Some(t) = builtin(n) {
                    tools.push(t);
                }
            }
            for d in &host_defs {
                tools.push(Arc::new(SessionHostTool {
                    def: d.clone(),
                    link: link.clone(),
                }));
            }
            tools.extend(agent);
            tools.extend(skill);
        }
        Some(names) => {
            for n in names {
                if n == subagent::AGENT_TOOL {
                    tools.extend(agent.clone());
                } else if n == skill_tool::SKILL_TOOL {
                    tools.extend(skill.clone());
                } else if let Some(d) = host_defs.iter().find(|d| &d.name == n) {
                    tools.push(Arc::new(SessionHostTool {
                        def: d.clone(),
                        link: link.clone(),
                    }));
                } else if let Some(t) = builtin(n) {
                    tools.push(t);
                } else {
                    let mut known: Vec<String> = crate::tools::BUILTIN_TOOL_NAMES
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                    known.extend(host_defs.iter().map(|d| d.name.clone()));
                    return Err(SdkError::new(
                        ErrorCode::NotFound,
                        format!(
                            "session config: unknown tool \"{n}\" (available: {})",
                            list_or_none(&known)
                        ),
                    ));
                }
            }
        }
    }
    Ok(tools)
}

impl InteractiveSession {
    /// Builds a session. `can_answer` says whether the host can answer requests at all.
    pub fn new(
        shared: Arc<RuntimeShared>,
        cfg: SessionConfig,
        sink: EventSink,
        can_answer: bool,
        restore: Option<Restore>,
    ) -> SdkResult<Self> {
        Self::new_boxed(shared, Box::new(cfg), sink, can_answer, restore)
    }

    /// [`InteractiveSession::new`] with the configuration already on the heap. What opens a
    /// session on a host's thread is kept shallow there (each 4 KB deeper is a page more of
    /// every such thread's stack): no frame on the way holds a copy of the configuration
    /// (832 B) or of the options (760 B), and the assembly's frame is left before the
    /// session underneath is built.
    pub fn new_boxed(
        shared: Arc<RuntimeShared>,
        cfg: Box<SessionConfig>,
        sink: EventSink,
        can_answer: bool,
        restore: Option<Restore>,
    ) -> SdkResult<Self> {
        let a = assemble(shared, cfg, sink, can_answer, restore)?;
        let session = start_session(a.options, &a.approval, &a.session_allowed, &a.core)?;
        if let Some(w) = a.transcript_warning {
            a.core.link.emit(crate::sdk::events::WARNING, w);
        }
        // Formatted only when a sink takes debug messages.
        crate::log_at!(
            crate::core::log::DEBUG,
            "robota::session",
            "session {} created ({})",
            a.session_id,
            a.cfg.delivery.as_str()
        );
        let inner = Arc::new(Inner {
            core: a.core,
            session,
            cfg: Mutex::new(a.cfg),
            session_id: a.session_id,
            created_at: a.created_at.unwrap_or_else(now_iso),
            budget: a.budget,
            mcp: a.mcp,
        });
        let weak: std::sync::Weak<dyn subagent::Parent> = Arc::downgrade(&inner) as _;
        let _ = a.parent_cell.set(weak);
        Ok(InteractiveSession { inner })
    }
}

/// What a session is made of before the session underneath is built.
struct Assembled {
    cfg: Box<SessionConfig>,
    options: Box<SessionOptions>,
    approval: Arc<HostApproval>,
    core: Arc<Core>,
    transcript_warning: Option<serde_json::Value>,
    session_id: String,
    session_allowed: Vec<String>,
    created_at: Option<String>,
    budget: Option<Arc<crate::core::budget::Budget>>,
    mcp: crate::sdk::mcp::SessionMcp,
    parent_cell: subagent::ParentCell,
}

/// Assembles a session: settings, plugins and subagents applied to `cfg`, its provider, link,
/// tools, state and options. Never inlined (see [`InteractiveSession::new_boxed`]).
#[inline(never)]
fn assemble(
    shared: Arc<RuntimeShared>,
    cfg: Box<SessionConfig>,
    sink: EventSink,
    can_answer: bool,
    restore: Option<Restore>,
) -> SdkResult<Assembled> {
    check_config(&shared, &cfg)?;
    let mut cfg = cfg;
    let settings = assembly::apply_settings(&mut cfg, &assembly::env_of(&shared))?;
    subagent::assemble(&mut cfg, &assembly::env_of(&shared));
    crate::sdk::plugins::apply(
        &mut cfg,
        shared.plugin_dirs(),
        settings
            .as_ref()
            .map(|s| s.enabled_plugins.clone())
            .unwrap_or_default(),
        &assembly::env_of(&shared),
    );
    let parent_cell: subagent::ParentCell = Default::default();
    let contained = crate::sdk::project::contained::prepare(&shared, &cfg)?;
    let tool_env = assembly::tool_env(&shared, &cfg, settings.as_ref(), contained.sandbox);
    let session_id = cfg
        .session_id
        .clone()
        .unwrap_or_else(|| prefixed_id("session"));
    let link_cell: Arc<OnceLock<std::sync::Weak<SessionLink>>> = Default::default();
    let provider = session_provider(&shared, &cfg, settings.as_ref(), &session_id, &link_cell)?;
    let mut restore = restore.unwrap_or_default();
    let budget = crate::sdk::config::session_budget::session_budget(&cfg, restore.budget_spent);
    let (link, transcript_warning) =
        open_link(&shared, &cfg, sink, can_answer, &session_id, budget.clone());
    let _ = link_cell.set(Arc::downgrade(&link));
    let agent_tool = subagent::offers_agent_tool(&cfg).then(|| {
        Arc::new(subagent::tool::AgentTool::new(
            cfg.params.agents.all.clone(),
            parent_cell.clone(),
        )) as Arc<dyn Tool>
    });
    let skill = skill_tool::offers_skill_tool(&cfg).then(|| {
        Arc::new(skill_tool::SkillTool::new(
            cfg.params.skills.clone(),
            parent_cell.clone(),
        )) as Arc<dyn Tool>
    });
    let mut tools = session_tools(&shared, &cfg, &link, tool_env.as_ref(), agent_tool, skill)?;
    let mcp = crate::sdk::mcp::start_for_session(&shared, &mut cfg);
    tools.extend(mcp.tools(&mut cfg.params.warnings));
    if cfg.params.team {
        tools.extend(crate::sdk::team::tools(
            &shared,
            &link,
            &parent_cell,
            &cfg.cwd,
        ));
    }
    cfg.params.prompt = assembly::prompt_inputs(&cfg, settings.as_ref(), &tools).map(Arc::new);
    let core = new_core(&link, &cfg, &mut restore);
    core.lock().sandbox_to_check = contained.to_check;
    let approval = Arc::new(HostApproval {
        link: link.clone(),
        enforcer: OnceLock::new(),
        sandbox_mode: if cfg.host_io {
            "off"
        } else {
            cfg.sandbox.mode.as_str()
        },
    });
    let host_hooks: Arc<dyn HookExecutor> = Arc::new(HostHookExecutor { link: link.clone() });
    let mut so = boxed_options(provider, cfg.model.clone(), PathBuf::from(&cfg.cwd));
    apply_config(&mut so, &cfg);
    if let Some(st) = &settings {
        so.hook_env = st.env.clone();
    }
    so.child_env = cfg.tool_env.clone();
    so.tools = tools;
    so.hooks = cfg.hooks.clone().unwrap_or_default();
    let agent_hooks = Arc::new(subagent::hook::AgentHookExecutor::new(
        cfg.params.agents.all.clone(),
        parent_cell.clone(),
    ));
    so.extra_hook_executors = vec![host_hooks, agent_hooks];
    so.http_client = Some(shared.http().clone());
    so.approval_handler = Some(approval.clone() as Arc<dyn ApprovalHandler>);
    so.observer = Some(core.clone() as Arc<dyn SessionObserver>);
    // A host provider times its calls out itself (its `timeout_ms`, with the cancel
    // document to the host).
    so.provider_timeout_ms =
        (!shared.is_host_provider(&cfg.provider)).then_some(PROVIDER_IDLE_TIMEOUT_MS);
    so.session_id = Some(session_id.clone());
    so.history = Some(ConversationStore::from_entries(std::mem::take(
        &mut restore.conversation,
    )));
    so.budget = budget.clone();
    so.conversation_id = Some(session_id.clone());
    Ok(Assembled {
        cfg,
        options: so,
        approval,
        core,
        transcript_warning,
        session_id,
        session_allowed: restore.session_allowed,
        created_at: restore.created_at,
        budget,
        mcp,
        parent_cell,
    })
}

/// The session's link to the runtime and the host (with the session's budget), with the
/// transcript tap on its event sink (and the warning to emit when the transcript could not be
/// opened).
// Never inlined: a frame of its own, left before the session underneath is built
// (`InteractiveSession::new_boxed`).
#[inline(never)]
fn open_link(
    shared: &Arc<RuntimeShared>,
    cfg: &SessionConfig,
    sink: EventSink,
    can_answer: bool,
    session_id: &str,
    budget: Option<Arc<crate::core::budget::Budget>>,
) -> (Arc<SessionLink>, Option<serde_json::Value>) {
    let tool_names: Vec<String> = cfg.tools.clone().unwrap_or_default();
    let released = Arc::new(AtomicBool::new(false));
    let (sink, transcript_warning) = crate::sdk::events::transcript::attach(
        crate::sdk::persistence::saved::transcript_sink(shared, session_id),
        sink,
        cfg,
        session_id,
        &tool_names,
        released.clone(),
    );
    let link = Arc::new(SessionLink {
        owner: shared.next_session_uid(),
        shared: shared.clone(),
        sink,
        turn: Default::default(),
        request_timeout_ms: cfg
            .request_timeout_ms
            .unwrap_or(shared.request_timeout_ms()),
        can_answer,
        released,
        cancels: Default::default(),
        budget,
    });
    (link, transcript_warning)
}

/// The session's own state, starting from what a resumed session restores.
// Never inlined: a frame of its own, left before the session underneath is built
// (`InteractiveSession::new_boxed`).
#[inline(never)]
fn new_core(link: &Arc<SessionLink>, cfg: &SessionConfig, restore: &mut Restore) -> Arc<Core> {
    Arc::new(Core {
        link: link.clone(),
        state: Mutex::new(State {
            history: std::mem::take(&mut restore.ui_history),
            message_count: restore.message_count,
            store_version: restore.store_version,
            name: cfg.name.clone(),
            updated_at: now_iso(),
            ..Default::default()
        }),
        cond: Condvar::new(),
    })
}

/// The session's options, made on the heap in a frame of their own (see
/// [`InteractiveSession::new_boxed`]).
#[inline(never)]
fn boxed_options(
    provider: Arc<dyn crate::core::provider::Provider>,
    model: String,
    cwd: PathBuf,
) -> Box<SessionOptions> {
    Box::new(SessionOptions::in_dir(provider, model, cwd))
}

/// The generic session underneath, with the host approval bound to its enforcer, the restored
/// session-wide allowances, and the messages it starts with counted as flushed.
fn start_session(
    so: Box<SessionOptions>,
    approval: &HostApproval,
    session_allowed: &[String],
    core: &Core,
) -> SdkResult<Session> {
    let session =
        Session::new_boxed(so).map_err(|e| SdkError::robota(ErrorCode::InvalidConfig, &e))?;
    let _ = approval.enforcer.set(Arc::downgrade(session.enforcer()));
    for t in session_allowed {
        session.enforcer().allow_for_session(t);
    }
    let agent = session.agent();
    let mut st = core.lock();
    st.msg_flushed = crate::core::agent::lock(agent.store()).messages().len();
    drop(st);
    Ok(session)
}

/// The session's provider: the named profile (a host provider bound to this session, its
/// cancellations reading the reason from the session's link once `link` is set), or the
/// settings' provider when the session JSON names none; wrapped in a recorder when `record`
/// is set.
fn session_provider(
    shared: &Arc<RuntimeShared>,
    cfg: &SessionConfig,
    settings: Option<&crate::sdk::settings::Settings>,
    session_id: &str,
    link: &Arc<OnceLock<std::sync::Weak<SessionLink>>>,
) -> SdkResult<Arc<dyn crate::core::provider::Provider>> {
    let provider = if cfg.provider.is_empty() {
        crate::sdk::settings::provider::make(shared, settings)?
    } else {
        let link = link.clone();
        let reason: crate::sdk::host::provider::CancelReasonFn = Arc::new(move || {
            link.get()
                .and_then(std::sync::Weak::upgrade)
                .map_or(CancelReason::TurnEnded, |l| l.cancel_reason())
        });
        shared.make_session_provider(&cfg.provider, Some(session_id), Some(reason))?
    };
    crate::sdk::persistence::record::wrap(provider, cfg)
}

/// The session options that come straight from the session's config: system message, working
/// directory, permissions, round cap, model-call settings and compaction.
fn apply_config(so: &mut SessionOptions, cfg: &SessionConfig) {
    so.system_message = assembly::system_message(cfg);
    so.virtual_cwd = cfg.host_io;
    so.cwd_is_canonical = cfg.cwd_is_canonical;
    so.permission_mode = cfg.permission_mode;
    so.permissions = cfg.permissions.clone();
    so.max_turns = cfg.max_rounds;
    so.context_max_tokens = cfg.call.context_window;
    so.tool_choice = cfg.call.tool_choice.clone().unwrap_or_default();
    so.auto_compact_threshold = cfg.auto_compact_threshold;
    so.temperature = cfg.call.temperature;
    so.max_tokens = cfg.call.max_tokens;
    so.thinking_budget = cfg.params.thinking_budget;
    so.prompt_cache = cfg.params.prompt_cache;
    so.native_web_search = cfg.params.native_web_search;
    so.compact_instructions =
        crate::sdk::config::compaction::given(cfg.compact_instructions.as_deref());
    if so.compact_instructions.is_none() {
        let cwd = so.cwd.clone();
        so.compact_instructions_source = Some(Arc::new(move || {
            crate::sdk::config::compaction::from_claude_md(&cwd)
        }));
    }
}
