#!/usr/bin/env bash
# Size budget (issue 10): the shipped cdylib — profile "ship" (LTO, one codegen unit, stripped
# symbols, unwinding kept) — must not exceed 8 MB. Builds only the cdylib crate type.
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT_BYTES=$((8 * 1024 * 1024))

cargo rustc --profile ship --lib --crate-type cdylib
lib=""
for f in target/ship/librobota.so target/ship/librobota.dylib target/ship/robota.dll; do
  if [[ -f "$f" ]]; then lib="$f"; break; fi
done
if [[ -z "$lib" ]]; then
  echo "FAIL: no cdylib found in target/ship/" >&2
  exit 1
fi
size=$(wc -c <"$lib")
echo "shipped cdylib $lib: $size bytes ($(awk -v s="$size" 'BEGIN{printf "%.2f", s/1048576}') MiB), limit $LIMIT_BYTES bytes (8 MiB)"
if ((size > LIMIT_BYTES)); then
  echo "FAIL: the shipped cdylib grew past 8 MB; see README 'Performance' (cargo bloat) for what weighs" >&2
  exit 1
fi
