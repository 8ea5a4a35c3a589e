#!/usr/bin/env bash
# The C# binding (bindings/csharp) under Mono, the runtime Unity uses: installs mcs + mono when
# missing, builds the release cdylib and the fake model server, compiles the library (C# 7.2 as
# mcs accepts it, netstandard2.0 API), the tests (with the Unity pump sample on a UnityEngine
# stub), the console chat and the printed README programs (snippets), runs the console chat
# offline, then the tests, which print "N passed, N failed" and exit non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
  { apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 mono-mcs mono-runtime >/dev/null
  } || true
fi
if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
  echo "csharp.sh: mcs/mono are missing and could not be installed (apt-get install mono-mcs mono-runtime)"; exit 1
fi
mono --version | head -1

cargo build --release --lib
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
  -recurse:"$B/Tests~/*.cs" "$B/Samples~/UnityPumpChat/RobotaPumpChat.cs"
"${MCS[@]}" -out:"$OUT/ConsoleChat.exe" -r:"$OUT/Robota.dll" "$B/Samples~/ConsoleChat/ConsoleChat.cs"

# The printed programs, compiled exactly as printed (.ci/snippets.py): the snippets of the
# binding's README and every `.cs` snippet of the top-level README.md, each an executable
# against Robota.dll.
S=target/snippets
rm -rf "$S/csharp" "$S/readme-csharp"
python3 .ci/snippets.py "$S/csharp" "$B/README.md"
if grep -Eq '^<!--[[:space:]]*snippet:' README.md; then
  python3 .ci/snippets.py "$S/readme-csharp" README.md
fi
ls "$S"/readme-csharp/*.cs >/dev/null 2>&1 \
  || echo "README.md has no .cs snippet yet: only $B/README.md's are compiled"
n=0
for f in "$S"/csharp/*.cs "$S"/readme-csharp/*.cs; do
  [ -f "$f" ] || continue
  "${MCS[@]}" -out:"$OUT/snippet-$(basename "$f" .cs).exe" -r:"$OUT/Robota.dll" "$f"
  n=$((n + 1))
done
echo "C# snippets: $n compiled"

# [DllImport("robota")] resolves librobota.so through the loader path under Mono.
export LD_LIBRARY_PATH="$PWD/target/release${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
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
