//! `include/robota.h` exports nothing unprefixed: every macro is `ROBOTA_*`, every type and
//! function `robota_*` (the ABI's naming rule). Parses the committed header (CI checks that it
//! equals a fresh cbindgen run), so a public Rust item cbindgen picks up by accident fails here.

use std::path::Path;

/// A declared name and what it is.
#[derive(Debug, PartialEq)]
struct Decl {
    what: &'static str,
    name: String,
}

/// The header without its comments (block and line).
fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    loop {
        let block = rest.find("/*");
        let line = rest.find("//");
        match (block, line) {
            (Some(b), l) if l.is_none_or(|l| b < l) => {
                out.push_str(&rest[..b]);
                rest = rest[b + 2..]
                    .find("*/")
                    .map_or("", |e| &rest[b + 2 + e + 2..]);
            }
            (_, Some(l)) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |e| &rest[l + e..]);
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The last identifier in `s`.
fn last_ident(s: &str) -> String {
    let s = s.trim_end_matches(|c: char| !is_ident_char(c));
    let start = s.rfind(|c: char| !is_ident_char(c)).map_or(0, |i| i + 1);
    s[start..].to_string()
}

/// Every macro, type (typedef and struct/enum/union tag) and function the header declares.
fn declarations(header: &str) -> Vec<Decl> {
    let text = strip_comments(header);
    let mut decls = Vec::new();
    let mut code = String::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(directive) = t.strip_prefix('#') {
            let mut words = directive.split_whitespace();
            if let (Some("define"), Some(name)) = (words.next(), words.next()) {
                let name = name.split('(').next().unwrap_or(name);
                decls.push(Decl {
                    what: "macro",
                    name: name.to_string(),
                });
            }
            continue;
        }
        code.push_str(t);
        code.push(' ');
    }
    let code = code.replace("extern \"C\" {", " ");
    for tag in ["struct", "enum", "union"] {
        for (i, _) in code.match_indices(tag) {
            let before = code[..i].chars().next_back();
            let after = &code[i + tag.len()..];
            if before.is_some_and(is_ident_char) || !after.starts_with(' ') {
                continue;
            }
            let name: String = after
                .trim_start()
                .chars()
                .take_while(|&c| is_ident_char(c))
                .collect();
            decls.push(Decl { what: "type", name });
        }
    }
    for (head, body) in statements(&code) {
        if head.starts_with("enum ") || head.starts_with("typedef enum") {
            for constant in body.split(',').map(str::trim).filter(|c| !c.is_empty()) {
                let name = constant.chars().take_while(|&c| is_ident_char(c)).collect();
                decls.push(Decl {
                    what: "macro",
                    name,
                });
            }
        }
        if let Some(rest) = head.strip_prefix("typedef ") {
            let name = match rest.find("(*") {
                Some(p) => rest[p + 2..]
                    .chars()
                    .take_while(|&c| is_ident_char(c))
                    .collect(),
                None => last_ident(rest),
            };
            decls.push(Decl { what: "type", name });
        } else if let Some(p) = head.find('(') {
            decls.push(Decl {
                what: "function",
                name: last_ident(&head[..p]),
            });
        } else {
            decls.push(Decl {
                what: "declaration",
                name: last_ident(&head),
            });
        }
    }
    decls
}

/// Top-level statements (`;`-terminated) as (text outside braces, text inside braces); a stray
/// `}` (the end of `extern "C"`) is skipped.
fn statements(code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let (mut head, mut body, mut depth) = (String::new(), String::new(), 0u32);
    for c in code.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ';' if depth == 0 => {
                let h = head.split_whitespace().collect::<Vec<_>>().join(" ");
                if !h.is_empty() {
                    out.push((h, std::mem::take(&mut body)));
                }
                head.clear();
                body.clear();
            }
            _ if depth > 0 => body.push(c),
            _ => head.push(c),
        }
    }
    out
}

/// Declarations that break the prefix rule (the include guard and `__cplusplus` are the
/// header's own scaffolding, not exports).
fn unprefixed(header: &str) -> Vec<Decl> {
    declarations(header)
        .into_iter()
        .filter(|d| match d.what {
            "macro" => !d.name.starts_with("ROBOTA_"),
            _ => !d.name.starts_with("robota_"),
        })
        .collect()
}

#[test]
fn every_macro_type_and_function_of_the_header_is_prefixed() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/robota.h");
    let header = std::fs::read_to_string(&path).expect("include/robota.h is readable");
    let decls = declarations(&header);
    let count = |what: &str| decls.iter().filter(|d| d.what == what).count();
    // The parser sees the whole header (it cannot pass by finding nothing).
    assert!(count("macro") >= 40, "{decls:?}");
    assert!(count("type") >= 8, "{decls:?}");
    assert!(count("function") >= 25, "{decls:?}");
    assert!(decls.contains(&Decl {
        what: "function",
        name: "robota_session_wait".into()
    }));
    assert!(decls.contains(&Decl {
        what: "type",
        name: "robota_event_fn".into()
    }));
    assert_eq!(
        unprefixed(&header),
        vec![],
        "unprefixed names in include/robota.h"
    );
}

#[test]
fn the_check_catches_each_kind_of_unprefixed_name() {
    let header = "/* c */\n#ifndef ROBOTA_H\n#define ROBOTA_H\n#define PANIC ROBOTA_E_PANIC\n\
        #define MAX(a, b) a\ntypedef int32_t status;\ntypedef void (*event_fn)(void *ud);\n\
        typedef struct handle handle;\nstruct point { int32_t x; };\nenum color { RED = 1, ROBOTA_BLUE };\n\
        #ifdef __cplusplus\nextern \"C\" {\n#endif // __cplusplus\n\
        robota_status robota_ok(const char *s, size_t n);\nvoid do_thing(void); // x\n\
        const char *name_of(int32_t s);\nextern int32_t counter;\n\
        #ifdef __cplusplus\n}  // extern \"C\"\n#endif\n#endif";
    let names: Vec<String> = unprefixed(header).into_iter().map(|d| d.name).collect();
    assert_eq!(
        names,
        [
            "PANIC", "MAX", "handle", "point", "color", "status", "event_fn", "handle", "point",
            "RED", "color", "do_thing", "name_of", "counter"
        ]
    );
}

/// `(major, minor)` of `#define ROBOTA_ABI_VERSION` (`(major << 16) | minor`) in `header`.
fn abi_version(header: &str) -> (u32, u32) {
    let value: u32 = header
        .lines()
        .find_map(|l| l.trim().strip_prefix("#define ROBOTA_ABI_VERSION "))
        .expect("the header defines ROBOTA_ABI_VERSION")
        .trim()
        .parse()
        .expect("ROBOTA_ABI_VERSION is a decimal number");
    (value >> 16, value & 0xffff)
}

/// The header's first comment names the version it defines, and CHANGELOG.md has its section:
/// raising `ROBOTA_ABI_VERSION` (src/ffi/status.rs) without cbindgen.toml's header text and a
/// changelog entry fails here.
#[test]
fn the_header_comment_and_the_changelog_name_the_abi_version_of_the_header() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(root.join("include/robota.h")).unwrap();
    let (major, minor) = abi_version(&header);
    assert_eq!(
        (major, minor),
        (
            robota::ffi::ROBOTA_ABI_VERSION >> 16,
            robota::ffi::ROBOTA_ABI_VERSION & 0xffff
        ),
        "include/robota.h is stale: regenerate it (cbindgen --config cbindgen.toml --output \
         include/robota.h src/ffi/mod.rs)"
    );
    let first_comment = &header[..header.find("*/").unwrap()];
    let named = format!("robota.h — the C ABI of Robota Native (ABI v{major}.{minor}).");
    assert!(
        first_comment.lines().nth(1) == Some(&format!(" * {named}")[..]),
        "the header's first comment must say \"{named}\" (cbindgen.toml, `header`); it starts:\n{}",
        first_comment.lines().take(3).collect::<Vec<_>>().join("\n")
    );
    let changelog = std::fs::read_to_string(root.join("CHANGELOG.md")).unwrap();
    let section = format!("## [ABI {major}.{minor}]");
    assert!(
        changelog.lines().any(|l| l.starts_with(&section)),
        "CHANGELOG.md has no \"{section} - date\" section for the header's ABI version"
    );
}

/// The library's version is its ABI version (docs/installation.md "Versions"): the package
/// version's major.minor, which cargo-c puts in the SONAME, robota.pc and the CMake package, and
/// `robota_version()` are those of `ROBOTA_ABI_VERSION`.
#[test]
fn the_library_version_is_the_abi_version() {
    let abi = robota::ffi::robota_abi_version();
    let expected = format!("{}.{}.", abi >> 16, abi & 0xffff);
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        version.starts_with(&expected),
        "Cargo.toml's version {version} must start with the ABI version {expected} (raise both)"
    );
    // SAFETY: robota_version returns a static NUL-terminated string.
    let reported = unsafe { std::ffi::CStr::from_ptr(robota::ffi::robota_version()) };
    assert_eq!(reported.to_str().unwrap(), version);
}

#[test]
fn the_abi_version_parser_reads_major_and_minor() {
    assert_eq!(
        abi_version("/* x */\n#define ROBOTA_ABI_VERSION 65537\n"),
        (1, 1)
    );
    assert_eq!(abi_version("#define ROBOTA_ABI_VERSION 131072"), (2, 0));
}
