#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/) for FUZZ_SECONDS each (default 10: a short smoke per
# target), one after the other (the CI machine has 2 cores; libFuzzer uses one). Seeds:
# fuzz/corpus/<target> (small, in the repo) plus the recorded vendor streams (fuzz/seed.sh).
# Without a nightly toolchain it skips with a message outside CI and fails under CI (`CI` set).
# FUZZ_TARGETS="a b" runs a subset.
# Budget: 12 targets x 10 s ≈ 2 min of fuzzing plus one build; a longer run sets FUZZ_SECONDS
# (e.g. 60, or 1800 with FUZZ_RUNS below).
# The smoke (FUZZ_SECONDS ≤ 60) builds unoptimised (`--dev`): the build, not the fuzzing, was most
# of the step's time, and ten seconds per target need coverage, not speed. Longer runs build
# optimised (release with debug assertions); FUZZ_PROFILE=release|dev overrides.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/skip.sh
secs=${FUZZ_SECONDS:-10}
# FUZZ_RUNS=N also stops a target after N executions (the long run: FUZZ_SECONDS=1800 FUZZ_RUNS=10000000).
runs=()
if [ -n "${FUZZ_RUNS:-}" ]; then runs=(-runs="$FUZZ_RUNS"); fi

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  skip_or_fail "fuzz: no nightly toolchain installed (rustup toolchain list); fuzzing"
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo +nightly install cargo-fuzz --locked
fi

cd fuzz
targets=${FUZZ_TARGETS:-$(cargo +nightly fuzz list)}
# No sanitizer: the targets are safe Rust plus the C ABI called with valid pointers (ASan on the
# C ABI is .ci/rust_asan.sh); instrumentation alone keeps executions per second high.
profile=${FUZZ_PROFILE:-}
if [ -z "$profile" ]; then
  if [ "$secs" -le 60 ]; then profile=dev; else profile=release; fi
fi
if [ "$profile" = dev ]; then
  cargo +nightly fuzz build -s none --dev
  bin=target/$(rustc -vV | sed -n 's/^host: //p')/debug
else
  cargo +nightly fuzz build -s none
  bin=target/$(rustc -vV | sed -n 's/^host: //p')/release
fi
work=$(cd .. && pwd)/target/fuzz-work
mkdir -p artifacts
bash seed.sh "$work" >/dev/null
for t in $targets; do
  echo "== fuzz $t (${secs}s)"
  mkdir -p "corpus/$t" "$work/$t"
  log="$work/$t.log"
  rc=0
  # The built binary directly: `cargo fuzz run` may rebuild with other flags.
  "$bin/$t" "$work/$t" "corpus/$t" -artifact_prefix="artifacts/$t-" \
    -max_total_time="$secs" "${runs[@]}" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 >"$log" 2>&1 || rc=$?
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$log" || true
  if [ "$rc" -ne 0 ]; then
    tail -n 60 "$log"
    echo "fuzz target $t failed: reproduce with: cd fuzz && $bin/$t <the crash file named above>"
    exit 1
  fi
done
