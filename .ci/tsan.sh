#!/usr/bin/env bash
# ThreadSanitizer on the C tests' host code and the concurrency stress (tests/c/test_stress.c:
# submit/abort/free/respond from many threads), with librobota's Rust side built with
# `-Zsanitizer=thread -Zbuild-std` (nightly; std must be instrumented too, or its atomics are
# invisible and every handoff through the library looks like a race).
# Without a nightly toolchain it skips with a message outside CI and fails under CI (`CI` set).
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/skip.sh
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  skip_or_fail "tsan: no nightly toolchain installed; ThreadSanitizer"
fi
rustup component add rust-src --toolchain nightly >/dev/null 2>&1 || true
triple=$(rustc -vV | sed -n 's/^host: //p')
# --no-default-features: the system allocator, which the sanitizer intercepts (mimalloc, the
# default, takes its memory straight from mmap and hides every heap block from it).
RUSTFLAGS="-Zsanitizer=thread -Cforce-frame-pointers=yes" \
  cargo +nightly build --no-default-features --features sandbox -Zbuild-std --lib --target "$triple" --target-dir target/tsan
# halt_on_error: the first race fails the step; suppressions name known false positives only.
# rustc's LLVM emits __tsan_memset & co., which gcc 12's and clang 14's runtimes lack: the test
# executable links rustc's own TSan runtime.
rt=$(rustc +nightly --print sysroot)/lib/rustlib/$triple/lib/librustc-nightly_rt.tsan.a
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/c/tsan.supp" \
  C_LIB_DIR="target/tsan/$triple/debug" C_SANITIZER=thread C_SANITIZER_RT="$rt" C_OUT=target/c_tests_tsan \
  ROBOTA_C_TEST_QUICKSTART_RUNS=${ROBOTA_C_TEST_QUICKSTART_RUNS:-20} bash .ci/c_asan.sh
