//! External payloads of the JSONL session log, so that no line grows huge: a field value whose JSON
//! (after redaction and after its own children were handled the same way) exceeds
//! [`PAYLOAD_LIMIT_BYTES`] is written once to `<dir>/<session_id>.payloads/<sha256>.json` and
//! replaced in the line by `{"kind":"external-payload","encoding":"json","sha256","byteLength",
//! "relativePath":"<session_id>.payloads/<sha256>.json"}`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::{is_secret_key, redacted_json_text, REDACTED};

/// Values whose JSON is longer than this go to a payload file (32 KiB, as Robota).
pub const PAYLOAD_LIMIT_BYTES: usize = 32 * 1024;

/// The `kind` of a payload reference.
pub const EXTERNAL_PAYLOAD_KIND: &str = "external-payload";

/// Writes payload files of one session log.
pub struct Payloads {
    dir: PathBuf,
    rel: String,
    limit: usize,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Payloads {
    /// Payloads of the log `<log_dir>/<session_id>.jsonl`.
    pub fn new(log_dir: &Path, session_id: &str, limit: usize) -> Self {
        let rel = format!("{session_id}.payloads");
        Payloads {
            dir: log_dir.join(&rel),
            rel,
            limit,
        }
    }

    /// The size limit in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// `v` redacted, with every part over the limit (children first) replaced by a reference
    /// to its payload file.
    pub fn normalize(&self, v: &Value) -> io::Result<Value> {
        let norm = match v {
            Value::Object(m) => {
                let mut out = Map::with_capacity(m.len());
                for (k, v) in m {
                    let nv = if is_secret_key(k) {
                        Value::String(REDACTED.into())
                    } else if let Some(text) = redacted_json_text(k, v) {
                        Value::String(text)
                    } else {
                        self.normalize(v)?
                    };
                    out.insert(k.clone(), nv);
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(
                a.iter()
                    .map(|x| self.normalize(x))
                    .collect::<io::Result<_>>()?,
            ),
            other => other.clone(),
        };
        let text = serde_json::to_vec(&norm)?;
        if text.len() <= self.limit {
            return Ok(norm);
        }
        self.write(&text)
    }

    /// Writes `json` once (content-addressed) and returns its reference.
    fn write(&self, json: &[u8]) -> io::Result<Value> {
        let sha = hex(ring::digest::digest(&ring::digest::SHA256, json).as_ref());
        let file = self.dir.join(format!("{sha}.json"));
        if !file.exists() {
            fs::create_dir_all(&self.dir)?;
            crate::core::atomic_file::write_atomic(&file, json)?;
        }
        Ok(json!({
            "kind": EXTERNAL_PAYLOAD_KIND,
            "encoding": "json",
            "sha256": sha,
            "byteLength": json.len(),
            "relativePath": format!("{}/{sha}.json", self.rel),
        }))
    }
}

/// Whether `m` is a payload reference with every field a payload reference requires
/// (`encoding:"json"`, `sha256`, `relativePath`, `byteLength`).
fn complete(m: &Map<String, Value>) -> bool {
    m.get("encoding").and_then(Value::as_str) == Some("json")
        && m.get("sha256").is_some_and(Value::is_string)
        && m.get("relativePath").is_some_and(Value::is_string)
        && m.get("byteLength").is_some_and(Value::is_u64)
}

fn is_reference(m: &Map<String, Value>) -> bool {
    m.get("kind").and_then(Value::as_str) == Some(EXTERNAL_PAYLOAD_KIND)
}

/// Whether `v` holds a payload reference that lacks a required field.
pub fn has_invalid_reference(v: &Value) -> bool {
    match v {
        Value::Object(m) if is_reference(m) => !complete(m),
        Value::Object(m) => m.values().any(has_invalid_reference),
        Value::Array(a) => a.iter().any(has_invalid_reference),
        _ => false,
    }
}

/// Replaces every complete payload reference in `v` by its file's content (read relative to
/// `log_dir`, checked against its SHA-256); incomplete references are left for the validator.
pub fn resolve(v: &mut Value, log_dir: &Path) -> Result<(), String> {
    match v {
        Value::Object(m) if is_reference(m) && complete(m) => {
            let rel = m.get("relativePath").and_then(Value::as_str).unwrap_or("");
            let want = m.get("sha256").and_then(Value::as_str).unwrap_or("");
            if rel.split('/').any(|p| p == ".." || p.is_empty()) {
                return Err(format!(
                    "payload path \"{rel}\" is not inside the log directory"
                ));
            }
            let path = log_dir.join(rel);
            let bytes = fs::read(&path)
                .map_err(|e| format!("payload {} cannot be read: {e}", path.display()))?;
            if hex(ring::digest::digest(&ring::digest::SHA256, &bytes).as_ref()) != want {
                return Err(format!(
                    "payload {} does not match its sha256",
                    path.display()
                ));
            }
            let mut inner: Value = serde_json::from_slice(&bytes)
                .map_err(|e| format!("payload {} is not JSON: {e}", path.display()))?;
            resolve(&mut inner, log_dir)?;
            *v = inner;
            Ok(())
        }
        Value::Object(m) => m.values_mut().try_for_each(|x| resolve(x, log_dir)),
        Value::Array(a) => a.iter_mut().try_for_each(|x| resolve(x, log_dir)),
        _ => Ok(()),
    }
}
