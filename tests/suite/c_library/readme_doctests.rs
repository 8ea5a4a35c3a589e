//! README.md is compiled by rustdoc as doctests (`ReadmeDoctests` in src/lib.rs): every
//! ```rust block is built by `cargo test --doc`. rustdoc also takes a fence without a language
//! for Rust, so each fenced block of README.md must name its language (`text` for output).

use std::path::Path;

/// The 1-based line of every opening fence without an info string (a language), fences
/// opened by ``` or ~~~ (3 or more) and closed by the same character at least as long.
fn fences_without_language(markdown: &str) -> Vec<usize> {
    let mut bare = Vec::new();
    let mut open: Option<(char, usize)> = None;
    for (i, line) in markdown.lines().enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            continue;
        }
        let t = &line[indent..];
        let Some(c) = t.chars().next().filter(|c| *c == '`' || *c == '~') else {
            continue;
        };
        let run = t.chars().take_while(|&x| x == c).count();
        if run < 3 {
            continue;
        }
        let rest = t[run..].trim();
        match open {
            Some((oc, olen)) => {
                if c == oc && run >= olen && rest.is_empty() {
                    open = None;
                }
            }
            None => {
                if c == '`' && rest.contains('`') {
                    continue; // inline code such as ```` ```json ````, not a fence
                }
                if rest.is_empty() {
                    bare.push(i + 1);
                }
                open = Some((c, run));
            }
        }
    }
    bare
}

#[test]
fn every_fenced_block_of_the_readme_names_its_language() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md is readable");
    assert_eq!(
        fences_without_language(&readme),
        Vec::<usize>::new(),
        "README.md: fences without a language at these lines; rustdoc compiles them as Rust \
         (src/lib.rs, ReadmeDoctests): name the language (```text for output)"
    );
}

#[test]
fn the_fence_check_finds_bare_fences_only() {
    let md = "# T\n```rust,no_run\nfn main() {}\n```\n\n```\nplain\n```\n\
              ````text\n```\nnested\n```\n````\n```` ```json ```` is inline.\n~~~\nx\n~~~\n";
    assert_eq!(fences_without_language(md), vec![6, 15]);
}
