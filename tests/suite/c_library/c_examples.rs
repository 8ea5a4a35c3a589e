//! The C example `examples-c/host_provider.c` (a host provider the program owns, no model
//! server) built against the debug cdylib: its output is exactly `host_provider.expected`
//! (`make -C examples-c demo-all` checks the installed build the same way).

use std::path::Path;
use std::process::Command;

#[test]
fn the_host_provider_example_prints_its_expected_output() {
    let lib = super::c_abi::build_cdylib();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("host_provider_example");
    let o = Command::new("gcc")
        .args([
            "-std=c11",
            "-D_POSIX_C_SOURCE=200809L",
            "-D_DEFAULT_SOURCE",
            "-Wall",
            "-Wextra",
            "-Werror",
        ])
        .arg(format!("-I{}", root.join("include").display()))
        .arg(root.join("examples-c/host_provider.c"))
        .arg(format!("-L{}", lib.display()))
        .arg("-lrobota")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lpthread")
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("gcc runs");
    assert!(
        o.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let run = Command::new(&exe).output().expect("the example runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let expected = std::fs::read_to_string(root.join("examples-c/host_provider.expected")).unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), expected);
}
