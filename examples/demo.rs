//! Offline demo on the scripted provider: streams a reply, calls a tool, answers.
//! Run: `cargo run --example demo`
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

use std::sync::Arc;

use robota_engine::core::agent::{Agent, AgentConfig, RunOptions};
use robota_engine::core::tool::ClosureTool;
use robota_engine::providers::scripted::{ScriptedProvider, ScriptedToolCall, ScriptedTurn};
use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    println!("[robota demo] running offline on the scripted provider (no API key needed)");
    let provider = ScriptedProvider::with_turns(vec![
        ScriptedTurn {
            deltas: Some(vec!["Let me ".into(), "check the time.".into()]),
            delay_ms: Some(30),
            tool_calls: Some(vec![ScriptedToolCall {
                id: Some("call_0".into()),
                name: "clock".into(),
                arguments: Some(json!({})),
            }]),
            ..Default::default()
        },
        ScriptedTurn {
            deltas: Some(vec![
                "The clock tool ".into(),
                "answered, ".into(),
                "so I am done.".into(),
            ]),
            delay_ms: Some(30),
            ..Default::default()
        },
    ]);
    let clock = ClosureTool::new(
        "clock",
        "Returns the time",
        json!({"type":"object","properties":{}}),
        |_| Ok(json!("12:00")),
    );
    let mut config = AgentConfig::new(Arc::new(provider), "scripted-model");
    config.system_message = Some("You are a demo assistant.".into());
    config.tools = vec![Arc::new(clock)];
    let agent = match Agent::new(config) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let on_text: robota_engine::core::events::TextDeltaFn = Arc::new(|d: &str| {
        use std::io::Write;
        print!("{d}");
        let _ = std::io::stdout().flush();
    });
    let opts = RunOptions {
        on_text_delta: Some(on_text),
        ..Default::default()
    };
    match agent.run("What time is it?", opts).await {
        Ok(r) => println!(
            "\n[done] tools executed: {:?}; history has {} messages",
            r.tools_executed,
            agent.messages().len()
        ),
        Err(e) => eprintln!("error: {e}"),
    }
}
