//! How the fake model server renders one model answer ([`Turn`]) in the OpenAI Responses API's
//! documented event sequence: `response.created`, `response.in_progress`, then per output item
//! `response.output_item.added` … `response.output_item.done` (a reasoning item whose summary
//! streams as `response.reasoning_summary_text.delta`, carrying an `encrypted_content`; a
//! message whose text streams as `response.output_text.delta`, or `response.refusal.delta`; one
//! `function_call` item per tool call with `response.function_call_arguments.delta` fragments
//! and `.done`), and `response.completed` (or `response.incomplete` with
//! `incomplete_details.reason: "max_output_tokens"`) carrying the usage.

use serde_json::{json, Value};

use super::super::fake_server::Reply;
use super::Turn;

/// The id and `encrypted_content` of the reasoning item the fake server returns for a turn
/// thinking `thinking` (derived from the text, so each round's item differs).
pub fn reasoning_ids(thinking: &[String]) -> (String, String) {
    let text = thinking.concat();
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    (format!("rs_{hash:016x}"), format!("enc:{text}"))
}

fn frame(data: Value) -> String {
    format!(
        "event: {}\ndata: {data}\n\n",
        data["type"].as_str().unwrap()
    )
}

/// Splits `s` into three fragments on char boundaries.
fn thirds(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    [0, n / 3, 2 * n / 3, n]
        .windows(2)
        .map(|w| chars[w[0]..w[1]].iter().collect::<String>())
        .filter(|f| !f.is_empty())
        .collect()
}

/// Renders `turn` as a Responses API event stream.
pub fn responses(turn: &Turn) -> Reply {
    let mut f = Vec::new();
    let mut seq = 0;
    let mut push = |mut v: Value| {
        v["sequence_number"] = json!(seq);
        seq += 1;
        f.push(frame(v));
    };
    let shell = |status: &str, output: Value| {
        json!({"id":"resp_fake01","object":"response","created_at":1700000000,"status":status,
               "model":"gpt-fake","output":output,"usage":null})
    };
    push(json!({"type":"response.created","response":shell("in_progress", json!([]))}));
    push(json!({"type":"response.in_progress","response":shell("in_progress", json!([]))}));
    let mut output = Vec::new();
    if !turn.thinking.is_empty() {
        let (id, enc) = reasoning_ids(&turn.thinking);
        let i = output.len();
        push(json!({"type":"response.output_item.added","output_index":i,
                    "item":{"id":id,"type":"reasoning","summary":[]}}));
        push(
            json!({"type":"response.reasoning_summary_part.added","item_id":id,"output_index":i,
                    "summary_index":0,"part":{"type":"summary_text","text":""}}),
        );
        for t in &turn.thinking {
            push(
                json!({"type":"response.reasoning_summary_text.delta","item_id":id,
                        "output_index":i,"summary_index":0,"delta":t}),
            );
        }
        let summary = json!([{"type":"summary_text","text":turn.thinking.concat()}]);
        push(
            json!({"type":"response.reasoning_summary_text.done","item_id":id,"output_index":i,
                    "summary_index":0,"text":turn.thinking.concat()}),
        );
        let item = json!({"id":id,"type":"reasoning","summary":summary,"encrypted_content":enc});
        push(json!({"type":"response.output_item.done","output_index":i,"item":item}));
        output.push(item);
    }
    if !turn.text.is_empty() {
        let i = output.len();
        let refusal = turn.stop.as_deref() == Some("refusal");
        let delta = if refusal {
            "response.refusal.delta"
        } else {
            "response.output_text.delta"
        };
        push(json!({"type":"response.output_item.added","output_index":i,
                    "item":{"id":"msg_fake01","type":"message","status":"in_progress","content":[],"role":"assistant"}}));
        for t in &turn.text {
            push(
                json!({"type":delta,"item_id":"msg_fake01","output_index":i,"content_index":0,"delta":t}),
            );
        }
        let content = if refusal {
            json!([{"type":"refusal","refusal":turn.text.concat()}])
        } else {
            json!([{"type":"output_text","annotations":[],"text":turn.text.concat()}])
        };
        let item = json!({"id":"msg_fake01","type":"message","status":"completed","content":content,"role":"assistant"});
        push(json!({"type":"response.output_item.done","output_index":i,"item":item}));
        output.push(item);
    }
    for (n, (call_id, name, args)) in turn.tools.iter().enumerate() {
        let i = output.len();
        let id = format!("fc_fake{n}");
        push(json!({"type":"response.output_item.added","output_index":i,
                    "item":{"id":id,"type":"function_call","status":"in_progress","arguments":"","call_id":call_id,"name":name}}));
        for frag in thirds(args) {
            push(
                json!({"type":"response.function_call_arguments.delta","item_id":id,"output_index":i,"delta":frag}),
            );
        }
        push(
            json!({"type":"response.function_call_arguments.done","item_id":id,"output_index":i,"arguments":args}),
        );
        let item = json!({"id":id,"type":"function_call","status":"completed","arguments":args,"call_id":call_id,"name":name});
        push(json!({"type":"response.output_item.done","output_index":i,"item":item}));
        output.push(item);
    }
    let cut = turn.stop.as_deref() == Some("max_tokens");
    let mut done = shell(
        if cut { "incomplete" } else { "completed" },
        Value::Array(output),
    );
    done["usage"] = json!({"input_tokens":turn.usage.0,"input_tokens_details":{"cached_tokens":turn.cached},
        "output_tokens":turn.usage.1,"output_tokens_details":{"reasoning_tokens":0},
        "total_tokens":turn.usage.0 + turn.usage.1});
    if cut {
        done["incomplete_details"] = json!({"reason":"max_output_tokens"});
        push(json!({"type":"response.incomplete","response":done}));
    } else {
        push(json!({"type":"response.completed","response":done}));
    }
    Reply::sse(f)
}
