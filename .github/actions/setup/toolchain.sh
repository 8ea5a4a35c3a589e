#!/usr/bin/env bash
# toolchain.sh TARGET... : rustup when the runner lacks it, the toolchain rust-toolchain.toml
# pins (minimal profile) and the given targets for it.
set -euo pipefail
if ! command -v rustup >/dev/null 2>&1; then
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --default-toolchain none
  echo "$HOME/.cargo/bin" >> "$GITHUB_PATH"
  export PATH="$HOME/.cargo/bin:$PATH"
fi
toolchain=$(sed -n 's/^channel = "\(.*\)"$/\1/p' rust-toolchain.toml)
[[ -n "$toolchain" ]] || { echo "::error::no channel in rust-toolchain.toml"; exit 1; }
rustup toolchain install "$toolchain" --profile minimal
rustup target add --toolchain "$toolchain" "$@"
rustup run "$toolchain" rustc --version
