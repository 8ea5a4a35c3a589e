#!/usr/bin/env bash
# Tests packaging/release/cargo-robota-install, dispatched by cargo itself as cargo-ndk does it:
# the arguments cargo-ndk adds (--manifest-path, --message-format with their values) are dropped,
# everything else reaches install.sh in order, and install.sh's exit status is the shim's. The
# shim runs from a copy of packaging/ whose install.sh records its arguments. Run by
# .ci/actionlint.sh; prints "N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/packaging/release"
cp "$root/packaging/release/cargo-robota-install" "$work/packaging/release/"
cat > "$work/packaging/install.sh" <<'STUB'
printf '%s\n' "$@" > "$INSTALL_ARGS"
exit "${INSTALL_STATUS:-0}"
STUB
export INSTALL_ARGS="$work/args"
# shellcheck source=tests/release/support/check.sh
. "$root/tests/release/support/check.sh"

# What `cargo ndk -t arm64-v8a robota-install --prefix /usr/local --destdir stage --profile ship`
# makes cargo run.
PATH="$work/packaging/release:$PATH" cargo robota-install --prefix /usr/local --destdir stage \
  --profile ship --manifest-path "$root/Cargo.toml" --target aarch64-linux-android \
  --message-format json-render-diagnostics && status=0 || status=$?
check "status" 0 "$status"
check "install.sh's arguments" "$(printf '%s\n' --prefix /usr/local --destdir stage --profile ship \
  --target aarch64-linux-android)" "$(cat "$INSTALL_ARGS")"

INSTALL_STATUS=3 PATH="$work/packaging/release:$PATH" cargo robota-install --prefix p \
  && status=0 || status=$?
check "install.sh's failure" 3 "$status"
check "install.sh's arguments without cargo-ndk's" "--prefix"$'\n'"p" "$(cat "$INSTALL_ARGS")"

report cargo_robota_install
