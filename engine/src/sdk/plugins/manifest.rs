//! A plugin's manifest: `<plugin>/.claude-plugin/plugin.json` (Claude Code's place) or
//! `<plugin>/.robota-plugin/plugin.json` (read first when both exist). A JSON object with a
//! required `name` (letters, digits, `-`, `_`, `.`; it qualifies the plugin's names, so no `:`)
//! and optional `version` and `description` strings; other keys are not read.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Manifest locations inside a plugin folder, in the order they are looked for.
pub const MANIFEST_PATHS: [&str; 2] = [".robota-plugin/plugin.json", ".claude-plugin/plugin.json"];

/// What a valid manifest says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The plugin's name (the qualifier of its commands, skills and agents).
    pub name: String,
    /// `version`.
    pub version: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// The file it was read from.
    pub file: PathBuf,
}

/// The manifest file of `root`, if it has one.
pub fn find(root: &Path) -> Option<PathBuf> {
    MANIFEST_PATHS
        .iter()
        .map(|p| root.join(p))
        .find(|p| p.is_file())
}

/// True when `name` may name a plugin.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Reads and checks the manifest `file`; the error names the file and what is wrong.
pub fn read(file: &Path) -> Result<Manifest, String> {
    let bad = |what: String| format!("plugin manifest {}: {what}; plugin skipped", file.display());
    let text = std::fs::read_to_string(file).map_err(|e| bad(format!("cannot be read: {e}")))?;
    let doc = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err(bad("must be a JSON object".into())),
        Err(e) => return Err(bad(format!("is not valid JSON ({e})"))),
    };
    let name = match doc.get("name") {
        Some(Value::String(n)) if valid_name(n) => n.clone(),
        Some(Value::String(n)) => {
            return Err(bad(format!(
                "field \"name\" \"{n}\" must be letters, digits, '-', '_' or '.'"
            )))
        }
        Some(_) => return Err(bad("field \"name\" must be a string".into())),
        None => return Err(bad("missing required field \"name\"".into())),
    };
    let text_field = |key: &str| -> Result<Option<String>, String> {
        match doc.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(bad(format!("field \"{key}\" must be a string"))),
        }
    };
    Ok(Manifest {
        name,
        version: text_field("version")?,
        description: text_field("description")?,
        file: file.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(valid_name("my-plugin_1.2"));
        assert!(!valid_name(""));
        assert!(!valid_name("a:b"));
        assert!(!valid_name("a b"));
    }
}
