#!/usr/bin/env bash
# Size budget (issue 10): the cdylib must not exceed 8 MB (8 MiB), both as profile "ship" builds
# it (LTO, one codegen unit, stripped symbols, unwinding kept) and as it ships: the same profile
# with profile-guided optimisation, trained on the floor scenario (`cargo bench --bench floor --
# pgo`, which fails when a training scenario fails). PGO needs llvm-profdata (rustup component
# llvm-tools, installed by .ci/run); without it that half is skipped with a warning outside CI
# and fails under CI (`CI` set).
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/skip.sh
LIMIT_BYTES=$((8 * 1024 * 1024))

check() { # check LABEL FILE
  local size
  size=$(wc -c <"$2")
  echo "$1 $2: $size bytes ($(awk -v s="$size" 'BEGIN{printf "%.2f", s/1048576}') MiB), limit $LIMIT_BYTES bytes (8 MiB)"
  if ((size > LIMIT_BYTES)); then
    echo "FAIL: $1 grew past 8 MB; see README 'Performance', Size, for what weighs" >&2
    exit 1
  fi
}

# The profile ship library .ci/install.sh installed (cargo-c, the same profile) when it is there:
# one fat-LTO build less in CI; else a build of its own.
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
lib=""
for f in target/prefix/lib/librobota.so."$version"; do
  if [[ -f "$f" ]]; then lib="$f"; fi
done
if [[ -z "$lib" ]]; then
  cargo rustc -p robota --profile ship --lib --crate-type cdylib
  for f in target/ship/librobota.so target/ship/librobota.dylib target/ship/robota.dll; do
    if [[ -f "$f" ]]; then lib="$f"; break; fi
  done
fi
if [[ -z "$lib" ]]; then
  echo "FAIL: no cdylib found in target/ship/" >&2
  exit 1
fi
check "cdylib (profile ship)" "$lib"

profdata="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata"
if [[ ! -x "$profdata" ]]; then
  skip_or_fail "size: $profdata missing (rustup component llvm-tools); the PGO build's check"
fi
pgo=$(cargo bench --bench floor -- pgo | tail -n 1)
check "shipped cdylib (profile ship + PGO)" "$pgo"
