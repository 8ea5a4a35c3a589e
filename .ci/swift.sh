#!/usr/bin/env bash
# The Swift binding (bindings/swift): builds the release cdylib and the fake model server, runs
# the XCTest suite with Swift 6.0 through ../shared/tools/swift-run (this Debian 12 machine has
# no Swift), then builds and runs the chat example non-interactively (offline, one prompt, no
# terminal: the permission prompt reads end of input and declines). Last, the printed programs:
# bindings/swift/README.md's Package.swift of an app that depends on the binding by path, built
# with the README's quick start as its main.swift, then with every `.swift` snippet of the
# top-level README.md in its place (.ci/snippets.py; compiled, not run).
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT_RUN=../shared/tools/swift-run
if [ ! -x "$SWIFT_RUN" ]; then
  echo "swift.sh: $SWIFT_RUN (the Swift 6.0 runner) is missing: cannot build or test the Swift binding${CI:+ (CI=$CI)}"
  exit 1
fi

cargo build --release --lib
cargo build --example fake_model_server

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

"$SWIFT_RUN" --dir bindings/swift -- swift test
"$SWIFT_RUN" --dir bindings/swift -- swift build --product robota-chat
out=$("$SWIFT_RUN" --dir bindings/swift -- sh -c '.build/debug/robota-chat "hello" < /dev/null')
echo "$out"
for want in "offline: scripted provider" "get_time" "save_note" "(declined)" "Done. Ask me anything; offline I echo it back."; do
  case "$out" in *"$want"*) ;; *) echo "robota-chat output lacks: $want"; exit 1 ;; esac
done

S=target/snippets
C="$S/swift-consumer"
rm -rf "$S/swift" "$S/readme-swift" "$C/App/Sources" "$C/App/Package.swift"
python3 .ci/snippets.py "$S/swift" bindings/swift/README.md
if grep -Eq '^<!--[[:space:]]*snippet:' README.md; then
  python3 .ci/snippets.py "$S/readme-swift" README.md
fi
ls "$S"/readme-swift/*.swift >/dev/null 2>&1 \
  || echo "README.md has no .swift snippet yet: only bindings/swift/README.md's are compiled"
# The app sits next to a `robota-native` checkout, as the printed Package.swift expects.
mkdir -p "$C/App/Sources/App"
ln -sfn ../../.. "$C/robota-native"
cp "$S/swift/Package.swift" "$C/App/Package.swift"
n=0
for f in "$S"/swift/*.swift "$S"/readme-swift/*.swift; do
  [ -f "$f" ] && [ "$(basename "$f")" != Package.swift ] || continue
  echo "== swift snippet $f"
  cp "$f" "$C/App/Sources/App/main.swift"
  "$SWIFT_RUN" --dir "$C/App" -- swift build
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "no Swift snippet compiled"; exit 1; }
echo "swift snippets: $n compiled"
