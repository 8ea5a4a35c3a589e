//! The store port (`robota_runtime_set_store`): the host's session store. Each operation is a
//! request `{"v":1,"op",…}` handed to the host's handler with an id, answered once with
//! `robota_store_complete` from any thread, inside the handler or later. The asking thread
//! waits for the answer at most the runtime's `request_timeout_ms`; an answer after that is
//! `ROBOTA_E_STALE`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::sdk::error::{parse_json, ErrorCode, SdkError, SdkResult};

/// Receives the store requests of a runtime (`{"v":1,"op":"load"|"save"|"delete"|"list"|
/// "append",…}`).
pub trait StoreHandler: Send + Sync {
    /// Hands request `request_id` to the host.
    fn call(&self, request_id: u64, request: &Value);
}

/// The runtime's store registration and the requests waiting for their answers.
#[derive(Default)]
pub struct StorePort {
    handler: RwLock<Option<Arc<dyn StoreHandler>>>,
    waiting: Mutex<HashMap<u64, SyncSender<Map<String, Value>>>>,
    /// The last id issued (ids start at 1).
    last_id: AtomicU64,
}

impl StorePort {
    /// Replaces the handler (`None`: the directory store again), returning the previous one.
    pub fn register(
        &self,
        handler: Option<Arc<dyn StoreHandler>>,
    ) -> Option<Arc<dyn StoreHandler>> {
        let mut slot = self.handler.write().unwrap_or_else(|p| p.into_inner());
        std::mem::replace(&mut *slot, handler)
    }

    /// The registered handler, if any.
    pub fn handler(&self) -> Option<Arc<dyn StoreHandler>> {
        self.handler
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Sends `request` (an object; `v` is added) through `handler` and waits for its answer at
    /// most `timeout`. An `{"error":…}` answer is [`ErrorCode::Io`] with the host's message.
    pub fn ask(
        &self,
        handler: &dyn StoreHandler,
        op: &str,
        mut request: Map<String, Value>,
        timeout: Duration,
    ) -> SdkResult<Map<String, Value>> {
        let id = self.last_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = sync_channel(1);
        self.lock().insert(id, tx);
        request.insert("v".into(), Value::from(1));
        request.insert("op".into(), Value::from(op));
        handler.call(id, &Value::Object(request));
        let answer = wait_blocking(|| rx.recv_timeout(timeout));
        let answer = match answer {
            Ok(a) => a,
            Err(e) => {
                self.lock().remove(&id);
                let why = match e {
                    RecvTimeoutError::Timeout => {
                        format!("the host did not answer within {} ms", timeout.as_millis())
                    }
                    RecvTimeoutError::Disconnected => "the request was withdrawn".into(),
                };
                return Err(SdkError::new(
                    ErrorCode::Timeout,
                    format!("session store: {op} request {id}: {why}"),
                ));
            }
        };
        match answer.get("error") {
            None | Some(Value::Null) => Ok(answer),
            Some(e) => {
                let message = e.as_str().map_or_else(|| e.to_string(), str::to_string);
                Err(SdkError::new(
                    ErrorCode::Io,
                    format!("session store: {op} failed: {message}"),
                ))
            }
        }
    }

    /// Answers request `request_id`. Not JSON: [`ErrorCode::InvalidJson`]; not an object:
    /// [`ErrorCode::InvalidConfig`] (the request keeps waiting); answered already or given up
    /// (timed out): [`ErrorCode::Stale`]; never issued: [`ErrorCode::NotFound`].
    pub fn complete(&self, request_id: u64, response: &str) -> SdkResult<()> {
        let value = parse_json("response_json", response)?;
        let Value::Object(answer) = value else {
            return Err(SdkError::new(
                ErrorCode::InvalidConfig,
                "response_json: a store answer must be a JSON object",
            ));
        };
        let Some(tx) = self.lock().remove(&request_id) else {
            let issued = request_id != 0 && request_id <= self.last_id.load(Ordering::Relaxed);
            return Err(if issued {
                SdkError::new(
                    ErrorCode::Stale,
                    format!("store request {request_id} was answered already or timed out"),
                )
            } else {
                SdkError::new(
                    ErrorCode::NotFound,
                    format!("store request {request_id} was never issued"),
                )
            });
        };
        // The asker may have timed out just now: then the answer is dropped, as a late one.
        let _ = tx.try_send(answer);
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, SyncSender<Map<String, Value>>>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Runs the blocking `wait` on this thread; on a worker of a multi-thread tokio runtime, the
/// worker's other tasks move to another thread first.
fn wait_blocking<T>(wait: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(wait)
        }
        _ => wait(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Answers every request at once with what `answer` makes of it.
    struct Inline<F>(Arc<StorePort>, F);
    impl<F: Fn(&Value) -> String + Send + Sync> StoreHandler for Inline<F> {
        fn call(&self, id: u64, request: &Value) {
            self.0.complete(id, &(self.1)(request)).unwrap();
        }
    }

    #[test]
    fn a_request_carries_v_and_op_and_gets_its_answer() {
        let port = Arc::new(StorePort::default());
        let h = Inline(port.clone(), |r: &Value| json!({"echo": r}).to_string());
        let mut req = Map::new();
        req.insert("session_id".into(), json!("s"));
        let a = port.ask(&h, "load", req, Duration::from_secs(5)).unwrap();
        assert_eq!(a["echo"], json!({"v":1,"op":"load","session_id":"s"}));
        // Answered: a second answer is stale; an id never issued is not found.
        assert_eq!(port.complete(1, "{}").unwrap_err().code, ErrorCode::Stale);
        assert_eq!(
            port.complete(9, "{}").unwrap_err().code,
            ErrorCode::NotFound
        );
    }

    #[test]
    fn an_error_answer_is_an_io_error_with_the_hosts_message() {
        let port = Arc::new(StorePort::default());
        let h = Inline(port.clone(), |_: &Value| {
            r#"{"error":"disk full"}"#.to_string()
        });
        let e = port
            .ask(&h, "save", Map::new(), Duration::from_secs(5))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Io);
        assert_eq!(e.message, "session store: save failed: disk full");
    }

    #[test]
    fn no_answer_times_out_and_a_late_answer_is_stale() {
        struct Silent;
        impl StoreHandler for Silent {
            fn call(&self, _: u64, _: &Value) {}
        }
        let port = StorePort::default();
        let e = port
            .ask(&Silent, "list", Map::new(), Duration::from_millis(20))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Timeout);
        assert_eq!(
            e.message,
            "session store: list request 1: the host did not answer within 20 ms"
        );
        assert_eq!(port.complete(1, "{}").unwrap_err().code, ErrorCode::Stale);
    }

    #[test]
    fn a_wrong_answer_keeps_the_request_waiting() {
        let port = Arc::new(StorePort::default());
        struct Twice(Arc<StorePort>);
        impl StoreHandler for Twice {
            fn call(&self, id: u64, _: &Value) {
                assert_eq!(
                    self.0.complete(id, "[1]").unwrap_err().code,
                    ErrorCode::InvalidConfig
                );
                assert_eq!(
                    self.0.complete(id, "{x").unwrap_err().code,
                    ErrorCode::InvalidJson
                );
                self.0.complete(id, r#"{"ok":1}"#).unwrap();
            }
        }
        let a = port
            .ask(
                &Twice(port.clone()),
                "delete",
                Map::new(),
                Duration::from_secs(5),
            )
            .unwrap();
        assert_eq!(a["ok"], 1);
    }
}
