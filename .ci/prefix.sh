# Sourced by the CI steps that consume the installed library (.ci/install.sh, .ci/go.sh,
# .ci/swift.sh, .ci/csharp.sh): makes sure cargo-c is there (installed into ~/.cache only when
# missing), installs Robota Native into $ROBOTA_PREFIX (default target/prefix) once per run with
# packaging/install.sh, and points pkg-config and CMake at it.
ROBOTA_CARGO_C_VERSION=0.10.24+cargo-0.98.0
robota_cargo_c_root="${ROBOTA_CARGO_C_ROOT:-$HOME/.cache/robota-cargo-c}"
export PATH="$robota_cargo_c_root/bin:$PATH"
if ! cargo capi --version 2>/dev/null | grep -q "${ROBOTA_CARGO_C_VERSION%%+*}"; then
  echo "prefix: installing cargo-c $ROBOTA_CARGO_C_VERSION into $robota_cargo_c_root" >&2
  # --debug: a build tool; its debug build compiles in about half the time of the release one.
  cargo install cargo-c --version "$ROBOTA_CARGO_C_VERSION" --locked --debug --root "$robota_cargo_c_root" >&2
fi
export ROBOTA_PREFIX="${ROBOTA_PREFIX:-$PWD/target/prefix}"
if [[ ! -f "$ROBOTA_PREFIX/lib/pkgconfig/robota.pc" ]]; then
  bash packaging/install.sh --prefix "$ROBOTA_PREFIX" --profile "${ROBOTA_INSTALL_PROFILE:-ship}"
fi
export PKG_CONFIG_PATH="$ROBOTA_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export CMAKE_PREFIX_PATH="$ROBOTA_PREFIX${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
