# Sourced by .ci/run (before the README's commands, whose `make -C examples-c run` installs the
# library with cargo-c) and by .ci/prefix.sh: puts cargo-c 0.10.24 on PATH, installing it into
# ~/.cache/robota-cargo-c only when it is missing (a build tool: its debug build compiles in
# about half the time of the release one).
ROBOTA_CARGO_C_VERSION=0.10.24+cargo-0.98.0
robota_cargo_c_root="${ROBOTA_CARGO_C_ROOT:-$HOME/.cache/robota-cargo-c}"
export PATH="$robota_cargo_c_root/bin:$PATH"
# `cargo-capi --version` names the version (`cargo capi --version` only prints the usage).
if ! cargo-capi --version 2>/dev/null | grep -qF "cargo-c $ROBOTA_CARGO_C_VERSION"; then
  echo "cargo-c: installing $ROBOTA_CARGO_C_VERSION into $robota_cargo_c_root" >&2
  cargo install cargo-c --version "$ROBOTA_CARGO_C_VERSION" --locked --debug --root "$robota_cargo_c_root" >&2
fi
