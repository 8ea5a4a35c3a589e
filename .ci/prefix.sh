# Sourced by the CI steps that consume the installed library (.ci/install.sh, .ci/go.sh,
# .ci/swift.sh, .ci/csharp.sh): makes sure cargo-c is there (installed into ~/.cache only when
# missing), installs Robota Native into $ROBOTA_PREFIX (default target/prefix) once per run with
# packaging/install.sh, and points pkg-config and CMake at it.
. .ci/cargo_c.sh
export ROBOTA_PREFIX="${ROBOTA_PREFIX:-$PWD/target/prefix}"
if [[ ! -f "$ROBOTA_PREFIX/lib/pkgconfig/robota.pc" ]]; then
  bash packaging/install.sh --prefix "$ROBOTA_PREFIX" --profile "${ROBOTA_INSTALL_PROFILE:-ship}"
fi
export PKG_CONFIG_PATH="$ROBOTA_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export CMAKE_PREFIX_PATH="$ROBOTA_PREFIX${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
