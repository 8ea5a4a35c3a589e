//! One glob compiled into a matcher without a panic path.
//!
//! `globset::Glob::compile_matcher` panics ("regex compilation shouldn't fail") when the regex a
//! glob translates to is refused by the regex parser — the `permission_patterns` fuzz target
//! found such a pattern (deeply nested, unbalanced braces; `tests/suite/engine/fuzz_findings.rs`).
//! A one-glob `GlobSet` reports the same failure as an error instead, and matches exactly as the
//! glob's own matcher does.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// The matcher of `glob`, or the error its regex gave.
pub fn compile(glob: Glob) -> Result<GlobSet, globset::Error> {
    GlobSetBuilder::new().add(glob).build()
}
