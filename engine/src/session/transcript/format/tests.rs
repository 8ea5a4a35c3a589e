//! Tests of the line formats: cached line heads and timestamps match a full formatting.

use super::*;

#[test]
fn cached_heads_are_the_heads_of_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let formats =
        ["s1", "s2"].map(|id| LineFormat::new(id, Payloads::new(dir.path(), id, 1 << 15)).unwrap());
    let base = 1_795_773_239_998i64;
    let mut scratch = Scratch::default();
    let (mut got, mut want) = (Vec::new(), Vec::new());
    let mut rng = fastrand::Rng::with_seed(3);
    for i in 0..400u64 {
        let f = &formats[rng.usize(0..2)];
        let at = base + rng.i64(0..4);
        let turn = rng.u64(0..3);
        let (event, key) = *rng
            .choice([
                ("text_delta", "text"),
                ("text_delta", "thinking"),
                ("message", ""),
            ])
            .as_ref()
            .unwrap();
        let body = format!("{{\"v\":1,\"n\":{i}}}");
        let mut batch = Batch::with_capacity();
        let stamp = chrono::DateTime::from_timestamp_millis(at)
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        want.extend_from_slice(format!("{{\"timestamp\":\"{stamp}").as_bytes());
        want.extend_from_slice(&f.mid);
        want.extend_from_slice(format!("\"{event}\"").as_bytes());
        if turn != 0 {
            want.extend_from_slice(format!(",\"turn_id\":{turn}").as_bytes());
        }
        if key.is_empty() {
            batch.push_json(at, event, turn, body.as_bytes());
            want.extend_from_slice(format!(",\"n\":{i}}}\n").as_bytes());
        } else {
            batch.push_text(at, event, turn, key, &body);
            want.extend_from_slice(
                format!(",\"{key}\":{}}}\n", serde_json::to_string(&body).unwrap()).as_bytes(),
            );
        }
        f.format(&batch, &mut scratch, &mut got).unwrap();
    }
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
}

#[test]
fn timestamps_within_a_second_match_the_calendar() {
    let mut stamp = Stamp::default();
    let start = 1_795_773_239_000i64 - 1500;
    for ms in (start..start + 3200)
        .step_by(7)
        .chain([0, 999, 1000, 253_402_300_799_999])
    {
        let want = chrono::DateTime::from_timestamp_millis(ms)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        assert_eq!(String::from_utf8_lossy(stamp.at(ms)), want, "{ms}");
    }
}
