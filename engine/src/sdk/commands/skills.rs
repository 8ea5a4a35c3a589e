//! Skills (Robota's `SkillCommandSource`): `SKILL.md` discovery with frontmatter,
//! argument substitution and the inject-mode prompt. Scan order (first name wins):
//! `<cwd>/.claude/skills/*/SKILL.md`, `<cwd>/.claude/commands/*.md`,
//! `~/.robota/skills/*/SKILL.md`, `<cwd>/.agents/skills/*/SKILL.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::core::shell::{run_shell_blocking, ShellCommand, ShellEnd};
use crate::sdk::config::skill::Skill;

/// Timeout of a `` !`cmd` `` substitution.
pub const SHELL_TIMEOUT: Duration = Duration::from_secs(5);

/// Frontmatter keys (camelCase) → values; `Err` when the block never closes.
pub fn frontmatter(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Ok(BTreeMap::new());
    }
    let mut out = BTreeMap::new();
    for line in lines {
        if line.trim_end() == "---" {
            return Ok(out);
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let valid = key.starts_with(|c: char| c.is_ascii_lowercase())
            && key
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        let value = value.trim();
        if valid && !value.is_empty() {
            out.insert(camel(key), value.to_string());
        }
    }
    Err("the frontmatter block opened with --- is never closed".into())
}

fn camel(kebab: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in kebab.chars() {
        if c == '-' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Parses one skill or command file (`fallback` names it when the frontmatter does not).
pub(crate) fn parse(path: &Path, fallback: &str, warnings: &mut Vec<String>) -> Option<Skill> {
    let content = std::fs::read_to_string(path).ok()?;
    let fm = match frontmatter(&content) {
        Ok(fm) => fm,
        Err(e) => {
            warnings.push(format!("skill {} skipped: {e}", path.display()));
            return None;
        }
    };
    Some(Skill {
        name: fm
            .get("name")
            .cloned()
            .unwrap_or_else(|| fallback.to_string()),
        description: fm
            .get("description")
            .cloned()
            .unwrap_or_else(|| format!("Skill: {fallback}")),
        argument_hint: fm.get("argumentHint").cloned(),
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        model_invocable: fm.get("disableModelInvocation").map(String::as_str) != Some("true"),
        user_invocable: fm.get("userInvocable").map(String::as_str) != Some("false"),
        context: fm.get("context").cloned(),
        agent: fm.get("agent").cloned(),
        allowed_tools: fm.get("allowedTools").map(|t| tool_list(t)),
        content,
    })
}

/// `allowed-tools`: split on commas when there is one, else on whitespace.
fn tool_list(text: &str) -> Vec<String> {
    let parts: Vec<&str> = if text.contains(',') {
        text.split(',').collect()
    } else {
        text.split_whitespace().collect()
    };
    parts
        .into_iter()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// Sorted entries of `dir` (missing → none).
pub(crate) fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

pub(crate) fn base_name(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Discovers the skills of `cwd` (project sources when `project`) and the user directory.
pub fn discover(
    cwd: &Path,
    user_dir: Option<&Path>,
    project: bool,
    warnings: &mut Vec<String>,
) -> Vec<Skill> {
    let mut found: Vec<Skill> = Vec::new();
    let push = |s: Option<Skill>, found: &mut Vec<Skill>| {
        if let Some(s) = s {
            if !found.iter().any(|f| f.name == s.name) {
                found.push(s);
            }
        }
    };
    let skill_dirs = |root: &Path, found: &mut Vec<Skill>, warnings: &mut Vec<String>| {
        for d in entries(root) {
            let file = d.join("SKILL.md");
            if file.is_file() {
                push(parse(&file, &base_name(&d), warnings), found);
            }
        }
    };
    if project {
        skill_dirs(&cwd.join(".claude/skills"), &mut found, warnings);
        for f in entries(&cwd.join(".claude/commands")) {
            if f.extension().is_some_and(|e| e == "md") && f.is_file() {
                let s = parse(&f, &base_name(&f), warnings);
                push(s, &mut found);
            }
        }
    }
    if let Some(u) = user_dir {
        skill_dirs(&u.join("skills"), &mut found, warnings);
    }
    if project {
        skill_dirs(&cwd.join(".agents/skills"), &mut found, warnings);
    }
    found
}

/// Runs `cmd` with `sh -c` in `cwd`: trimmed-right stdout, empty on failure or after
/// [`SHELL_TIMEOUT`].
fn shell(cmd: &str, cwd: &Path) -> String {
    shell_within(cmd, cwd, SHELL_TIMEOUT)
}

/// [`shell`] with a given timeout, through the one shell runner: on timeout the whole process
/// group is killed, background children (`cmd &`) included.
fn shell_within(cmd: &str, cwd: &Path, timeout: Duration) -> String {
    let mut spec = ShellCommand::new(cmd);
    spec.cwd = Some(cwd.to_path_buf());
    spec.timeout = Some(timeout);
    match run_shell_blocking(spec) {
        Ok(out) if out.end == ShellEnd::Exited(0) => {
            String::from_utf8_lossy(&out.stdout).trim_end().to_string()
        }
        _ => String::new(),
    }
}

/// Replaces each `` !`cmd` `` with its output.
fn run_shell_spans(text: &str, cwd: &Path) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("!`") {
        let after = &rest[i + 2..];
        let Some(end) = after.find('`') else { break };
        out.push_str(&rest[..i]);
        out.push_str(&shell(&after[..end], cwd));
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// `$ARGUMENTS[N]`, `$ARGUMENTS`, `$N` (one digit not followed by a digit, word char or `[`),
/// `${CLAUDE_SESSION_ID}`, `${CLAUDE_SKILL_DIR}`.
pub fn substitute(text: &str, args: &str, session_id: &str, skill_dir: &Path) -> String {
    let words: Vec<&str> = args.split_whitespace().collect();
    let word = |n: usize| words.get(n).copied().unwrap_or("");
    let mut s = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("$ARGUMENTS[") {
        let after = &rest[i + "$ARGUMENTS[".len()..];
        match after
            .find(']')
            .and_then(|e| after[..e].parse::<usize>().ok().map(|n| (e, n)))
        {
            Some((e, n)) => {
                s.push_str(&rest[..i]);
                s.push_str(word(n));
                rest = &after[e + 1..];
            }
            None => {
                s.push_str(&rest[..i + 1]);
                rest = &rest[i + 1..];
            }
        }
    }
    s.push_str(rest);
    let s = s.replace("$ARGUMENTS", args);
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit() {
            let next = bytes.get(i + 2).copied();
            let blocked = next.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'[');
            if !blocked {
                out.push_str(word(usize::from(bytes[i + 1] - b'0')));
                i += 2;
                continue;
            }
        }
        let ch_len = s[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&s[i..i + ch_len]);
        i += ch_len;
    }
    out.replace("${CLAUDE_SESSION_ID}", session_id)
        .replace("${CLAUDE_SKILL_DIR}", &skill_dir.display().to_string())
}

/// `Use the "<name>" skill: <args or description>` (a skill without content).
fn fallback_sentence(skill: &Skill, args: &str) -> String {
    let tail = if args.is_empty() {
        skill.description.as_str()
    } else {
        args
    };
    format!("Use the \"{}\" skill: {tail}", skill.name)
}

/// The skill's text with `` !`cmd` `` spans run and arguments substituted.
fn processed(skill: &Skill, args: &str, session_id: &str, cwd: &Path) -> String {
    substitute(
        &run_shell_spans(&skill.content, cwd),
        args,
        session_id,
        &skill.dir,
    )
}

/// The inject-mode prompt of `skill` with `args`.
pub fn inject_prompt(skill: &Skill, args: &str, session_id: &str, cwd: &Path) -> String {
    let args = args.trim();
    if skill.content.trim().is_empty() {
        return fallback_sentence(skill, args);
    }
    let tail = if args.is_empty() {
        skill.description.as_str()
    } else {
        args
    };
    format!(
        "<skill name=\"{}\">\n{}\n</skill>\n\nExecute the \"{}\" skill: {tail}",
        skill.name,
        processed(skill, args, session_id, cwd),
        skill.name
    )
}

/// The task a `context: fork` skill's subagent gets: the processed text, or the fallback
/// sentence for a skill without content.
pub fn fork_prompt(skill: &Skill, args: &str, session_id: &str, cwd: &Path) -> String {
    let args = args.trim();
    if skill.content.trim().is_empty() {
        return fallback_sentence(skill, args);
    }
    processed(skill, args, session_id, cwd)
}

/// Whether `skill` runs in a subagent (`context: fork`).
pub fn is_fork(skill: &Skill) -> bool {
    skill.context.as_deref() == Some("fork")
}

/// `<name>[ <hint>]: <description>` (the system prompt's Skills section).
pub fn prompt_line(skill: &Skill) -> String {
    crate::sdk::project::system_prompt::descriptor_line(
        &skill.name,
        skill.argument_hint.as_deref(),
        &skill.description,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_substitute_like_the_reference() {
        let t = "a=$ARGUMENTS[0] b=$ARGUMENTS[5] all=$ARGUMENTS one=$1 no=$12 w=$1x br=$1[ id=${CLAUDE_SESSION_ID} d=${CLAUDE_SKILL_DIR}";
        assert_eq!(
            substitute(t, "x y", "sid", Path::new("/s")),
            "a=x b= all=x y one=y no=$12 w=$1x br=$1[ id=sid d=/s"
        );
    }

    #[test]
    fn frontmatter_keys_are_camel_cased_and_an_open_block_is_an_error() {
        let fm =
            frontmatter("---\nname: n\nargument-hint: <f>\nBad: x\nempty:\n---\nbody").unwrap();
        assert_eq!(fm.get("argumentHint").map(String::as_str), Some("<f>"));
        assert_eq!(fm.len(), 2);
        assert!(frontmatter("no fm").unwrap().is_empty());
        assert!(frontmatter("---\nname: n\n").is_err());
    }

    #[test]
    fn a_shell_span_reads_stdout_in_cwd() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "content\n\n").unwrap();
        assert_eq!(shell("cat f", dir.path()), "content");
        assert_eq!(shell("echo out; exit 1", dir.path()), "");
        let text = run_shell_spans("a !`printf b` c", dir.path());
        assert_eq!(text, "a b c");
    }

    /// A span that times out leaves no background child behind (before the one shell runner,
    /// only the shell was killed and `sleep 30` survived it).
    #[cfg(unix)]
    #[test]
    fn a_timed_out_span_kills_its_background_children() {
        use crate::core::shell::tests::{gone_soon, grandchild_command, wait_for_pid};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pid");
        let cmd = grandchild_command(&file);
        assert_eq!(
            shell_within(&cmd, dir.path(), Duration::from_millis(300)),
            ""
        );
        let pid = wait_for_pid(&file);
        assert!(
            gone_soon(pid),
            "the background child {pid} survived the timeout"
        );
    }
}
