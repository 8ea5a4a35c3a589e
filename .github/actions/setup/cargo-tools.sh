#!/usr/bin/env bash
# cargo-tools.sh TOOL... : installs each cargo tool (cargo-c, cargo-ndk) at the version the
# workflow pins ($CARGO_C_VERSION, $CARGO_NDK_VERSION) into ~/.cache/robota-tools, unless the
# cache already holds that version, and puts its bin/ on the job's PATH.
set -euo pipefail
root="$HOME/.cache/robota-tools"
for tool in "$@"; do
  case "$tool" in
    cargo-c) version=$CARGO_C_VERSION ;;
    cargo-ndk) version=$CARGO_NDK_VERSION ;;
    *) echo "::error::unknown cargo tool \"$tool\" (cargo-c, cargo-ndk)"; exit 1 ;;
  esac
  if ! grep -q "^\"$tool $version " "$root/.crates.toml" 2>/dev/null; then
    cargo install "$tool" --version "$version" --locked --root "$root"
  fi
done
bin="$root/bin"
if command -v cygpath >/dev/null 2>&1; then bin=$(cygpath -w "$bin"); fi
echo "$bin" >> "$GITHUB_PATH"
