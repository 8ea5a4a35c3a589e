#!/usr/bin/env bash
# The Swift binding: the root Package.swift over the installed library (.ci/prefix.sh: CRobota
# is a system library found through robota.pc), with Swift 6.0 through ../shared/tools/swift-run
# (this Debian 12 machine has no Swift). It evaluates the manifest as a release rewrites it
# (CRobota: the XCFramework by URL on Apple platforms), runs the XCTest suite (also under
# ThreadSanitizer, with bindings/swift/tsan.supp), the chat example
# non-interactively (offline, one prompt, no terminal: the permission prompt reads end of input
# and declines), then the consumer tests/install/swift, which depends on Robota by URL and
# version: a local git repository of this commit tagged with the library's version, so SwiftPM
# treats it like a release (and refuses unsafe flags in it). The consumer runs the turn of
# tests/install/drive.py. Last, the printed programs: bindings/swift/README.md's Package.swift
# (its URL pointed at that repository) built with each `.swift` snippet of that README and of the
# top-level README.md as its main.swift (.ci/snippets.py; compiled, not run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

SWIFT_RUN=../shared/tools/swift-run
if [ ! -x "$SWIFT_RUN" ]; then
  echo "swift.sh: $SWIFT_RUN (the Swift 6.0 runner) is missing: cannot build or test the Swift binding${CI:+ (CI=$CI)}"
  exit 1
fi

. .ci/prefix.sh
cargo build --example fake_model_server
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
work="$root/target/swift"

# Every function of the header is called by the binding (ABI.md: a function added to the header
# is wrapped by every binding in the same change).
missing=0
for fn in $(grep -E '^[a-z].*[ *]robota_[a-z_0-9]+\(' include/robota.h | grep -v '^typedef' \
             | sed -E 's/^.*[ *](robota_[a-z_0-9]+)\(.*$/\1/' | sort -u); do
  if ! grep -qE "\\b$fn\\(" bindings/swift/Sources/Robota/*.swift; then
    echo "include/robota.h function $fn has no wrapper in bindings/swift/Sources/Robota"; missing=1
  fi
done
[ "$missing" = 0 ]

# No unsafe flags anywhere: a package with them cannot be a dependency by version.
if git ls-files -z -- Package.swift '*/Package.swift' | xargs -0 grep -n "unsafeFlags"; then
  echo "swift.sh: unsafeFlags in a Swift manifest"; exit 1
fi

# SwiftPM clones URL dependencies with git and asks pkg-config for the system's search paths
# (it reads robota.pc itself); the Swift root gets both once (it is a cache kept between runs).
"$SWIFT_RUN" -- sh -c 'command -v git >/dev/null && command -v pkg-config >/dev/null || {
  apt-get update -q >/dev/null &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends git pkgconf >/dev/null; }'

# swift-run clears the environment: every command gets the prefix's pkg-config directory and,
# since pkg-config gives no rpath, the library's directory at run time.
in_swift() { # in_swift DIR COMMAND...
  local dir=$1
  shift
  "$SWIFT_RUN" --dir "$dir" -- env "PKG_CONFIG_PATH=$ROBOTA_PREFIX/lib/pkgconfig" \
    "LD_LIBRARY_PATH=$ROBOTA_PREFIX/lib" "$@"
}

echo "swift: the root Package.swift as a release tags it (packaging/swift/set-binary-target.sh)"
# CRobota stays the system library on Linux and is the released XCFramework on Apple platforms;
# this machine has no macOS, so a second copy takes the manifest's `#if os(macOS)` branch.
m="$work/release-manifest"
url=https://example.com/Robota-$version.xcframework.zip
checksum=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
rm -rf "$m"
for os in linux apple; do
  mkdir -p "$m/$os"
  cp Package.swift "$m/$os/"
  bash packaging/swift/set-binary-target.sh "$url" "$checksum" "$m/$os/Package.swift" >/dev/null
done
[ "$(grep -cx '    #if os(macOS)' "$m/apple/Package.swift")" = 1 ] \
  || { echo "swift.sh: the root Package.swift has no single '    #if os(macOS)' line"; exit 1; }
sed -i 's/^    #if os(macOS)$/    #if true/' "$m/apple/Package.swift"
for os in linux apple; do
  "$SWIFT_RUN" --dir "$m/$os" -- swift package dump-package > "$m/$os.json"
done
python3 - "$m" "$url" "$checksum" <<'PY'
import json, sys
m, url, checksum = sys.argv[1:4]
want = {
    "linux": {"type": "system", "pkgConfig": "robota", "path": "bindings/swift/Sources/CRobota"},
    "apple": {"type": "binary", "url": url, "checksum": checksum},
}
for os, fields in want.items():
    crobota = next(t for t in json.load(open(f"{m}/{os}.json"))["targets"] if t["name"] == "CRobota")
    got = {key: crobota.get(key) for key in ("type", "pkgConfig", "path", "url", "checksum") if crobota.get(key) is not None}
    if got != fields:
        sys.exit(f"swift.sh: the released manifest ({os}) has CRobota {got}, expected {fields}")
PY

echo "swift: the library and the example in the Swift 6 language mode (complete concurrency checking)"
# The manifest stays at tools 5.9 (language mode 5) for consumers with older toolchains; what
# ships builds in both modes. The tests stay in mode 5: swift-corelibs-xctest's test discovery
# cannot cast the @Sendable test methods of mode 6 (the runner aborts).
in_swift . swift build --scratch-path "$work/swift6" --product robota-chat -Xswiftc -swift-version -Xswiftc 6
echo "swift: the XCTest suite of the root package"
in_swift . swift test --scratch-path "$work/binding"
echo "swift: the XCTest suite under ThreadSanitizer (suppressions: bindings/swift/tsan.supp, each with why)"
in_swift . env TSAN_OPTIONS="halt_on_error=1 print_suppressions=1 suppressions=$root/bindings/swift/tsan.supp" \
  swift test --sanitize=thread --scratch-path "$work/tsan"
in_swift . swift build --scratch-path "$work/binding" --product robota-chat
out=$(in_swift . sh -c "\"$work/binding/debug/robota-chat\" hello < /dev/null")
echo "$out"
for want in "offline: scripted provider" "get_time" "save_note" "(declined)" "Done. Ask me anything; offline I echo it back."; do
  case "$out" in *"$want"*) ;; *) echo "robota-chat output lacks: $want"; exit 1 ;; esac
done

echo "swift: a dependency by URL and version ($version)"
# The repository as a release: this commit (HEAD; uncommitted changes are not in it) with the tag
# $version and no other tag. Its last path component is the package's identity, robota-native.
remote="$work/remote/robota-native"
rm -rf "$work/remote"
git init -q --bare -b main "$remote"
git -C "$remote" fetch -q --no-tags "$root" "+HEAD:refs/heads/main"
git -C "$remote" tag "$version" main
in_consumer() { # in_consumer REPOSITORY SCRATCH: a fresh build of tests/install/swift with Robota from REPOSITORY
  rm -rf "$2" tests/install/swift/Package.resolved
  in_swift tests/install/swift env "ROBOTA_SWIFT_URL=file://$1" swift build --scratch-path "$2" \
    --disable-dependency-cache --manifest-cache local
}
in_consumer "$remote" "$work/consumer"
python3 - tests/install/swift/Package.resolved "$version" "$(git rev-parse HEAD)" <<'PY'
import json, sys
path, version, revision = sys.argv[1:4]
pins = {p["identity"]: p["state"] for p in json.load(open(path))["pins"]}
want = {"robota-native": {"revision": revision, "version": version}}
if pins != want:
    sys.exit(f"swift.sh: {path} pins {pins}, expected {want}")
PY
# drive.py and its fake server run here; the consumer runs in the Swift root (its Swift runtime
# is there), which shares this machine's network, so ROBOTA_BASE_URL reaches the server.
python3 tests/install/drive.py bash -c 'exec "$0" -- env ROBOTA_BASE_URL="$ROBOTA_BASE_URL" "LD_LIBRARY_PATH=$1" "$2"' \
  "$SWIFT_RUN" "$ROBOTA_PREFIX/lib" "$work/consumer/debug/Consumer"
# The control: the same consumer refuses a Robota whose manifest has an unsafe flag, so it does
# resolve Robota the way SwiftPM resolves a release.
unsafe="$work/remote/unsafe/robota-native"
git clone -q --no-tags "$remote" "$unsafe"
sed -i 's|path: "bindings/swift/Sources/Robota")|path: "bindings/swift/Sources/Robota", linkerSettings: [.unsafeFlags(["-L/tmp"])])|' "$unsafe/Package.swift"
[ "$(grep -c unsafeFlags "$unsafe/Package.swift")" = 1 ] || { echo "swift.sh: could not add an unsafe flag to Robota's target"; exit 1; }
git -C "$unsafe" -c user.name=ci -c user.email=ci@localhost commit -q -am "an unsafe flag" && git -C "$unsafe" tag "$version"
if out=$(in_consumer "$unsafe" "$work/consumer-unsafe" 2>&1); then
  echo "swift.sh: tests/install/swift built against a Robota with unsafe flags"; exit 1
fi
case "$out" in
  *"the target 'Robota' in product 'Robota' contains unsafe build flags"*) echo "swift: unsafe flags refused, as expected" ;;
  *) echo "$out"; echo "swift.sh: the build with unsafe flags failed for another reason"; exit 1 ;;
esac
rm -f tests/install/swift/Package.resolved

echo "swift: the printed programs"
S=target/snippets
app="$work/snippets-app"
rm -rf "$S/swift" "$S/readme-swift" "$app"
python3 .ci/snippets.py "$S/swift" bindings/swift/README.md
if grep -Eq '^<!--[[:space:]]*snippet:' README.md; then
  python3 .ci/snippets.py "$S/readme-swift" README.md
fi
ls "$S"/readme-swift/*.swift >/dev/null 2>&1 \
  || echo "README.md has no .swift snippet yet: only bindings/swift/README.md's are compiled"
printed_url="https://github.com/robota-ai/robota-native"
grep -qF "\"$printed_url\"" "$S/swift/Package.swift" \
  || { echo "bindings/swift/README.md's Package.swift does not depend on \"$printed_url\""; exit 1; }
mkdir -p "$app/Sources/App"
sed "s|\"$printed_url\"|\"file://$remote\"|" "$S/swift/Package.swift" > "$app/Package.swift"
n=0
for f in "$S"/swift/*.swift "$S"/readme-swift/*.swift; do
  [ -f "$f" ] && [ "$(basename "$f")" != Package.swift ] || continue
  echo "== swift snippet $f"
  cp "$f" "$app/Sources/App/main.swift"
  in_swift "$app" swift build --scratch-path "$app/.build" --disable-dependency-cache --manifest-cache local
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "no Swift snippet compiled"; exit 1; }
echo "swift snippets: $n compiled"
