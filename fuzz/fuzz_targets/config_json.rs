//! JSON from hosts: runtime config, session config, turn input, provider entries (scripted
//! included), tool settings, `tool_env` and `sandbox`. `data[0]` picks the parser; errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_engine::providers::scripted::ScriptedProvider;
use robota_engine::providers::{HttpProviderConfig, ProviderKind};
use robota_engine::sdk::config::{parse_runtime_config, parse_session_config};
use robota_engine::sdk::interactive::TurnInput;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    match sel % 5 {
        0 => drop(parse_runtime_config(text)),
        1 => drop(parse_session_config(text)),
        2 => drop(TurnInput::from_json(text)),
        3 => {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
                drop(ScriptedProvider::from_json(&v));
            }
        }
        _ => {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
                for kind in [
                    ProviderKind::Anthropic,
                    ProviderKind::OpenAi,
                    ProviderKind::Gemini,
                ] {
                    drop(HttpProviderConfig::parse("fuzz", kind, &v));
                }
                drop(robota_engine::tools::config::ToolsConfig::from_json(&v));
                // The session's `tool_env` and `sandbox` documents, and the env globs.
                if let Ok(p) = serde_json::from_value::<robota_engine::core::child_env::ChildEnvPolicy>(v.clone()) {
                    if p.validate().is_ok() {
                        for pattern in p.exclude.iter().chain(p.include_only.iter().flatten()) {
                            robota_engine::core::child_env::name_matches(pattern, "OPENAI_API_KEY");
                        }
                    }
                }
                drop(serde_json::from_value::<robota_engine::core::sandbox::SandboxConfig>(v));
            }
        }
    }
});
