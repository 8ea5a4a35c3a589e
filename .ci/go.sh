#!/usr/bin/env bash
# The Go binding (bindings/go): installs Go when missing, builds the release cdylib it links
# and the fake model server its HTTP tests drive, then vets, runs the tests under the race
# detector and builds the examples; the chat example runs one offline pass without a terminal.
# Then it compiles (go build + go vet) the printed Go programs: the snippets of
# bindings/go/README.md and every `.go` snippet of the top-level README.md (.ci/snippets.py).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v go >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 golang-go >/dev/null || true
fi
if ! command -v go >/dev/null 2>&1; then
  echo "go.sh: Go is missing and could not be installed (apt-get install golang-go)"; exit 1
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

# The printed programs, compiled exactly as printed: each snippet is the main package of its own
# directory in one consumer module that requires the binding by its module path and replaces it
# with this checkout (as the README tells users to).
cd ../..
S=target/snippets
rm -rf "$S/go" "$S/readme-go" "$S/go-consumer" "$S/go-bin"
python3 .ci/snippets.py "$S/go" bindings/go/README.md
test -z "$(gofmt -l "$S/go")" || { echo "gofmt needed in bindings/go/README.md snippets:"; gofmt -d "$S/go"; exit 1; }
if grep -Eq '^<!--[[:space:]]*snippet:' README.md; then
  python3 .ci/snippets.py "$S/readme-go" README.md
fi
mkdir -p "$S/go-consumer"
n=0
for f in "$S"/go/*.go "$S"/readme-go/*.go; do
  [ -f "$f" ] || continue
  d="$S/go-consumer/$(basename "$f" .go)"
  mkdir -p "$d" && cp "$f" "$d/main.go"
  n=$((n + 1))
done
ls "$S"/readme-go/*.go >/dev/null 2>&1 \
  || echo "README.md has no .go snippet yet: only bindings/go/README.md's are compiled"
MOD=github.com/robota-ai/robota-native/bindings/go
cat > "$S/go-consumer/go.mod" <<EOF
module example.com/robota-snippets

go 1.19

require $MOD v0.0.0

replace $MOD => $PWD/bindings/go
EOF
(cd "$S/go-consumer" && GOPROXY=off go vet ./... && GOPROXY=off go build -o ../go-bin/ ./...)
echo "go snippets: $n compiled and vetted"
