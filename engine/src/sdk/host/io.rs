//! The host I/O port: for sessions created with `"host_io": true`, the built-in tools read,
//! write, stat, list and execute through the host (`robota_runtime_set_host_io` callback, or
//! `ROBOTA_EVENT_HOST_IO` in pull mode) instead of the operating system.
//!
//! Each request is an answerable id ([`PendingKind::HostIo`]) answered once with
//! `robota_host_io_complete`, from any thread, any time later. Paths reach the host absolute and
//! lexically normalized; permission checks ran before the tool did. Aborting the turn or closing
//! the session withdraws the ids (a late answer is then `ROBOTA_E_STALE`) and the tool reports
//! the interruption. A wrong-shaped answer is an error naming the op and the field.

use std::cell::Cell;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use async_trait::async_trait;
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use crate::sdk::events;
use crate::sdk::host::pending::{Answer, PendingKind};
use crate::sdk::host::tools::SessionLink;
use crate::sdk::runtime::RuntimeShared;
use crate::tools::config::normalize_lexical;
use crate::tools::ports::{
    DirEntryInfo, FileKind, FileMeta, FsPort, ProcessPort, ShellEnd, ShellOutput, ShellRequest,
};
use crate::tools::{ToolEnv, ToolsConfig};

/// The file-system and process port of one host-I/O session.
pub struct HostIoPort {
    link: Arc<SessionLink>,
}

impl HostIoPort {
    /// A port that sends the requests of `link`'s session to its host.
    pub fn new(link: Arc<SessionLink>) -> Self {
        HostIoPort { link }
    }

    /// Issues a request id and hands the request to the host.
    fn issue(&self, request: Value) -> io::Result<(u64, oneshot::Receiver<Answer>)> {
        // Session creation made sure a host I/O callback or pull delivery exists (a callback
        // removed later withdraws the request at delivery).
        if self.link.released.load(Ordering::Acquire) {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "host I/O: the session was released; nobody can answer",
            ));
        }
        let (id, rx) = self.link.issue(PendingKind::HostIo);
        self.link.emit_event(events::Event::json(
            events::HOST_IO,
            self.link.turn.load(Ordering::Relaxed),
            json!({"io_id": id, "request": request}),
        ));
        Ok((id, rx))
    }

    /// Sends one request and blocks this (blocking-pool) thread for the answer. In `thread`
    /// delivery this thread hands the request to the host itself when no other thread is
    /// delivering the session's events ([`caller_serves_inline`]).
    fn ask(&self, op: &str, request: Value) -> io::Result<Answer> {
        let issued = {
            let _inline = ServesInline::enter();
            self.issue(request)
        };
        let (_, rx) = issued?;
        rx.blocking_recv().map_err(|_| cancelled(op))
    }

    /// [`Self::ask`], the answer checked for `{"error"}`.
    fn call(&self, op: &str, request: Value) -> io::Result<Map<String, Value>> {
        parse_answer(op, self.ask(op, request)?)
    }
}

thread_local! {
    static SERVES_INLINE: Cell<bool> = const { Cell::new(false) };
}

/// True while this thread issues a request of the blocking file-system port: it is a
/// library thread off the async workers that would only wait for the answer, so `thread`
/// delivery may call the host's callback on it.
pub fn caller_serves_inline() -> bool {
    SERVES_INLINE.with(Cell::get)
}

/// Marks this thread as [`caller_serves_inline`] for the guard's lifetime.
struct ServesInline(bool);

impl ServesInline {
    fn enter() -> Self {
        ServesInline(SERVES_INLINE.with(|s| s.replace(true)))
    }
}

impl Drop for ServesInline {
    fn drop(&mut self) {
        SERVES_INLINE.with(|s| s.set(self.0));
    }
}

fn cancelled(op: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Interrupted,
        format!("host I/O {op} was cancelled"),
    )
}

fn request(op: &str, path: &Path) -> Value {
    json!({"v": 1, "op": op, "path": path.to_string_lossy()})
}

/// The answer object, or the host's `{"error"}` as an I/O error.
fn parse_answer(op: &str, answer: Answer) -> io::Result<Map<String, Value>> {
    let value = match answer {
        Answer::Response(v) | Answer::Tool { value: v, .. } => v,
    };
    let Value::Object(map) = value else {
        return Err(shape(op, "the answer", "a JSON object"));
    };
    match map.get("error") {
        None | Some(Value::Null) => Ok(map),
        Some(Value::String(s)) if s == "unsupported" => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("host I/O {op} is not supported by the host"),
        )),
        Some(Value::String(s)) => Err(io::Error::other(format!("host I/O {op} failed: {s}"))),
        Some(_) => Err(shape(op, "field \"error\"", "a string")),
    }
}

fn shape(op: &str, what: &str, expected: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("host I/O {op} answer: {what} must be {expected}"),
    )
}

fn field_str<'a>(op: &str, map: &'a Map<String, Value>, key: &str) -> io::Result<&'a str> {
    map.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| shape(op, &format!("field \"{key}\""), "a string"))
}

fn field_bool(op: &str, map: &Map<String, Value>, key: &str) -> io::Result<bool> {
    map.get(key)
        .and_then(Value::as_bool)
        .ok_or_else(|| shape(op, &format!("field \"{key}\""), "true or false"))
}

/// Answer checks shared by the file-system ops (public for the request/answer unit tests).
pub fn parse_stat(answer: Answer) -> io::Result<FileMeta> {
    let map = parse_answer("stat", answer)?;
    if !field_bool("stat", &map, "exists")? {
        return Err(io::Error::new(io::ErrorKind::NotFound, "No such file"));
    }
    let is_dir = field_bool("stat", &map, "is_dir")?;
    let len = match map.get("size") {
        None | Some(Value::Null) => 0,
        Some(v) => v
            .as_u64()
            .ok_or_else(|| shape("stat", "field \"size\"", "a non-negative integer"))?,
    };
    let modified = match map.get("mtime_ms") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            UNIX_EPOCH
                + Duration::from_millis(v.as_u64().ok_or_else(|| {
                    shape("stat", "field \"mtime_ms\"", "a non-negative integer")
                })?),
        ),
    };
    Ok(FileMeta {
        kind: if is_dir {
            FileKind::Dir
        } else {
            FileKind::File
        },
        len,
        modified,
    })
}

fn parse_list(map: &Map<String, Value>) -> io::Result<Vec<DirEntryInfo>> {
    let Some(Value::Array(entries)) = map.get("entries") else {
        return Err(shape("list", "field \"entries\"", "an array"));
    };
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let Value::Object(e) = e else {
                return Err(shape("list", &format!("entries[{i}]"), "an object"));
            };
            let name = field_str("list", e, "name")?;
            if name.is_empty() || name.contains('/') || name == "." || name == ".." {
                return Err(shape(
                    "list",
                    &format!("entries[{i}].name"),
                    "a plain file name",
                ));
            }
            let is_dir = field_bool("list", e, "is_dir")?;
            Ok(DirEntryInfo {
                name: name.to_string(),
                kind: if is_dir {
                    FileKind::Dir
                } else {
                    FileKind::File
                },
            })
        })
        .collect()
}

impl FsPort for HostIoPort {
    fn metadata(&self, path: &Path) -> io::Result<FileMeta> {
        parse_stat(self.ask("stat", request("stat", path))?)
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let mut map = self.call("read", request("read", path))?;
        match map.remove("content") {
            Some(Value::String(text)) => Ok(text.into_bytes()),
            _ => Err(shape("read", "field \"content\"", "a string")),
        }
    }

    fn write_atomic(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let content = std::str::from_utf8(data).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "host I/O write: the content is not UTF-8",
            )
        })?;
        let req =
            json!({"v": 1, "op": "write", "path": path.to_string_lossy(), "content": content});
        self.call("write", req).map(|_| ())
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntryInfo>> {
        parse_list(&self.call("list", request("list", path))?)
    }

    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        Ok(normalize_lexical(path))
    }
}

#[async_trait]
impl ProcessPort for HostIoPort {
    async fn run_shell(&self, request: ShellRequest) -> io::Result<ShellOutput> {
        let env: Map<String, Value> = request
            .env
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect();
        let timeout_ms = request.timeout.map(|d| d.as_millis() as u64);
        let req = json!({"v": 1, "op": "exec", "command": request.command,
            "cwd": request.cwd.to_string_lossy(), "timeout_ms": timeout_ms, "env": env});
        let (id, rx) = self.issue(req)?;
        let timeout = async {
            match request.timeout {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending::<()>().await,
            }
        };
        let answer = tokio::select! {
            a = rx => a.map_err(|_| ShellEnd::Cancelled),
            _ = timeout => Err(ShellEnd::TimedOut),
            _ = request.cancel.cancelled() => Err(ShellEnd::Cancelled),
        };
        let map = match answer {
            Ok(a) => parse_answer("exec", a)?,
            Err(end) => {
                let timed_out = matches!(end, ShellEnd::TimedOut);
                self.link
                    .withdraw_request(id, PendingKind::HostIo, timed_out);
                return Ok(ShellOutput {
                    stdout: Vec::new(),
                    stderr: Vec::new(),
                    stdout_dropped: 0,
                    stderr_dropped: 0,
                    end,
                });
            }
        };
        let code = map
            .get("exit_code")
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok())
            .ok_or_else(|| shape("exec", "field \"exit_code\"", "an integer"))?;
        let capture = |key: &str| -> io::Result<(Vec<u8>, u64)> {
            let text = match map.get(key) {
                None | Some(Value::Null) => "",
                Some(Value::String(s)) => s.as_str(),
                Some(_) => return Err(shape("exec", &format!("field \"{key}\""), "a string")),
            };
            let mut ht = crate::core::shell::HeadTail::new(request.max_output_bytes);
            ht.push(text.as_bytes());
            Ok(ht.take())
        };
        let (stdout, stdout_dropped) = capture("stdout")?;
        let (stderr, stderr_dropped) = capture("stderr")?;
        Ok(ShellOutput {
            stdout,
            stderr,
            stdout_dropped,
            stderr_dropped,
            end: ShellEnd::Exited(code),
        })
    }
}

/// The tool environment of a host-I/O session.
pub fn tool_env(shared: &RuntimeShared, cwd: &str, link: &Arc<SessionLink>) -> ToolEnv {
    let port = Arc::new(HostIoPort::new(link.clone()));
    let config = ToolsConfig {
        http_client: Some(shared.http().clone()),
        ..ToolsConfig::default()
    };
    ToolEnv::with_ports(Path::new(cwd), port.clone(), port, config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(v: Value) -> Answer {
        Answer::Response(v)
    }

    #[test]
    fn answers_are_checked_by_op_and_field() {
        let m = parse_stat(r(
            json!({"exists": true, "is_dir": false, "size": 3, "mtime_ms": 5}),
        ))
        .unwrap();
        assert_eq!((m.kind, m.len), (FileKind::File, 3));
        let e = parse_stat(r(json!({"exists": false}))).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        let e = parse_stat(r(json!({"exists": true, "is_dir": "no"}))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "host I/O stat answer: field \"is_dir\" must be true or false"
        );
        let e = parse_answer("exec", r(json!({"error": "unsupported"}))).unwrap_err();
        assert_eq!(e.to_string(), "host I/O exec is not supported by the host");
        let e = parse_answer("read", r(json!({"error": "disk on fire"}))).unwrap_err();
        assert_eq!(e.to_string(), "host I/O read failed: disk on fire");
        let e = parse_answer("read", r(json!([1]))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "host I/O read answer: the answer must be a JSON object"
        );
        let e = parse_list(&Map::from_iter([(
            "entries".to_string(),
            json!([{"name": "a", "is_dir": false}, {"name": "../x", "is_dir": false}]),
        )]))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "host I/O list answer: entries[1].name must be a plain file name"
        );
    }
}
