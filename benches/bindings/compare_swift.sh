#!/usr/bin/env bash
# The Swift binding's floor host beside the C host (benches/floor/host.c), both built here over
# the library installed in $ROBOTA_PREFIX (default target/prefix) and run interleaved, warm mode
# (50 scenarios in a row), for each pair of patterns: C `thread` / Swift `task`, C `run` /
# Swift `drive`, C `pump` / Swift `one`. Run it where Swift 6.0, pkg-config and cc are (CI's
# Swift root), against two `floor serve` model servers (`floor serve anthropic|openai`: the URL
# on stdout):
#
#   bash benches/bindings/compare_swift.sh ANTHROPIC_URL OPENAI_URL [RUNS (default 5)]
#   bash benches/bindings/compare_swift.sh --summary [FILE]   (where python3 is)
#
# The runs go to target/swift/floor/compare.jsonl; the summary prints, per pattern and wire
# format, the CPU ratio Swift / C as median (min–max) over the runs, Swift's CPU per scenario
# and its allocations per text delta.
set -euo pipefail
cd "$(dirname "$0")/../.."
lines="$PWD/target/swift/floor/compare.jsonl"
summary() {
  python3 - "$1" <<'PY'
import json, statistics, sys
from collections import defaultdict
ratio, cpu, allocs = defaultdict(list), defaultdict(list), defaultdict(list)
for line in open(sys.argv[1]):
    x = json.loads(line)
    k = (x["swift"], x["c"], x["kind"])
    ratio[k].append(x["s_out"]["cpu_ns"] / x["c_out"]["cpu_ns"])
    cpu[k].append(x["s_out"]["cpu_ns"] / x["s_out"]["scenarios"] / 1e6)
    allocs[k].append(x["s_out"]["allocs"] / x["s_out"]["deltas"])
print("| Swift | C | wire | CPU ratio | Swift CPU per scenario | allocations per text delta |")
print("|---|---|---|---|---|---|")
for k in sorted(ratio):
    r = ratio[k]
    print(f"| {k[0]} | {k[1]} | {k[2]} | {statistics.median(r):.2f} ({min(r):.2f}–{max(r):.2f}) "
          f"| {statistics.median(cpu[k]):.2f} ms | {statistics.median(allocs[k]):.2f} |")
PY
}
if [ "${1:-}" = --summary ]; then summary "${2:-$lines}"; exit; fi
[ $# -ge 2 ] || { echo "usage: compare_swift.sh ANTHROPIC_URL OPENAI_URL [RUNS] | --summary [FILE]" >&2; exit 64; }
prefix="${ROBOTA_PREFIX:-$PWD/target/prefix}"
swift_host="$(ROBOTA_PREFIX="$prefix" bash benches/bindings/build_swift.sh | tail -n 1)"
out="$PWD/target/swift/floor"
"${CC:-cc}" -O2 -o "$out/floor_host_c" benches/floor/host.c -Iinclude -L"$prefix/lib" -lrobota \
  -Wl,-rpath,"$prefix/lib" -lpthread
: > "$lines"
for run in $(seq "${3:-5}"); do
  for kind in anthropic openai; do
    url="$1"; [ "$kind" = openai ] && url="$2"
    for pair in thread:task run:drive pump:one; do
      c="$("$out/floor_host_c" warm "$kind" "$url" "${pair%%:*}" | tail -n 1)"
      s="$($swift_host warm "$kind" "$url" "${pair##*:}" | tail -n 1)"
      echo "{\"kind\":\"$kind\",\"c\":\"${pair%%:*}\",\"swift\":\"${pair##*:}\",\"c_out\":$c,\"s_out\":$s}" >> "$lines"
    done
  done
done
if command -v python3 >/dev/null 2>&1; then
  summary "$lines"
else
  echo "compare_swift.sh: the runs are in $lines; summarise them where python3 is: bash benches/bindings/compare_swift.sh --summary"
fi
