#!/usr/bin/env bash
# Builds the C# consumer (Program.cs) the way a Mono application consumes the NuGet package:
#
#   tests/install/csharp/build.sh NUPKG WORK_DIR        then: mono WORK_DIR/bin/Program.exe
#
# NUPKG goes into a folder feed (WORK_DIR/feed), `nuget install` restores it from there alone
# (no machine cache) into WORK_DIR/packages, mcs compiles Program.cs against the restored
# lib/net461/Robota.dll, and bin/ gets Program.exe, Robota.dll and the restored
# runtimes/linux-x64/native/librobota.so. .NET (Core) picks runtimes/RID/native/ by itself;
# Mono and .NET Framework do not, so the library goes next to Robota.dll, where Mono's
# DllImport("robota") looks first.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
fail() { echo "csharp consumer: $*" >&2; exit 1; }
(($# == 2)) || fail "usage: $0 NUPKG WORK_DIR"
nupkg="$1" work="$2"
[[ -f "$nupkg" ]] || fail "no package $nupkg"
name="$(basename "$nupkg" .nupkg)"
[[ "$name" =~ ^Robota\.Native\.([0-9]+\.[0-9]+\.[0-9]+)$ ]] || fail "$nupkg is not Robota.Native.<version>.nupkg"
version="${BASH_REMATCH[1]}"
for tool in nuget mcs; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing (apt-get install nuget mono-mcs)"
done

rm -rf "$work"
mkdir -p "$work/feed" "$work/bin"
work="$(cd "$work" && pwd)" # nuget takes a folder feed by its absolute path only
cp "$nupkg" "$work/feed/"
nuget install Robota.Native -Version "$version" -Source "$work/feed" -OutputDirectory "$work/packages" \
  -NoCache -NonInteractive
restored="$work/packages/Robota.Native.$version"
for file in lib/net461/Robota.dll runtimes/linux-x64/native/librobota.so; do
  [[ -f "$restored/$file" ]] || fail "the restored package has no $file"
done
cp "$restored/lib/net461/Robota.dll" "$restored/runtimes/linux-x64/native/librobota.so" "$work/bin/"
mcs -langversion:7.2 -nologo -warnaserror+ -out:"$work/bin/Program.exe" -r:"$work/bin/Robota.dll" "$here/Program.cs"
