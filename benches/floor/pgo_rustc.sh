#!/usr/bin/env bash
# RUSTC_WRAPPER of the PGO `use` build (benches/floor/build.rs): the profile (`-Cprofile-use`)
# reaches only the crates on the streaming path; every other crate is built as in plain `ship`.
# Profile-guided inlining grows cold code (MCP, tools, config parsing) for no measurable gain:
# with the profile on every crate the library is 9,805,944 B, with it on these 8,
# 9,313,528 B (2026-12-03, MCP on), under the 9 MiB gate of .ci/size.sh.
rustc=$1
shift
name=""
prev=""
for a in "$@"; do
  if [[ $prev == --crate-name ]]; then name=$a; fi
  prev=$a
done
case " robota robota_engine tokio hyper httparse bytes memchr serde_json " in
  *" $name "*) exec "$rustc" "$@" ;;
esac
args=()
for a in "$@"; do
  [[ $a == -Cprofile-use=* ]] || args+=("$a")
done
exec "$rustc" "${args[@]}"
