#!/usr/bin/env bash
# Interop against real model servers, on 127.0.0.1 only:
#   1. a venv with pinned llama-cpp-python[server] (CPU build), litellm[proxy] and gguf
#      (tests/interop/setup.sh; cached, ~6-8 min the first time on 2 cores, seconds after);
#   2. a tiny deterministic llama-architecture GGUF model (tests/interop/make_model.py);
#   3. llama-cpp-python's OpenAI-compatible server, and the LiteLLM proxy routing model "tiny"
#      to it (OpenAI route /v1/chat/completions and Anthropic route /v1/messages);
#   4. the Rust interop tests (tests/suite/engine/interop_servers.rs) through the library, and the C
#      demo examples-c/chat with OPENAI_BASE_URL against both servers.
# Prints the total time. Servers are stopped on exit.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
started=$(date +%s)
N_CTX=4096

venv="$(bash "$here/setup.sh")"
echo "interop: venv $venv ($(( $(date +%s) - started )) s)"
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

"$venv/bin/python" "$here/make_model.py" "$work/tiny.gguf"
free_port() { "$venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
LP=$(free_port)
QP=$(free_port)

"$venv/bin/python" -m llama_cpp.server --model "$work/tiny.gguf" --model_alias tiny \
  --host 127.0.0.1 --port "$LP" --n_ctx "$N_CTX" --chat_format chatml-function-calling \
  >"$work/llama.log" 2>&1 &
pids+=($!)
cat >"$work/litellm.yaml" <<YAML
model_list:
  - model_name: tiny
    litellm_params:
      model: openai/tiny
      api_base: http://127.0.0.1:$LP/v1
      api_key: none
YAML
LITELLM_LOG=ERROR "$venv/bin/litellm" --config "$work/litellm.yaml" --host 127.0.0.1 --port "$QP" \
  >"$work/litellm.log" 2>&1 &
pids+=($!)

wait_up() { # name url log
  for _ in $(seq 1 180); do
    if "$venv/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "$2" 2>/dev/null; then return 0; fi
    sleep 1
  done
  echo "interop: $1 did not start:"; tail -40 "$3"; exit 1
}
wait_up llama-cpp-python "http://127.0.0.1:$LP/v1/models" "$work/llama.log"
wait_up litellm "http://127.0.0.1:$QP/health/liveliness" "$work/litellm.log"
echo "interop: servers up on 127.0.0.1:$LP (llama-cpp-python) and 127.0.0.1:$QP (litellm) ($(( $(date +%s) - started )) s)"

cd "$root"
ROBOTA_INTEROP_LLAMA_URL="http://127.0.0.1:$LP/v1" ROBOTA_INTEROP_LITELLM_URL="http://127.0.0.1:$QP" \
ROBOTA_INTEROP_MODEL=tiny ROBOTA_INTEROP_N_CTX=$N_CTX \
  cargo test --test engine interop_ -- --ignored --test-threads=1 2>&1 | tee "$work/rust.log"
grep -q "test result: ok. 5 passed" "$work/rust.log" || { echo "interop: Rust interop tests did not all run"; exit 1; }

# The C demo, as a user runs it, against each server.
make -s -C examples-c chat
passed=0
for base in "http://127.0.0.1:$LP/v1" "http://127.0.0.1:$QP/v1"; do
  # (the tiny model may emit NUL bytes: dropped for the shell)
  out="$(OPENAI_BASE_URL="$base" ROBOTA_MODEL=tiny timeout 300 ./examples-c/chat "Say hello" </dev/null 2>&1 | tr -d '\000')" || {
    echo "interop: examples-c/chat failed against $base:"; echo "$out"; exit 1; }
  case "$out" in *"[robota chat] using $base (tiny)"*) ;; *) echo "interop: unexpected chat output: $out"; exit 1 ;; esac
  case "$out" in *rror*) echo "interop: chat reported an error: $out"; exit 1 ;; esac
  passed=$((passed + 1))
done
echo "interop C demo: $passed passed, 0 failed"
echo "interop: done in $(( $(date +%s) - started )) s"
