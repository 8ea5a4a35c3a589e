#!/usr/bin/env bash
# The C# binding (bindings/csharp) under Mono, the runtime Unity uses: installs mcs + mono, the
# .NET Framework reference assemblies (mono-devel) and nuget when missing, builds the release
# cdylib and the fake model server, compiles the library (C# 7.2 as mcs accepts it, netstandard2.0
# API), the tests (with the Unity pump sample on a UnityEngine stub), the console chat and the
# printed README programs (snippets), runs the console chat offline, then the tests, which print
# "N passed, N failed" and exit non-zero on any failure, and the SQLite session store's tests
# (Stores~/Sqlite over Mono.Data.Sqlite, installed when missing). Then the packages, from the installed
# prefix (.ci/prefix.sh): the NuGet package, restored from a folder feed by a Mono consumer
# (tests/install/csharp) that runs the turn of tests/install/drive.py, and the Unity package
# archive, checked file by file (packaging/*/check.py; the packaging scripts' own tests,
# tests/release/nuget_pack.sh and unity_pack.sh, run in .ci/actionlint.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

MONO_API=/usr/lib/mono/4.6.1-api
missing_tools() {
  command -v mcs >/dev/null 2>&1 || echo mono-mcs
  command -v mono >/dev/null 2>&1 || echo mono-runtime
  [ -f "$MONO_API/mscorlib.dll" ] && command -v ikdasm >/dev/null 2>&1 || echo mono-devel
  command -v nuget >/dev/null 2>&1 || echo nuget
  # The SQLite session store (bindings/csharp/Stores~/Sqlite): Mono.Data.Sqlite over libsqlite3.so.0.
  [ -f /usr/lib/mono/4.5/Mono.Data.Sqlite.dll ] || echo libmono-sqlite4.0-cil
  # Read whole, not piped into `grep -q`: under pipefail, grep leaving at its match makes
  # ldconfig's long listing die of SIGPIPE and the library look missing.
  case "$(ldconfig -p 2>/dev/null)" in *'libsqlite3.so.0 '*) ;; *) echo libsqlite3-0 ;; esac
}
if [ -n "$(missing_tools)" ]; then
  # shellcheck disable=SC2046 # one package name per word
  { apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 $(missing_tools) >/dev/null
  } || true
fi
if [ -n "$(missing_tools)" ]; then
  echo "csharp.sh: missing and could not be installed: apt-get install $(missing_tools | tr '\n' ' ')"; exit 1
fi
mono --version | head -1

. .ci/prefix.sh
cargo build --example fake_model_server

B=bindings/csharp
OUT=target/csharp
mkdir -p "$OUT"
MCS=(mcs -langversion:7.2 -nologo -warnaserror+)

# Unity needs a .meta beside every asset of an immutable (git/registry) package (folders ending
# in ~ are ignored by Unity).
missing=0
for f in "$B"/* "$B"/Runtime/* "$B"/Runtime/Plugins/*; do
  case "$f" in *.meta|*~) continue ;; esac
  if [ ! -f "$f.meta" ]; then echo "missing Unity meta file: $f.meta"; missing=1; fi
done
[ "$missing" = 0 ]

# Every function of the header has its [DllImport] (ABI.md: a function added to the header is
# wrapped by every binding in the same change).
for fn in $(grep -E '^[a-z].*[ *]robota_[a-z_0-9]+\(' include/robota.h | grep -v '^typedef' \
             | sed -E 's/^.*[ *](robota_[a-z_0-9]+)\(.*$/\1/' | sort -u); do
  if ! grep -q "extern [a-zA-Z]* $fn(" "$B/Runtime/Native.cs"; then
    echo "include/robota.h function $fn has no wrapper in $B/Runtime/Native.cs"; missing=1
  fi
done
[ "$missing" = 0 ]

"${MCS[@]}" -target:library -unsafe -doc:"$OUT/Robota.xml" -out:"$OUT/Robota.dll" -recurse:"$B/Runtime/*.cs"
"${MCS[@]}" -out:"$OUT/Robota.Tests.exe" -r:"$OUT/Robota.dll" -r:System.Core.dll \
  -recurse:"$B/Tests~/*.cs" "$B/Samples~/UnityPumpChat/RobotaPumpChat.cs" "$B/Samples~/LocalModelProvider/TokenLoopProvider.cs"
# The SQLite session store, its own assembly (Robota.dll keeps no dependency), and its tests on
# the same runner (Tests~/TestRunner.cs) with the store tests' fixtures.
"${MCS[@]}" -target:library -doc:"$OUT/Robota.Stores.Sqlite.xml" -out:"$OUT/Robota.Stores.Sqlite.dll" -r:"$OUT/Robota.dll" \
  -r:System.Data.dll -r:Mono.Data.Sqlite.dll -recurse:"$B/Stores~/Sqlite/*.cs"
"${MCS[@]}" -out:"$OUT/Robota.Stores.Sqlite.Tests.exe" -r:"$OUT/Robota.dll" -r:"$OUT/Robota.Stores.Sqlite.dll" -r:System.Core.dll \
  -r:System.Data.dll -r:Mono.Data.Sqlite.dll -recurse:"$B/Stores~/SqliteTests/*.cs" \
  "$B/Tests~/TestRunner.cs" "$B/Tests~/FakeServer.cs" "$B/Tests~/StoreFixtures.cs"
"${MCS[@]}" -out:"$OUT/ConsoleChat.exe" -r:"$OUT/Robota.dll" "$B/Samples~/ConsoleChat/ConsoleChat.cs"

# The printed programs, compiled exactly as printed (.ci/snippets.py): the snippets of the
# binding's README, every `.cs` snippet of the top-level README.md and of docs/host-providers.md,
# each an executable against Robota.dll.
S=target/snippets
rm -rf "$S/csharp" "$S/readme-csharp"
python3 .ci/snippets.py "$S/csharp" "$B/README.md"
if grep -Eq '^<!--[[:space:]]*snippet:' README.md; then
  python3 .ci/snippets.py "$S/readme-csharp" README.md
fi
# The C# snippets of the book's host-provider page (its C and JSON blocks are checked by the
# c_library docs_snippets test).
rm -rf "$S/docs-csharp"
if grep -Eq '^<!--[[:space:]]*snippet:[[:space:]]*[^[:space:]]+\.cs[[:space:]]*-->' docs/host-providers.md; then
  python3 .ci/snippets.py "$S/docs-csharp" docs/host-providers.md
fi
ls "$S"/readme-csharp/*.cs >/dev/null 2>&1 \
  || echo "README.md has no .cs snippet yet: only $B/README.md's are compiled"
n=0
for f in "$S"/csharp/*.cs "$S"/readme-csharp/*.cs "$S"/docs-csharp/*.cs; do
  [ -f "$f" ] || continue
  "${MCS[@]}" -out:"$OUT/snippet-$(basename "$f" .cs).exe" -r:"$OUT/Robota.dll" "$f"
  n=$((n + 1))
done
echo "C# snippets: $n compiled"

# [DllImport("robota")] resolves librobota.so through the loader path under Mono.
export LD_LIBRARY_PATH="$ROBOTA_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ROBOTA_FAKE_SERVER="$PWD/target/debug/examples/fake_model_server"
ROBOTA_HOME="$(mktemp -d)"
export ROBOTA_HOME
trap 'rm -rf "$ROBOTA_HOME"' EXIT

echo "== console chat (offline, no terminal: one demo turn)"
mono --debug "$OUT/ConsoleChat.exe" </dev/null | tee "$OUT/chat.out"
grep -q '^\[tool\] save_note("buy milk") -> #1$' "$OUT/chat.out"
grep -q 'Saved your note (#1).' "$OUT/chat.out"

echo "== C# tests"
mono --debug "$OUT/Robota.Tests.exe"

echo "== C# SQLite session store tests (a real database file, two runtimes sharing it)"
mono --debug "$OUT/Robota.Stores.Sqlite.Tests.exe"

# The packages, from the installed library (target/prefix; .ci/install.sh made it earlier in
# .ci/run, else .ci/prefix.sh installs it now).
unset LD_LIBRARY_PATH
. .ci/prefix.sh
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
native="$ROBOTA_PREFIX/lib/librobota.so.$version"
PK=target/packages
rm -rf "$PK"
grep -q "^  \"version\": \"$version\",\$" "$B/package.json" \
  || { echo "$B/package.json's version is not $version (Cargo.toml)"; exit 1; }

echo "== NuGet package Robota.Native $version (linux-x64 from $native)"
bash packaging/nuget/pack.sh "$PK" "linux-x64=$native"
nupkg="$PK/Robota.Native.$version.nupkg"
python3 packaging/nuget/check.py "$nupkg" "$version" "linux-x64=$native"

echo "== the NuGet package restored from a folder feed and run under Mono (tests/install/csharp)"
consumer=target/install-csharp
bash tests/install/csharp/build.sh "$nupkg" "$consumer"
# What the DLL targets: .NET Framework 4.6.1, referencing mscorlib and System (System.Uri of
# RobotaImage.FromUrl) only: both are in every .NET Framework, Mono and Unity profile and in
# .NET's netstandard2.0 facades; nothing else (no System.Core, no System.Net.Http).
refs="$(ikdasm "$consumer/bin/Robota.dll" | sed -n 's/^\.assembly extern //p' | tr -d '\r' | tr '\n' ' ')"
case "$refs" in
  "mscorlib " | "mscorlib System " | "System mscorlib ") ;;
  *) echo "Robota.dll references: $refs(expected mscorlib and System only)"; exit 1 ;;
esac
grep -qaF '.NETFramework,Version=v4.6.1' "$consumer/bin/Robota.dll" \
  || { echo "Robota.dll has no TargetFramework(.NETFramework,Version=v4.6.1)"; exit 1; }
cmp "$native" "$consumer/bin/librobota.so"
python3 tests/install/drive.py mono "$consumer/bin/Program.exe"
# The package README's program, compiled as printed against the packaged Robota.dll.
rm -rf "$S/nuget"
python3 .ci/snippets.py "$S/nuget" packaging/nuget/README.md
for f in "$S"/nuget/*.cs; do
  "${MCS[@]}" -out:"$consumer/bin/snippet-$(basename "$f" .cs).exe" -r:"$consumer/bin/Robota.dll" "$f"
done

echo "== Unity package com.robota.native-$version.tgz (linux-x64 from $native)"
bash packaging/unity/pack.sh "$PK" "linux-x64=$native"
python3 packaging/unity/check.py "$PK/com.robota.native-$version.tgz" "$version" linux-x64
echo "== C# packages: ok ($PK)"
