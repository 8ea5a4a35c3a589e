//! The session directory's listing index (`.robota-index.jsonl`): later listings read only new
//! or changed files, a file changed in place or cut short is noticed, and a corrupt, foreign or
//! missing index changes nothing but speed.

use robota_engine::session::store::index::INDEX_FILE;
use robota_engine::session::store::list::list;
use serde_json::json;

fn write_session(dir: &std::path::Path, id: &str, name: &str, updated: &str) {
    let doc = json!({"v":1,"kind":"robota.session","session_id":id,"name":name,"cwd":"/w",
        "created_at":"2026-01-01T00:00:00.000Z","updated_at":updated,"message_count":1,
        "config":{},"messages":[]});
    std::fs::write(
        dir.join(format!("{id}.json")),
        serde_json::to_string_pretty(&doc).unwrap(),
    )
    .unwrap();
}

fn names(dir: &std::path::Path) -> Vec<(String, Option<String>)> {
    list(dir, None, None)
        .unwrap()
        .sessions
        .into_iter()
        .map(|s| (s.id, s.name))
        .collect()
}

#[test]
fn the_index_follows_new_changed_cut_and_deleted_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_session(d, "a", "first", "2026-01-01T00:00:01.000Z");
    write_session(d, "b", "second", "2026-01-01T00:00:02.000Z");
    let first = names(d);
    assert_eq!(
        first,
        vec![
            ("b".to_string(), Some("second".to_string())),
            ("a".to_string(), Some("first".to_string()))
        ]
    );
    // The listing wrote a versioned index naming both files.
    let index = std::fs::read_to_string(d.join(INDEX_FILE)).unwrap();
    let mut lines = index.lines();
    assert_eq!(
        lines.next(),
        Some(r#"{"v":1,"kind":"robota.session-index"}"#)
    );
    let files: Vec<String> = lines
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].to_string())
        .collect();
    assert_eq!(files.len(), 2, "{index}");
    // Listed again from the index: the same.
    assert_eq!(names(d), first);

    // Changed in place (same inode, other size): read again.
    write_session(d, "a", "renamed", "2026-01-01T00:00:03.000Z");
    assert_eq!(names(d)[0], ("a".to_string(), Some("renamed".to_string())));
    // Cut short in place: skipped by name, not served from the index.
    let full = std::fs::read_to_string(d.join("b.json")).unwrap();
    std::fs::write(d.join("b.json"), &full[..full.len() - 30]).unwrap();
    let l = list(d, None, None).unwrap();
    assert_eq!(l.sessions.len(), 1);
    assert_eq!(l.skipped.len(), 1);
    assert_eq!(l.skipped[0].file, "b.json");
    // The skip is remembered too, and still reported.
    let again = list(d, None, None).unwrap();
    assert_eq!(again.skipped, l.skipped);
    // Deleted: gone from the listing and from the index.
    std::fs::remove_file(d.join("b.json")).unwrap();
    assert_eq!(list(d, None, None).unwrap().skipped, vec![]);
    let index = std::fs::read_to_string(d.join(INDEX_FILE)).unwrap();
    assert_eq!(index.lines().count(), 2, "{index}");
}

#[test]
fn a_corrupt_or_foreign_index_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_session(d, "a", "first", "2026-01-01T00:00:01.000Z");
    for bad in [
        "not json at all",
        "{\"v\":99,\"kind\":\"robota.session-index\"}\n{\"file\":\"a.json\"}\n",
        "",
    ] {
        std::fs::write(d.join(INDEX_FILE), bad).unwrap();
        assert_eq!(
            names(d),
            vec![("a".to_string(), Some("first".to_string()))],
            "{bad}"
        );
        let index = std::fs::read_to_string(d.join(INDEX_FILE)).unwrap();
        assert!(
            index.starts_with(r#"{"v":1,"kind":"robota.session-index"}"#),
            "{index}"
        );
    }
    // A line of the right version that lies about a file's stamp is not trusted.
    let index = std::fs::read_to_string(d.join(INDEX_FILE)).unwrap();
    let forged = index
        .replace("\"first\"", "\"forged\"")
        .replace("\"size\":", "\"size\":1");
    std::fs::write(d.join(INDEX_FILE), forged).unwrap();
    assert_eq!(names(d)[0].1.as_deref(), Some("first"));
}
