//! Host tool definitions (`robota_runtime_register_tool`'s `tool_json`, JSON Schema compiled) and
//! model-supplied tool arguments checked against them. Input: `tool_json NUL arguments`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use robota_engine::core::tool_choice::ToolChoice;
use robota_engine::providers::convert::args_object;
use robota_engine::sdk::host::tools::HostToolDef;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (def, args) = text.split_once('\0').unwrap_or((text, "{}"));
    // Arguments as the model sends them: a string that may not be JSON at all.
    let args = args_object(args);
    if let Ok(tool) = HostToolDef::from_json(def, None) {
        let _ = tool.check_args(&args);
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(def) {
        let _ = ToolChoice::from_json("tool_choice", &v);
    }
});
