#!/usr/bin/env bash
# The C ABI tests (tests/c, the concurrency stress included) against a librobota whose Rust side
# is built with AddressSanitizer (`-Zsanitizer=address`, nightly): out-of-bounds, use-after-free
# and leaks inside the library, not only in the C host. The C side is instrumented too and
# brings the ASan runtime (.ci/c_asan.sh does the build, the fake server and the run).
# Without a nightly toolchain it skips with a message outside CI and fails under CI (`CI` set).
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/skip.sh
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  skip_or_fail "rust_asan: no nightly toolchain installed; Rust-side AddressSanitizer"
fi
triple=$(rustc -vV | sed -n 's/^host: //p')
# --target keeps build scripts and proc macros uninstrumented; a target dir of its own keeps the
# sanitized artifacts apart from the normal ones.
# --no-default-features: the system allocator, which the sanitizer intercepts (mimalloc, the
# default, takes its memory straight from mmap and hides every heap block from it).
RUSTFLAGS="-Zsanitizer=address -Cforce-frame-pointers=yes" \
  cargo +nightly build --no-default-features --features sandbox --lib --target "$triple" --target-dir target/asan
C_LIB_DIR="target/asan/$triple/debug" C_SANITIZER=address C_OUT=target/c_tests_rust_asan \
  ROBOTA_C_TEST_QUICKSTART_RUNS=${ROBOTA_C_TEST_QUICKSTART_RUNS:-50} bash .ci/c_asan.sh
