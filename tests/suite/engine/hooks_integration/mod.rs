//! Hook runner (exit 2 blocks; port of Robota's hooks integration tests + more):
//! [`exit_codes_and_matchers`] (exit codes, matchers, ordering, unknown types, group env) and
//! [`executors_and_config`] (extra executors, config parsing, the JSON stdout protocol). This
//! module holds the shared builders.

mod executors_and_config;
mod exit_codes_and_matchers;

use robota_engine::core::hooks::{HookDefinition, HookEvent, HookGroup, HooksConfig};
use serde_json::{json, Value};

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn cfg(event: HookEvent, groups: Vec<HookGroup>) -> HooksConfig {
    let mut c = HooksConfig::new();
    for g in groups {
        c = c.with_group(event, g);
    }
    c
}

fn cmd(c: &str) -> HookDefinition {
    HookDefinition::command(c)
}

fn tool_input(tool: &str) -> Value {
    json!({"session_id":"s1","cwd":".","hook_event_name":"PreToolUse","tool_name":tool,"tool_input":{}})
}
