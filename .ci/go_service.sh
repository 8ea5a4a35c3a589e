#!/usr/bin/env bash
# The example chat service of the Go binding (bindings/go/examples/chatservice, a module of its
# own): gofmt, vet, build, then its tests against a real PostgreSQL (ROBOTA_PG_DSN when set,
# else .ci/postgres.sh starts a throwaway server and exports it): two service processes share
# one session (alternating turns, a conflict, a node killed with SIGKILL). Called by .ci/go.sh,
# which exports what the binding links with (PKG_CONFIG_PATH, CGO_LDFLAGS) and
# ROBOTA_FAKE_SERVER. Offline: the PostgreSQL driver github.com/lib/pq is Debian's
# golang-github-lib-pq-dev, used through a go.work that replaces the module with that source
# (GOPROXY=off: nothing is downloaded); the module's go.mod stays the one a user builds online.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
: "${ROBOTA_FAKE_SERVER:?go_service.sh: ROBOTA_FAKE_SERVER is not set (run it from .ci/go.sh)}"

# The server .ci/go.sh started for the binding's own store tests, else one of our own.
[[ -n "${ROBOTA_PG_DSN:-}" ]] || . .ci/postgres.sh
: "${ROBOTA_PG_DSN:?go_service.sh: .ci/postgres.sh exported no ROBOTA_PG_DSN}"

pq_src=/usr/share/gocode/src/github.com/lib/pq
if [[ ! -f "$pq_src/go.mod" ]]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 golang-github-lib-pq-dev >/dev/null || true
fi
[[ -f "$pq_src/go.mod" ]] || { echo "go_service.sh: $pq_src is missing (apt-get install golang-github-lib-pq-dev)"; exit 1; }

svc="$root/bindings/go/examples/chatservice"
work="$root/target/go-chatservice"
rm -rf "$work" && mkdir -p "$work"
printf 'go 1.19\n\nuse %s\n\nreplace github.com/lib/pq v1.10.7 => %s\n' "$svc" "$pq_src" >"$work/go.work"
export GOWORK="$work/go.work" GOPROXY=off GOFLAGS=-mod=readonly CI="${CI:-1}"

cd "$svc"
test -z "$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
go vet ./...
go build -o "$work/chatservice" .
go test -race -count=1 -v ./... 2>&1 | tee "$work/test.log"
if grep -q -- '--- SKIP' "$work/test.log"; then echo "go_service.sh: a chat service test skipped under CI"; exit 1; fi
echo "go: the chat service example (two nodes over PostgreSQL) passed"
