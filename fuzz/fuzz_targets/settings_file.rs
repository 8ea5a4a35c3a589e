//! One settings file's text (`.claude/settings*.json`): validated field by field, merged over a
//! lower layer, resolved into session settings. Problems become warnings, never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_engine::core::env_ref::EnvVars;
use robota_engine::sdk::settings::{merge_into, parse_layer, resolve};
use std::collections::BTreeMap;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut vars = BTreeMap::new();
    vars.insert("FUZZ_KEY".to_string(), "sk-fuzz".to_string());
    let env = EnvVars::with_vars(vars);
    let mut warnings = Vec::new();
    let Some(layer) = parse_layer(text, "/fuzz/settings.json", &env, &mut warnings) else {
        return;
    };
    let mut acc = serde_json::Map::new();
    merge_into(&mut acc, layer.clone());
    merge_into(&mut acc, layer);
    let _ = resolve(&acc, &mut warnings);
});
