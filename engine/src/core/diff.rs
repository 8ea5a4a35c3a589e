//! Line diffs of a file change (the `diffLines` / `diffFile` of a tool's state): what a host UI
//! shows for an Edit or a Write. Only changed lines are listed (no context lines): `remove` lines
//! carry their line number in the old file, `add` lines theirs in the new file. A new file is all
//! `add` lines.

use std::sync::{Arc, Mutex};

use serde::Serialize;

/// Above this many old × new changed lines the diff is not aligned line by line: the changed
/// block is listed as all its old lines removed, then all its new lines added.
const MAX_ALIGNED_CELLS: usize = 1_000_000;

/// What happened to a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffKind {
    /// In the new file only.
    Add,
    /// In the old file only.
    Remove,
    /// Unchanged (reserved; not produced today).
    Context,
}

/// One line of a diff (`IDiffLine`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffLine {
    /// `add`, `remove` or `context`.
    #[serde(rename = "type")]
    pub kind: DiffKind,
    /// The line's text, without its line ending.
    pub content: String,
    /// 1-based line number (old file for `remove`, new file otherwise).
    pub line_number: u64,
}

/// The diff of one file change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The file as the tool call named it.
    pub file: String,
    /// The changed lines, in file order.
    pub lines: Vec<DiffLine>,
}

/// Where a tool leaves the diff of its call for the session to report.
#[derive(Debug, Clone, Default)]
pub struct DiffSlot(Arc<Mutex<Option<FileDiff>>>);

impl DiffSlot {
    /// Records the call's diff.
    pub fn set(&self, diff: FileDiff) {
        if let Ok(mut d) = self.0.lock() {
            *d = Some(diff);
        }
    }

    /// The recorded diff (no longer held here).
    pub fn take(&self) -> Option<FileDiff> {
        self.0.lock().ok().and_then(|mut d| d.take())
    }
}

/// Files larger than this (before or after the change) get no diff.
pub const MAX_DIFF_BYTES: usize = 1 << 20;

/// The diff of `file` changing from `old` to `new` (bytes read as UTF-8, invalid sequences
/// replaced); `None` when either side is larger than [`MAX_DIFF_BYTES`].
pub fn file_diff(file: &str, old: &[u8], new: &[u8]) -> Option<FileDiff> {
    if old.len() > MAX_DIFF_BYTES || new.len() > MAX_DIFF_BYTES {
        return None;
    }
    Some(FileDiff {
        file: file.to_string(),
        lines: line_diff(&String::from_utf8_lossy(old), &String::from_utf8_lossy(new)),
    })
}

/// The lines of `text` without their endings (`\n` or `\r\n`); no trailing empty line.
fn lines_of(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// The changed lines between `old` and `new` (see the module doc).
pub fn line_diff(old: &str, new: &str) -> Vec<DiffLine> {
    let (a, b) = (lines_of(old), lines_of(new));
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut old_no, mut new_no) = (prefix as u64 + 1, prefix as u64 + 1);
    let mut push = |kind: DiffKind, content: &str, n: &mut u64| {
        out.push(DiffLine {
            kind,
            content: content.to_string(),
            line_number: *n,
        });
        *n += 1;
    };
    if a.len().saturating_mul(b.len()) > MAX_ALIGNED_CELLS {
        a.iter()
            .for_each(|l| push(DiffKind::Remove, l, &mut old_no));
        b.iter().for_each(|l| push(DiffKind::Add, l, &mut new_no));
        return out;
    }
    // lcs[i][j]: longest common subsequence of a[i..] and b[j..].
    let w = b.len() + 1;
    let mut lcs = vec![0u32; (a.len() + 1) * w];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i * w + j] = if a[i] == b[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            (i, j) = (i + 1, j + 1);
            old_no += 1;
            new_no += 1;
        } else if j == b.len() || (i < a.len() && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            push(DiffKind::Remove, a[i], &mut old_no);
            i += 1;
        } else {
            push(DiffKind::Add, b[j], &mut new_no);
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(d: &[DiffLine]) -> Vec<String> {
        d.iter()
            .map(|l| {
                let sign = match l.kind {
                    DiffKind::Add => '+',
                    DiffKind::Remove => '-',
                    DiffKind::Context => ' ',
                };
                format!("{sign}{} {}", l.line_number, l.content)
            })
            .collect()
    }

    #[test]
    fn a_new_file_is_all_additions() {
        assert_eq!(show(&line_diff("", "a\nb\n")), ["+1 a", "+2 b"]);
        assert!(line_diff("same\n", "same\n").is_empty());
    }

    #[test]
    fn changed_lines_are_aligned_with_old_and_new_numbers() {
        let old = "one\ntwo\nthree\nfour\nfive\n";
        let new = "one\n2\nthree\nfour\nfour and a half\nfive\n";
        assert_eq!(
            show(&line_diff(old, new)),
            ["-2 two", "+2 2", "+5 four and a half"]
        );
        // CRLF endings are not part of the content; a missing final newline is no line.
        assert_eq!(show(&line_diff("a\r\nb", "a\r\nc")), ["-2 b", "+2 c"]);
        assert_eq!(show(&line_diff("a\nb\n", "a\n")), ["-2 b"]);
    }

    #[test]
    fn serializes_as_the_tool_state_shape() {
        let d = line_diff("", "x\n");
        assert_eq!(
            serde_json::to_string(&d).unwrap(),
            r#"[{"type":"add","content":"x","lineNumber":1}]"#
        );
    }
}
