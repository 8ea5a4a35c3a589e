#!/usr/bin/env bash
# Builds the Swift binding's floor host (bindings/swift/Sources/RobotaFloorHost, the product
# robota-floor-host of the root Package.swift, release) over the installed library in
# $ROBOTA_PREFIX (default target/prefix: packaging/install.sh), and the allocation counter
# benches/bindings/malloc_count.c. Needs `swift` (6.0), pkg-config and a C compiler (`$CC`, default `cc`) on PATH; CI runs it
# inside its Swift root. The host gets an rpath to $ROBOTA_PREFIX/lib (pkg-config gives none).
#
# The last line of stdout is the command to run the host with:
#   env LD_PRELOAD=/abs/malloc_count.so /abs/robota-floor-host
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
prefix="${ROBOTA_PREFIX:-$root/target/prefix}"
[ -f "$prefix/lib/pkgconfig/robota.pc" ] || { echo "build_swift.sh: no $prefix/lib/pkgconfig/robota.pc (install the library: packaging/install.sh --prefix $prefix)" >&2; exit 1; }
prefix="$(cd "$prefix" && pwd)"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
out="$root/target/swift/floor"
mkdir -p "$out"

"${CC:-cc}" -O2 -shared -fPIC -o "$out/malloc_count.so" benches/bindings/malloc_count.c -ldl >&2
swift build -c release --product robota-floor-host --scratch-path "$out/build" \
  -Xlinker -rpath -Xlinker "$prefix/lib" >&2
bin="$(swift build -c release --product robota-floor-host --scratch-path "$out/build" --show-bin-path)/robota-floor-host"
[ -x "$bin" ] || { echo "build_swift.sh: $bin was not built" >&2; exit 1; }
echo "env LD_PRELOAD=$out/malloc_count.so $bin"
