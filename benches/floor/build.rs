//! The libraries the C host loads, and the host itself.
//!
//! - `release`: the cdylib `cargo bench` just built (quick to iterate on, with symbols).
//! - `ship`: profile `ship` (fat LTO, one codegen unit, stripped, unwinding kept), built with
//!   `cargo rustc --profile ship` into `target/ship/`, as `.ci/size.sh` does first: what
//!   `cargo build --profile ship` gives, without a profile.
//! - `pgo`: what ships — profile `ship` with profile-guided optimisation (PGO). An instrumented
//!   `ship` build (`-Cprofile-generate`) runs the floor scenario here (both wire formats, both
//!   delivery modes; a cold process, 51 scenarios in a row and 100 at once), `llvm-profdata`
//!   (rustup component `llvm-tools`) merges what it recorded, and `ship` is built again with
//!   that profile (`-Cprofile-use`, for the streaming path's crates only: `pgo_rustc.sh`) into
//!   `target/pgo/use/<host>/ship/`. The instrumented and the
//!   final build use the same profile settings, so every function's profile matches its code
//!   (docs/dev/perf.md §19, §20). `floor pgo`
//!   does only this and prints the library's path.
//!
//! The C host is linked with an `RPATH` (not a `RUNPATH`) to the library's directory: `cargo
//! bench` runs this binary with `LD_LIBRARY_PATH` holding `target/release/deps`, where the
//! release cdylib is, and `LD_LIBRARY_PATH` wins over a `RUNPATH` (before 2026-11-28 every
//! `ship` figure was the release cdylib's). [`compile_host`] checks with `ldd`, in this
//! process's environment, that the host resolves the library it was linked against.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::scenario::Kind;
use crate::server;

/// Which build of the cdylib the C host loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lib {
    /// Profile `ship` without a profile.
    Ship,
    /// Profile `ship` with profile-guided optimisation: what ships.
    Pgo,
    /// Profile `release`, as `cargo bench` built it.
    Release,
}

impl Lib {
    /// `ship`, `pgo` or `release`.
    pub(crate) fn parse(s: &str) -> Option<Lib> {
        match s {
            "ship" => Some(Lib::Ship),
            "pgo" => Some(Lib::Pgo),
            "release" => Some(Lib::Release),
            _ => None,
        }
    }

    /// The directory holding this build's `librobota.so`, built first where needed.
    pub(crate) fn dir(self) -> PathBuf {
        match self {
            Lib::Ship => ship_dir(&target_root(), None, None),
            Lib::Pgo => pgo_ship_dir(),
            Lib::Release => release_lib_dir(),
        }
    }
}

/// The target profile directory holding the `release` cdylib (`target/release`): this binary
/// lives in its `deps/`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    exe.parent()
        .and_then(Path::parent)
        .expect("bench binary in target/<profile>/deps")
        .to_path_buf()
}

/// `target/`.
fn target_root() -> PathBuf {
    profile_dir()
        .parent()
        .expect("target/<profile>")
        .to_path_buf()
}

/// The directory holding the `release` cdylib: the newer of `<profile>/librobota.so` (written
/// by `cargo build`) and `deps/librobota.so` (what `cargo bench` just built).
fn release_lib_dir() -> PathBuf {
    let dir = profile_dir();
    let modified = |d: &PathBuf| {
        std::fs::metadata(d.join("librobota.so"))
            .and_then(|m| m.modified())
            .ok()
    };
    ["", "deps"]
        .iter()
        .map(|d| dir.join(d))
        .filter_map(|d| modified(&d).map(|t| (t, d)))
        .max_by_key(|(t, _)| *t)
        .map(|(_, d)| d)
        .expect("librobota.so next to the bench binary (built by cargo bench)")
}

/// Output of `rustc -vV` / `rustc --print sysroot`, trimmed.
fn rustc(args: &[&str]) -> String {
    let out = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args(args)
        .output()
        .expect("run rustc");
    assert!(out.status.success(), "rustc {args:?} failed");
    String::from_utf8(out.stdout).expect("rustc prints UTF-8")
}

/// The host's target triple.
fn host_triple() -> String {
    rustc(&["-vV"])
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}

/// Builds the `ship` cdylib into `target_dir` and returns the directory holding it. With
/// `rustflags` (PGO) the build names the host target, so the flags reach only the target's
/// crates, not build scripts and proc macros, which run on the host. `wrapper` is a
/// `RUSTC_WRAPPER` (the PGO `use` build's [`PGO_RUSTC`]).
fn ship_dir(target_dir: &Path, rustflags: Option<&str>, wrapper: Option<&Path>) -> PathBuf {
    ship_dir_with(target_dir, rustflags, wrapper, &[])
}

/// The `ship` cdylib in `target_dir`, its own crate compiled with `rustc_args` too (`floor
/// order` keeps its symbols).
pub(crate) fn ship_dir_with_rustc_args(target_dir: &Path, rustc_args: &[&str]) -> PathBuf {
    ship_dir_with(target_dir, None, None, rustc_args)
}

fn ship_dir_with(
    target_dir: &Path,
    rustflags: Option<&str>,
    wrapper: Option<&Path>,
    rustc_args: &[&str],
) -> PathBuf {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args([
        "rustc",
        "-p",
        "robota",
        "--profile",
        "ship",
        "--lib",
        "--crate-type",
        "cdylib",
    ])
    .arg("--target-dir")
    .arg(target_dir)
    .current_dir(env!("CARGO_MANIFEST_DIR"));
    let out = match rustflags {
        None => target_dir.join("ship"),
        Some(flags) => {
            let triple = host_triple();
            cmd.args(["--target", &triple])
                .env_remove("RUSTFLAGS")
                .env("CARGO_ENCODED_RUSTFLAGS", flags);
            target_dir.join(triple).join("ship")
        }
    };
    match wrapper {
        Some(w) => cmd.env("RUSTC_WRAPPER", w),
        None => cmd.env_remove("RUSTC_WRAPPER"),
    };
    if !rustc_args.is_empty() {
        cmd.arg("--").args(rustc_args);
    }
    let status = cmd.status().expect("run cargo");
    assert!(status.success(), "building the ship cdylib failed");
    out
}

/// `llvm-profdata` of the toolchain (rustup component `llvm-tools`).
fn llvm_profdata() -> PathBuf {
    let tool = PathBuf::from(rustc(&["--print", "sysroot"]).trim())
        .join("lib/rustlib")
        .join(host_triple())
        .join("bin/llvm-profdata");
    assert!(
        tool.is_file(),
        "{} not found: the PGO build needs `rustup component add llvm-tools`",
        tool.display()
    );
    tool
}

/// The `RUSTC_WRAPPER` of the PGO `use` build, relative to the manifest: it keeps the profile
/// for the streaming path's crates only (the script says why).
const PGO_RUSTC: &str = "benches/floor/pgo_rustc.sh";

/// Builds the shipped cdylib with profile-guided optimisation (see the module doc) and returns
/// the directory holding it.
fn pgo_ship_dir() -> PathBuf {
    let profdata_tool = llvm_profdata();
    let root = target_root().join("pgo");
    let raw = root.join("raw");
    let _ = std::fs::remove_dir_all(&raw);
    std::fs::create_dir_all(&raw).expect("create target/pgo/raw");
    let generate = format!("-Cprofile-generate={}", raw.display());
    let instrumented = ship_dir(&root.join("gen"), Some(&generate), None);
    let host = compile_host(&instrumented, &root.join("floor_host_gen"));
    train(&host);
    let profile = root.join("robota.profdata");
    let status = Command::new(profdata_tool)
        .arg("merge")
        .arg("-o")
        .arg(&profile)
        .arg(&raw)
        .stdout(Stdio::null())
        .status()
        .expect("run llvm-profdata");
    assert!(status.success(), "llvm-profdata merge failed");
    let use_profile = format!("-Cprofile-use={}", profile.display());
    let wrapper = Path::new(env!("CARGO_MANIFEST_DIR")).join(PGO_RUSTC);
    ship_dir(&root.join("use"), Some(&use_profile), Some(&wrapper))
}

/// The PGO training run: the instrumented library through the C host, every scenario shape the
/// floor measures, both wire formats and both delivery modes, against this process's servers.
fn train(host: &Path) {
    for kind in Kind::ALL {
        let url = server::base_url(server::start(kind, None), kind);
        for delivery in ["inline", "thread"] {
            for mode in ["single", "warm", "conc"] {
                let status = Command::new(host)
                    .args([mode, kind.as_str(), &url, delivery])
                    .stdout(Stdio::null())
                    .status()
                    .expect("run the instrumented host");
                assert!(
                    status.success(),
                    "PGO training: {mode} {} {delivery} failed",
                    kind.as_str()
                );
            }
        }
    }
}

/// Compiles `host.c` against the header and the cdylib in `lib_dir` into `out`, and checks that
/// the host, started from here, loads that cdylib.
pub(crate) fn compile_host(lib_dir: &Path, out: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .arg("-O2")
        .arg("-std=c11")
        .arg("-D_POSIX_C_SOURCE=200809L")
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join("benches/floor/host.c"))
        .arg("-o")
        .arg(out)
        .arg(format!("-L{}", lib_dir.display()))
        // An RPATH, not a RUNPATH (see the module doc).
        .arg("-Wl,--disable-new-dtags")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-lrobota")
        .arg("-lpthread")
        .status()
        .expect("run cc");
    assert!(status.success(), "compiling benches/floor/host.c failed");
    let ldd = Command::new("ldd").arg(out).output().expect("run ldd");
    let resolved = String::from_utf8_lossy(&ldd.stdout);
    let wanted = lib_dir.join("librobota.so");
    assert!(
        resolved
            .lines()
            .any(|l| l.contains(&format!("=> {} ", wanted.display()))),
        "the C host does not load {}:\n{resolved}",
        wanted.display()
    );
    out.to_path_buf()
}

/// Compiles `host.c` against the cdylib of `which`; returns the host and the library file.
pub(crate) fn build_c_host(which: Lib) -> (PathBuf, PathBuf) {
    let lib = which.dir();
    let host = compile_host(&lib, &profile_dir().join("floor_host"));
    (host, lib.join("librobota.so"))
}
