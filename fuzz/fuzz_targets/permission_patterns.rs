//! Permission patterns (`Tool(argGlob)`) from settings and session config against any tool call.
//! Input: `pattern NUL tool NUL argument`. Also checks the documented precedence: a matching
//! deny pattern always wins over an allow pattern.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_engine::core::permissions::{
    evaluate_permission, glob_matches, parse_pattern, pattern_matches, primary_argument_key,
    PermissionDecision, PermissionLists, PermissionMode,
};
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut it = text.splitn(3, '\0');
    let pattern = it.next().unwrap_or("");
    let tool = it.next().unwrap_or("Bash");
    let arg = it.next().unwrap_or("");
    let _ = parse_pattern(pattern);
    let _ = glob_matches(pattern, arg);
    let key = primary_argument_key(tool).unwrap_or("command");
    let args = json!({ key: arg });
    let matched = pattern_matches(pattern, tool, &args);
    let lists = PermissionLists {
        allow: vec![pattern.to_string()],
        deny: vec![pattern.to_string()],
    };
    let d = evaluate_permission(tool, &args, PermissionMode::BypassPermissions, &lists);
    if matched {
        assert_eq!(
            d,
            PermissionDecision::Deny,
            "a matching deny pattern must win"
        );
    }
});
