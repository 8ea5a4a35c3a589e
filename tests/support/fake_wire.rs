//! How the fake model server renders one model answer ([`Turn`]) byte for byte in each
//! vendor's documented event sequence: Anthropic `message_start … message_stop` with `ping`;
//! OpenAI chunks, a usage-only chunk and `data: [DONE]`; Gemini `GenerateContentResponse`
//! frames with CRLF line ends, the last carrying `finishReason` and `usageMetadata`.

use serde_json::{json, Value};

use super::fake_server::Reply;

/// The OpenAI Responses API rendering (`Reply::for_kind("openai-responses", …)`).
#[path = "fake_wire_responses.rs"]
pub mod responses;

/// One model answer to render in a vendor's wire format.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    /// Text deltas.
    pub text: Vec<String>,
    /// Thinking deltas (Anthropic `thinking_delta`, OpenAI-compatible `reasoning_content`,
    /// Gemini `thought: true` parts), sent before the text.
    pub thinking: Vec<String>,
    /// Tool calls `(id, name, arguments JSON)`.
    pub tools: Vec<(String, String, String)>,
    /// `(input, output)` tokens.
    pub usage: (u64, u64),
    /// Anthropic only: a server tool use `(id, name, input JSON)` sent before the text.
    pub server_tool: Option<(String, String, String)>,
    /// How the answer stops, vendor-neutral: `max_tokens` (Anthropic `max_tokens`, OpenAI
    /// `length`, Gemini `MAX_TOKENS`) or `refusal` (Anthropic `refusal`, OpenAI text sent as
    /// `delta.refusal`, Gemini `SAFETY`); default: the natural stop or tool use.
    pub stop: Option<String>,
    /// Cached prompt tokens reported with the usage (Anthropic `cache_read_input_tokens`,
    /// OpenAI `prompt_tokens_details.cached_tokens`, Gemini `cachedContentTokenCount`).
    pub cached: u64,
    /// Prompt tokens written to the cache (Anthropic `cache_creation_input_tokens`).
    pub cache_written: u64,
}

impl Turn {
    /// A turn streaming these text deltas.
    pub fn text<I: IntoIterator<Item = S>, S: Into<String>>(deltas: I) -> Self {
        Turn {
            text: deltas.into_iter().map(Into::into).collect(),
            usage: (10, 5),
            ..Default::default()
        }
    }

    /// Adds a tool call.
    pub fn tool(mut self, id: &str, name: &str, args: &str) -> Self {
        self.tools.push((id.into(), name.into(), args.into()));
        self
    }

    /// Adds thinking deltas.
    pub fn thinking<I: IntoIterator<Item = S>, S: Into<String>>(mut self, deltas: I) -> Self {
        self.thinking = deltas.into_iter().map(Into::into).collect();
        self
    }

    /// Sets usage.
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = (input, output);
        self
    }

    /// Sets how the answer stops (`max_tokens` or `refusal`, see [`Turn::stop`]).
    pub fn stop(mut self, reason: &str) -> Self {
        self.stop = Some(reason.into());
        self
    }

    /// Reports `n` cached prompt tokens.
    pub fn cached(mut self, n: u64) -> Self {
        self.cached = n;
        self
    }

    /// Reports `n` prompt tokens written to the cache (Anthropic).
    pub fn cache_written(mut self, n: u64) -> Self {
        self.cache_written = n;
        self
    }

    /// Sets the prompt usage the cache simulation measured, the way `kind` reports it:
    /// Anthropic's input excludes the cache reads and writes, OpenAI's and Gemini's prompt
    /// count includes the cached part.
    pub fn prompt_usage(mut self, kind: &str, u: super::fake_cache::PromptUsage) -> Self {
        self.usage.0 = if kind == "anthropic" {
            u.uncached()
        } else {
            u.prompt
        };
        self.cached = u.read;
        self.cache_written = u.written;
        self
    }

    /// Adds an Anthropic server tool use (e.g. `web_search`).
    pub fn server_tool(mut self, id: &str, name: &str, input: &str) -> Self {
        self.server_tool = Some((id.into(), name.into(), input.into()));
        self
    }
}

fn sse_frame(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(e) => format!("event: {e}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// Splits a JSON argument string into three fragments (on char boundaries).
fn fragments(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    let cuts = [0, n / 3, 2 * n / 3, n];
    cuts.windows(2)
        .map(|w| chars[w[0]..w[1]].iter().collect::<String>())
        .filter(|f| !f.is_empty())
        .collect()
}

impl Reply {
    /// Renders `turn` for `kind` (`anthropic`, `openai`, `openai-compatible`,
    /// `openai-responses`, `gemini`).
    pub fn for_kind(kind: &str, turn: &Turn) -> Self {
        match kind {
            "anthropic" => Self::anthropic(turn),
            "openai-responses" => responses::responses(turn),
            "gemini" => Self::gemini(turn),
            _ => Self::openai(turn),
        }
    }

    /// The Anthropic Messages event sequence for `turn`.
    pub fn anthropic(turn: &Turn) -> Self {
        let mut f = Vec::new();
        f.push(sse_frame(
            Some("message_start"),
            &json!({"type":"message_start","message":{"id":"msg_fake01","type":"message","role":"assistant",
                "content":[],"model":"claude-fake","stop_reason":null,"stop_sequence":null,
                "usage":{"input_tokens":turn.usage.0,"cache_creation_input_tokens":turn.cache_written,"cache_read_input_tokens":turn.cached,"output_tokens":1}}}),
        ));
        let mut index = 0;
        if !turn.thinking.is_empty() {
            f.push(sse_frame(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"thinking","thinking":"","signature":""}})));
            for t in &turn.thinking {
                f.push(sse_frame(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"thinking_delta","thinking":t}})));
            }
            f.push(sse_frame(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"signature_delta","signature":"c2ln"}})));
            f.push(sse_frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            index += 1;
        }
        if let Some((id, name, input)) = &turn.server_tool {
            f.push(sse_frame(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"server_tool_use","id":id,"name":name,"input":{}}})));
            f.push(sse_frame(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"input_json_delta","partial_json":input}})));
            f.push(sse_frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            index += 1;
            f.push(sse_frame(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"web_search_tool_result","tool_use_id":id,"content":[{"type":"web_search_result","title":"T","url":"https://example.com","encrypted_content":"x","page_age":null}]}})));
            f.push(sse_frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            index += 1;
        }
        if !turn.text.is_empty() {
            f.push(sse_frame(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"text","text":""}})));
            f.push(sse_frame(Some("ping"), &json!({"type":"ping"})));
            for t in &turn.text {
                // Field order exactly as the API sends it.
                f.push(format!(
                    "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{{\"type\":\"text_delta\",\"text\":{}}}}}\n\n",
                    Value::String(t.clone())
                ));
            }
            f.push(sse_frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            index += 1;
        }
        for (id, name, args) in &turn.tools {
            f.push(sse_frame(Some("content_block_start"), &json!({"type":"content_block_start","index":index,"content_block":{"type":"tool_use","id":id,"name":name,"input":{}}})));
            f.push(sse_frame(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"input_json_delta","partial_json":""}})));
            for frag in fragments(args) {
                f.push(sse_frame(Some("content_block_delta"), &json!({"type":"content_block_delta","index":index,"delta":{"type":"input_json_delta","partial_json":frag}})));
            }
            f.push(sse_frame(
                Some("content_block_stop"),
                &json!({"type":"content_block_stop","index":index}),
            ));
            index += 1;
        }
        let stop = match &turn.stop {
            Some(s) => s.as_str(),
            None if turn.tools.is_empty() => "end_turn",
            None => "tool_use",
        };
        f.push(sse_frame(Some("message_delta"), &json!({"type":"message_delta","delta":{"stop_reason":stop,"stop_sequence":null},"usage":{"output_tokens":turn.usage.1}})));
        f.push(sse_frame(
            Some("message_stop"),
            &json!({"type":"message_stop"}),
        ));
        Self::sse(f)
    }

    /// The OpenAI Chat Completions chunk sequence for `turn` (ending in a usage-only chunk
    /// and `data: [DONE]`).
    pub fn openai(turn: &Turn) -> Self {
        let chunk = |choices: Value| {
            json!({"id":"chatcmpl-fake01","object":"chat.completion.chunk","created":1700000000,
                   "model":"gpt-fake","system_fingerprint":"fp_fake","choices":choices})
        };
        let mut f = Vec::new();
        f.push(sse_frame(None, &chunk(json!([{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]))));
        for t in &turn.thinking {
            f.push(sse_frame(None, &chunk(json!([{"index":0,"delta":{"reasoning_content":t},"logprobs":null,"finish_reason":null}]))));
        }
        let field = if turn.stop.as_deref() == Some("refusal") {
            "refusal"
        } else {
            "content"
        };
        for t in &turn.text {
            f.push(sse_frame(
                None,
                &chunk(json!([{"index":0,"delta":{field:t},"logprobs":null,"finish_reason":null}])),
            ));
        }
        for (i, (id, name, args)) in turn.tools.iter().enumerate() {
            f.push(sse_frame(None, &chunk(json!([{"index":0,"delta":{"tool_calls":[{"index":i,"id":id,"type":"function","function":{"name":name,"arguments":""}}]},"logprobs":null,"finish_reason":null}]))));
            for frag in fragments(args) {
                f.push(sse_frame(None, &chunk(json!([{"index":0,"delta":{"tool_calls":[{"index":i,"function":{"arguments":frag}}]},"logprobs":null,"finish_reason":null}]))));
            }
        }
        let finish = match turn.stop.as_deref() {
            Some("max_tokens") => "length",
            Some(_) => "stop",
            None if turn.tools.is_empty() => "stop",
            None => "tool_calls",
        };
        f.push(sse_frame(
            None,
            &chunk(json!([{"index":0,"delta":{},"logprobs":null,"finish_reason":finish}])),
        ));
        let mut usage = chunk(json!([]));
        usage["usage"] = json!({"prompt_tokens":turn.usage.0,"completion_tokens":turn.usage.1,"total_tokens":turn.usage.0 + turn.usage.1,
                                "prompt_tokens_details":{"cached_tokens":turn.cached}});
        f.push(sse_frame(None, &usage));
        f.push("data: [DONE]\n\n".to_string());
        Self::sse(f)
    }

    /// The Gemini `streamGenerateContent?alt=sse` frames for `turn` (CRLF line ends).
    pub fn gemini(turn: &Turn) -> Self {
        let frame = |v: Value| format!("data: {v}\r\n\r\n");
        let mut f = Vec::new();
        for t in &turn.thinking {
            f.push(frame(json!({"candidates":[{"content":{"parts":[{"text":t,"thought":true}],"role":"model"},"index":0}],"modelVersion":"gemini-fake"})));
        }
        for t in &turn.text {
            f.push(frame(json!({"candidates":[{"content":{"parts":[{"text":t}],"role":"model"},"index":0}],
                "usageMetadata":{"promptTokenCount":turn.usage.0,"totalTokenCount":turn.usage.0},"modelVersion":"gemini-fake"})));
        }
        let calls: Vec<Value> = turn
            .tools
            .iter()
            .map(|(id, name, args)| {
                let args: Value = serde_json::from_str(args).unwrap_or(json!({}));
                let mut fc = json!({"name": name, "args": args});
                if !id.is_empty() {
                    fc["id"] = json!(id);
                }
                json!({"functionCall": fc})
            })
            .collect();
        let last_parts = if calls.is_empty() {
            json!([{"text": ""}])
        } else {
            Value::Array(calls)
        };
        let finish = match turn.stop.as_deref() {
            Some("max_tokens") => "MAX_TOKENS",
            Some(_) => "SAFETY",
            None => "STOP",
        };
        f.push(frame(json!({"candidates":[{"content":{"parts":last_parts,"role":"model"},"finishReason":finish,"index":0}],
            "usageMetadata":{"promptTokenCount":turn.usage.0,"candidatesTokenCount":turn.usage.1,"totalTokenCount":turn.usage.0 + turn.usage.1,
                             "cachedContentTokenCount":turn.cached},
            "modelVersion":"gemini-fake"})));
        Self::sse(f)
    }
}
