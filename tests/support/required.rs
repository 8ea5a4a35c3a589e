//! Tests that need something the machine may lack (valgrind, the MCP servers `.ci/mcp.sh`
//! installs, the real model servers of `.ci/interop.sh`). Outside CI such a test says what it
//! skipped and passes; under CI (`CI` set, as CI services and `.ci/run` runs set it) a missing
//! tool fails the test: CI never passes by skipping.

/// True under CI: `CI` is set to anything but empty, `0` or `false`.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

fn message(test: &str, what: &str, how: &str) -> String {
    format!("{test}: {what} missing; {how}")
}

/// `test` lacks `what` (`how`: how to get it). Under CI this panics; otherwise it prints that
/// the part needing `what` is skipped, and the caller skips it.
#[track_caller]
pub fn missing(test: &str, what: &str, how: &str) {
    let m = message(test, what, how);
    if under_ci() {
        panic!("{m} (CI is set: a missing tool fails, never skips)");
    }
    println!("{m}: skipped");
}

/// `test` lacks `what` and runs only on request (an `#[ignore]`d test run with `--ignored` by
/// the script that provides `what`): always a failure.
#[track_caller]
pub fn missing_always(test: &str, what: &str, how: &str) -> ! {
    panic!("{}", message(test, what, how));
}
