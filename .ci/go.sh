#!/usr/bin/env bash
# The Go binding (bindings/go): installs Go when missing, builds the release cdylib it links
# and the fake model server its HTTP tests drive, then vets, runs the tests under the race
# detector and builds the examples; the chat example runs one offline pass without a terminal.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v go >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
fi
go version

cargo build --release --lib
cargo build --example fake_model_server

cd bindings/go
test -z "$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
go vet ./...
ROBOTA_FAKE_SERVER="$PWD/../../target/debug/examples/fake_model_server" go test -race -count=1 ./...
go build -o ../../target/go-chat ./examples/chat
go build -o ../../target/go-oneshot ./examples/oneshot
../../target/go-oneshot "hello" | grep -qx "offline:hello"
../../target/go-chat "hello" </dev/null
