#!/usr/bin/env bash
# Packs the Unity package com.robota.native as a UPM tarball ("Add package from tarball"): the C#
# binding (bindings/csharp) with the native library of every platform given.
#
#   packaging/unity/pack.sh OUT_DIR PLATFORM=PATH [PLATFORM=PATH ...]
#   packaging/unity/pack.sh packages linux-x64=/usr/local/lib/librobota.so.1.2.0 ios=librobota.a
#
# writes OUT_DIR/com.robota.native-<version>.tgz (version: the robota crate's, Cargo.toml). Each
# PLATFORM's file goes under package/Runtime/Plugins/ with its plugin .meta:
#   linux-x64            Linux/x86_64/librobota.so          Editor (Linux) + Standalone Linux x86_64
#   osx                  macOS/librobota.dylib              Editor (macOS) + Standalone macOS, universal
#   win-x64              Windows/x86_64/robota.dll          Editor (Windows) + Standalone Windows x86_64
#   android-arm64-v8a    Android/arm64-v8a/librobota.so     Android ARM64
#   android-armeabi-v7a  Android/armeabi-v7a/librobota.so   Android ARMv7
#   ios                  iOS/librobota.a                    iOS (linked statically; imports __Internal)
# packaging/unity/upm.py writes the archive and packaging/unity/check.py verifies it. Needs python3.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
fail() { echo "unity/pack.sh: $*" >&2; exit 1; }
(($# >= 2)) || fail "usage: $0 OUT_DIR PLATFORM=PATH [PLATFORM=PATH ...] (see the comment at the top)"
out="$1"
shift
command -v python3 >/dev/null 2>&1 || fail "python3 is missing"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "Cargo.toml's version \"$version\" is not major.minor.patch"
mkdir -p "$out"
python3 "$root/packaging/unity/upm.py" "$root/bindings/csharp" "$version" "$out/com.robota.native-$version.tgz" "$@"
