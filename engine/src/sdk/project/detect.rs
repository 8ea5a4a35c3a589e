//! Project detection (first match wins, else unknown): `package.json` → node,
//! `pyproject.toml`/`setup.py` → python, `Cargo.toml` → rust, `go.mod` → go.

use std::path::Path;

/// What was detected (unknown fields are `None`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectInfo {
    /// Project name (node: `package.json` `name`).
    pub name: Option<String>,
    /// `node`, `python`, `rust`, `go` (`None` = unknown).
    pub kind: Option<&'static str>,
    /// `typescript`, `javascript`, `python`, `rust`, `go`.
    pub language: Option<&'static str>,
    /// `pnpm`, `yarn`, `bun` or `npm`.
    pub package_manager: Option<&'static str>,
}

/// Detects the project in `cwd`.
pub fn detect(cwd: &Path) -> ProjectInfo {
    let has = |f: &str| cwd.join(f).exists();
    if let Ok(text) = std::fs::read_to_string(cwd.join("package.json")) {
        let name = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("name")?.as_str().map(str::to_string));
        let package_manager = if has("pnpm-workspace.yaml") || has("pnpm-lock.yaml") {
            Some("pnpm")
        } else if has("yarn.lock") {
            Some("yarn")
        } else if has("bun.lockb") {
            Some("bun")
        } else if has("package-lock.json") {
            Some("npm")
        } else {
            None
        };
        return ProjectInfo {
            name,
            kind: Some("node"),
            language: Some(if has("tsconfig.json") {
                "typescript"
            } else {
                "javascript"
            }),
            package_manager,
        };
    }
    let (kind, language) = if has("pyproject.toml") || has("setup.py") {
        ("python", "python")
    } else if has("Cargo.toml") {
        ("rust", "rust")
    } else if has("go.mod") {
        ("go", "go")
    } else {
        return ProjectInfo::default();
    };
    ProjectInfo {
        name: None,
        kind: Some(kind),
        language: Some(language),
        package_manager: None,
    }
}

impl ProjectInfo {
    /// The "Current Project" bullet lines (unknowns omitted).
    pub fn bullets(&self) -> String {
        let mut lines = Vec::new();
        for (label, v) in [
            ("Name", self.name.as_deref()),
            ("Type", self.kind),
            ("Language", self.language),
            ("Package manager", self.package_manager),
        ] {
            if let Some(v) = v {
                lines.push(format!("- **{label}:** {v}"));
            }
        }
        lines.join("\n")
    }
}
