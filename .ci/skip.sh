# Sourced by the .ci scripts: `skip_or_fail MESSAGE` when a tool the step needs is missing.
# Outside CI the step is skipped (exit 0) with the message; under CI (`CI` set to anything but
# empty, 0 or false) it fails (exit 1): CI never passes by skipping. The Rust tests' rule is the
# same (tests/support/required.rs).
under_ci() {
  case "${CI:-}" in "" | 0 | false | FALSE | False) return 1 ;; *) return 0 ;; esac
}
skip_or_fail() {
  if under_ci; then
    echo "FAIL: $* (CI is set: a missing tool fails, never skips)" >&2
    exit 1
  fi
  echo "$*: skipped"
  exit 0
}
