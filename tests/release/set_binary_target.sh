#!/usr/bin/env bash
# Tests packaging/swift/set-binary-target.sh on copies of a manifest: the exact rewrite, and each
# refusal (its message, exit status 1, the manifest left byte for byte as it was). Run by
# .ci/actionlint.sh; prints "N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
script="$root/packaging/swift/set-binary-target.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/release/support/check.sh
. "$root/tests/release/support/check.sh"

url=https://github.com/example/robota/releases/download/v1.1.0/Robota-1.1.0.xcframework.zip
sum=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
manifest() { # the two lines as the root Package.swift has them, among others
  printf '%s\n' '// swift-tools-version:5.9' 'import PackageDescription' '' \
    'let robotaBinaryURL: String? = nil' 'let robotaBinaryChecksum = ""' '' \
    'let package = Package(name: "Robota")'
}

# The rewrite: exactly the two lines change, the rest stays.
manifest > "$work/Package.swift"
out=$("$script" "$url" "$sum" "$work/Package.swift" 2>&1) && status=0 || status=$?
check "rewrite: status" 0 "$status"
check "rewrite: message" "set-binary-target.sh: $work/Package.swift now resolves CRobota from $url" "$out"
expected=$(printf '%s\n' '// swift-tools-version:5.9' 'import PackageDescription' '' \
  "let robotaBinaryURL: String? = \"$url\"" "let robotaBinaryChecksum = \"$sum\"" '' \
  'let package = Package(name: "Robota")')
check "rewrite: manifest" "$expected" "$(cat "$work/Package.swift")"

# refuses NAME MESSAGE URL CHECKSUM MANIFEST_TEXT: exit 1, MESSAGE on stderr, manifest untouched.
refuses() {
  local name=$1 message=$2 u=$3 s=$4 text=$5 out status
  printf '%s\n' "$text" > "$work/Package.swift"
  out=$("$script" "$u" "$s" "$work/Package.swift" 2>&1) && status=0 || status=$?
  check "$name: status" 1 "$status"
  check "$name: message" "set-binary-target.sh: $message" "$out"
  check "$name: manifest unchanged" "$text" "$(cat "$work/Package.swift")"
}
m=$(manifest)
rewritten=$(printf '%s\n' "let robotaBinaryURL: String? = \"$url\"" "let robotaBinaryChecksum = \"$sum\"")
refuses "already rewritten" \
  "$work/Package.swift has the line 'let robotaBinaryURL: String? = nil' 0 times, not once" \
  "$url" "$sum" "$rewritten"
refuses "no checksum line" \
  "$work/Package.swift has the line 'let robotaBinaryChecksum = \"\"' 0 times, not once" \
  "$url" "$sum" "$(manifest | grep -v robotaBinaryChecksum)"
refuses "URL line twice" \
  "$work/Package.swift has the line 'let robotaBinaryURL: String? = nil' 2 times, not once" \
  "$url" "$sum" "$m"$'\nlet robotaBinaryURL: String? = nil'
refuses "http URL" "the URL must be https:// with no quote, backslash or space: \"http://example.com/R.zip\"" \
  "http://example.com/R.zip" "$sum" "$m"
refuses "quote in URL" "the URL must be https:// with no quote, backslash or space: \"https://example.com/\"x.zip\"" \
  'https://example.com/"x.zip' "$sum" "$m"
refuses "short checksum" "the checksum must be 64 lowercase hex digits: \"abc123\"" "$url" "abc123" "$m"
refuses "uppercase checksum" "the checksum must be 64 lowercase hex digits: \"${sum^^}\"" "$url" "${sum^^}" "$m"

out=$("$script" "$url" 2>&1) && status=0 || status=$?
check "one argument: status" 1 "$status"
check "one argument: message" "set-binary-target.sh: usage: $script URL CHECKSUM [MANIFEST]" "$out"
out=$("$script" "$url" "$sum" "$work/none.swift" 2>&1) && status=0 || status=$?
check "no manifest: status" 1 "$status"
check "no manifest: message" "set-binary-target.sh: no manifest at $work/none.swift" "$out"

report set_binary_target
