#!/usr/bin/env bash
# Size budgets (docs/performance.md "Size"), stripped cdylibs of profile ship (fat LTO, one
# codegen unit, no symbols, unwinding kept):
#   - the default build, MCP included, <= 9 MiB, as profile ship builds it (the library
#     .ci/install.sh installed, else a build of its own): what the release archives ship;
#   - its optional profile-guided build, trained on the floor scenario (`cargo bench --bench
#     floor -- pgo`, which fails when a training scenario fails) <= 10 MiB: the hot paths are
#     optimised for speed, not size (9.06 MiB on 2026-12-03); only with ROBOTA_SIZE_PGO=1;
#   - the slim build (`--no-default-features`: no MCP client, the system allocator) <= 7 MiB.
# PGO needs llvm-profdata (rustup component llvm-tools, installed by .ci/run); without it that
# check is skipped with a warning outside CI and fails under CI (`CI` set).
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/skip.sh
MIB=$((1024 * 1024))

check() { # check LABEL FILE LIMIT_MIB
  local size limit=$(($3 * MIB))
  size=$(wc -c <"$2")
  echo "$1 $2: $size bytes ($(awk -v s="$size" 'BEGIN{printf "%.2f", s/1048576}') MiB), limit $limit bytes ($3 MiB)"
  if ((size > limit)); then
    echo "FAIL: $1 grew past $3 MiB; see docs/performance.md, Size, for what weighs" >&2
    exit 1
  fi
}

ship_cdylib() { # ship_cdylib TARGET_DIR [cargo args…]: builds it, prints its path
  local dir=$1 f
  shift
  cargo rustc -p robota --profile ship --lib --crate-type cdylib --target-dir "$dir" "$@" >&2
  for f in "$dir"/ship/librobota.so "$dir"/ship/librobota.dylib "$dir"/ship/robota.dll; do
    if [[ -f "$f" ]]; then echo "$f"; return; fi
  done
  echo "FAIL: no cdylib in $dir/ship/" >&2
  exit 1
}

# The profile ship library .ci/install.sh installed (cargo-c, the same profile) when it is there:
# one fat-LTO build less in CI.
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
lib="target/prefix/lib/librobota.so.$version"
if [[ ! -f "$lib" ]]; then
  lib=$(ship_cdylib target)
fi
check "default cdylib (profile ship, MCP included)" "$lib" 9

slim=$(ship_cdylib target/slim --no-default-features)
check "slim cdylib (profile ship, --no-default-features)" "$slim" 7

# The PGO build (two more fat-LTO builds and a training run, about 15 minutes here) is not
# what ships: it is checked on request (ROBOTA_SIZE_PGO=1), which keeps .ci/run under an hour.
if [[ "${ROBOTA_SIZE_PGO:-0}" != 1 ]]; then
  echo "PGO cdylib: not built in this run (ROBOTA_SIZE_PGO=1 bash .ci/size.sh builds and checks it)"
  exit 0
fi
profdata="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata"
if [[ ! -x "$profdata" ]]; then
  skip_or_fail "size: $profdata missing (rustup component llvm-tools); the PGO build's check"
fi
pgo=$(cargo bench --bench floor -- pgo | tail -n 1)
check "PGO cdylib (profile ship + PGO, MCP included)" "$pgo" 10
