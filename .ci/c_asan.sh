#!/usr/bin/env bash
# The C ABI tests (tests/c) under AddressSanitizer + LeakSanitizer against the installed library
# (.ci/prefix.sh: profile ship, the build every other consumer step uses: no release build here),
# the HTTP ones included: they run against the project's fake model server (the
# fake_model_server example), fed the same replies tests/suite/c_library/c_abi.rs queues. A test that
# reports "skipped" fails this step.
set -euo pipefail
cd "$(dirname "$0")/.."

# .ci/rust_asan.sh and .ci/tsan.sh reuse this with a sanitized librobota: C_LIB_DIR (where it
# is; default: the prefix's lib/), C_SANITIZER (address|thread), C_OUT (the test binary).
if [ -z "${C_LIB_DIR:-}" ]; then
  . .ci/prefix.sh
  C_LIB_DIR="$ROBOTA_PREFIX/lib"
fi
lib_dir=$C_LIB_DIR
sanitizer=${C_SANITIZER:-address}
out=${C_OUT:-target/c_tests_asan}
cargo build --example fake_model_server
if [ -n "${C_SANITIZER_RT:-}" ]; then
  # The library was built by rustc with a sanitizer whose LLVM is newer than the system's: the
  # C files are instrumented by clang but the executable links rustc's own runtime
  # (C_SANITIZER_RT, e.g. librustc-nightly_rt.tsan.a), not gcc's or clang-14's older one.
  objs="$out.objs"; rm -rf "$objs"; mkdir -p "$objs"
  for f in tests/c/*.c; do
    clang -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g -fsanitize="$sanitizer" \
      -fno-omit-frame-pointer -Iinclude -c "$f" -o "$objs/$(basename "$f" .c).o"
  done
  clang "$objs"/*.o -Wl,--whole-archive "$C_SANITIZER_RT" -Wl,--no-whole-archive \
    -L"$lib_dir" -lrobota -Wl,-rpath,"$(cd "$lib_dir" && pwd)" -lpthread -ldl -lm -lstdc++ -o "$out"
else
  gcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g -fsanitize="$sanitizer" -fno-omit-frame-pointer \
    -Iinclude tests/c/*.c -L"$lib_dir" -lrobota -Wl,-rpath,"$(cd "$lib_dir" && pwd)" -lpthread \
    -o "$out"
fi

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

ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} LSAN_OPTIONS=suppressions=tests/c/lsan.supp \
  ROBOTA_FAKE_BASE_URL="$base" "$out" | tee "$out.out"
if grep -q skipped "$out.out"; then
  echo "a C test was skipped under $sanitizer"; exit 1
fi
