//! Images in prompts and in Read results, end to end on the fake server: each vendor's exact
//! request shape for a prompt's images (inline and by URL) and for an image file the Read tool
//! returned; the history and transcript keep them; bad images fail the submit naming them.

use std::path::Path;

use robota_engine::core::message::Part;
use robota_engine::sdk::error::ErrorCode;
use robota_engine::sdk::interactive::TurnInput;
use serde_json::{json, Value};

use crate::support::fake_server::{without_cache_marks, FakeServer, Reply, Turn};
use crate::support::host_session::{runtime, Host};

/// A 1×1 PNG's first 29 bytes (enough for its magic bytes) and their base64.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";
const PNG_B64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAA=";
const GIF_B64: &str = "R0lGODlhAQABAIAAAA==";
const READ_TEXT: &str = r#"{"success":true,"output":"[Image: shot.png (image/png, 29 bytes)]"}"#;

/// Runs the two-round turn (the model reads `shot.png`, then answers) with a prompt carrying
/// the file, a base64 GIF and a URL; returns the two request bodies.
fn two_rounds(kind: &str) -> (Value, Value, Host) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shot.png"), PNG).unwrap();
    let server = FakeServer::start();
    server.enqueue(Reply::for_kind(
        kind,
        &Turn::text(Vec::<String>::new()).tool("call_1", "Read", r#"{"filePath":"shot.png"}"#),
    ));
    server.enqueue(Reply::for_kind(kind, &Turn::text(["Two images."])));
    let rt = runtime(server.provider_config(kind));
    let host = Host::open(
        &rt,
        json!({"tools":["Read"],"cwd": dir.path(),"permission_mode":"bypassPermissions"}),
    )
    .unwrap();
    host.turn(json!({"text":"Describe them","images":[
        {"path":"shot.png"},
        {"data": GIF_B64, "media_type":"image/gif"},
        {"url":"https://example.com/cat.jpg","media_type":"image/jpeg"}]}))
        .unwrap();
    assert_eq!(host.text(), "Two images.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    (
        without_cache_marks(&reqs[0].body),
        without_cache_marks(&reqs[1].body),
        host,
    )
}

#[test]
fn anthropic_gets_image_blocks_in_the_prompt_and_in_the_tool_result() {
    let (first, second, _host) = two_rounds("anthropic");
    let prompt = json!({"role":"user","content":[
        {"type":"text","text":"Describe them"},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":PNG_B64}},
        {"type":"image","source":{"type":"base64","media_type":"image/gif","data":GIF_B64}},
        {"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]});
    assert_eq!(first["messages"], json!([prompt]));
    assert_eq!(
        second["messages"],
        json!([prompt,
            {"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"Read",
                "input":{"filePath":"shot.png"}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[
                {"type":"text","text":READ_TEXT},
                {"type":"image","source":{"type":"base64","media_type":"image/png","data":PNG_B64}}]}]}])
    );
}

#[test]
fn openai_gets_image_url_parts_and_the_read_image_in_a_user_message_after_the_tool_message() {
    let (first, second, _host) = two_rounds("openai");
    let prompt = json!({"role":"user","content":[
        {"type":"text","text":"Describe them"},
        {"type":"image_url","image_url":{"url":format!("data:image/png;base64,{PNG_B64}")}},
        {"type":"image_url","image_url":{"url":format!("data:image/gif;base64,{GIF_B64}")}},
        {"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}}]});
    assert_eq!(first["messages"], json!([prompt]));
    assert_eq!(
        second["messages"],
        json!([prompt,
            {"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function",
                "function":{"name":"Read","arguments":"{\"filePath\":\"shot.png\"}"}}]},
            {"role":"tool","tool_call_id":"call_1","content":READ_TEXT},
            {"role":"user","content":[
                {"type":"text","text":"Images returned by the Read tool call call_1:"},
                {"type":"image_url","image_url":{"url":format!("data:image/png;base64,{PNG_B64}")}}]}])
    );
}

#[test]
fn gemini_gets_inline_and_file_data_and_the_read_image_after_the_function_response() {
    let (first, second, _host) = two_rounds("gemini");
    let prompt = json!({"role":"user","parts":[
        {"text":"Describe them"},
        {"inlineData":{"mimeType":"image/png","data":PNG_B64}},
        {"inlineData":{"mimeType":"image/gif","data":GIF_B64}},
        {"fileData":{"fileUri":"https://example.com/cat.jpg","mimeType":"image/jpeg"}}]});
    assert_eq!(first["contents"], json!([prompt]));
    assert_eq!(
        second["contents"],
        json!([prompt,
            {"role":"model","parts":[{"functionCall":{"name":"Read",
                "args":{"filePath":"shot.png"},"id":"call_1"}}]},
            {"role":"user","parts":[
                {"functionResponse":{"name":"Read","response":{"content":READ_TEXT},"id":"call_1"}},
                {"inlineData":{"mimeType":"image/png","data":PNG_B64}}]}])
    );
}

#[test]
fn the_history_keeps_the_prompt_images_and_the_read_image_as_parts() {
    let (_, _, host) = two_rounds("anthropic");
    let conv = host.session.conversation();
    let png = Part::ImageInline {
        mime_type: "image/png".into(),
        data: PNG_B64.into(),
    };
    assert_eq!(
        conv[0].parts,
        Some(vec![
            Part::Text {
                text: "Describe them".into()
            },
            png.clone(),
            Part::ImageInline {
                mime_type: "image/gif".into(),
                data: GIF_B64.into()
            },
            Part::ImageUri {
                uri: "https://example.com/cat.jpg".into(),
                mime_type: Some("image/jpeg".into())
            },
        ])
    );
    assert_eq!(conv[0].content, "Describe them");
    assert_eq!(conv[2].content, READ_TEXT);
    assert_eq!(
        conv[2].parts,
        Some(vec![
            Part::Text {
                text: READ_TEXT.into()
            },
            png
        ])
    );
    host.session.close();
}

fn input_error(text: &str, cwd: &Path) -> (ErrorCode, String) {
    let e = TurnInput::from_json_in(text, cwd).unwrap_err();
    (e.code, e.message)
}

#[test]
fn each_bad_image_is_invalid_config_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let mut big = PNG.to_vec();
    big.resize(5 * 1024 * 1024 + 1, 0);
    std::fs::write(dir.path().join("big.png"), &big).unwrap();
    let ok = r#"{"url":"https://example.com/a.png"}"#;
    let cases: Vec<(String, String)> = vec![
        (format!(r#"[{ok},{{"path":"missing.png"}}]"#),
         "images[1]: cannot read \"missing.png\": No such file or directory (os error 2)".into()),
        (r#"[{"path":"notes.txt"}]"#.into(),
         "images[0]: \"notes.txt\": not a supported image (the data is none of image/png, image/jpeg, image/gif, image/webp; told by its first bytes)".into()),
        (r#"[{"path":"big.png"}]"#.into(),
         "images[0]: \"big.png\" is 5242881 bytes, over the limit of 5242880 bytes (5 MiB)".into()),
        (r#"[{"path":"."}]"#.into(), "images[0]: \".\" is not a file".into()),
        (format!(r#"[{ok},{{"data":"{PNG_B64}","media_type":"image/bmp"}}]"#),
         "images[1]: unsupported media_type \"image/bmp\" (expected one of image/png, image/jpeg, image/gif, image/webp)".into()),
        (format!(r#"[{{"data":"{PNG_B64}","media_type":"image/gif"}}]"#),
         "images[0]: media_type \"image/gif\" does not match the data, which is image/png".into()),
        (format!(r#"[{{"data":"{PNG_B64}"}}]"#), "images[0]: \"data\" needs \"media_type\"".into()),
        (r#"[{"data":"no base64!","media_type":"image/png"}]"#.into(),
         "images[0]: \"data\" is not valid base64 (Invalid symbol 32, offset 2.)".into()),
        (r#"[{"url":"file:///etc/passwd"}]"#.into(),
         "images[0]: \"url\" must be an http:// or https:// URL, not \"file:///etc/passwd\"".into()),
        (r#"[{"url":"https://x.test/a.png","detail":"high"}]"#.into(),
         "images[0]: unknown field \"detail\" (expected \"url\", \"media_type\")".into()),
        (r#"[{"url":"https://x.test/a.png","path":"a.png"}]"#.into(),
         "images[0]: has both \"path\" and \"url\"".into()),
        (r#"[{}]"#.into(), "images[0]: must have one of \"path\", \"data\" or \"url\"".into()),
        (r#"["a.png"]"#.into(), "images[0]: must be an object with \"path\", \"data\" or \"url\"".into()),
        (r#"{"path":"a.png"}"#.into(), "field \"images\" must be an array".into()),
        (format!("[{}]", vec![ok; 21].join(",")),
         "field \"images\" has 21 images, over the limit of 20".into()),
    ];
    for (images, want) in cases {
        let text = format!(r#"{{"text":"look","images":{images}}}"#);
        assert_eq!(
            input_error(&text, dir.path()),
            (ErrorCode::InvalidConfig, format!("input_json: {want}")),
            "{images}"
        );
    }
    let twenty = format!(r#"{{"text":"x","images":[{}]}}"#, vec![ok; 20].join(","));
    assert_eq!(
        TurnInput::from_json_in(&twenty, dir.path())
            .unwrap()
            .images
            .len(),
        20
    );
}

#[test]
fn a_bad_image_submits_nothing() {
    let server = FakeServer::start();
    let rt = runtime(server.provider_config("anthropic"));
    let host = Host::open(&rt, json!({})).unwrap();
    let e = host
        .turn(json!({"text":"look","images":[{"path":"/nonexistent/x.png"}]}))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidConfig);
    assert_eq!(host.session.conversation().len(), 0);
    assert_eq!(server.requests().len(), 0);
    host.session.close();
}
