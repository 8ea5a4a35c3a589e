//! Places the code an agent turn runs together in the cdylib: lld's `--symbol-ordering-file`
//! with `packaging/hot-symbols.txt` (written by `cargo bench --bench floor -- order`). The
//! kernel maps a library's code 64 KiB around each page a process first touches, so the order
//! decides how much of the library a host keeps resident and how many page faults its first
//! turn takes ([Performance](docs/performance.md)). Only where rustc links with lld by default
//! (x86_64 Linux, glibc) and no linker was chosen in RUSTFLAGS; `ROBOTA_SYMBOL_ORDER=0` leaves it
//! out. A name the file lists that a build does not have is skipped.

fn main() {
    const ORDER: &str = "packaging/hot-symbols.txt";
    println!("cargo:rerun-if-changed={ORDER}");
    println!("cargo:rerun-if-env-changed=ROBOTA_SYMBOL_ORDER");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let lld_by_default = var("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu";
    let linker_chosen = var("CARGO_ENCODED_RUSTFLAGS").contains("linker");
    if !lld_by_default || linker_chosen || var("ROBOTA_SYMBOL_ORDER") == "0" {
        return;
    }
    // The linker reads a copy in OUT_DIR: a target directory shared by two checkouts (CI's
    // fresh clone) keeps this script's output, which must not name the other checkout's file.
    let source = std::path::Path::new(&var("CARGO_MANIFEST_DIR")).join(ORDER);
    let copy = std::path::Path::new(&var("OUT_DIR")).join("hot-symbols.txt");
    if std::fs::copy(&source, &copy).is_ok() {
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,--symbol-ordering-file={}",
            copy.display()
        );
        println!("cargo:rustc-cdylib-link-arg=-Wl,--no-warn-symbol-ordering");
    }
}
