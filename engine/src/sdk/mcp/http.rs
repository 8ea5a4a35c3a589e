//! rmcp's streamable-HTTP client trait over the library's own `reqwest` 0.12 pool (rmcp's
//! built-in implementation needs reqwest 0.13: a second HTTP stack would cost ~0.4 MiB of the
//! shipped library). Protocol logic (sessions, SSE resumption, JSON-RPC) stays in rmcp; this
//! file only moves bytes: POST/GET/DELETE with the MCP headers, and the response sorted into
//! accepted / JSON / SSE.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures_util::stream::{BoxStream, StreamExt};
use reqwest::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::StatusCode;
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_LAST_EVENT_ID, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Sse, SseStream};

/// Longest error body quoted in a message (bytes).
const ERROR_BODY_QUOTED: usize = 512;

/// The library's HTTP pool as an rmcp streamable-HTTP client.
#[derive(Clone)]
pub struct McpHttp(pub reqwest::Client);

type HttpError = StreamableHttpError<reqwest::Error>;

fn media_type_is(value: Option<&HeaderValue>, expected: &str) -> bool {
    value
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case(expected))
}

fn with_headers(
    mut req: reqwest::RequestBuilder,
    session_id: Option<&str>,
    auth: Option<String>,
    custom: HashMap<HeaderName, HeaderValue>,
) -> reqwest::RequestBuilder {
    if let Some(s) = session_id {
        req = req.header(HEADER_SESSION_ID, s);
    }
    if let Some(a) = auth {
        req = req.bearer_auth(a);
    }
    for (k, v) in custom {
        req = req.header(k, v);
    }
    req
}

fn sse(resp: reqwest::Response) -> BoxStream<'static, Result<Sse, SseError>> {
    SseStream::from_bytes_stream(resp.bytes_stream()).boxed()
}

fn quoted(body: &[u8]) -> String {
    let end = body.len().min(ERROR_BODY_QUOTED);
    String::from_utf8_lossy(&body[..end]).into_owned()
}

impl StreamableHttpClient for McpHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let req = self.0.post(uri.as_ref()).header(
            ACCEPT,
            format!("{JSON_MIME_TYPE}, {EVENT_STREAM_MIME_TYPE}"),
        );
        let with_session = session_id.is_some();
        let req = with_headers(req, session_id.as_deref(), auth_header, custom_headers);
        let resp = req
            .json(&message)
            .send()
            .await
            .map_err(StreamableHttpError::Client)?;
        let status = resp.status();
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && with_session {
            return Err(StreamableHttpError::SessionExpired);
        }
        let session = resp
            .headers()
            .get(HEADER_SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let ctype = resp.headers().get(CONTENT_TYPE).cloned();
        let awaits_nothing = !matches!(message, ClientJsonRpcMessage::Request(_));
        if status.is_success() && media_type_is(ctype.as_ref(), EVENT_STREAM_MIME_TYPE) {
            return Ok(StreamableHttpPostResponse::Sse(sse(resp), session));
        }
        let is_json = media_type_is(ctype.as_ref(), JSON_MIME_TYPE);
        let body = resp.bytes().await.map_err(StreamableHttpError::Client)?;
        if !status.is_success() {
            // A JSON-RPC error in a failure status still answers the request.
            if let Ok(m @ JsonRpcMessage::Error(_)) =
                serde_json::from_slice::<ServerJsonRpcMessage>(&body)
            {
                return Ok(StreamableHttpPostResponse::Json(m, session));
            }
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!("HTTP {status}: {}", quoted(&body)),
            )));
        }
        if awaits_nothing && (!is_json || body.is_empty()) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if !is_json {
            return Err(StreamableHttpError::UnexpectedContentType(
                ctype.map(|c| String::from_utf8_lossy(c.as_bytes()).into_owned()),
            ));
        }
        match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
            Ok(m) => Ok(StreamableHttpPostResponse::Json(m, session)),
            Err(_) if awaits_nothing => Ok(StreamableHttpPostResponse::Accepted),
            Err(e) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!("invalid JSON-RPC message ({e}): {}", quoted(&body)),
            ))),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        let req = with_headers(
            self.0.delete(uri.as_ref()),
            Some(&session_id),
            auth_header,
            custom_headers,
        );
        let resp = req.send().await.map_err(StreamableHttpError::Client)?;
        if resp.status() == StatusCode::METHOD_NOT_ALLOWED {
            return Ok(());
        }
        resp.error_for_status()
            .map(|_| ())
            .map_err(StreamableHttpError::Client)
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        let mut req = self.0.get(uri.as_ref()).header(
            ACCEPT,
            format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"),
        );
        if let Some(id) = last_event_id {
            req = req.header(HEADER_LAST_EVENT_ID, id);
        }
        let req = with_headers(req, session_id.as_deref(), auth_header, custom_headers);
        let resp = req.send().await.map_err(StreamableHttpError::Client)?;
        if resp.status() == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        let resp = resp
            .error_for_status()
            .map_err(StreamableHttpError::Client)?;
        if !media_type_is(resp.headers().get(CONTENT_TYPE), EVENT_STREAM_MIME_TYPE) {
            return Err(StreamableHttpError::UnexpectedContentType(
                resp.headers()
                    .get(CONTENT_TYPE)
                    .map(|c| String::from_utf8_lossy(c.as_bytes()).into_owned()),
            ));
        }
        Ok(sse(resp))
    }
}
