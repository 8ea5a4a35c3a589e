//! The raw loop's HTTP: hyper's HTTP/1.1 client connection over a plain `TcpStream` (no TLS
//! stack, no pool crate, no URL crate), with a free list of keep-alive connections so that
//! scenarios in a row reuse one as any client would.

use std::sync::Mutex;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HeaderValue, AUTHORIZATION, CONTENT_TYPE, HOST};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::scenario::Kind;

/// Where the model server is and the idle connections to it.
pub(crate) struct Endpoint {
    kind: Kind,
    authority: String,
    host: HeaderValue,
    path: String,
    idle: Mutex<Vec<SendRequest<Full<Bytes>>>>,
}

impl Endpoint {
    /// `base_url` is `http://HOST:PORT[/prefix]`.
    pub(crate) fn new(kind: Kind, base_url: &str) -> Result<Self, String> {
        let rest = base_url
            .strip_prefix("http://")
            .ok_or_else(|| format!("not an http:// URL: {base_url}"))?;
        let (authority, prefix) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let path = match kind {
            Kind::Anthropic => format!("{prefix}/v1/messages"),
            Kind::OpenAi => format!("{prefix}/chat/completions"),
        };
        Ok(Endpoint {
            kind,
            authority: authority.to_string(),
            host: HeaderValue::from_str(authority).map_err(|e| e.to_string())?,
            path,
            idle: Mutex::new(Vec::new()),
        })
    }

    /// The wire format spoken.
    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    /// An idle keep-alive connection, or a new one.
    pub(crate) async fn connection(&self) -> Result<SendRequest<Full<Bytes>>, String> {
        let reused = self.idle.lock().map_err(|e| e.to_string())?.pop();
        if let Some(conn) = reused.filter(|c| !c.is_closed()) {
            return Ok(conn);
        }
        let stream = TcpStream::connect(&self.authority)
            .await
            .map_err(|e| format!("connect {}: {e}", self.authority))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let (send, conn) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(send)
    }

    /// Gives a connection back for the next scenario.
    pub(crate) fn release(&self, conn: SendRequest<Full<Bytes>>) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(conn);
        }
    }

    /// POSTs `body` and feeds every chunk of the streamed response to `on_chunk`.
    pub(crate) async fn post(
        &self,
        conn: &mut SendRequest<Full<Bytes>>,
        body: Vec<u8>,
        mut on_chunk: impl FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut req = hyper::Request::post(self.path.as_str())
            .header(HOST, self.host.clone())
            .header(CONTENT_TYPE, "application/json");
        req = match self.kind {
            Kind::Anthropic => req
                .header("x-api-key", "floor-key")
                .header("anthropic-version", "2023-06-01"),
            Kind::OpenAi => req.header(AUTHORIZATION, "Bearer floor-key"),
        };
        let req = req
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| e.to_string())?;
        conn.ready().await.map_err(|e| e.to_string())?;
        let resp = conn.send_request(req).await.map_err(|e| e.to_string())?;
        if !resp.status().is_success() {
            return Err(format!("HTTP {}", resp.status()));
        }
        let mut body = resp.into_body();
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame.map_err(|e| e.to_string())?.into_data() {
                on_chunk(&data)?;
            }
        }
        Ok(())
    }
}
