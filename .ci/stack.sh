#!/usr/bin/env bash
# Stack budgets (docs/performance.md, "A host thread's stack"): how deep the library as it
# ships (profile ship, the prefix .ci/prefix.sh installs) takes a host's own thread, from the
# thread function's start, on a thread's scenario after the process's first
# (benches/floor/stack.c, against the floor's fake server, both wire formats):
#   - robota_session_new + submit + wait + free <= 10 KiB (6.9 KiB on 2026-12-05, 12.8 KiB before);
#   - robota_session_new + robota_session_run + free <= 40 KiB (36.3-36.4 KiB; 42.4-43.2 before).
# Every 4 KiB deeper is one more page that each host thread keeps for its life.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/prefix.sh

SUBMIT_WAIT_LIMIT=$((10 * 1024))
RUN_LIMIT=$((40 * 1024))

tmp=$(mktemp -d)
server=""
cleanup() {
  exec 3>&- 4<&- 2>/dev/null || true # the server stops when its stdin closes
  if [[ -n "$server" ]]; then wait "$server" || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck disable=SC2046 # pkg-config's flags are words
cc -O2 -Wall -Wextra -Werror -o "$tmp/floor_stack" benches/floor/stack.c \
  $(pkg-config --cflags --libs robota) -lpthread -Wl,-rpath,"$ROBOTA_PREFIX/lib"

for kind in anthropic openai; do
  mkfifo "$tmp/in" "$tmp/url"
  cargo bench -q --bench floor -- serve "$kind" <"$tmp/in" >"$tmp/url" &
  server=$!
  exec 3>"$tmp/in" 4<"$tmp/url"
  if ! read -r -t 900 url <&4; then
    echo "FAIL: the floor's $kind server printed no URL" >&2
    exit 1
  fi
  figures=$("$tmp/floor_stack" "$kind" "$url")
  exec 3>&- 4<&-
  wait "$server"
  server=""
  rm -f "$tmp/in" "$tmp/url"
  submit_wait=$(sed -n 's/.*"submit_wait_bytes":\([0-9]*\).*/\1/p' <<<"$figures")
  run=$(sed -n 's/.*"run_bytes":\([0-9]*\).*/\1/p' <<<"$figures")
  echo "$kind: a host thread's stack, submit + wait $submit_wait B (limit $SUBMIT_WAIT_LIMIT), run $run B (limit $RUN_LIMIT)"
  if ((submit_wait > SUBMIT_WAIT_LIMIT || run > RUN_LIMIT)); then
    echo "FAIL: the library takes a host's thread deeper than its budget; see docs/performance.md, \"A host thread's stack\"" >&2
    exit 1
  fi
done
