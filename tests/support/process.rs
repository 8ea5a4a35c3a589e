//! Process liveness read from `/proc` (Linux): whether a process the test started (or a
//! grandchild of it) still runs.

use std::fmt::Display;

/// True while process `pid` exists and is neither a zombie (`Z`) nor dead (`X`).
pub fn alive(pid: impl Display) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses and may hold any byte.
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}
