//! Provider hot paths: SSE framing and vendor decoding of a recorded 1 MB stream, and full
//! streamed turns against the fake model server (per-delta overhead).
//!
//! Run: `cargo bench --bench providers` (add `-- --quick` for a short run).
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // a harness: failing loudly is the point

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use robota_engine::core::message::Message;
use robota_engine::core::provider::{ChatRequest, NativeWebToolRequest, StreamSink};
use robota_engine::providers::anthropic::AnthropicDecoder;
use robota_engine::providers::gemini::GeminiDecoder;
use robota_engine::providers::http::StreamDecoder;
use robota_engine::providers::openai::OpenAiDecoder;
use robota_engine::providers::sse::SseParser;
use robota_engine::providers::{
    create_provider, new_http_client, HttpProviderConfig, ProviderKind,
};
use support::fake_server::{FakeServer, Reply, Turn};
use tokio_util::sync::CancellationToken;

/// Counts what it receives (no allocation).
#[derive(Default)]
struct CountSink {
    deltas: usize,
    bytes: usize,
}

impl StreamSink for CountSink {
    fn on_text(&mut self, delta: &str) {
        self.deltas += 1;
        self.bytes += delta.len();
    }
}

/// Text deltas shaped like real model output (~4 words each, some escapes and UTF-8).
fn deltas(n: usize) -> Vec<String> {
    let words = [
        "The ",
        "quick ",
        "brown ",
        "fox ",
        "jumps\n",
        "\"over\" ",
        "the ",
        "lazy ",
        "dög. ",
    ];
    (0..n)
        .map(|i| (0..4).map(|j| words[(i * 4 + j) % words.len()]).collect())
        .collect()
}

/// Renders a reply's SSE bytes (the recorded stream).
fn recorded(kind: &str, target: usize) -> Vec<u8> {
    // Each frame is rendered by the fake server's builders; grow the turn until ~target bytes.
    let mut n = 1000;
    loop {
        let bytes = render(kind, &Turn::text(deltas(n)));
        if bytes.len() >= target {
            return bytes;
        }
        n = n * target / bytes.len() + 10;
    }
}

fn render(kind: &str, turn: &Turn) -> Vec<u8> {
    let reply = Reply::for_kind(kind, turn);
    reply.frames_bytes()
}

fn cfg(kind: ProviderKind) -> HttpProviderConfig {
    HttpProviderConfig::parse("bench", kind, &serde_json::json!({})).unwrap()
}

fn decode_all(kind: &str, stream: &[u8], chunk: usize) -> usize {
    let mut parser = SseParser::new();
    let mut sink = CountSink::default();
    let mut dec: Box<dyn StreamDecoder> = match kind {
        "anthropic" => Box::new(AnthropicDecoder::new(cfg(ProviderKind::Anthropic), "m")),
        "gemini" => Box::new(GeminiDecoder::new(cfg(ProviderKind::Gemini))),
        _ => Box::new(OpenAiDecoder::new(cfg(ProviderKind::OpenAi))),
    };
    for c in stream.chunks(chunk) {
        parser.feed(c, |ev| dec.event(ev, &mut sink)).unwrap();
    }
    assert!(dec.complete());
    sink.deltas
}

fn bench_parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("sse_1mb");
    for kind in ["anthropic", "openai", "gemini"] {
        let stream = recorded(kind, 1 << 20);
        g.throughput(Throughput::Bytes(stream.len() as u64));
        g.bench_function(format!("{kind}/framing_only"), |b| {
            b.iter(|| {
                let mut p = SseParser::new();
                let mut n = 0usize;
                for ch in stream.chunks(16 * 1024) {
                    p.feed::<()>(ch, |e| {
                        n += e.data.len();
                        Ok(())
                    })
                    .unwrap();
                }
                n
            })
        });
        g.bench_function(format!("{kind}/framing_and_decoding"), |b| {
            b.iter(|| decode_all(kind, &stream, 16 * 1024))
        });
    }
    g.finish();
}

fn bench_turn(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = FakeServer::start();
    let client = new_http_client().unwrap();
    const N: usize = 2000;
    let mut g = c.benchmark_group("streamed_turn");
    g.throughput(Throughput::Elements(N as u64));
    for kind in ["anthropic", "openai", "gemini"] {
        let mut cfgv = server.provider_config(kind);
        cfgv["max_retries"] = serde_json::json!(0);
        let p = create_provider(kind, &cfgv, &client).unwrap();
        let turn = Turn::text(deltas(N));
        let messages = vec![Arc::new(Message::user("bench"))];
        for (label, reply) in [
            // All frames in one write: measures the client's per-delta path.
            ("coalesced", Reply::for_kind(kind, &turn).coalesced()),
            // One chunk write + flush per frame: end to end over loopback TCP.
            ("chunk_per_delta", Reply::for_kind(kind, &turn)),
        ] {
            g.bench_function(format!("{kind}/{label}/{N}_deltas"), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        server.enqueue(reply.clone());
                        let start = Instant::now();
                        let n = rt.block_on(async {
                            let req = ChatRequest {
                                messages: &messages,
                                tools: &[],
                                model: "m",
                                max_tokens: None,
                                temperature: None,
                                native_web_tools: NativeWebToolRequest::default(),
                                thinking_budget: None,
                                tool_choice: &robota_engine::core::tool_choice::ToolChoice::Auto,
                                output_schema: None,
                                prompt_cache: robota_engine::core::prompt_cache::PromptCache::Off,
                                cache_key: None,
                            };
                            let mut sink = CountSink::default();
                            p.chat(req, &mut sink, CancellationToken::new())
                                .await
                                .unwrap();
                            sink.deltas
                        });
                        total += start.elapsed();
                        assert_eq!(n, N);
                    }
                    total
                })
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(4));
    targets = bench_parse, bench_turn
}
criterion_main!(benches);
