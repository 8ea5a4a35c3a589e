# Sourced by the tests of tests/release/: `check NAME EXPECTED ACTUAL` counts a pass or prints
# the difference and counts a failure; `report NAME` prints "NAME: N passed, N failed" and
# fails when any check did.
passed=0 failed=0
check() {
  if [[ "$2" == "$3" ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s\n--- expected\n%s\n--- actual\n%s\n' "$1" "$2" "$3"
  fi
}
report() {
  echo "$1: $passed passed, $failed failed"
  ((failed == 0))
}
