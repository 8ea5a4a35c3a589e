//! Permission policy (deny patterns, then allow patterns, then the mode's table): matrix,
//! patterns, deny-over-allow, trust aliases.

use robota_engine::core::permissions::*;
use serde_json::json;

fn lists(allow: &[&str], deny: &[&str]) -> PermissionLists {
    PermissionLists {
        allow: allow.iter().map(|s| s.to_string()).collect(),
        deny: deny.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn full_mode_by_tool_matrix() {
    use PermissionDecision::*;
    let expected: [(PermissionMode, [PermissionDecision; 4]); 4] = [
        // read-ish, write/edit, bash, unknown
        (PermissionMode::Plan, [Auto, Deny, Deny, Deny]),
        (PermissionMode::Default, [Auto, Approve, Approve, Approve]),
        (PermissionMode::AcceptEdits, [Auto, Auto, Approve, Approve]),
        (PermissionMode::BypassPermissions, [Auto, Auto, Auto, Auto]),
    ];
    let empty = PermissionLists::default();
    for (mode, [read, write, bash, unknown]) in expected {
        for t in ["Read", "Glob", "Grep", "WebFetch", "WebSearch"] {
            assert_eq!(
                evaluate_permission(t, &json!({}), mode, &empty),
                read,
                "{t} {mode:?}"
            );
        }
        for t in ["Write", "Edit"] {
            assert_eq!(
                evaluate_permission(t, &json!({}), mode, &empty),
                write,
                "{t} {mode:?}"
            );
        }
        assert_eq!(
            evaluate_permission("Bash", &json!({}), mode, &empty),
            bash,
            "Bash {mode:?}"
        );
        assert_eq!(
            evaluate_permission("my_tool", &json!({}), mode, &empty),
            unknown,
            "unknown {mode:?}"
        );
        assert_eq!(unknown_tool_fallback(mode), unknown);
    }
}

#[test]
fn deny_beats_allow_in_every_mode() {
    let l = lists(&["Bash"], &["Bash(rm *)"]);
    for mode in PermissionMode::ALL {
        assert_eq!(
            evaluate_permission("Bash", &json!({"command":"rm -rf /"}), mode, &l),
            PermissionDecision::Deny
        );
        assert_eq!(
            evaluate_permission("Bash", &json!({"command":"ls"}), mode, &l),
            PermissionDecision::Auto
        );
    }
}

#[test]
fn bash_patterns() {
    let l = lists(&["Bash(pnpm *)"], &[]);
    let d = |cmd: &str| {
        evaluate_permission(
            "Bash",
            &json!({ "command": cmd }),
            PermissionMode::Default,
            &l,
        )
    };
    assert_eq!(d("pnpm test"), PermissionDecision::Auto);
    assert_eq!(d("pnpm "), PermissionDecision::Auto);
    assert_eq!(d("pnpm"), PermissionDecision::Approve);
    assert_eq!(d("npm test"), PermissionDecision::Approve);
}

#[test]
fn path_patterns() {
    assert!(pattern_matches(
        "Read(/src/**)",
        "Read",
        &json!({"filePath":"/src/a/b/c.ts"})
    ));
    assert!(!pattern_matches(
        "Read(/src/**)",
        "Read",
        &json!({"filePath":"/lib/foo.ts"})
    ));
    assert!(!pattern_matches(
        "Read(/src/**)",
        "Read",
        &json!({"filePath":"/src/"})
    ));
    assert!(pattern_matches(
        "Write(*)",
        "Write",
        &json!({"filePath":""})
    ));
    assert!(pattern_matches(
        "Write(*)",
        "Write",
        &json!({"filePath":"/any/where"})
    ));
    assert!(
        pattern_matches(
            "Edit(/src/*.{ts,tsx})",
            "Edit",
            &json!({"filePath":"/src/a.tsx"})
        ),
        "braces"
    );
    assert!(!pattern_matches(
        "Edit(/src/*.{ts,tsx})",
        "Edit",
        &json!({"filePath":"/src/a.rs"})
    ));
    assert!(pattern_matches(
        "Glob(**/*.rs)",
        "Glob",
        &json!({"pattern":"src/**/*.rs"})
    ));
}

#[test]
fn pattern_parsing_rules() {
    assert_eq!(parse_pattern(" Bash "), ("Bash", None));
    assert_eq!(parse_pattern("Bash( ls * )"), ("Bash", Some("ls *")));
    assert_eq!(parse_pattern("Bash(echo (x))"), ("Bash", Some("echo (x)")));
    // A missing `)` drops the final character.
    assert_eq!(parse_pattern("Bash(ls *x"), ("Bash", Some("ls *")));
    // Tool name compared exactly and case-sensitively.
    assert!(!pattern_matches("bash", "Bash", &json!({})));
    assert!(pattern_matches("Bash", "Bash", &json!({})));
    // Tools without a primary argument never match an argument pattern.
    assert!(!pattern_matches(
        "WebFetch(https://*)",
        "WebFetch",
        &json!({"url":"https://x"})
    ));
    assert!(pattern_matches(
        "WebFetch",
        "WebFetch",
        &json!({"url":"https://x"})
    ));
    // Non-string primary arguments do not match.
    assert!(!pattern_matches("Bash(*)", "Bash", &json!({"command": 5})));
}

#[test]
fn trust_aliases_and_mode_names() {
    assert_eq!(trust_to_mode(TrustLevel::Safe), PermissionMode::Plan);
    assert_eq!(trust_to_mode(TrustLevel::Moderate), PermissionMode::Default);
    assert_eq!(trust_to_mode(TrustLevel::Full), PermissionMode::AcceptEdits);
    for m in PermissionMode::ALL {
        assert_eq!(m.as_str().parse::<PermissionMode>().unwrap(), m);
    }
    assert!("yolo"
        .parse::<PermissionMode>()
        .unwrap_err()
        .contains("plan | default | acceptEdits | bypassPermissions"));
    assert_eq!(primary_argument_key("Bash"), Some("command"));
    assert_eq!(primary_argument_key("Edit"), Some("filePath"));
    assert_eq!(primary_argument_key("Grep"), Some("pattern"));
    assert_eq!(primary_argument_key("WebSearch"), None);
    assert_eq!(mode_policy(PermissionMode::Plan, "Custom"), None);
}
