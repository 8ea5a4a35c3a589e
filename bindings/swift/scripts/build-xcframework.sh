#!/usr/bin/env bash
# Builds bindings/swift/Robota.xcframework for Apple platforms: the static library
# (librobota.a) per Apple target, fat where one platform has two architectures, with
# include/robota.h and a module map naming the module `CRobota`. When the XCFramework exists,
# Package.swift uses it as a binaryTarget instead of linking target/release/librobota.
#
#   bindings/swift/scripts/build-xcframework.sh            # macOS + iOS device + iOS simulator
#   PLATFORMS="macos" bindings/swift/scripts/build-xcframework.sh
#   PROFILE=ship bindings/swift/scripts/build-xcframework.sh  # what ships (release workflow)
#
# Needs macOS with Xcode (xcodebuild, lipo) and rustup. Static linking is what iOS requires.
# The library's TLS is rustls with bundled roots (no Security or SystemConfiguration
# framework), so the static archive needs only what Xcode links by default.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=$ROOT/bindings/swift/Robota.xcframework
WORK=$ROOT/target/xcframework
PLATFORMS=${PLATFORMS:-"macos ios ios-sim"}
# A cargo profile with a directory of its name under target/<triple>/ (release, ship).
PROFILE=${PROFILE:-release}

targets_of() {
  case "$1" in
    macos) echo "aarch64-apple-darwin x86_64-apple-darwin" ;;
    ios) echo "aarch64-apple-ios" ;;
    ios-sim) echo "aarch64-apple-ios-sim x86_64-apple-ios" ;;
    *) echo "unknown platform $1 (macos, ios, ios-sim)" >&2; exit 2 ;;
  esac
}

rm -rf "$WORK" "$OUT"
mkdir -p "$WORK/headers"
cp include/robota.h "$WORK/headers/"
cat > "$WORK/headers/module.modulemap" <<'MAP'
module CRobota {
    header "robota.h"
    export *
}
MAP

args=()
for platform in $PLATFORMS; do
  libs=()
  for target in $(targets_of "$platform"); do
    rustup target add "$target" >/dev/null
    cargo build --profile "$PROFILE" --lib --target "$target"
    libs+=("target/$target/$PROFILE/librobota.a")
  done
  mkdir -p "$WORK/$platform"
  lipo -create "${libs[@]}" -output "$WORK/$platform/librobota.a"
  args+=(-library "$WORK/$platform/librobota.a" -headers "$WORK/headers")
done

xcodebuild -create-xcframework "${args[@]}" -output "$OUT"
echo "built $OUT"
