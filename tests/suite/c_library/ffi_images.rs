//! Images through the C ABI: `robota_session_submit` with `images` (a bad one is
//! `ROBOTA_E_INVALID_CONFIG` naming it, nothing submitted), the image in
//! `robota_session_messages`, in the transcript (as a payload file) and in a snapshot: it
//! survives `robota_session_save` → `robota_session_resume` and is sent again; `robota_query`
//! takes `images` too.

use std::ffi::{CStr, CString};
use std::ptr::null_mut;

use robota::ffi::*;
use robota_engine::core::image::inline_image;
use robota_engine::core::message::Part;
use robota_engine::session::transcript::check::{load, validate};
use serde_json::{json, Value};

use crate::support::fake_server::{without_cache_marks, FakeServer, Reply, Turn};
use crate::support_ffi::{self as ffi, c, failure, Failure};

/// A PNG of `len` bytes (its magic bytes, then zeros) and its base64.
fn png(len: usize) -> (Vec<u8>, String) {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.resize(len, 0);
    let Ok(Part::ImageInline { data, .. }) = inline_image(&bytes) else {
        panic!("a PNG");
    };
    (bytes, data)
}

fn submit_json(s: *mut robota_session, input: &Value) -> Result<u64, Failure> {
    let mut turn = 0;
    let mut e = null_mut();
    match robota_session_submit(s, c(&input.to_string()).as_ptr(), &mut turn, &mut e) {
        ROBOTA_OK => Ok(turn),
        st => Err(failure(st, e)),
    }
}

fn finish(s: *mut robota_session, turn: u64) {
    ffi::events_until(s, "turn_completed");
    assert_eq!(robota_session_wait(s, turn, 30_000, null_mut()), ROBOTA_OK);
}

#[test]
fn an_image_is_kept_in_messages_transcript_and_snapshot_and_sent_again_after_resume() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, b64) = png(40_000); // over the transcript's 32 KiB payload limit
    std::fs::write(dir.path().join("photo.png"), &bytes).unwrap();
    let server = FakeServer::start();
    server.enqueue(Reply::anthropic(&Turn::text(["A photo."])));
    server.enqueue(Reply::anthropic(&Turn::text(["Still a photo."])));
    let rt = ffi::runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("anthropic")},
                "session_dir": dir.path().join("sessions")})
        .to_string(),
    );
    let session = json!({"v":1,"provider":"p","model":"test-model","cwd":dir.path(),
        "delivery":"pull","persist":true,"transcript":true,"session_id":"img-1","tools":[]});
    let s = ffi::session_new(rt, &session.to_string()).unwrap();
    let turn = submit_json(
        s,
        &json!({"text":"What is it?","images":[{"path":"photo.png"}]}),
    )
    .unwrap();
    finish(s, turn);
    let image = json!({"type":"image_inline","mimeType":"image/png","data":b64});
    let parts = json!([{"type":"text","text":"What is it?"}, image]);
    let first = &ffi::messages(s)["messages"][0];
    assert_eq!(first["content"], "What is it?");
    assert_eq!(first["parts"], parts);
    let saved = ffi::save(s);
    assert_eq!(saved["messages"][0]["parts"], parts);
    robota_session_free(s);

    let resumed = ffi::session_resume(
        rt,
        &json!({"v":1,"session_id":"img-1","delivery":"pull"}).to_string(),
    )
    .unwrap();
    let turn = ffi::submit(resumed, "And now?");
    finish(resumed, turn);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let sent = json!({"role":"user","content":[{"type":"text","text":"What is it?"},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":b64}}]});
    assert_eq!(
        without_cache_marks(&reqs[0].body["messages"]),
        json!([sent])
    );
    assert_eq!(
        without_cache_marks(&reqs[1].body["messages"]),
        json!([sent, {"role":"assistant","content":[{"type":"text","text":"A photo."}]},
               {"role":"user","content":[{"type":"text","text":"And now?"}]}])
    );
    robota_session_free(resumed);
    robota_runtime_free(rt);

    // The transcript's line holds a payload reference; loading it gives the image back.
    let log = dir.path().join(".robota/logs/img-1.jsonl");
    let raw = std::fs::read_to_string(&log).unwrap();
    assert!(
        !raw.contains(&b64),
        "the image data is not inline in the log"
    );
    let payloads = std::fs::read_dir(dir.path().join(".robota/logs/img-1.payloads"))
        .unwrap()
        .map(|f| std::fs::read_to_string(f.unwrap().path()).unwrap())
        .filter(|text| text.contains(&b64))
        .count();
    assert_eq!(
        payloads, 1,
        "the image lives in one payload file, written once"
    );
    let entries = load(&log).unwrap();
    assert_eq!(validate(&entries), vec![]);
    let with_image: Vec<(&Value, &Value, &Value)> = entries
        .iter()
        .filter(|e| e.to_string().contains(&b64))
        .map(|e| (&e["event"], &e["role"], &e["parts"]))
        .collect();
    assert_eq!(
        with_image,
        vec![(&json!("message"), &json!("user"), &parts)],
        "the user's message event, with its parts back"
    );
}

#[test]
fn a_bad_image_is_invalid_config_naming_it_and_nothing_is_submitted() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start();
    let rt = ffi::runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("anthropic")}}).to_string(),
    );
    let s = ffi::session_new(
        rt,
        &json!({"v":1,"provider":"p","model":"m","cwd":dir.path(),"delivery":"pull"}).to_string(),
    )
    .unwrap();
    let err = submit_json(
        s,
        &json!({"text":"x","images":[{"url":"https://a.test/a.png"},{"path":"gone.png"}]}),
    )
    .unwrap_err();
    assert_eq!(err.status, ROBOTA_E_INVALID_CONFIG);
    assert_eq!(
        err.message,
        "input_json: images[1]: cannot read \"gone.png\": No such file or directory (os error 2)"
    );
    assert_eq!(ffi::state(s)["current_turn"], Value::Null);
    assert_eq!(ffi::messages(s)["messages"], json!([]));
    assert_eq!(server.requests().len(), 0);
    robota_session_free(s);
    robota_runtime_free(rt);
}

fn query(rt: *mut robota_runtime, doc: &Value) -> Result<Value, Failure> {
    let q = CString::new(doc.to_string()).unwrap();
    let mut out = null_mut();
    let mut e = null_mut();
    let st = robota_query(rt, q.as_ptr(), None, null_mut(), None, &mut out, &mut e);
    if st != ROBOTA_OK {
        return Err(failure(st, e));
    }
    // SAFETY: the library wrote an owned NUL-terminated string.
    let text = unsafe { CStr::from_ptr(out) }
        .to_string_lossy()
        .into_owned();
    robota_string_free(out);
    Ok(serde_json::from_str(&text).unwrap())
}

#[test]
fn query_takes_images_beside_its_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, b64) = png(64);
    std::fs::write(dir.path().join("p.png"), &bytes).unwrap();
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["Seen."])));
    let rt = ffi::runtime(
        &json!({"v":1,"providers":{"p": server.provider_config("openai")}}).to_string(),
    );
    let out = query(
        rt,
        &json!({"prompt":"Look","images":[{"path":"p.png"}],"provider":"p","model":"m",
                "cwd":dir.path(),"tools":[]}),
    )
    .unwrap();
    assert_eq!(out["response"], "Seen.");
    assert_eq!(
        server.requests()[0].body["messages"],
        json!([{"role":"user","content":[{"type":"text","text":"Look"},
            {"type":"image_url","image_url":{"url":format!("data:image/png;base64,{b64}")}}]}])
    );
    let err = query(
        rt,
        &json!({"prompt":"Look","images":[{"data":"AAAA","media_type":"image/png"}],
                "provider":"p","model":"m","cwd":dir.path()}),
    )
    .unwrap_err();
    assert_eq!(err.status, ROBOTA_E_INVALID_CONFIG);
    assert_eq!(
        err.message,
        "query_json: images[0]: not a supported image (the data is none of image/png, image/jpeg, image/gif, image/webp; told by its first bytes)"
    );
    assert_eq!(server.requests().len(), 1);
    robota_runtime_free(rt);
}
