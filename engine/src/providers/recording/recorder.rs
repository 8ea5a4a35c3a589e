//! The recorder (`"record": "path.jsonl"`): a provider wrapper that appends each model call —
//! its normalized request, the stream in order and the response or error — to a recording
//! (format in [`recording`](super)). Headers and keys never reach it: it sees only the
//! provider-neutral request.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{
    ErrorRecord, Exchange, Header, Line, RequestRecord, ResponseRecord, StreamItem, WindowRecord,
    FORMAT_VERSION,
};
use crate::core::errors::RobotaError;
use crate::core::provider::{
    ChatRequest, ChatResponse, Provider, ProviderCapabilities, RawPayloadEvent, StreamSink,
};

/// A provider whose calls are appended to a recording.
pub struct RecordingProvider {
    inner: Arc<dyn Provider>,
    path: PathBuf,
    file: Mutex<File>,
}

impl RecordingProvider {
    /// Opens (creates or appends to) the recording at `path` and wraps `inner`. A non-empty
    /// file must start with this build's header; a new or empty one gets it.
    pub fn open(inner: Arc<dyn Provider>, path: &Path) -> Result<Self, String> {
        let shown = path.display();
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .map_err(|e| format!("cannot open the recording \"{shown}\": {e}"))?;
        let len = file
            .metadata()
            .map_err(|e| format!("cannot open the recording \"{shown}\": {e}"))?
            .len();
        if len == 0 {
            let mut line = serde_json::to_string(&Header::current()).unwrap_or_default();
            line.push('\n');
            file.write_all(line.as_bytes())
                .map_err(|e| format!("cannot write the recording \"{shown}\": {e}"))?;
        } else {
            let mut first = String::new();
            BufReader::new(&file)
                .read_line(&mut first)
                .map_err(|e| format!("cannot read the recording \"{shown}\": {e}"))?;
            check_header(&first).map_err(|e| format!("recording \"{shown}\" line 1: {e}"))?;
        }
        Ok(RecordingProvider {
            inner,
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    fn append(&self, line: &Line) {
        let Ok(mut text) = serde_json::to_string(line) else {
            return;
        };
        text.push('\n');
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = f.write_all(text.as_bytes()) {
            crate::log_at!(
                crate::core::log::WARN,
                "robota::record",
                "cannot append to the recording \"{}\": {e}",
                self.path.display()
            );
        }
    }
}

/// Checks a header line: this build's format version.
pub fn check_header(line: &str) -> Result<(), String> {
    let h: Header = serde_json::from_str(line.trim_end())
        .map_err(|e| format!("not a robota recording header ({e})"))?;
    if h.robota_recording != FORMAT_VERSION {
        return Err(format!(
            "recording format version {} (written by robota {}) is not supported; this build reads version {FORMAT_VERSION}",
            h.robota_recording,
            if h.library.is_empty() { "?" } else { &h.library }
        ));
    }
    Ok(())
}

/// Passes everything on and keeps the streamed items.
struct Tee<'a> {
    inner: &'a mut dyn StreamSink,
    items: Vec<StreamItem>,
}

impl StreamSink for Tee<'_> {
    fn on_text(&mut self, delta: &str) {
        self.items.push(StreamItem::Text(delta.to_string()));
        self.inner.on_text(delta);
    }
    fn on_thinking(&mut self, delta: &str) {
        self.items.push(StreamItem::Thinking(delta.to_string()));
        self.inner.on_thinking(delta);
    }
    fn on_raw_payload(&mut self, event: RawPayloadEvent) {
        self.inner.on_raw_payload(event);
    }
    fn wants_raw_payloads(&self) -> bool {
        self.inner.wants_raw_payloads()
    }
    fn on_server_tool(&mut self, name: &str, input: &Value) {
        self.items.push(StreamItem::ServerTool {
            name: name.to_string(),
            input: input.clone(),
        });
        self.inner.on_server_tool(name, input);
    }
    fn on_activity(&mut self) {
        self.inner.on_activity();
    }
}

#[async_trait]
impl Provider for RecordingProvider {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> ProviderCapabilities {
        self.inner.capabilities()
    }

    fn native_output_schema(&self) -> bool {
        self.inner.native_output_schema()
    }

    async fn context_window(&self, model: &str) -> Option<u64> {
        let w = self.inner.context_window(model).await;
        if let Some(tokens) = w {
            self.append(&Line::ContextWindow(WindowRecord {
                model: model.to_string(),
                tokens,
            }));
        }
        w
    }

    async fn chat(
        &self,
        request: ChatRequest<'_>,
        sink: &mut dyn StreamSink,
        cancel: CancellationToken,
    ) -> Result<ChatResponse, RobotaError> {
        let record = RequestRecord::of(&request);
        let mut tee = Tee {
            inner: sink,
            items: Vec::new(),
        };
        let result = self.inner.chat(request, &mut tee, cancel).await;
        let (response, error) = match &result {
            Ok(r) => (Some(ResponseRecord::of(r)), None),
            Err(e) => (None, Some(ErrorRecord::of(e))),
        };
        self.append(&Line::Exchange(Box::new(Exchange {
            request: record,
            stream: tee.items,
            response,
            error,
        })));
        result
    }
}
