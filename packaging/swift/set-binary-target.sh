#!/usr/bin/env bash
# Points the root Package.swift at a released XCFramework: rewrites its two lines
#   let robotaBinaryURL: String? = nil
#   let robotaBinaryChecksum = ""
# into the zip's URL and its SwiftPM checksum (`swift package compute-checksum ZIP`), so that
# SwiftPM users resolving this version get the binary target. The release workflow
# (.github/workflows/release.yml) runs it and commits the result on the release's tag.
#
#   packaging/swift/set-binary-target.sh URL CHECKSUM [MANIFEST]   # MANIFEST: default Package.swift
#
# Fails, leaving the manifest as it was, when the URL is not https, the checksum is not 64
# lowercase hex digits, or either line is missing or present more than once (a manifest that
# was already rewritten has neither).
set -euo pipefail
die() { echo "set-binary-target.sh: $*" >&2; exit 1; }
(($# == 2 || $# == 3)) || die "usage: $0 URL CHECKSUM [MANIFEST]"
url=$1 checksum=$2
manifest=${3:-"$(cd "$(dirname "$0")/../.." && pwd)/Package.swift"}
[[ "$url" =~ ^https://[A-Za-z0-9._~:/?#@!\$\&\'()*+,\;=%-]+$ ]] \
  || die "the URL must be https:// with no quote, backslash or space: \"$url\""
[[ "$checksum" =~ ^[0-9a-f]{64}$ ]] || die "the checksum must be 64 lowercase hex digits: \"$checksum\""
[[ -f "$manifest" ]] || die "no manifest at $manifest"

url_line='let robotaBinaryURL: String? = nil'
checksum_line='let robotaBinaryChecksum = ""'
for line in "$url_line" "$checksum_line"; do
  count=$(grep -cxF -- "$line" "$manifest" || true)
  [[ "$count" == 1 ]] || die "$manifest has the line '$line' $count times, not once"
done

rewritten=$(mktemp "$manifest.XXXXXX")
trap 'rm -f "$rewritten"' EXIT
URL_LINE=$url_line CHECKSUM_LINE=$checksum_line URL=$url CHECKSUM=$checksum awk '
  $0 == ENVIRON["URL_LINE"] { print "let robotaBinaryURL: String? = \"" ENVIRON["URL"] "\""; next }
  $0 == ENVIRON["CHECKSUM_LINE"] { print "let robotaBinaryChecksum = \"" ENVIRON["CHECKSUM"] "\""; next }
  { print }
' "$manifest" > "$rewritten"
chmod --reference="$manifest" "$rewritten" 2>/dev/null || chmod 644 "$rewritten"
mv "$rewritten" "$manifest"
trap - EXIT
echo "set-binary-target.sh: $manifest now resolves CRobota from $url"
