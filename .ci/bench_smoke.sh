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
# The floor, with the Go and C# bindings' hosts, the Go cgo floor and the C# P/Invoke floor
# beside the C host (benches/bindings/build_*.sh, over the library .ci/prefix.sh installed for
# the bindings' steps), then the Swift host inside the Swift root against the floor's model
# server.
. .ci/prefix.sh
go_host="$(bash benches/bindings/build_go.sh | tail -n 1)"
cgo_floor="$(bash benches/bindings/build_go.sh cgofloor | tail -n 1)"
cs_host="$(bash benches/bindings/build_csharp.sh | tail -n 1)"
pinvoke_floor="$(bash benches/bindings/build_csharp.sh pinvokefloor | tail -n 1)"
cargo bench --bench floor -- --runs 1 --lib release \
  --host "Go Run,thread,run,$go_host" --host "Go Drive,run,drive,$go_host" \
  --host "Go one goroutine,submit,one,$go_host" --host "Go Drive Events(),run,drive-events,$go_host" \
  --host "Go cgo floor thread,thread,thread,$cgo_floor" --host "Go cgo floor run,run,run,$cgo_floor" \
  --host "Go cgo floor submit,submit,submit,$cgo_floor" \
  --host "C# RunAsync,thread,task,$cs_host" --host "C# Drive,run,drive,$cs_host" \
  --host "C# pump thread,pump,one,$cs_host" \
  --host "C# P/Invoke floor thread,thread,thread,$pinvoke_floor" \
  --host "C# P/Invoke floor run,run,run,$pinvoke_floor" --host "C# P/Invoke floor pump,pump,pump,$pinvoke_floor"
floor="$(cargo bench --bench floor --no-run --message-format=json 2>/dev/null \
  | sed -n 's/.*"executable":"\([^"]*floor-[^"]*\)".*/\1/p' | tail -n 1)"
[[ -x "$floor" ]] || { echo "bench_smoke.sh: the floor bench binary was not found" >&2; exit 1; }
fifo="$(mktemp -u)"; mkfifo "$fifo"
rm -f target/floor-serve.url target/floor-serve-anthropic.url
"$floor" serve openai < "$fifo" > target/floor-serve.url &
"$floor" serve anthropic < "$fifo" > target/floor-serve-anthropic.url &
exec 3> "$fifo"
for _ in $(seq 100); do
  [[ -s target/floor-serve.url && -s target/floor-serve-anthropic.url ]] && break; sleep 0.1
done
url="$(cat target/floor-serve.url)"
url_anthropic="$(cat target/floor-serve-anthropic.url)"
../shared/tools/swift-run --dir "$PWD" -- env ROBOTA_PREFIX="$ROBOTA_PREFIX" bash -c '
  set -euo pipefail
  host="$(bash benches/bindings/build_swift.sh | tail -n 1)"
  for pattern in task drive one; do
    for mode in single warm conc; do $host "$mode" openai "$1" "$pattern"; done
  done
  bash benches/bindings/compare_swift.sh "$2" "$1" 1' _ "$url" "$url_anthropic"
bash benches/bindings/compare_swift.sh --summary
exec 3>&-
rm -f "$fifo"
