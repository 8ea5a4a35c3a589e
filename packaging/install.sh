#!/usr/bin/env bash
# Installs Robota Native the way native libraries are installed: `cargo capi install` (cargo-c,
# the [package.metadata.capi] of Cargo.toml) puts the shared library with its SONAME and links,
# the static library, include/robota.h and lib/pkgconfig/robota.pc under the prefix; this script
# adds the CMake package lib/cmake/robota/ (find_package(robota): robota::robota and
# robota::robota_static) from packaging/cmake/.
#
#   packaging/install.sh --prefix /usr/local                 # profile ship (what ships)
#   packaging/install.sh --prefix "$HOME/.local" --profile release
#   packaging/install.sh --prefix /usr --destdir pkgroot --target aarch64-unknown-linux-gnu
#   packaging/install.sh --prefix P -- --no-default-features  # the slim build (no MCP)
#
# Options: --prefix DIR (required), --libdir DIR (default PREFIX/lib), --includedir DIR
# (default PREFIX/include), --bindir DIR (default PREFIX/bin), --destdir DIR (staging root),
# --profile NAME (default ship), --target TRIPLE; after `--`, more `cargo capi install` options.
# Needs cargo-c 0.10.24: cargo install cargo-c --version 0.10.24+cargo-0.98.0 --locked
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="" libdir="" includedir="" bindir="" destdir="" profile="ship" target=""
extra=()
while (($#)); do
  case "$1" in
    --prefix | --libdir | --includedir | --bindir | --destdir | --profile | --target)
      (($# >= 2)) || { echo "install.sh: $1 needs a value" >&2; exit 2; }
      declare "${1#--}=$2"
      shift 2
      ;;
    --) shift; extra=("$@"); break ;;
    *) echo "install.sh: unknown option \"$1\" (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
[[ -n "$prefix" ]] || { echo "install.sh: --prefix DIR is required" >&2; exit 2; }
case "$prefix" in /*) ;; *) prefix="$(pwd)/$prefix" ;; esac
libdir="${libdir:-$prefix/lib}"
includedir="${includedir:-$prefix/include}"
bindir="${bindir:-$prefix/bin}"
if ! cargo-capi --version >/dev/null 2>&1; then
  echo "install.sh: cargo-c is missing; install it with" >&2
  echo "  cargo install cargo-c --version 0.10.24+cargo-0.98.0 --locked" >&2
  exit 1
fi

args=(capi install --manifest-path "$root/Cargo.toml" --package robota --profile "$profile"
  --prefix "$prefix" --libdir "$libdir" --includedir "$includedir" --bindir "$bindir")
[[ -z "$target" ]] || args+=(--target "$target")
[[ -z "$destdir" ]] || args+=(--destdir "$destdir")
cargo "${args[@]}" "${extra[@]}"

# The CMake package, next to the pkg-config file.
stage() { echo "${destdir:+${destdir%/}}$1"; }
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
first_of() { # first_of DIR NAME... : the first of the names that is a regular file in DIR
  local dir="$1" name
  shift
  for name in "$@"; do
    if [[ -f "$dir/$name" && ! -L "$dir/$name" ]]; then echo "$name"; return; fi
  done
}
shopt -s nullglob
lib_stage="$(stage "$libdir")"
cd "$lib_stage"
shared="$(first_of . librobota.so.*.*.* librobota.*.*.*.dylib librobota.so librobota.dylib)"
soname=""
[[ "$shared" != librobota.so.* ]] || soname="librobota.so.${version%%.*}"
[[ "$shared" != *.dylib ]] || soname="librobota.${version%%.*}.dylib"
import=""
if [[ -z "$shared" && -f "$(stage "$bindir")/robota.dll" ]]; then
  shared="robota.dll"
  import="$(first_of . robota.dll.lib robota.dll.a)"
fi
static="$(first_of . librobota.a robota.lib)"
cd - >/dev/null
[[ -n "$shared$static" ]] || { echo "install.sh: no library found in $lib_stage" >&2; exit 1; }
pointer_bits="$(rustc --print cfg ${target:+--target "$target"} | sed -n 's/^target_pointer_width="\(.*\)"$/\1/p')"
libs_private="$(sed -n 's/^Libs.private: *//p' "$lib_stage/pkgconfig/robota.pc")"
cmake_dir="$lib_stage/cmake/robota"
mkdir -p "$cmake_dir"
python3 - "$root/packaging/cmake" "$cmake_dir" "$libdir/cmake/robota" <<PY
import os, sys
src, out, config_dir = sys.argv[1:4]
words = """$libs_private""".split()
items, i = [], 0
while i < len(words):  # "-framework X" stays one item
    if words[i] == "-framework" and i + 1 < len(words):
        items.append(words[i] + " " + words[i + 1]); i += 2
    else:
        items.append(words[i]); i += 1
values = {
    "VERSION": "$version", "VERSION_MAJOR": "$version".split(".")[0],
    "SIZEOF_VOID_P": str(int("$pointer_bits") // 8),
    "LIBDIR_FROM_CONFIG": os.path.relpath("$libdir", config_dir).replace(os.sep, "/"),
    "INCLUDEDIR_FROM_CONFIG": os.path.relpath("$includedir", config_dir).replace(os.sep, "/"),
    "BINDIR_FROM_CONFIG": os.path.relpath("$bindir", config_dir).replace(os.sep, "/"),
    "SHARED_FILE": "$shared", "SONAME": "$soname", "IMPORT_FILE": "$import",
    "STATIC_FILE": "$static", "STATIC_LINK_LIBRARIES": ";".join(items),
}
for name in ("robotaConfig.cmake", "robotaConfigVersion.cmake"):
    text = open(os.path.join(src, name + ".in")).read()
    for key, value in values.items():
        text = text.replace("@" + key + "@", value)
    if "@" in text.replace("@rpath", ""):
        sys.exit("install.sh: unfilled placeholder in " + name)
    open(os.path.join(out, name), "w").write(text)
PY
echo "installed Robota Native $version under ${destdir:+$destdir}$prefix (pkg-config: robota, CMake: find_package(robota))"
