#!/usr/bin/env bash
# The C ABI tests (tests/c) under AddressSanitizer + LeakSanitizer against the release cdylib,
# the HTTP ones included: they run against the project's fake model server (the
# fake_model_server example), fed the same replies tests/suite/c_abi.rs queues. A test that
# reports "skipped" fails this step.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --lib
cargo build --example fake_model_server
gcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g -fsanitize=address -fno-omit-frame-pointer \
  -Iinclude tests/c/*.c -Ltarget/release -lrobota -Wl,-rpath,"$PWD/target/release" -lpthread \
  -o target/c_tests_asan

coproc FAKE { exec target/debug/examples/fake_model_server; }
trap 'kill "$FAKE_PID" 2>/dev/null || true' EXIT
read -r hello <&"${FAKE[0]}"
base=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["base_url"] + "/v1")' "$hello")
for cmd in \
  '{"cmd":"enqueue","kind":"openai","text":["Hel","lo"],"tools":[["call_1","lookup","{\"key\":\"h\"}"]]}' \
  '{"cmd":"enqueue","kind":"openai","text":["Found ","it."]}' \
  '{"cmd":"enqueue","kind":"openai","text":["part","ial","never"],"hang_after":3}'; do
  echo "$cmd" >&"${FAKE[1]}"
  read -r ack <&"${FAKE[0]}"
  case "$ack" in *'"ok":true'*) ;; *) echo "fake server refused $cmd: $ack"; exit 1 ;; esac
done

ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=tests/c/lsan.supp ROBOTA_FAKE_BASE_URL="$base" \
  target/c_tests_asan | tee target/c_tests_asan.out
if grep -q skipped target/c_tests_asan.out; then
  echo "a C test was skipped under ASan"; exit 1
fi
