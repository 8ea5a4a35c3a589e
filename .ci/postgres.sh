#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests of stores that need a real one.
#
#   . .ci/postgres.sh             # sourced: starts the server, exports ROBOTA_PG_DSN and adds
#                                 # pg_stop to the shell's EXIT trap (kept: an earlier trap runs too)
#   bash .ci/postgres.sh CMD ...  # runs CMD with the server up and ROBOTA_PG_DSN set, then stops it
#
# Installs Debian's postgresql when no /usr/lib/postgresql/*/bin/initdb exists, and the
# PostgreSQL driver the Go tests build with (golang-github-lib-pq-dev, source in
# /usr/share/gocode/src/github.com/lib/pq) when missing. Then initdb creates a cluster in a new
# temporary directory (as the user postgres when run as root: initdb refuses root), started on a
# free 127.0.0.1 port with its Unix socket in that directory, trust authentication for the
# superuser robota and a database robota:
#   ROBOTA_PG_DSN=postgres://robota@127.0.0.1:PORT/robota?sslmode=disable
# pg_start and pg_stop can also be called by the sourcing script (pg_stop removes everything;
# calling it twice is harmless). The server runs with fsync=off (the tests need no durability);
# ROBOTA_PG_FSYNC=on keeps PostgreSQL's default, durable commits (the benchmarks' figures).

pg_install() {
  local missing=()
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
  [[ -f /usr/share/gocode/src/github.com/lib/pq/go.mod ]] || missing+=(golang-github-lib-pq-dev)
  if ((${#missing[@]})); then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
  fi
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null \
    || { echo "postgres.sh: initdb is missing (apt-get install postgresql)" >&2; return 1; }
}

# pg_as CMD...: runs CMD as the cluster's owner (postgres when we are root).
pg_as() {
  if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_start() {
  pg_install || return 1
  local bin initdbs
  initdbs=(/usr/lib/postgresql/*/bin/initdb)
  bin="$(dirname "$(printf '%s\n' "${initdbs[@]}" | sort -V | tail -n 1)")"
  PG_DIR="$(mktemp -d /tmp/robota-pg.XXXXXX)"
  chmod 700 "$PG_DIR"
  [[ "$(id -u)" != 0 ]] || chown postgres: "$PG_DIR"
  PG_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  pg_as "$bin/initdb" -D "$PG_DIR/data" -U robota --auth=trust -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 \
    || { cat "$PG_DIR/initdb.log" >&2; pg_stop; return 1; }
  pg_as "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=${ROBOTA_PG_FSYNC:-off} -c max_connections=200" start >/dev/null \
    || { cat "$PG_DIR/server.log" >&2; pg_stop; return 1; }
  PG_BIN="$bin"
  pg_as "$bin/createdb" -h "$PG_DIR" -p "$PG_PORT" -U robota robota || { pg_stop; return 1; }
  export ROBOTA_PG_DSN="postgres://robota@127.0.0.1:$PG_PORT/robota?sslmode=disable"
  echo "postgres.sh: PostgreSQL $("$bin/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT ($PG_DIR, fsync=${ROBOTA_PG_FSYNC:-off})"
}

pg_stop() {
  if [[ -n "${PG_DIR:-}" && -d "$PG_DIR" ]]; then
    if [[ -n "${PG_BIN:-}" && -f "$PG_DIR/data/postmaster.pid" ]]; then
      pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$PG_DIR"
  fi
  PG_DIR="" PG_BIN=""
  unset ROBOTA_PG_DSN
}

# pg_trap: pg_stop on exit, before the EXIT trap already set.
pg_trap() {
  local prev words
  prev="$(trap -p EXIT)"
  if [[ -n "$prev" ]]; then
    eval "words=(${prev})" # trap -- 'COMMAND' EXIT
    # shellcheck disable=SC2064 # the earlier command is expanded now, on purpose
    trap "pg_stop; ${words[2]}" EXIT
  else
    trap pg_stop EXIT
  fi
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  (($#)) || { echo "usage: bash .ci/postgres.sh CMD [ARGS...] (or source it)" >&2; exit 2; }
  pg_start
  trap pg_stop EXIT
  "$@"
else
  pg_start && pg_trap
fi
