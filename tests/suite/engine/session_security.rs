//! Security of the permission gate: path patterns of Read/Write/Edit are matched against the
//! normalized absolute path (`..`, `.`, relative paths and symlinks resolved), so traversal and
//! symlink escapes cannot satisfy an allow rule nor dodge a deny rule.

use crate::support::session as session_support;

use std::path::Path;
use std::sync::Arc;

use robota_engine::core::message::Message;
use robota_engine::core::permissions::{PermissionDecision, PermissionLists, PermissionMode};
use robota_engine::core::tool::Tool;
use robota_engine::session::paths::{normalize_path_glob, resolve_path};
use robota_engine::session::{Session, SessionRunOptions};
use serde_json::json;
use session_support::*;

fn session_in(dir: &Path, mode: PermissionMode, allow: &[&str], deny: &[&str]) -> Session {
    let mut o = options(scripted(json!([])), dir, vec![]);
    o.permission_mode = mode;
    o.permissions = PermissionLists {
        allow: allow.iter().map(|s| s.to_string()).collect(),
        deny: deny.iter().map(|s| s.to_string()).collect(),
    };
    Session::new(o).unwrap()
}

fn decide(s: &Session, tool: &str, path: &str) -> PermissionDecision {
    s.enforcer().evaluate(tool, &json!({ "filePath": path })).0
}

fn canon(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn reference_patterns_on_absolute_paths() {
    let dir = tempfile::tempdir().unwrap();
    let s = session_in(
        dir.path(),
        PermissionMode::Default,
        &["Write(/src/**)"],
        &[],
    );
    assert_eq!(
        decide(&s, "Write", "/src/a/b/c.ts"),
        PermissionDecision::Auto
    );
    assert_eq!(
        decide(&s, "Write", "/lib/foo.ts"),
        PermissionDecision::Approve
    );
    // `**` needs at least one character.
    assert_eq!(decide(&s, "Write", "/src/"), PermissionDecision::Approve);
    // Traversal out of /src does not match the allow rule.
    assert_eq!(
        decide(&s, "Write", "/src/../etc/passwd"),
        PermissionDecision::Approve
    );
    assert_eq!(
        decide(&s, "Write", "/src/./a/../../etc/passwd"),
        PermissionDecision::Approve
    );
    // ...and a deny rule for the real target catches it.
    let s = session_in(
        dir.path(),
        PermissionMode::BypassPermissions,
        &["Read(/src/**)"],
        &["Read(/etc/**)"],
    );
    assert_eq!(
        decide(&s, "Read", "/src/../etc/passwd"),
        PermissionDecision::Deny
    );
    assert_eq!(
        decide(&s, "Read", "/etc/./passwd"),
        PermissionDecision::Deny
    );
    assert_eq!(decide(&s, "Read", "/src/ok.txt"), PermissionDecision::Auto);
}

#[test]
fn relative_paths_and_patterns_resolve_against_the_session_cwd() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    let s = session_in(
        dir.path(),
        PermissionMode::Default,
        &["Write(src/**)", "Edit(./docs/*.md)"],
        &["Read(secret/**)"],
    );
    let root = canon(dir.path());
    assert_eq!(decide(&s, "Write", "src/main.rs"), PermissionDecision::Auto);
    assert_eq!(
        decide(&s, "Write", &format!("{root}/src/main.rs")),
        PermissionDecision::Auto
    );
    assert_eq!(
        decide(&s, "Write", "./src/../build.rs"),
        PermissionDecision::Approve
    );
    assert_eq!(
        decide(&s, "Write", "src/../../outside.rs"),
        PermissionDecision::Approve
    );
    assert_eq!(
        decide(&s, "Edit", "docs/guide.md"),
        PermissionDecision::Auto
    );
    assert_eq!(
        decide(&s, "Edit", "docs/../guide.md"),
        PermissionDecision::Approve
    );
    assert_eq!(
        decide(&s, "Read", "public/../secret/key.pem"),
        PermissionDecision::Deny
    );
    assert_eq!(
        decide(&s, "Read", "./secret/key.pem"),
        PermissionDecision::Deny
    );
    assert_eq!(
        decide(&s, "Read", &format!("{root}/x/../secret/key.pem")),
        PermissionDecision::Deny
    );
    assert_eq!(
        decide(&s, "Read", "secretive/notes"),
        PermissionDecision::Auto
    );
}

#[cfg(unix)]
#[test]
fn symlinks_cannot_escape_an_allow_rule_or_dodge_a_deny_rule() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("private")).unwrap();
    std::fs::write(root.join("private/key"), "k").unwrap();
    std::os::unix::fs::symlink(root.join("private"), root.join("src/link")).unwrap();
    std::os::unix::fs::symlink("../private/key", root.join("src/key-link")).unwrap();
    let s = session_in(
        root,
        PermissionMode::Default,
        &["Write(src/**)", "Read(src/**)"],
        &["Read(private/**)"],
    );
    // Writing through the directory link (file does not exist yet) lands in private/.
    assert_eq!(
        decide(&s, "Write", "src/link/new.txt"),
        PermissionDecision::Approve
    );
    assert_eq!(
        decide(&s, "Write", "src/real.txt"),
        PermissionDecision::Auto
    );
    // Reading through a link to a denied file is denied, whatever the allow rule says.
    assert_eq!(decide(&s, "Read", "src/key-link"), PermissionDecision::Deny);
    assert_eq!(decide(&s, "Read", "src/link/key"), PermissionDecision::Deny);
    // `..` after a symlink follows the link's target, like the OS does.
    assert_eq!(
        resolve_path(root, "src/link/../src/x"),
        std::fs::canonicalize(root).unwrap().join("src/x")
    );
}

#[cfg(unix)]
#[test]
fn symlinked_pattern_directories_are_resolved_too() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("real/data")).unwrap();
    std::os::unix::fs::symlink(root.join("real"), root.join("alias")).unwrap();
    let canon_root = canon(root);
    assert_eq!(
        normalize_path_glob(root, "alias/data/**"),
        format!("{canon_root}/real/data/**")
    );
    assert_eq!(normalize_path_glob(root, "**/*.rs"), "**/*.rs");
    assert_eq!(normalize_path_glob(root, "*"), "*");
    let s = session_in(
        root,
        PermissionMode::Default,
        &["Write(alias/data/**)"],
        &[],
    );
    assert_eq!(
        decide(&s, "Write", "real/data/f.txt"),
        PermissionDecision::Auto
    );
    assert_eq!(
        decide(&s, "Write", "alias/data/f.txt"),
        PermissionDecision::Auto
    );
}

#[test]
fn traversal_through_a_real_session_is_refused_and_the_tool_never_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    for (tool, path, should_run) in [
        ("Write", "src/ok.txt", true),
        ("Write", "/tmp/../etc/passwd", false),
        ("Edit", "src/ok.txt", true),
        ("Edit", "src/../Cargo.toml", false),
        ("Read", "src/ok.txt", true),
        ("Read", "src/../.env", false),
    ] {
        let t = RecTool::new(tool);
        let mut o = options(
            scripted(call_then_answer(tool, json!({"filePath": path}), "done")),
            dir.path(),
            vec![t.clone() as Arc<dyn Tool>],
        );
        o.permission_mode = PermissionMode::BypassPermissions;
        o.permissions = PermissionLists {
            allow: vec![],
            deny: vec![
                "Read(.env)".into(),
                "Write(/etc/**)".into(),
                "Edit(Cargo.toml)".into(),
            ],
        };
        let s = Session::new(o).unwrap();
        rt().block_on(s.run(Message::user("go"), SessionRunOptions::default()))
            .unwrap();
        assert_eq!(t.count() == 1, should_run, "{tool} {path}");
        if !should_run {
            assert!(
                tool_message(&s).starts_with(
                    r#"{"success":false,"output":"","error":"Permission denied. The user did not approve this action. The deny rule"#
                ),
                "{}",
                tool_message(&s)
            );
        }
    }
}

#[test]
fn non_path_tools_and_non_string_paths_are_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let s = session_in(
        dir.path(),
        PermissionMode::Default,
        &["Bash(ls ../*)"],
        &["Write(*)"],
    );
    assert_eq!(
        s.enforcer()
            .evaluate("Bash", &json!({"command":"ls ../x"}))
            .0,
        PermissionDecision::Auto
    );
    // A non-string filePath matches no pattern (Write(*) would otherwise deny).
    assert_eq!(
        s.enforcer().evaluate("Write", &json!({"filePath": 5})).0,
        PermissionDecision::Approve
    );
}
