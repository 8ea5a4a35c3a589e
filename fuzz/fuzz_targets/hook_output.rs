//! What a hook prints (the JSON output protocol) for every hook event, the `hooks` config
//! object, and matchers against any target. Input: `sel stdout` where sel picks the event.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_engine::core::hooks::json_output::parse_json_output;
use robota_engine::core::hooks::{matcher_matches, HookEvent, HooksConfig};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let event = HookEvent::ALL[usize::from(sel) % HookEvent::ALL.len()];
    let _ = parse_json_output(event, text);
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = HooksConfig::from_json(&v);
    }
    let (matcher, target) = text.split_once('\0').unwrap_or((text, "Bash"));
    let _ = matcher_matches(matcher, Some(target));
});
