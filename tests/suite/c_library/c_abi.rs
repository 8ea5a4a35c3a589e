//! Builds the C tests in `tests/c/` against the cdylib with `gcc -std=c11 -Wall -Wextra
//! -Werror` (the header is included from two translation units), runs them, and runs them
//! again under valgrind when it is installed.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::fake_server::{FakeServer, Reply, Turn};

fn target_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CARGO_TARGET_DIR") {
        return PathBuf::from(d);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target")
}

/// Builds the cdylib (debug profile) and returns the directory holding it.
pub(super) fn build_cdylib() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--lib", "--quiet"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo build --lib runs");
    assert!(status.success(), "building the cdylib failed");
    target_dir().join("debug")
}

fn compile_c_tests(lib_dir: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("robota_c_tests");
    let mut cmd = Command::new("gcc");
    cmd.args([
        "-std=c11",
        "-D_POSIX_C_SOURCE=200809L",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-g",
    ])
    .arg(format!("-I{}", root.join("include").display()));
    for f in [
        "harness.c",
        "tu2.c",
        "test_basic.c",
        "test_tools.c",
        "test_http.c",
        "test_delivery.c",
        "test_store.c",
        "test_store_port.c",
        "test_contained.c",
        "test_query.c",
        "test_host_io.c",
        "test_host_io_thread.c",
        "test_budget.c",
        "test_host_commands.c",
        "test_subagents.c",
        "test_replay.c",
        "test_team.c",
        "test_stress.c",
        "test_mcp.c",
        "test_abi12.c",
        "fake_provider.c",
        "test_host_provider.c",
        "test_host_provider_errors.c",
        "main.c",
    ] {
        cmd.arg(root.join("tests/c").join(f));
    }
    cmd.arg(format!("-L{}", lib_dir.display()))
        .arg("-lrobota")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-lpthread")
        .arg("-o")
        .arg(&out);
    let o = cmd.output().expect("gcc runs");
    assert!(
        o.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Quick-start iterations per delivery mode under valgrind (`tests/c/test_delivery.c`).
const VALGRIND_QUICKSTART_RUNS: &str = "50";

#[test]
fn c_abi_tests_pass_natively_and_under_valgrind() {
    let lib = build_cdylib();
    let exe = compile_c_tests(&lib);
    let o = Command::new(&exe).output().expect("C tests run");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "C tests failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("66 test(s), 0 failure(s)"), "{stdout}");
    run_http(&exe, None);
    if have("valgrind") {
        run_http(&exe, Some("valgrind"));
        let o = Command::new("valgrind")
            .args([
                "--error-exitcode=1",
                "--leak-check=full",
                "--quiet",
                "--num-callers=100",
            ])
            .arg(format!(
                "--suppressions={}/tests/c/valgrind.supp",
                env!("CARGO_MANIFEST_DIR")
            ))
            .arg(&exe)
            // 50 quick-start runs per delivery mode instead of 200: valgrind makes each about
            // 30x slower; the native run above and the ASan run (.ci/c_asan.sh) keep 200.
            .env("ROBOTA_C_TEST_QUICKSTART_RUNS", VALGRIND_QUICKSTART_RUNS)
            .output()
            .expect("valgrind runs");
        assert!(
            o.status.success(),
            "C tests under valgrind failed:\n{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    } else {
        crate::support::required::missing(
            "c_abi_tests_pass_natively_and_under_valgrind",
            "valgrind",
            "install it (apt-get install valgrind) for the valgrind run",
        );
    }
}

/// Runs the HTTP C tests against a fresh fake OpenAI-compatible server.
fn run_http(exe: &Path, wrapper: Option<&str>) {
    let server = FakeServer::start();
    server.enqueue(Reply::openai(&Turn::text(["Hel", "lo"]).tool(
        "call_1",
        "lookup",
        r#"{"key":"h"}"#,
    )));
    server.enqueue(Reply::openai(&Turn::text(["Found ", "it."])));
    server.enqueue(Reply::openai(&Turn::text(["part", "ial", "never"])).hang_after(3));
    let mut cmd = match wrapper {
        Some(w) => {
            let mut c = Command::new(w);
            c.args([
                "--error-exitcode=1",
                "--leak-check=full",
                "--quiet",
                "--num-callers=100",
            ])
            .arg(format!(
                "--suppressions={}/tests/c/valgrind.supp",
                env!("CARGO_MANIFEST_DIR")
            ))
            .arg(exe);
            c
        }
        None => Command::new(exe),
    };
    let o = cmd
        .args(["http_streaming_and_tool", "http_abort_mid_stream"])
        .env(
            "ROBOTA_FAKE_BASE_URL",
            server.base_url_for("openai-compatible"),
        )
        .output()
        .expect("C HTTP tests run");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success()
            && stdout.contains("2 test(s), 0 failure(s)")
            && !stdout.contains("skipped"),
        "C HTTP tests failed ({wrapper:?}):\n{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The README's C quick start, compiled as written with only the provider entry swapped for
/// the scripted one (a 60-delta answer; its `api_key` swapped for `fallback`), prints the
/// whole answer on every run: `submit → wait → free` loses nothing and needs no sleep.
#[test]
fn readme_quick_start_prints_the_whole_answer_every_time() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md is readable");
    let section = &readme[readme
        .find("## C quick start")
        .expect("quick start section")..];
    let start = section.find("```c\n").expect("a C block") + "```c\n".len();
    let block = &section[start..start + section[start..].find("\n```").expect("block end")];
    let anthropic = r#"\"kind\":\"anthropic\","#;
    assert!(block.contains(anthropic), "{block}");
    let deltas: Vec<String> = (0..60).map(|i| format!(r#"\"w{i:02} \""#)).collect();
    let scripted = format!(
        r#"\"kind\":\"scripted\",\"turns\":[{{\"deltas\":[{}]}}],"#,
        deltas.join(",")
    );
    let src = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme_quick_start.c");
    // A scripted entry has no `api_key` (unknown keys are refused): it becomes `fallback`.
    let api_key = r#"\"api_key\":\"$ENV:ANTHROPIC_API_KEY\""#;
    assert!(block.contains(api_key), "{block}");
    let swapped = block
        .replace(anthropic, &scripted)
        .replace(api_key, r#"\"fallback\":\"echo\""#);
    std::fs::write(&src, swapped).expect("write the C file");
    let lib = build_cdylib();
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme_quick_start");
    let o = Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", root.join("include").display()))
        .arg(&src)
        .arg(format!("-L{}", lib.display()))
        .arg("-lrobota")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("gcc runs");
    assert!(
        o.status.success(),
        "the quick start does not compile:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let expected: String = (0..60).map(|i| format!("w{i:02} ")).collect::<String>() + "\n[ok]\n";
    for run in 0..30 {
        let o = Command::new(&exe)
            .env("ANTHROPIC_API_KEY", "unused-by-the-scripted-provider")
            .output()
            .expect("the quick start runs");
        assert!(o.status.success(), "run {run}: {o:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), expected, "run {run}");
    }
}
