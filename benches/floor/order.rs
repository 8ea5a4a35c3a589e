//! `floor order`: writes `packaging/hot-symbols.txt`, the functions the floor scenario runs in
//! the `ship` library, which the linker places together (`build.rs`: lld's
//! `--symbol-ordering-file`). The kernel maps a library's code 64 KiB around each page a
//! process first touches, so the shipped library's code scattered over its 6 MB of text made
//! ~5 MB of it resident in a process that ran one agent turn; placed together, the code a turn
//! runs is about 1 MB.
//!
//! How: the `ship` cdylib is linked unstripped (`-C strip=none`, the same code and layout), the
//! C host runs every pattern, mode and wire format under `valgrind --tool=callgrind`, which
//! names each function executed by its symbol, and the file lists the library's ones.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::build::{compile_host, ship_dir_with_rustc_args};
use crate::scenario::Kind;
use crate::server;

/// Where the ordering file lives, relative to the manifest.
pub(crate) const ORDER_FILE: &str = "packaging/hot-symbols.txt";

/// The library's functions callgrind saw run, by their (mangled) symbol names.
fn executed_functions(callgrind_out: &str, lib_name: &str, into: &mut BTreeSet<String>) {
    let mut objects = std::collections::HashMap::new();
    let mut functions = std::collections::HashMap::new();
    let mut in_lib = false;
    for line in callgrind_out.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (id, name) = match value.split_once(' ') {
            Some((id, name)) => (id, Some(name)),
            None => (value, None),
        };
        match key {
            "ob" | "cob" => {
                if let Some(name) = name {
                    objects.insert(id.to_string(), name.to_string());
                }
                if key == "ob" {
                    in_lib = objects.get(id).is_some_and(|n| n.contains(lib_name));
                }
            }
            "fn" | "cfn" => {
                if let Some(name) = name {
                    functions.insert(id.to_string(), name.to_string());
                }
                let symbol = functions.get(id).map(|n| match n.split_once('\'') {
                    Some((base, _)) => base, // `'2`: callgrind's recursion marker
                    None => n.as_str(),
                });
                if let Some(symbol) =
                    symbol.filter(|n| key == "fn" && in_lib && !n.starts_with("0x"))
                {
                    into.insert(symbol.to_string());
                }
            }
            _ => {}
        }
    }
}

/// Runs the C host under callgrind once; returns what it recorded.
fn callgrind(host: &Path, args: &[&str], out: &Path) -> String {
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--demangle=no")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(host)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run valgrind (apt-get install valgrind)");
    assert!(status.success(), "callgrind {args:?} failed");
    std::fs::read_to_string(out).expect("read the callgrind output")
}

/// `floor order`: see the module doc.
pub(crate) fn main() -> i32 {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target/ship");
    let lib_dir = ship_dir_with_rustc_args(&target, &["-C", "strip=none"]);
    let host = compile_host(&lib_dir, &target.join("floor_host_order"));
    let mut hot: BTreeSet<String> = BTreeSet::new();
    let scratch: PathBuf = target.join("callgrind.out");
    for kind in Kind::ALL {
        let url = server::base_url(server::start(kind, None), kind);
        for pattern in ["run", "inline", "thread", "submit", "pump", "pull"] {
            for mode in ["single", "conc"] {
                let args = [mode, kind.as_str(), url.as_str(), pattern];
                executed_functions(&callgrind(&host, &args, &scratch), "librobota", &mut hot);
            }
        }
    }
    let text = format!(
        "# The functions one agent turn runs in the shipped library, placed together by the\n\
         # linker (build.rs). Written by `cargo bench --bench floor -- order` (benches/floor/order.rs);\n\
         # {} functions. A name that no longer exists is skipped.\n{}\n",
        hot.len(),
        hot.iter().map(String::as_str).collect::<Vec<_>>().join("\n")
    );
    std::fs::write(root.join(ORDER_FILE), text).expect("write the ordering file");
    println!("{ORDER_FILE}: {} functions", hot.len());
    0
}
