#!/usr/bin/env bash
# The library installed like a native library (packaging/install.sh: cargo-c + the CMake
# package) into a temporary prefix, checked file by file, and consumed from that prefix only:
# C through pkg-config (shared and static), C++ through CMake's find_package (robota::robota and
# robota::robota_static). Each consumer runs one streamed turn with a host tool against the fake
# model server (tests/install/drive.py). The Go, Swift and C# consumers of the same prefix run
# in .ci/go.sh, .ci/swift.sh and .ci/csharp.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/skip.sh
root="$PWD"
export ROBOTA_PREFIX="$root/target/prefix"
rm -rf "$ROBOTA_PREFIX"
. .ci/prefix.sh
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
major="${version%%.*}"
lib="$ROBOTA_PREFIX/lib"

fail() { echo "install: $*" >&2; exit 1; }
echo "install: the prefix's files"
(cd "$ROBOTA_PREFIX" && find . \( -type f -o -type l \) | sort | sed 's/^/  /')
[[ -f "$lib/librobota.so.$version" && ! -L "$lib/librobota.so.$version" ]] || fail "no lib/librobota.so.$version"
[[ "$(readlink "$lib/librobota.so.$major")" == "librobota.so.$version" ]] || fail "lib/librobota.so.$major does not link to librobota.so.$version"
[[ "$(readlink "$lib/librobota.so")" == "librobota.so.$version" ]] || fail "lib/librobota.so does not link to librobota.so.$version"
readelf -d "$lib/librobota.so.$version" | tee /dev/stderr | grep -q "(SONAME).*\[librobota.so.$major\]" \
  || fail "the SONAME of librobota.so.$version is not librobota.so.$major"
[[ -f "$lib/librobota.a" ]] || fail "no lib/librobota.a"
cmp include/robota.h "$ROBOTA_PREFIX/include/robota.h" || fail "include/robota.h differs from the repository's header"
[[ "$(pkg-config --modversion robota)" == "$version" ]] || fail "pkg-config --modversion robota is not $version"
[[ -f "$lib/cmake/robota/robotaConfig.cmake" && -f "$lib/cmake/robota/robotaConfigVersion.cmake" ]] \
  || fail "no CMake package in lib/cmake/robota"

cargo build --quiet --example fake_model_server
export ROBOTA_FAKE_SERVER="$root/target/debug/examples/fake_model_server"
work="$root/target/install-consumers"
rm -rf "$work"
mkdir -p "$work"

echo "install: C through pkg-config, shared and static"
cp tests/install/c/consumer.c tests/install/c/Makefile "$work/"
make -s -C "$work" consumer && mv "$work/consumer" "$work/c_shared"
make -s -C "$work" consumer STATIC=1 && mv "$work/consumer" "$work/c_static"
readelf -d "$work/c_shared" | grep -q "NEEDED.*\[librobota.so.$major\]" || fail "c_shared does not need librobota.so.$major"
if readelf -d "$work/c_static" | grep -q "NEEDED.*librobota"; then fail "c_static needs a shared librobota"; fi
python3 tests/install/drive.py "$work/c_shared"
python3 tests/install/drive.py "$work/c_static"

echo "install: C++ through CMake find_package(robota), shared and static"
command -v cmake >/dev/null 2>&1 || (apt-get install -y -qq cmake >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq cmake >/dev/null)) \
  || skip_or_fail "install: cmake missing; the CMake consumer"
if command -v cmake >/dev/null 2>&1; then
  cmake -S tests/install/cmake -B "$work/cmake" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/cmake" -j 2 >/dev/null
  readelf -d "$work/cmake/consumer_shared" | grep -q "NEEDED.*\[librobota.so.$major\]" || fail "consumer_shared does not need librobota.so.$major"
  if readelf -d "$work/cmake/consumer_static" | grep -q "NEEDED.*librobota"; then fail "consumer_static needs a shared librobota"; fi
  python3 tests/install/drive.py "$work/cmake/consumer_shared"
  python3 tests/install/drive.py "$work/cmake/consumer_static"
  # The version check (docs/abi.md "Versioning"): a newer minor or another major is refused.
  minor="$(echo "$version" | cut -d. -f2)"
  for want in "$major.$((minor + 1))" "$((major + 1)).0"; do
    if cmake -S tests/install/cmake -B "$work/cmake-$want" -DROBOTA_MIN_VERSION="$want" >/dev/null 2>&1; then
      fail "find_package(robota $want) accepted the installed $version"
    fi
  done
fi
echo "install: ok"
