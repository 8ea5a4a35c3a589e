//! Unit tests of [`super::sse::SseParser`]: line ends, split points, comments, unterminated
//! last events.

use super::sse::SseParser;

fn collect(chunks: &[&[u8]]) -> Vec<(String, String)> {
    let mut p = SseParser::new();
    let mut out = Vec::new();
    for c in chunks {
        p.feed::<()>(c, |e| {
            out.push((e.event.to_string(), e.data.to_string()));
            Ok(())
        })
        .unwrap();
    }
    out
}

fn ev(e: &str, d: &str) -> (String, String) {
    (e.to_string(), d.to_string())
}

#[test]
fn lf_and_crlf_and_cr() {
    let want = vec![ev("a", "1"), ev("", "2")];
    assert_eq!(collect(&[b"event: a\ndata: 1\n\ndata: 2\n\n"]), want);
    assert_eq!(
        collect(&[b"event: a\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n"]),
        want
    );
    assert_eq!(collect(&[b"event: a\rdata: 1\r\rdata: 2\r\r"]), want);
}

#[test]
fn every_split_point_gives_the_same_events() {
    let stream: &[u8] =
        b": comment\r\nevent: x\r\ndata: {\"a\":1}\r\n\r\ndata:first\ndata: second\n\nevent: y\rdata: \xc3\xa9t\xc3\xa9\r\r";
    let whole = collect(&[stream]);
    assert_eq!(
        whole,
        vec![
            ev("x", "{\"a\":1}"),
            ev("", "first\nsecond"),
            ev("y", "été")
        ]
    );
    for i in 0..=stream.len() {
        for j in i..=stream.len() {
            let got = collect(&[&stream[..i], &stream[i..j], &stream[j..]]);
            assert_eq!(got, whole, "split at {i},{j}");
        }
    }
}

#[test]
fn comments_and_events_without_data_are_not_dispatched() {
    assert_eq!(
        collect(&[b": ping\n\nevent: only\n\nid: 7\nretry: 10\n\n"]),
        vec![]
    );
}

#[test]
fn field_without_space_and_empty_data() {
    assert_eq!(
        collect(&[b"data:x\n\ndata\n\ndata:\n\n"]),
        vec![ev("", "x"), ev("", ""), ev("", "")]
    );
}

#[test]
fn partial_event_at_end_is_reported() {
    let mut p = SseParser::new();
    let mut n = 0;
    p.feed::<()>(b"data: 1\n\ndata: {\"cut", |_| {
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(n, 1);
    assert!(p.has_partial_event());
    p.reset();
    assert!(!p.has_partial_event());
    p.feed::<()>(b"data: 1\n", |_| Ok(())).unwrap();
    assert!(p.has_partial_event());
}

#[test]
fn finish_dispatches_an_unterminated_last_event() {
    for tail in [
        &b"data: 2"[..],
        b"data: 2\n",
        b"data: 2\r\n",
        b"event: e\r\ndata: 2\r",
    ] {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        let mut stream = b"data: 1\n\n".to_vec();
        stream.extend_from_slice(tail);
        p.feed::<()>(&stream, |e| {
            out.push(e.data.to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!(out, vec!["1"]);
        assert!(p.has_partial_event());
        p.finish::<()>(|e| {
            out.push(e.data.to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!(out, vec!["1", "2"], "{tail:?}");
        assert!(!p.has_partial_event());
    }
    // Nothing pending: nothing dispatched.
    let mut p = SseParser::new();
    let mut n = 0;
    p.feed::<()>(b"data: 1\n\n: comment", |_| Ok(())).unwrap();
    p.finish::<()>(|_| {
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(n, 0);
}

#[test]
fn callback_error_stops_feeding() {
    let mut p = SseParser::new();
    let mut seen = Vec::new();
    let r = p.feed(b"data: a\n\ndata: b\n\ndata: c\n\n", |e| {
        seen.push(e.data.to_string());
        if e.data == "b" {
            Err("stop")
        } else {
            Ok(())
        }
    });
    assert_eq!(r, Err("stop"));
    assert_eq!(seen, vec!["a", "b"]);
}

#[test]
fn id_is_kept_across_events() {
    let mut p = SseParser::new();
    let mut ids = Vec::new();
    p.feed::<()>(b"id: 5\ndata: a\n\ndata: b\n\n", |e| {
        ids.push(e.id.to_string());
        Ok(())
    })
    .unwrap();
    assert_eq!(ids, vec!["5", "5"]);
}
