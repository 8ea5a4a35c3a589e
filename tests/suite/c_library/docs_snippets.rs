//! Every snippet printed in the book (`docs/*.md`; `docs/dev/` is not part of it) is checked.
//!
//! The rule, per fenced block:
//! - ```` ```c ````: compiled by `gcc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I include`
//!   after `#include "robota.h"`, at file scope (prototypes, typedefs, functions, whole
//!   programs: a prototype copied from the header must match it exactly). With the line
//!   `<!-- c: fragment -->` right before the fence the block is statements instead: it becomes
//!   the body of a function whose parameters are the variables fragments use ([`FRAGMENT_VARS`]),
//!   compiled with `-Wno-unused-variable -Wno-unused-but-set-variable` (what a fragment
//!   declares is used by code the page does not print).
//! - ```` ```json ````: parsed by serde_json. With `<!-- json: KIND -->` right before the fence
//!   the document also goes through the parser the C ABI uses for it (see [`check_json`]):
//!   `runtime`, `provider`, `session`, `session.FIELD` (the value of one session field),
//!   `session-fields` (an object of session fields), `input`, `tool`, `template`,
//!   `capabilities` (a host provider's). Unmarked
//!   blocks (event payloads, outputs) are only parsed.
//!
//! A marker must be the line right before a fence of its language; an unknown marker fails.
//! Failures name the page and line (`#line` makes gcc's messages point into the Markdown).

use crate::support::host_session::Host;

use std::path::{Path, PathBuf};
use std::process::Command;

use robota_engine::sdk::config::parse_session_config;
use robota_engine::sdk::host::provider::caps::HostCaps;
use robota_engine::sdk::interactive::TurnInput;
use robota_engine::sdk::runtime::Runtime;
use serde_json::{json, Value};

/// The parameters of the function a C fragment is the body of.
const FRAGMENT_VARS: &str = "robota_runtime *rt, robota_session *s, robota_error *err, \
                             int32_t max_events, int32_t timeout_ms, uint64_t turn_id";

/// One fenced block of a page.
struct Block {
    /// `docs/NAME.md`.
    page: String,
    /// 1-based line of the opening fence.
    line: usize,
    /// The fence's language (`c`, `json`, …).
    lang: String,
    /// The marker on the line before the fence (`fragment`, `runtime`, …), if any.
    marker: Option<String>,
    text: String,
}

impl Block {
    fn at(&self) -> String {
        format!("{}:{}", self.page, self.line)
    }
}

/// The fenced blocks of `markdown` (fences of three backticks at the start of a line, as the
/// book writes them) and the misplaced markers (a marker not right before a fence).
fn blocks(page: &str, markdown: &str) -> (Vec<Block>, Vec<String>) {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out = Vec::new();
    let mut bad = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if marker_of(l).is_some() && !lines.get(i + 1).is_some_and(|n| n.starts_with("```")) {
            bad.push(format!(
                "{page}:{}: the marker `{l}` is not right before a fence",
                i + 1
            ));
        }
        if let Some(lang) = l.strip_prefix("```") {
            let start = i;
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].starts_with("```") {
                body.push(lines[i]);
                i += 1;
            }
            let marker =
                start
                    .checked_sub(1)
                    .and_then(|p| marker_of(lines[p]))
                    .map(|(mlang, kind)| {
                        if mlang != lang.trim() {
                            bad.push(format!(
                                "{page}:{}: the marker `{}` is on a ```{} block",
                                start,
                                lines[start - 1],
                                lang.trim()
                            ));
                        }
                        kind.to_string()
                    });
            out.push(Block {
                page: page.into(),
                line: start + 1,
                lang: lang.trim().into(),
                marker,
                text: body.join("\n") + "\n",
            });
        }
        i += 1;
    }
    (out, bad)
}

/// `<!-- c: KIND -->` / `<!-- json: KIND -->` → (`c`/`json`, KIND).
fn marker_of(line: &str) -> Option<(&str, &str)> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim();
    let (lang, kind) = inner.split_once(':')?;
    let lang = lang.trim();
    matches!(lang, "c" | "json").then(|| (lang, kind.trim()))
}

/// The book's pages: `docs/*.md` (not `docs/dev/`), sorted.
fn pages() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|e| e.expect("a docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|p| {
            let name = format!("docs/{}", p.file_name().unwrap().to_string_lossy());
            (
                name,
                std::fs::read_to_string(&p).expect("a page is readable"),
            )
        })
        .collect()
}

/// Compiles a C block; `Err` is gcc's output.
fn check_c(b: &Block, dir: &Path) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fragment = match b.marker.as_deref() {
        None => false,
        Some("fragment") => true,
        Some(k) => {
            return Err(format!(
                "unknown marker `<!-- c: {k} -->` (only `fragment`)"
            ))
        }
    };
    let body_line = b.line + 1;
    let src = if fragment {
        let voids: String = FRAGMENT_VARS
            .split(',')
            .map(|p| format!("(void){};", p.trim().rsplit([' ', '*']).next().unwrap()))
            .collect();
        format!(
            "#include \"robota.h\"\nvoid fragment({FRAGMENT_VARS});\n\
             void fragment({FRAGMENT_VARS}) {{\n{voids}\n#line {body_line} \"{}\"\n{}}}\n",
            b.page, b.text
        )
    } else {
        format!(
            "#include \"robota.h\"\n#line {body_line} \"{}\"\n{}",
            b.page, b.text
        )
    };
    let file = dir.join(format!("{}_{}.c", b.page.replace(['/', '.'], "_"), b.line));
    std::fs::write(&file, src).expect("write the C file");
    let mut cmd = Command::new("gcc");
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"])
        .arg(format!("-I{}", root.join("include").display()));
    if fragment {
        cmd.args(["-Wno-unused-variable", "-Wno-unused-but-set-variable"]);
    }
    let o = cmd.arg(&file).output().expect("gcc runs");
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "gcc ({}):\n{}",
            if fragment { "fragment" } else { "file scope" },
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

/// The model of the session documents the checks complete (the book's: the model table knows
/// its price, which a `"budget"` with `max_cost_usd` needs).
const MODEL: &str = "claude-sonnet-4-5";

/// A scripted provider entry (what the session and template checks run against).
fn offline() -> Value {
    json!({"kind":"scripted","turns":[]})
}

/// Opens the session document `doc` (after `parse_session_config` took it as printed) on a
/// runtime whose provider is the one `doc` names, scripted. The host's surroundings are
/// supplied, not checked: `cwd` is a fresh directory, so is the runtime's `session_dir`, tool
/// names no built-in answers to are registered host tools, and `mcp_servers` (parsed already)
/// are not started.
fn open_session(doc: &Value) -> Result<(), String> {
    parse_session_config(&doc.to_string()).map_err(|e| e.to_string())?;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cwd = dir.path().to_string_lossy().into_owned();
    let provider = doc["provider"].as_str().unwrap_or("p");
    let rt = Runtime::from_json(
        &json!({"v":1,"providers":{provider: offline()},"session_dir":cwd}).to_string(),
    )
    .map_err(|e| format!("the test's runtime: {e}"))?;
    for name in doc["tools"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap_or_default();
        if rt.shared().builtin_tool(name, &cwd).is_none() {
            let tool =
                json!({"name":name,"description":"a host tool","input_schema":{"type":"object"}});
            rt.register_tool(&tool.to_string(), None)
                .map_err(|e| format!("registering the host tool {name}: {e}"))?;
        }
    }
    let mut opened = doc.clone();
    opened["cwd"] = json!(cwd);
    if let Some(m) = opened.as_object_mut() {
        m.remove("mcp_servers");
    }
    Host::open(&rt, opened).map(drop).map_err(|e| e.to_string())
}

/// Checks a JSON block: parsed by serde_json, then by the ABI's parser for its marker.
fn check_json(b: &Block) -> Result<(), String> {
    let v: Value =
        serde_json::from_str(&b.text).map_err(|e| format!("not JSON (serde_json): {e}"))?;
    let Some(kind) = b.marker.as_deref() else {
        return Ok(());
    };
    let minimal = || Runtime::from_json(&json!({"v":1,"providers":{"p": offline()}}).to_string());
    let r = match kind {
        // robota_runtime_new
        "runtime" => Runtime::from_json(&b.text).map(drop),
        "capabilities" => HostCaps::parse(Some(&b.text)).map(drop),
        // an entry of the runtime config's "providers"
        "provider" => {
            Runtime::from_json(&json!({"v":1,"providers":{"p": v}}).to_string()).map(drop)
        }
        // robota_session_new
        "session" => return open_session(&v),
        // robota_session_submit / robota_session_run
        "input" => TurnInput::from_json(&b.text).map(drop),
        // robota_runtime_register_tool
        "tool" => minimal().and_then(|rt| rt.register_tool(&b.text, None)),
        // robota_runtime_register_template
        "template" => {
            let provider = v["provider"].as_str().unwrap_or("p");
            Runtime::from_json(&json!({"v":1,"providers":{provider: offline()}}).to_string())
                .and_then(|rt| rt.register_template(&b.text))
        }
        // session fields in an object, over a provider and `MODEL`
        "session-fields" => {
            let Some(fields) = v.as_object() else {
                return Err("session-fields: not an object".into());
            };
            let mut doc = json!({"v":1,"provider":"p","model":MODEL});
            for (k, f) in fields {
                doc[k] = f.clone();
            }
            return open_session(&doc);
        }
        _ => match kind.strip_prefix("session.") {
            // the value of one session field
            Some(field) => {
                return open_session(&json!({"v":1,"provider":"p","model":MODEL,field: v}))
            }
            None => return Err(format!("unknown marker `<!-- json: {kind} -->`")),
        },
    };
    r.map_err(|e| format!("{kind}: {e}"))
}

/// Every failure of the book's snippets, each naming page and line; and the counts checked
/// (C blocks, JSON blocks, JSON blocks through a parser of the library).
fn failures() -> (Vec<String>, usize, usize, usize) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs_snippets");
    std::fs::create_dir_all(&dir).expect("create the snippet directory");
    let (mut c, mut j, mut parsed) = (0, 0, 0);
    let mut bad = Vec::new();
    for (page, text) in pages() {
        let (found, misplaced) = blocks(&page, &text);
        bad.extend(misplaced);
        for b in found {
            let r = match b.lang.as_str() {
                "c" => {
                    c += 1;
                    check_c(&b, &dir)
                }
                "json" => {
                    j += 1;
                    parsed += usize::from(b.marker.is_some());
                    check_json(&b)
                }
                _ => Ok(()),
            };
            if let Err(e) = r {
                bad.push(format!("{}: ```{} block: {e}", b.at(), b.lang));
            }
        }
    }
    (bad, c, j, parsed)
}

#[test]
fn every_c_and_json_snippet_of_the_book_compiles_or_parses() {
    let (bad, c, j, parsed) = failures();
    println!("docs snippets: {c} C blocks compiled, {j} JSON blocks parsed ({parsed} through the library's parsers)");
    assert!(c > 0 && j > 0, "no snippets found under docs/");
    assert!(
        bad.is_empty(),
        "docs snippets that fail:\n\n{}",
        bad.join("\n\n")
    );
}

#[test]
fn markers_are_read_only_right_before_a_fence_of_their_language() {
    let md = "<!-- c: fragment -->\n```c\nint x;\n```\n<!-- json: tool -->\n\n```json\n{}\n```\n\
              <!-- c: fragment -->\n```json\n[]\n```\n```c\nint y;\n```\n";
    let (found, bad) = blocks("t.md", md);
    let got: Vec<_> = found
        .iter()
        .map(|b| {
            (
                b.line,
                b.lang.as_str(),
                b.marker.as_deref(),
                b.text.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (2, "c", Some("fragment"), "int x;\n"),
            (7, "json", None, "{}\n"),
            (11, "json", Some("fragment"), "[]\n"),
            (14, "c", None, "int y;\n"),
        ]
    );
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(
        bad[0].starts_with("t.md:5:") && bad[1].starts_with("t.md:10:"),
        "{bad:?}"
    );
}

#[test]
fn a_broken_snippet_fails_with_its_page_line_and_the_error() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs_snippets_broken");
    std::fs::create_dir_all(&dir).unwrap();
    let md =
        "<!-- c: fragment -->\n```c\nint32_t n = robota_session_dispatch(s, max_events);\n```\n\
              ```c\nrobota_status robota_session_wait(robota_session *s, int timeout_ms);\n```\n\
              <!-- json: input -->\n```json\n{\"text\":1}\n```\n```json\n{\"a\":[…]}\n```\n";
    let (found, _) = blocks("docs/t.md", md);
    let c1 = check_c(&found[0], &dir).unwrap_err();
    assert!(
        c1.contains("docs/t.md:3:") && c1.contains("too few arguments"),
        "{c1}"
    );
    let c2 = check_c(&found[1], &dir).unwrap_err();
    assert!(
        c2.contains("docs/t.md:6:") && c2.contains("conflicting types"),
        "{c2}"
    );
    let j1 = check_json(&found[2]).unwrap_err();
    assert!(j1.starts_with("input: "), "{j1}");
    let j2 = check_json(&found[3]).unwrap_err();
    assert!(j2.starts_with("not JSON"), "{j2}");
}
