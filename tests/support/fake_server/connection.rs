//! One connection of the fake server: reads requests, records them and writes the queued or
//! computed replies (streamed, cut, hung or delayed).

use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::super::fake_http::{read_request, reason, wait_for_close};
use super::super::fake_reply::{Body, Reply, Step};
use super::{PromptUsage, Shared};

pub(super) async fn serve_connection(mut sock: TcpStream, shared: Arc<Shared>) {
    let mut buf = Vec::new();
    while let Some(req) = read_request(&mut sock, &mut buf).await {
        if req.method == "GET" || req.path.ends_with("/api/show") {
            let reply = {
                let mut st = shared.lock();
                let reply = st
                    .routes
                    .iter()
                    .find(|(p, _)| *p == req.path)
                    .map(|(_, r)| r.clone())
                    .unwrap_or_else(|| Reply::error(404, r#"{"error":"not found"}"#));
                st.probes.push(req);
                shared.changed.notify_all();
                reply
            };
            match write_reply(&mut sock, reply).await {
                Outcome::Done => continue,
                _ => return,
            }
        }
        let (reply, measured) = {
            let mut st = shared.lock();
            if let Some(v) = super::super::invariants::tool_pairing_violation(&req.path, &req.body)
            {
                st.violations.push(v);
            }
            let measured = st
                .cache
                .as_mut()
                .and_then(|c| c.apply(&req.path, &req.body));
            if let Some(u) = measured {
                st.cache_usage.push(u);
            }
            let reply = match (st.replies.pop_front(), st.responder.clone()) {
                (Some(r), _) => {
                    st.requests.push(req);
                    shared.changed.notify_all();
                    r
                }
                (None, Some(f)) => {
                    st.responded += 1;
                    drop(st);
                    f(&req)
                }
                (None, None) => {
                    st.requests.push(req);
                    shared.changed.notify_all();
                    Reply::error(
                        500,
                        r#"{"error":{"message":"fake server: no reply queued"}}"#,
                    )
                }
            };
            (reply, measured)
        };
        let reply = render_turn(reply, measured);
        let keep = match write_reply(&mut sock, reply).await {
            Outcome::Done => true,
            Outcome::Closed => false,
            Outcome::ClientGone => {
                shared.lock().disconnects += 1;
                shared.changed.notify_all();
                false
            }
        };
        if !keep {
            return;
        }
    }
}

/// A [`Reply::turn`] rendered in its wire format, with the measured prompt usage if any.
fn render_turn(reply: Reply, measured: Option<PromptUsage>) -> Reply {
    match reply.body {
        Body::Turn(kind, turn) => {
            let turn = match measured {
                Some(u) => turn.prompt_usage(&kind, u),
                None => *turn,
            };
            Reply::for_kind(&kind, &turn)
        }
        _ => reply,
    }
}

enum Outcome {
    Done,
    Closed,
    ClientGone,
}

async fn write_reply(sock: &mut TcpStream, reply: Reply) -> Outcome {
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    match reply.body {
        // Rendered by `render_turn` before it gets here.
        Body::Turn(..) => Outcome::Closed,
        Body::Hang => {
            wait_for_close(sock).await;
            Outcome::ClientGone
        }
        Body::Reset => {
            let _ = sock.set_zero_linger();
            Outcome::Closed
        }
        Body::Raw(bytes) => {
            let _ = sock.write_all(&bytes).await;
            let _ = sock.shutdown().await;
            Outcome::Closed
        }
        Body::Full(text) => {
            head.push_str(&format!("content-length: {}\r\n\r\n", text.len()));
            head.push_str(&text);
            if sock.write_all(head.as_bytes()).await.is_err() {
                return Outcome::ClientGone;
            }
            Outcome::Done
        }
        Body::Stream(steps) => {
            head.push_str("transfer-encoding: chunked\r\n\r\n");
            if sock.write_all(head.as_bytes()).await.is_err() {
                return Outcome::ClientGone;
            }
            for step in steps {
                match step {
                    Step::Bytes(b) => {
                        let mut chunk = format!("{:x}\r\n", b.len()).into_bytes();
                        chunk.extend_from_slice(&b);
                        chunk.extend_from_slice(b"\r\n");
                        if sock.write_all(&chunk).await.is_err() || sock.flush().await.is_err() {
                            return Outcome::ClientGone;
                        }
                    }
                    Step::Delay(d) => {
                        // A client that goes away during the delay counts as a disconnect.
                        let mut tmp = [0u8; 64];
                        tokio::select! {
                            _ = tokio::time::sleep(d) => {}
                            r = sock.read(&mut tmp) => {
                                if matches!(r, Ok(0) | Err(_)) {
                                    return Outcome::ClientGone;
                                }
                            }
                        }
                    }
                    Step::Cut => {
                        let _ = sock.shutdown().await;
                        return Outcome::Closed;
                    }
                    Step::Hang => {
                        wait_for_close(sock).await;
                        return Outcome::ClientGone;
                    }
                    Step::Reset => {
                        let _ = sock.set_zero_linger();
                        return Outcome::Closed;
                    }
                }
            }
            if sock.write_all(b"0\r\n\r\n").await.is_err() {
                return Outcome::ClientGone;
            }
            Outcome::Done
        }
    }
}
