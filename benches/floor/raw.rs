//! The floor: a hand-written agent loop for the benchmark's scenario, no library code and the
//! least a loop can cost — hyper's HTTP/1.1 client connection on a plain socket (no TLS stack
//! in this binary, `raw_http.rs`), a Tokio multi-thread runtime, SSE split into lines by hand,
//! borrowed serde structs for the events, the history as a `Vec<Value>` sent whole each round.
//! It does the library's work: parses every chunk, runs the tool, resends the history. It
//! reports the same JSON lines as `host.c`.

use std::borrow::Cow;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::raw_http::Endpoint;
use crate::scenario::{
    cpu_ns, mono_ns, peak_rss_kb, Kind, CONC_RUNS, DELTAS_PER_SCENARIO, PROMPT, WARM_RUNS,
};

/// What one scenario saw.
#[derive(Default)]
struct Seen {
    first_delta_ns: i64,
    deltas: usize,
    tool_calls: usize,
}

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    stream: bool,
    tools: &'a Value,
    messages: &'a [Value],
}

#[derive(Deserialize)]
struct AnthropicEvent<'a> {
    #[serde(borrow, default)]
    delta: Option<AnthropicDelta<'a>>,
    #[serde(borrow, default)]
    content_block: Option<AnthropicBlock<'a>>,
}

#[derive(Deserialize)]
struct AnthropicDelta<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    partial_json: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct AnthropicBlock<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct OpenAiChunk<'a> {
    #[serde(borrow, default)]
    choices: Vec<OpenAiChoice<'a>>,
}

#[derive(Deserialize)]
struct OpenAiChoice<'a> {
    #[serde(borrow, default)]
    delta: Option<OpenAiDelta<'a>>,
}

#[derive(Deserialize)]
struct OpenAiDelta<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Vec<OpenAiToolCall<'a>>,
}

#[derive(Deserialize)]
struct OpenAiToolCall<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function: Option<OpenAiFunction<'a>>,
}

#[derive(Deserialize)]
struct OpenAiFunction<'a> {
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
}

/// One model answer, accumulated from its stream.
#[derive(Default)]
struct Answer {
    text: String,
    tool_id: String,
    tool_args: String,
}

fn tools(kind: Kind) -> Value {
    let schema = json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]});
    match kind {
        Kind::Anthropic => {
            json!([{"name":"add","description":"Adds two integers.","input_schema":schema}])
        }
        Kind::OpenAi => {
            json!([{"type":"function","function":{"name":"add","description":"Adds two integers.","parameters":schema}}])
        }
    }
}

/// Applies one SSE `data:` payload to the answer.
fn on_data(kind: Kind, data: &[u8], answer: &mut Answer, seen: &mut Seen) -> Result<(), String> {
    let text = match kind {
        Kind::Anthropic => {
            let ev: AnthropicEvent<'_> = serde_json::from_slice(data).map_err(|e| e.to_string())?;
            if let Some(id) = ev.content_block.and_then(|b| b.id) {
                answer.tool_id = id.into_owned();
            }
            match ev.delta {
                Some(AnthropicDelta {
                    partial_json: Some(p),
                    ..
                }) => {
                    answer.tool_args.push_str(&p);
                    None
                }
                Some(AnthropicDelta { text, .. }) => text,
                None => None,
            }
        }
        Kind::OpenAi => {
            if data == b"[DONE]" {
                return Ok(());
            }
            let chunk: OpenAiChunk<'_> = serde_json::from_slice(data).map_err(|e| e.to_string())?;
            let Some(delta) = chunk.choices.into_iter().next().and_then(|c| c.delta) else {
                return Ok(());
            };
            for call in delta.tool_calls {
                if let Some(id) = call.id {
                    answer.tool_id = id.into_owned();
                }
                if let Some(a) = call.function.and_then(|f| f.arguments) {
                    answer.tool_args.push_str(&a);
                }
            }
            delta.content.filter(|c| !c.is_empty())
        }
    };
    if let Some(t) = text {
        if seen.deltas == 0 {
            seen.first_delta_ns = mono_ns();
        }
        seen.deltas += 1;
        answer.text.push_str(&t);
    }
    Ok(())
}

/// One model call: POST the history, stream and parse the answer.
async fn call(
    endpoint: &Endpoint,
    conn: &mut hyper::client::conn::http1::SendRequest<http_body_util::Full<bytes::Bytes>>,
    tools: &Value,
    messages: &[Value],
    seen: &mut Seen,
) -> Result<Answer, String> {
    let kind = endpoint.kind();
    let body = serde_json::to_vec(&Request {
        model: "m",
        max_tokens: (kind == Kind::Anthropic).then_some(4096),
        stream: true,
        tools,
        messages,
    })
    .map_err(|e| e.to_string())?;
    let mut buf: Vec<u8> = Vec::new();
    let mut answer = Answer::default();
    endpoint
        .post(conn, body, |chunk| {
            buf.extend_from_slice(chunk);
            let mut start = 0;
            while let Some(n) = memchr::memchr(b'\n', &buf[start..]) {
                let line = &buf[start..start + n];
                if let Some(data) = line.strip_prefix(b"data: ") {
                    on_data(kind, data, &mut answer, seen)?;
                }
                start += n + 1;
            }
            buf.drain(..start);
            Ok(())
        })
        .await?;
    Ok(answer)
}

fn add(args: &str) -> Result<i64, String> {
    let v: Value = serde_json::from_str(args).map_err(|e| format!("tool args: {e}"))?;
    let n = |k: &str| {
        v.get(k)
            .and_then(Value::as_i64)
            .ok_or(format!("tool arg {k}"))
    };
    Ok(n("a")? + n("b")?)
}

/// Appends the assistant's tool call and the tool's result to the history.
fn push_tool_round(kind: Kind, messages: &mut Vec<Value>, answer: Answer, result: i64) {
    match kind {
        Kind::Anthropic => {
            let input: Value = serde_json::from_str(&answer.tool_args).unwrap_or(Value::Null);
            messages.push(
                json!({"role":"assistant","content":[{"type":"text","text":answer.text},
                {"type":"tool_use","id":answer.tool_id,"name":"add","input":input}]}),
            );
            messages.push(json!({"role":"user","content":[{"type":"tool_result",
                "tool_use_id":answer.tool_id,"content":result.to_string()}]}));
        }
        Kind::OpenAi => {
            messages.push(
                json!({"role":"assistant","content":answer.text,"tool_calls":[{"id":answer.tool_id,
                "type":"function","function":{"name":"add","arguments":answer.tool_args}}]}),
            );
            messages.push(
                json!({"role":"tool","tool_call_id":answer.tool_id,"content":result.to_string()}),
            );
        }
    }
}

/// One scenario: rounds until the model answers without a tool call, on one keep-alive
/// connection.
async fn scenario(endpoint: &Endpoint, tools: &Value) -> Result<Seen, String> {
    let kind = endpoint.kind();
    let mut conn = endpoint.connection().await?;
    let mut seen = Seen::default();
    let mut messages = vec![json!({"role":"user","content":PROMPT})];
    loop {
        let answer = call(endpoint, &mut conn, tools, &messages, &mut seen).await?;
        if answer.tool_id.is_empty() {
            messages.push(json!({"role":"assistant","content":answer.text}));
            break;
        }
        seen.tool_calls += 1;
        let result = add(&answer.tool_args)?;
        push_tool_round(kind, &mut messages, answer, result);
    }
    endpoint.release(conn);
    if seen.deltas != DELTAS_PER_SCENARIO || seen.tool_calls != 3 {
        return Err(format!(
            "{} text deltas and {} tool calls, expected {DELTAS_PER_SCENARIO} and 3",
            seen.deltas, seen.tool_calls
        ));
    }
    Ok(seen)
}

/// How the raw loop runs its 100 concurrent scenarios.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pattern {
    /// 100 tasks on the two-worker runtime (the floor).
    Tasks,
    /// A thread per scenario, each with its own single-threaded runtime and connection: the
    /// least a host that gives every session a thread of its own can pay.
    Threads,
}

/// 100 scenarios, each on a thread of its own driving its own reactor and connection.
fn conc_threads(kind: Kind, url: &str, tools: &'static Value) -> Result<(), String> {
    let threads: Vec<_> = (0..CONC_RUNS)
        .map(|_| {
            let url = url.to_string();
            std::thread::spawn(move || -> Result<(), String> {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_io()
                    .build()
                    .map_err(|e| e.to_string())?;
                let endpoint = Endpoint::new(kind, &url)?;
                rt.block_on(scenario(&endpoint, tools)).map(drop)
            })
        })
        .collect();
    for t in threads {
        t.join()
            .map_err(|_| "a scenario thread panicked".to_string())??;
    }
    Ok(())
}

async fn run(mode: &str, kind: Kind, url: &str, pattern: Pattern) -> Result<String, String> {
    let endpoint: &'static Endpoint = Box::leak(Box::new(Endpoint::new(kind, url)?));
    let tools: &'static Value = Box::leak(Box::new(tools(kind)));
    match mode {
        "single" => {
            let seen = scenario(endpoint, tools).await?;
            Ok(format!(
                "{{\"first_delta_ns\":{},\"done_ns\":{},\"peak_rss_kb\":{}}}",
                seen.first_delta_ns,
                mono_ns(),
                peak_rss_kb()
            ))
        }
        "warm" => {
            scenario(endpoint, tools).await?;
            let (t0, c0) = (Instant::now(), cpu_ns());
            for _ in 0..WARM_RUNS {
                scenario(endpoint, tools).await?;
            }
            Ok(format!(
                "{{\"wall_ns\":{},\"cpu_ns\":{},\"scenarios\":{WARM_RUNS},\"peak_rss_kb\":{}}}",
                t0.elapsed().as_nanos(),
                cpu_ns() - c0,
                peak_rss_kb()
            ))
        }
        "conc" => {
            let (t0, c0) = (Instant::now(), cpu_ns());
            if pattern == Pattern::Threads {
                let url = url.to_string();
                tokio::task::spawn_blocking(move || conc_threads(kind, &url, tools))
                    .await
                    .map_err(|e| e.to_string())??;
            } else {
                let tasks: Vec<_> = (0..CONC_RUNS)
                    .map(|_| tokio::spawn(scenario(endpoint, tools)))
                    .collect();
                for task in tasks {
                    task.await.map_err(|e| e.to_string())??;
                }
            }
            Ok(format!(
                "{{\"wall_ns\":{},\"cpu_ns\":{},\"scenarios\":{CONC_RUNS},\"peak_rss_kb\":{}}}",
                t0.elapsed().as_nanos(),
                cpu_ns() - c0,
                peak_rss_kb()
            ))
        }
        other => Err(format!("unknown mode {other}")),
    }
}

/// `floor raw MODE KIND BASE_URL [tasks|threads]`: runs the raw loop and prints its JSON line
/// (the pattern changes only how the 100 concurrent scenarios run).
pub(crate) fn main(args: &[String]) -> i32 {
    let (mode, kind, url, pattern) = match args {
        [mode, kind, url] => (mode, kind, url, Pattern::Tasks),
        [mode, kind, url, p] if p == "tasks" => (mode, kind, url, Pattern::Tasks),
        [mode, kind, url, p] if p == "threads" => (mode, kind, url, Pattern::Threads),
        _ => {
            eprintln!(
                "usage: floor raw single|warm|conc anthropic|openai BASE_URL [tasks|threads]"
            );
            return 64;
        }
    };
    let Some(kind) = Kind::parse(kind) else {
        eprintln!("floor raw: unknown kind {kind}");
        return 64;
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_io()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("floor raw: runtime: {e}");
            return 2;
        }
    };
    match rt.block_on(run(mode, kind, url, pattern)) {
        Ok(line) => {
            println!("{line}");
            0
        }
        Err(e) => {
            eprintln!("floor raw: {e}");
            3
        }
    }
}
