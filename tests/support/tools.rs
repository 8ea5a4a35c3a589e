//! Shared helpers for the built-in tool tests.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use robota_engine::core::tool::{Tool, ToolContext};
use robota_engine::tools::{builtin_tool, builtin_tool_in, ToolEnv};
use serde_json::Value;

/// Runs `tool` and parses its result document.
pub async fn call(tool: &Arc<dyn Tool>, args: Value) -> Value {
    call_ctx(tool, args, &ToolContext::detached("t")).await
}

/// Runs `tool` with a context and parses its result document.
pub async fn call_ctx(tool: &Arc<dyn Tool>, args: Value, ctx: &ToolContext) -> Value {
    match tool.execute(args, ctx).await {
        Ok(Value::String(s)) => serde_json::from_str(&s).expect("result is JSON"),
        other => panic!("built-in returned {other:?}"),
    }
}

/// A built-in on the real FS with `cwd`.
pub fn tool(name: &str, cwd: &Path) -> Arc<dyn Tool> {
    builtin_tool(name, cwd).expect("known tool")
}

/// A built-in on an explicit environment.
pub fn tool_in(name: &str, env: &ToolEnv) -> Arc<dyn Tool> {
    builtin_tool_in(name, env).expect("known tool")
}

/// The `output` string of a result.
pub fn output(v: &Value) -> &str {
    v["output"].as_str().expect("output string")
}

/// The `error` string of a result.
pub fn error(v: &Value) -> &str {
    v["error"].as_str().expect("error string")
}

/// Writes `content` to `dir/rel`, creating parents.
pub fn put(dir: &Path, rel: &str, content: &str) {
    let p = dir.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(p, content).unwrap();
}

/// Sets a file's modification time to `secs` after the epoch.
pub fn set_mtime(path: &Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .unwrap();
}
