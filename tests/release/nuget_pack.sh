#!/usr/bin/env bash
# Tests the NuGet packaging without Mono: each refusal of packaging/nuget/pack.sh (message, exit
# status 1; the arguments are checked before any tool is needed), and packaging/nuget/nupkg.py
# with packaging/nuget/check.py on a package of stand-in files: the OPC layout, a reproducible
# archive, and each kind of broken package check.py reports. The whole pack.sh, with mcs, and a
# program that restores and runs the package, run in .ci/csharp.sh. Run by .ci/actionlint.sh;
# prints "N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
pack="$root/packaging/nuget/pack.sh"
nupkg="$root/packaging/nuget/nupkg.py"
checker="$root/packaging/nuget/check.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=tests/release/support/check.sh
. "$root/tests/release/support/check.sh"

printf '\177ELF-stand-in' > "$work/lib.so"
printf 'MZ-stand-in' > "$work/lib.dll"
printf '\317\372\355\376-stand-in' > "$work/lib.dylib"

# refuses NAME MESSAGE ARG...: exit 1 and MESSAGE.
refuses() {
  local name=$1 message=$2 out status
  shift 2
  out=$(bash "$pack" "$@" 2>&1) && status=0 || status=$?
  check "$name: status" 1 "$status"
  check "$name: message" "nuget/pack.sh: $message" "$out"
}
refuses "no runtime" "usage: $pack OUT_DIR RID=PATH [RID=PATH ...] (see the comment at the top)" "$work/out"
refuses "not RID=PATH" '"linux-x64" is not RID=PATH' "$work/out" linux-x64
refuses "bad RID" '"Linux_x64" is not a runtime identifier (e.g. linux-x64, win-arm64, osx)' \
  "$work/out" "Linux_x64=$work/lib.so"
refuses "twice" "runtime osx is given twice" "$work/out" "osx=$work/lib.dylib" "osx=$work/lib.dylib"
refuses "no file" "win-x64: no file $work/none.dll" "$work/out" "win-x64=$work/none.dll"
refuses "ELF for Windows" "win-arm64: $work/lib.so is not a robota.dll (its first bytes are 7f454c46)" \
  "$work/out" "win-arm64=$work/lib.so"
refuses "PE for Linux" "linux-arm64: $work/lib.dll is not a librobota.so (its first bytes are 4d5a2d73)" \
  "$work/out" "linux-arm64=$work/lib.dll"

# A package of stand-in files, written as pack.sh writes it.
stage="$work/stage"
mkdir -p "$stage/lib/net461" "$stage/runtimes/linux-x64/native" "$stage/runtimes/osx/native"
printf 'MZ-dll' > "$stage/lib/net461/Robota.dll"
printf '<doc/>' > "$stage/lib/net461/Robota.xml"
cp "$work/lib.so" "$stage/runtimes/linux-x64/native/librobota.so"
cp "$work/lib.dylib" "$stage/runtimes/osx/native/librobota.dylib"
cp "$root/packaging/nuget/README.md" "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$stage/"
sed -e '/^<!--/,/-->$/d' -e 's|@VERSION@|1.2.3|g; s|@ABI@|1.2|g; s|@REPOSITORY_URL@|https://example.com/robota|g' \
  -e "s|@COMMIT@|$(printf '%040d' 7)|g" "$root/packaging/nuget/Robota.Native.nuspec.in" > "$work/Robota.Native.nuspec"
python3 "$nupkg" "$work/Robota.Native.nuspec" "$stage" "$work/a.nupkg" > /dev/null
runtimes=("linux-x64=$work/lib.so" "osx=$work/lib.dylib")
out=$(python3 "$checker" "$work/a.nupkg" 1.2.3 "${runtimes[@]}" 2>&1) && status=0 || status=$?
check "check: status" 0 "$status"
check "check: message" "nupkg check: ok ($work/a.nupkg: runtimes linux-x64, osx)" "$out"
python3 "$nupkg" "$work/Robota.Native.nuspec" "$stage" "$work/b.nupkg" > /dev/null
check "nupkg: reproducible" "$(sha256sum < "$work/a.nupkg")" "$(sha256sum < "$work/b.nupkg")"
check "nupkg: parts" "$(printf '%s\n' LICENSE-APACHE LICENSE-MIT README.md Robota.Native.nuspec \
  '[Content_Types].xml' _rels/.rels lib/net461/Robota.dll lib/net461/Robota.xml \
  "package/services/metadata/core-properties/$(printf 'Robota.Native/1.2.3' | md5sum | cut -c1-32).psmdcp" \
  runtimes/linux-x64/native/librobota.so runtimes/osx/native/librobota.dylib)" \
  "$(python3 -c 'import sys, zipfile; print("\n".join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))' "$work/a.nupkg")"

# broken NAME EXPECTED_PROBLEM NUSPEC_SED [STAGE_COMMAND]: a package from an edited manifest
# (and stage) fails check.py with exactly that problem.
broken() {
  local name=$1 problem=$2 out status
  rm -rf "$work/stage2" && cp -a "$stage" "$work/stage2"
  sed "$3" "$work/Robota.Native.nuspec" > "$work/edited.nuspec"
  [[ -z "${4:-}" ]] || (cd "$work/stage2" && eval "$4")
  python3 "$nupkg" "$work/edited.nuspec" "$work/stage2" "$work/broken.nupkg" > /dev/null
  out=$(python3 "$checker" "$work/broken.nupkg" 1.2.3 "${runtimes[@]}" 2>&1) && status=0 || status=$?
  check "$name: status" 1 "$status"
  check "$name: problem" "nupkg check: $work/broken.nupkg"$'\n'"  $problem" "$out"
}
broken "other version" "Robota.Native.nuspec: <version> is '1.2.4', expected '1.2.3'" 's|<version>1.2.3<|<version>1.2.4<|'
broken "licence URL" "Robota.Native.nuspec: <license> is not of type expression" 's|type="expression"|type="file"|'
broken "no commit" "Robota.Native.nuspec: no <repository> with an https url and a commit" 's| commit="[0-9]*"||'
broken "no runtime" "runtimes/osx/native/librobota.dylib: missing" 's|x|x|' "rm -r runtimes/osx"
broken "another library" "runtimes/linux-x64/native/librobota.so: differs from $work/lib.so" 's|x|x|' \
  "printf '\177ELF-other' > runtimes/linux-x64/native/librobota.so"
broken "extra file" "lib/netstandard2.0/Robota.dll: not expected in the package" 's|x|x|' \
  "mkdir lib/netstandard2.0 && cp lib/net461/Robota.dll lib/netstandard2.0/"
out=$(python3 "$nupkg" "$work/Robota.Native.nuspec" "$work/none" "$work/c.nupkg" 2>&1) && status=0 || status=$?
check "nupkg: no readme: status" 1 "$status"
check "nupkg: no readme: message" "nupkg.py: the readme README.md named by $work/Robota.Native.nuspec is not in $work/none" "$out"

report nuget_pack
