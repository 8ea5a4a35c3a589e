#!/usr/bin/env bash
# Tests packaging/unity/pack.sh and packaging/unity/check.py with stand-in libraries (files that
# start with each platform's magic number): the plugins of all six platforms and their importer
# settings, a reproducible archive, each refusal of pack.sh (message, exit status 1), and that
# check.py reports each kind of broken archive. Run by .ci/actionlint.sh and .ci/csharp.sh;
# prints "N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
pack="$root/packaging/unity/pack.sh"
checker="$root/packaging/unity/check.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/release/support/check.sh
. "$root/tests/release/support/check.sh"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
archive="$work/out/com.robota.native-$version.tgz"

printf '\177ELF-stand-in' > "$work/lib.so"
printf 'MZ-stand-in' > "$work/lib.dll"
printf '\312\376\272\276-stand-in' > "$work/lib.dylib"
printf '!<arch>\n-stand-in' > "$work/lib.a"
all=(linux-x64 osx win-x64 android-arm64-v8a android-armeabi-v7a ios)
specs=("linux-x64=$work/lib.so" "osx=$work/lib.dylib" "win-x64=$work/lib.dll"
  "android-arm64-v8a=$work/lib.so" "android-armeabi-v7a=$work/lib.so" "ios=$work/lib.a")

# Every platform: the plugins where Unity expects them, each with its .meta, and check.py agrees.
bash "$pack" "$work/out" "${specs[@]}" > /dev/null 2>&1 && status=0 || status=$?
check "pack: status" 0 "$status"
check "pack: plugins" "$(printf 'package/Runtime/Plugins/%s\n' Android.meta Android/arm64-v8a.meta \
  Android/arm64-v8a/librobota.so Android/arm64-v8a/librobota.so.meta Android/armeabi-v7a.meta \
  Android/armeabi-v7a/librobota.so Android/armeabi-v7a/librobota.so.meta Linux.meta Linux/x86_64.meta \
  Linux/x86_64/librobota.so Linux/x86_64/librobota.so.meta README.md README.md.meta Windows.meta \
  Windows/x86_64.meta Windows/x86_64/robota.dll Windows/x86_64/robota.dll.meta iOS.meta iOS/librobota.a \
  iOS/librobota.a.meta macOS.meta macOS/librobota.dylib macOS/librobota.dylib.meta)" \
  "$(tar tzf "$archive" | grep '^package/Runtime/Plugins/' | LC_ALL=C sort)"
check "pack: package.json version" "  \"version\": \"$version\"," \
  "$(tar xzf "$archive" -O package/package.json | grep '"version"')"
check "pack: the Linux plugin's CPU" "        CPU: x86_64" \
  "$(tar xzf "$archive" -O package/Runtime/Plugins/Linux/x86_64/librobota.so.meta | tail -n 4 | head -n 1)"
python3 "$checker" "$archive" "$version" "${all[@]}" > /dev/null && status=0 || status=$?
check "check: a packed archive passes" 0 "$status"
first=$(sha256sum < "$archive")
bash "$pack" "$work/out" "${specs[@]}" > /dev/null 2>&1
check "pack: reproducible" "$first" "$(sha256sum < "$archive")"

# refuses NAME MESSAGE SPEC...: exit 1 and MESSAGE.
refuses() {
  local name=$1 message=$2 out status
  shift 2
  out=$(bash "$pack" "$work/refused" "$@" 2>&1) && status=0 || status=$?
  check "$name: status" 1 "$status"
  check "$name: message" "unity/upm.py: $message" "$out"
}
refuses "unknown platform" \
  'unknown platform "linux" (one of linux-x64, osx, win-x64, android-arm64-v8a, android-armeabi-v7a, ios)' \
  "linux=$work/lib.so"
refuses "wrong format" "win-x64: $work/lib.so is not a robota.dll for that platform (its first bytes are 7f454c462d737461)" \
  "win-x64=$work/lib.so"
refuses "twice" "platform ios is given twice" "ios=$work/lib.a" "ios=$work/lib.a"
refuses "no path" '"osx" is not PLATFORM=PATH' osx

# broken NAME EXPECTED_PROBLEM COMMAND...: COMMAND edits the unpacked archive; check.py fails
# with exactly that problem.
broken() {
  local name=$1 problem=$2 out status
  shift 2
  rm -rf "$work/edit" && mkdir "$work/edit" && tar xzf "$archive" -C "$work/edit"
  (cd "$work/edit/package" && "$@")
  tar czf "$work/broken.tgz" -C "$work/edit" package
  out=$(python3 "$checker" "$work/broken.tgz" "$version" "${all[@]}" 2>&1) && status=0 || status=$?
  check "$name: status" 1 "$status"
  check "$name: problem" "upm check: $work/broken.tgz"$'\n'"  $problem" "$out"
}
broken "no meta" "Runtime/Native.cs: no .meta (Unity ignores assets without one in an immutable package)" \
  rm Runtime/Native.cs.meta
broken "no folder meta" "Runtime/Plugins/iOS: no .meta (Unity ignores assets without one in an immutable package)" \
  rm Runtime/Plugins/iOS.meta
broken "orphan meta" "Runtime/Gone.cs.meta: no asset of that name" \
  sh -c 'sed "s/^guid: .*/guid: 0123456789abcdef0123456789abcdef/" Runtime/Native.cs.meta > Runtime/Gone.cs.meta'
ios_guid=$(tar xzf "$archive" -O package/Runtime/Plugins/iOS.meta | sed -n 's/^guid: //p')
broken "same guid" "Runtime/Plugins/macOS.meta: guid $ios_guid is also Runtime/Plugins/iOS.meta's" \
  cp Runtime/Plugins/iOS.meta Runtime/Plugins/macOS.meta
broken "wrong version" "package.json: version is '0.0.1', expected '$version'" \
  sed -i "s/\"version\": \"$version\"/\"version\": \"0.0.1\"/" package.json
broken "wrong CPU" "Runtime/Plugins/Android/arm64-v8a/librobota.so.meta: CPU 'ARMv7' for ('Android', 'Android'), expected 'ARM64'" \
  sed -i 's/CPU: ARM64/CPU: ARMv7/' Runtime/Plugins/Android/arm64-v8a/librobota.so.meta
broken "not excluded" "Runtime/Plugins/Linux/x86_64/librobota.so.meta: Exclude Win64 is '0', expected 1" \
  sed -i 's/Exclude Win64: 1/Exclude Win64: 0/' Runtime/Plugins/Linux/x86_64/librobota.so.meta
broken "platform off" "Runtime/Plugins/iOS/librobota.a.meta: enables [], expected [('iPhone', 'iOS')]" \
  sed -i '/iPhone: iOS/,$ s/enabled: 1/enabled: 0/' Runtime/Plugins/iOS/librobota.a.meta
broken "wrong format" "Runtime/Plugins/Windows/x86_64/robota.dll: missing, or not a library of win-x64's format" \
  cp "$work/lib.so" Runtime/Plugins/Windows/x86_64/robota.dll
broken "no sample" "package.json: sample Samples~/ConsoleChat is not in the archive" rm -r Samples~/ConsoleChat

report unity_pack
