#!/usr/bin/env bash
# Packs the NuGet package Robota.Native: the C# binding compiled as Robota.dll plus the native
# library of every runtime given.
#
#   packaging/nuget/pack.sh OUT_DIR RID=PATH [RID=PATH ...]
#   packaging/nuget/pack.sh packages linux-x64=/usr/local/lib/librobota.so.1.2.0 win-x64=bin/robota.dll
#
# writes OUT_DIR/Robota.Native.<version>.nupkg (version: the robota crate's, Cargo.toml) with
#   lib/net461/Robota.dll, Robota.xml   bindings/csharp/Runtime/*.cs built by Mono's mcs against
#                                       the .NET Framework 4.6.1 reference assemblies
#   runtimes/RID/native/NAME            each PATH as the name DllImport("robota") loads: robota.dll
#                                       (win-*), librobota.dylib (osx*), librobota.so (the rest)
#   README.md, LICENSE-MIT, LICENSE-APACHE, Robota.Native.nuspec (packaging/nuget/)
# Why net461 and not netstandard2.0: mcs compiles against the mscorlib of a .NET Framework
# profile (Debian's Mono has no netstandard reference assembly, only facades that forward to
# mscorlib), so the DLL references mscorlib 4.0; net461 is the first .NET Framework that
# implements netstandard2.0, and .NET Core/.NET 5+ projects use net461 packages as a fallback.
# Needs mcs and the 4.6.1-api reference assemblies (Debian: mono-mcs, mono-devel) and python3.
# The repository URL is $GITHUB_SERVER_URL/$GITHUB_REPOSITORY in GitHub Actions, else
# $ROBOTA_REPOSITORY_URL, else the project's; the commit is $GITHUB_SHA or git's HEAD.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/packaging/nuget"
fail() { echo "nuget/pack.sh: $*" >&2; exit 1; }
usage() { fail "usage: $0 OUT_DIR RID=PATH [RID=PATH ...] (see the comment at the top)"; }
(($# >= 2)) || usage
out="$1"
shift

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "Cargo.toml's version \"$version\" is not major.minor.patch"

# native_name RID: the file name DllImport("robota") looks for on that runtime.
native_name() {
  case "$1" in
    win-*) echo robota.dll ;;
    osx*) echo librobota.dylib ;;
    *) echo librobota.so ;;
  esac
}
# check_format RID PATH: the file is a library of the runtime's format (ELF, PE or Mach-O).
check_format() {
  local magic
  magic="$(head -c 4 "$2" | od -An -tx1 | tr -d ' \n')"
  case "$(native_name "$1"):$magic" in
    librobota.so:7f454c46 | robota.dll:4d5a* | librobota.dylib:cafebabe | librobota.dylib:cffaedfe) ;;
    *) fail "$1: $2 is not a $(native_name "$1") (its first bytes are $magic)" ;;
  esac
}

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
declare -A seen=()
for spec in "$@"; do
  rid="${spec%%=*}" path="${spec#*=}"
  [[ "$spec" == *=* && -n "$rid" && -n "$path" ]] || fail "\"$spec\" is not RID=PATH"
  [[ "$rid" =~ ^[a-z0-9]+(-[a-z0-9]+)*$ ]] || fail "\"$rid\" is not a runtime identifier (e.g. linux-x64, win-arm64, osx)"
  [[ -z "${seen[$rid]:-}" ]] || fail "runtime $rid is given twice"
  seen[$rid]=1
  [[ -f "$path" ]] || fail "$rid: no file $path"
  check_format "$rid" "$path"
  mkdir -p "$stage/package/runtimes/$rid/native"
  cp -L "$path" "$stage/package/runtimes/$rid/native/$(native_name "$rid")"
done

# The tools, once the arguments are known to be good.
command -v mcs >/dev/null 2>&1 || fail "mcs is missing (apt-get install mono-mcs)"
command -v python3 >/dev/null 2>&1 || fail "python3 is missing"
api="$(dirname "$(command -v mcs)")/../lib/mono/4.6.1-api" # where mcs -sdk:4.6.1-api looks
[[ -f "$api/mscorlib.dll" ]] || fail "no .NET Framework 4.6.1 reference assemblies in $api (apt-get install mono-devel)"

lib="$stage/package/lib/net461"
mkdir -p "$lib"
sed "s/@VERSION@/$version/g" "$here/AssemblyInfo.cs.in" > "$stage/AssemblyInfo.cs"
mcs -langversion:7.2 -nologo -warnaserror+ -optimize+ -sdk:4.6.1-api -target:library -unsafe \
  -out:"$lib/Robota.dll" -doc:"$lib/Robota.xml" \
  -recurse:"$root/bindings/csharp/Runtime/*.cs" "$stage/AssemblyInfo.cs"
cp "$here/README.md" "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$stage/package/"

repository="${ROBOTA_REPOSITORY_URL:-https://github.com/robota-ai/robota-native}"
if [[ -n "${GITHUB_SERVER_URL:-}" && -n "${GITHUB_REPOSITORY:-}" ]]; then
  repository="$GITHUB_SERVER_URL/$GITHUB_REPOSITORY"
fi
commit="${GITHUB_SHA:-$(git -C "$root" rev-parse HEAD 2>/dev/null || true)}"
[[ "$commit" =~ ^[0-9a-f]{40}$ ]] || fail "no commit to name in the manifest (set GITHUB_SHA or pack from a git checkout)"
sed -e '/^<!--/,/-->$/d' -e "s|@VERSION@|$version|g" -e "s|@ABI@|${version%.*}|g" -e "s|@REPOSITORY_URL@|$repository|g" \
  -e "s|@COMMIT@|$commit|g" "$here/Robota.Native.nuspec.in" > "$stage/Robota.Native.nuspec"

mkdir -p "$out"
python3 "$here/nupkg.py" "$stage/Robota.Native.nuspec" "$stage/package" "$out/Robota.Native.$version.nupkg"
