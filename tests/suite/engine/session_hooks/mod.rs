//! Hook wiring through a real Session (port of hook-wiring.test.ts + the deliberate
//! differences): [`lifecycle`] (SessionStart once, UserPromptSubmit before Stop and able to block
//! the turn, raw input, secrets) and [`tool_use_and_stop`] (PreToolUse block text, timeouts,
//! StopFailure, extra executors). This module holds the shared hook-log helpers.

mod lifecycle;
mod tool_use_and_stop;

use std::path::Path;

use robota_engine::core::hooks::{HookDefinition, HookEvent, HookGroup, HooksConfig};
use serde_json::Value;

/// A hooks config where every listed event appends its stdin JSON (one line) to `log`.
fn logging_hooks(log: &Path, events: &[HookEvent]) -> HooksConfig {
    let mut c = HooksConfig::new();
    for e in events {
        c = c.with_group(
            *e,
            HookGroup::new(
                "",
                vec![HookDefinition::command(format!(
                    "cat >> {0}; echo >> {0}",
                    log.display()
                ))],
            ),
        );
    }
    c
}

fn read_log(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn names(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .map(|e| e["hook_event_name"].as_str().unwrap().to_string())
        .collect()
}
