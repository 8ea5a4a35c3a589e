#!/usr/bin/env bash
# The Swift binding (bindings/swift): builds the release cdylib and the fake model server, runs
# the XCTest suite with Swift 6.0 through ../shared/tools/swift-run (this Debian 12 machine has
# no Swift), then builds and runs the chat example non-interactively (offline, one prompt, no
# terminal: the permission prompt reads end of input and declines).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --lib
cargo build --example fake_model_server
SWIFT_RUN=../shared/tools/swift-run

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
