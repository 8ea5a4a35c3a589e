#!/usr/bin/env bash
# Builds the Go binding's floor host (bindings/go/examples/floorhost: the scenario of
# benches/floor/host.c through the Go binding) against the library installed in $ROBOTA_PREFIX
# (default target/prefix), linked as .ci/go.sh links it: pkg-config finds robota.pc and
# CGO_LDFLAGS gives the binary an rpath to the prefix. It installs nothing (Go with cgo and
# pkg-config must be there: .ci/go.sh installs them). The binary goes to target/floor-bindings/,
# named after the Go that built it (go_floor_host-go1.19.8; the first `go` on PATH, or $GO); the
# last line of stdout is its absolute path.
#
#   bash benches/bindings/build_go.sh        then: HOST MODE KIND BASE_URL run|drive|one
#
# With the argument cgofloor it builds benches/bindings/cgofloor instead (go_cgo_floor-<go>):
# host.c inside a Go program, each callback also entering an empty Go function, the floor of
# any Go binding's cost (then: HOST MODE KIND BASE_URL thread|run|submit|…, host.c's patterns).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"

prefix="${ROBOTA_PREFIX:-target/prefix}"
[[ "$prefix" = /* ]] || prefix="$root/$prefix"
[[ -f "$prefix/lib/pkgconfig/robota.pc" ]] \
  || { echo "build_go.sh: no library installed in $prefix (packaging/install.sh --prefix $prefix)" >&2; exit 1; }
go="${GO:-go}"
command -v "$go" >/dev/null 2>&1 || { echo "build_go.sh: $go is missing" >&2; exit 1; }
command -v pkg-config >/dev/null 2>&1 || { echo "build_go.sh: pkg-config is missing" >&2; exit 1; }

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export CGO_LDFLAGS="-Wl,-rpath,$prefix/lib"
export CGO_ENABLED=1
export GOTOOLCHAIN=local

out="$root/target/floor-bindings"
mkdir -p "$out"
if [[ "${1:-}" = cgofloor ]]; then
  host="$out/go_cgo_floor-$("$go" env GOVERSION)"
  (cd benches/bindings/cgofloor && "$go" vet . && "$go" build -o "$host" .) >&2
else
  host="$out/go_floor_host-$("$go" env GOVERSION)"
  (cd bindings/go && "$go" build -o "$host" ./examples/floorhost) >&2
fi
echo "$host"
