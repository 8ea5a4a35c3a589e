#!/usr/bin/env bash
# Every benchmark still runs (issue 10: "keep the benchmark running in every later change"):
# each one once and briefly — the criterion groups in test mode (one iteration each), the bench
# programs with small counts, the floor with one process per figure against the release build
# (its shipped, profile-guided build is trained and checked by .ci/size.sh). Nothing here
# asserts a time: figures go in the README from full runs. A bench that panics, or a floor host
# that sees a scenario go wrong (it checks every delta and tool call), fails the step.
set -euo pipefail
cd "$(dirname "$0")/.."

for bench in engine ffi providers store; do
  cargo bench --bench "$bench" -- --test
done
STORE_BENCH_ROUNDS=1 STORE_BENCH_TURNS=20 cargo bench --bench store -- turn_transcript
cargo bench --bench abi_turn -- 200 all all
cargo bench --bench handoff -- 2000
cargo bench --bench replay
# A behaviour check: fails when prompt caching serves < 80 % of input tokens after round 2.
cargo bench --bench cache
cargo bench --bench host_io
cargo bench --bench store_port -- 3
cargo bench --bench search
cargo bench --bench floor -- --runs 1 --lib release
