#!/usr/bin/env bash
# Installs the real MCP servers the MCP tests connect to, from the package registries, pinned
# (tests/mcp/package.json, tests/mcp/requirements.txt), into a cache dir
# ($ROBOTA_MCP_CACHE, default ~/.cache/robota-mcp/<pins hash>), then runs the MCP tests with
# ROBOTA_MCP_DIR pointing at it (the tests needing the servers are #[ignore]d in
# tests/suite/engine/mcp_servers.rs, so the plain `cargo test` leaves them out; here they run with
# --include-ignored):
#   $ROBOTA_MCP_DIR/node_modules/.bin/mcp-server-everything, .../mcp-server-filesystem (npm)
#   $ROBOTA_MCP_DIR/venv/bin/python with the official `mcp` package (FastMCP, streamable HTTP)
# The MCP client is the cargo feature "mcp", on by default (Cargo.toml).
# With --print-dir it only installs and prints the directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
if ! command -v npm >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
if ! python3 -m venv --help >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
fi
hash="$(cat tests/mcp/package.json tests/mcp/requirements.txt | sha256sum | cut -c1-12)"
dir="${ROBOTA_MCP_CACHE:-$HOME/.cache/robota-mcp/$hash}"
if ! [ -f "$dir/.complete" ]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  cp tests/mcp/package.json "$dir/"
  (cd "$dir" && npm install --silent --no-audit --no-fund --loglevel=error >&2)
  python3 -m venv "$dir/venv" >&2
  "$dir/venv/bin/pip" install --quiet -r tests/mcp/requirements.txt >&2
  touch "$dir/.complete"
fi
if [ "${1:-}" = "--print-dir" ]; then
  echo "$dir"
  exit 0
fi
echo "mcp: servers in $dir"
# A test that does not find the servers fails (tests/support/mcp.rs, mcp_dir).
ROBOTA_MCP_DIR="$dir" cargo test --test engine mcp_ -- --include-ignored 2>&1 | tee "$root/target/mcp-tests.log"
# Every MCP test the filter selects ran and passed: none ignored, none left out.
listed=$(cargo test --test engine mcp_ -- --list 2>/dev/null | grep -c ': test$' || true)
if [ "$listed" -eq 0 ] || ! grep -q "test result: ok. $listed passed; 0 failed; 0 ignored" "$root/target/mcp-tests.log"; then
  echo "mcp: expected \"test result: ok. $listed passed; 0 failed; 0 ignored\" ($listed MCP tests listed)"; exit 1
fi
echo "mcp: all $listed MCP tests ran and passed"
