#!/usr/bin/env bash
# Builds the C# binding's floor host (benches/bindings/csharp/FloorHost.cs: the scenario of
# benches/floor/host.c through the C# binding, under Mono) against the library installed in
# $ROBOTA_PREFIX (default target/prefix). Robota.dll is compiled from bindings/csharp/Runtime as
# .ci/csharp.sh compiles it (mcs, C# 7.2: Mono 6.8's mcs takes no 7.3; the sources use nothing
# 7.3 adds); Mono finds librobota.so through LD_LIBRARY_PATH, as there. It installs nothing (mcs,
# mono and mono-devel must be there: .ci/csharp.sh installs them). Output in target/floor-bindings/;
# the last line of stdout is the command prefix that runs the host.
#
#   bash benches/bindings/build_csharp.sh    then: PREFIX... MODE KIND BASE_URL task|drive|one
#
# With the argument pinvokefloor it builds the P/Invoke floor instead (PInvokeFloor.exe over
# libfloorforward.so: host.c inside a Mono program, each callback also entering an empty managed
# delegate, the floor of a C# binding's cost under Mono; then: PREFIX... MODE KIND BASE_URL
# thread|run|submit|…, host.c's patterns). It needs a C compiler as well.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"

prefix="${ROBOTA_PREFIX:-target/prefix}"
[[ "$prefix" = /* ]] || prefix="$root/$prefix"
[[ -f "$prefix/lib/librobota.so" ]] \
  || { echo "build_csharp.sh: no library installed in $prefix (packaging/install.sh --prefix $prefix)" >&2; exit 1; }
for tool in mcs mono; do
  command -v "$tool" >/dev/null 2>&1 || { echo "build_csharp.sh: $tool is missing" >&2; exit 1; }
done

out="$root/target/floor-bindings/csharp"
mkdir -p "$out"
MCS=(mcs -langversion:7.2 -nologo -warnaserror+ -optimize+)
if [[ "${1:-}" = pinvokefloor ]]; then
  "${CC:-cc}" -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -DFLOOR_HOST_FORWARD -Dmain=floor_host_main \
    -shared -fPIC -I include benches/floor/host.c benches/bindings/csharp/forward.c \
    -o "$out/libfloorforward.so" -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lrobota -lpthread >&2
  "${MCS[@]}" -out:"$out/PInvokeFloor.exe" benches/bindings/csharp/PInvokeFloor.cs >&2
  echo "env LD_LIBRARY_PATH=$out:$prefix/lib mono $out/PInvokeFloor.exe"
  exit 0
fi
"${MCS[@]}" -target:library -unsafe -out:"$out/Robota.dll" -recurse:"bindings/csharp/Runtime/*.cs" >&2
"${MCS[@]}" -out:"$out/FloorHost.exe" -r:"$out/Robota.dll" benches/bindings/csharp/FloorHost.cs >&2
echo "env LD_LIBRARY_PATH=$prefix/lib mono $out/FloorHost.exe"
