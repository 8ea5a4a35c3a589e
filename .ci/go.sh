#!/usr/bin/env bash
# The Go binding (bindings/go) against the installed library: installs Go when missing,
# installs Robota Native into $ROBOTA_PREFIX (.ci/prefix.sh; the binding links it through
# `#cgo pkg-config: robota`, and CGO_LDFLAGS adds an rpath to the prefix since pkg-config gives
# none), builds the fake model server its HTTP tests drive, then vets, runs the tests under the
# race detector, runs the PostgreSQL store's tests and one pass of its benchmarks against a
# throwaway server (.ci/postgres.sh) and builds the examples; the chat example runs one offline
# pass without a terminal. Then the consumers, which require the binding BY VERSION (v<Cargo.toml version>,
# no replace directive) from a local module proxy (tests/install/go/proxy.py): the consumer of
# tests/install/go, linked shared and with -tags robota_static, runs one streamed turn with a
# host tool (tests/install/drive.py); and the printed Go programs are compiled (go build + go
# vet) exactly as printed: the snippets of bindings/go/README.md and docs/host-providers.md, and
# every `.go` snippet of the top-level README.md (.ci/snippets.py).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

if ! command -v go >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 golang-go >/dev/null || true
fi
if ! command -v go >/dev/null 2>&1; then
  echo "go.sh: Go is missing and could not be installed (apt-get install golang-go)"; exit 1
fi
if ! command -v pkg-config >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 pkg-config >/dev/null || true
fi
command -v pkg-config >/dev/null 2>&1 || { echo "go.sh: pkg-config is missing (apt-get install pkg-config)"; exit 1; }
go version

. .ci/prefix.sh
lib="$ROBOTA_PREFIX/lib"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
major="${version%%.*}"
export CGO_LDFLAGS="-Wl,-rpath,$lib"
cargo build --example fake_model_server
export ROBOTA_FAKE_SERVER="${CARGO_TARGET_DIR:-$root/target}/debug/examples/fake_model_server"

fail() { echo "go.sh: $*" >&2; exit 1; }
needs_librobota() { # needs_librobota BINARY: true when it loads librobota.so.$major
  readelf -d "$1" | grep -q "NEEDED.*\[librobota.so.$major\]"
}

cd bindings/go
test -z "$(gofmt -l . ../../tests/install/go ../../benches/bindings/cgofloor)" \
  || { echo "gofmt needed:"; gofmt -l . ../../tests/install/go ../../benches/bindings/cgofloor; exit 1; }
go vet ./...
go test -race -count=1 ./...
# The PostgreSQL session store (package sqlstore) against a real server: .ci/postgres.sh starts a
# throwaway one (ROBOTA_PG_DSN; stopped and removed on exit). Its tests are a module of their own
# (sqlstore/pgtest, Debian's lib/pq by `replace`, offline), so the binding needs no driver.
# Its benchmarks run once each (-benchtime 1x) so they keep compiling and passing their checks;
# the figures of docs/deployment.md come from the longer run that page names.
. "$root/.ci/postgres.sh"
(cd sqlstore/pgtest && GOPROXY=off go vet ./... && GOPROXY=off go test -race -count=1 ./... \
  && GOPROXY=off go test -race -count=1 -run XXX -bench . -benchtime 1x ./...)
go build -o ../../target/go-chat ./examples/chat
go build -o ../../target/go-oneshot ./examples/oneshot
needs_librobota ../../target/go-oneshot || fail "go-oneshot does not load librobota.so.$major"
readelf -d ../../target/go-oneshot | grep -E "R(UN)?PATH" | grep -qF "[$lib]" || fail "go-oneshot has no rpath to $lib"
../../target/go-oneshot "hello" | grep -qx "offline:hello"
../../target/go-chat "hello" </dev/null
cd "$root"

# The local module proxy serving the binding at v$version, and a module cache for this zip only:
# go treats a module in the cache as immutable (it indexes a module directory's files and #cgo
# lines by its path, in GOCACHE), so the binding's files of another run must never reappear
# under the same path.
W="$root/target/go-consumers"
[[ ! -d "$W" ]] || chmod -R u+w "$W"
rm -rf "$W"
mkdir -p "$W"
python3 tests/install/go/proxy.py "$W/proxy"
MOD=github.com/robota-ai/robota-native/bindings/go
zip_sum="$(sha256sum "$W/proxy/$MOD/@v/v$version.zip" | cut -c1-16)"
proxied() {
  GOPROXY="file://$W/proxy" GOSUMDB=off GOFLAGS="-mod=mod -modcacherw" GOMODCACHE="$W/modcache-$zip_sum" "$@"
}
grep -qx "require $MOD v$version" tests/install/go/go.mod \
  || fail "tests/install/go/go.mod does not require $MOD v$version (the version of Cargo.toml)"
for doc in bindings/go/README.md README.md; do
  grep -qF "go get $MOD@v$version" "$doc" || fail "$doc does not say: go get $MOD@v$version (the version of Cargo.toml)"
done

echo "go: the consumer of the installed library (tests/install/go), shared and static"
mkdir "$W/consumer" && cp tests/install/go/go.mod tests/install/go/main.go "$W/consumer/"
(cd "$W/consumer" && proxied go vet . && proxied go build -o "$W/consumer_shared" .)
# --no-as-needed first, as on toolchains that do not default to --as-needed (Debian's gcc does):
# link_static.go alone must keep librobota.so out.
(cd "$W/consumer" && CGO_LDFLAGS="-Wl,--no-as-needed" proxied go build -tags robota_static -o "$W/consumer_static" .)
needs_librobota "$W/consumer_shared" || fail "consumer_shared does not load librobota.so.$major"
if readelf -d "$W/consumer_static" | grep -q "NEEDED.*librobota"; then fail "consumer_static loads a shared librobota"; fi
python3 tests/install/drive.py "$W/consumer_shared"
python3 tests/install/drive.py "$W/consumer_static"

# The printed programs, compiled exactly as printed: each snippet is the main package of its own
# directory in one module that requires the binding by version, as the README tells users to.
S="$W/snippets"
python3 .ci/snippets.py "$S/go" bindings/go/README.md docs/host-providers.md
test -z "$(gofmt -l "$S/go")" || { echo "gofmt needed in the Go snippets of bindings/go/README.md or docs/host-providers.md:"; gofmt -d "$S/go"; exit 1; }
if grep -Eq '^<!--[[:space:]]*snippet:' README.md; then
  python3 .ci/snippets.py "$S/readme-go" README.md
fi
mkdir -p "$S/module"
n=0
for f in "$S"/go/*.go "$S"/readme-go/*.go; do
  [ -f "$f" ] || continue
  d="$S/module/$(basename "$f" .go)"
  mkdir -p "$d" && cp "$f" "$d/main.go"
  n=$((n + 1))
done
ls "$S"/readme-go/*.go >/dev/null 2>&1 \
  || echo "README.md has no .go snippet yet: only bindings/go/README.md's are compiled"
printf 'module example.com/robota-snippets\n\ngo 1.19\n\nrequire %s v%s\n' "$MOD" "$version" >"$S/module/go.mod"
(cd "$S/module" && proxied go vet ./... && proxied go build -o "$S/bin/" ./...)
echo "go snippets: $n compiled and vetted"

# The binding on a current Go as well: Debian 12 ships Go 1.19 (above); its backports carry
# Go 1.23, which the performance figures quote too. Installed only when missing.
go123=/usr/lib/go-1.23/bin/go
if [ ! -x "$go123" ]; then
  backports=/etc/apt/sources.list.d/robota-backports.list
  echo "deb http://deb.debian.org/debian bookworm-backports main" > "$backports"
  # Only that source is fetched (the others' lists are kept): a mirror of another one that is
  # down cannot fail this.
  apt-get update -qq -o DPkg::Lock::Timeout=600 -o Dir::Etc::sourcelist="$backports" \
      -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 >/dev/null \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
      -t bookworm-backports golang-1.23-go >/dev/null || true
fi
[ -x "$go123" ] || fail "Go 1.23 (golang-1.23-go from bookworm-backports) is missing and could not be installed"
"$go123" version
(cd bindings/go && GOTOOLCHAIN=local "$go123" vet . && GOTOOLCHAIN=local "$go123" test -race -count=1 .)

# The example chat service of issue 50: two service processes over one PostgreSQL
# (.ci/go_service.sh; inherits PKG_CONFIG_PATH, CGO_LDFLAGS and ROBOTA_FAKE_SERVER).
cd "$root"
bash .ci/go_service.sh
