#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests that need a real server (PostgresMessageStore).
#
#   source .ci/postgres.sh && pg_start && trap pg_stop EXIT    # what .ci/run does
#   bash .ci/postgres.sh start | stop                          # by hand (prints the export line to use)
#
# pg_start installs PostgreSQL from Debian's packages if no server binaries are found (apt-get update, then
# apt-get install -y postgresql), creates a cluster in a fresh temp dir owned by the postgres user (initdb, trust
# authentication, listening on 127.0.0.1 only, on a free port), starts it as the postgres user with pg_ctl and
# exports FIXENGINE_TEST_POSTGRES, the Npgsql connection string the tests read. pg_stop stops the cluster
# (pg_ctl stop -m immediate) and deletes its directory. Nothing is left running or on disk afterwards.

pg_bin_dir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && echo "$d"
}

pg_start() {
  local bin port
  bin=$(pg_bin_dir)
  if [ -z "$bin" ]; then
    echo "== PostgreSQL not found: installing it from Debian's packages"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }; then
      echo "postgres.sh: apt-get install postgresql failed" >&2; return 1
    fi
    bin=$(pg_bin_dir)
    [ -z "$bin" ] && { echo "postgres.sh: no initdb/pg_ctl under /usr/lib/postgresql/*/bin after install" >&2; return 1; }
  fi
  id postgres >/dev/null 2>&1 || { echo "postgres.sh: no 'postgres' user (the Debian package creates it)" >&2; return 1; }
  PG_TMP_DIR=$(mktemp -d /tmp/fixengine-pg.XXXXXX)
  chown postgres:postgres "$PG_TMP_DIR"
  local as_pg=(runuser -u postgres --)
  [ "$(id -u)" -ne 0 ] && as_pg=(sudo -n -u postgres)
  if ! "${as_pg[@]}" "$bin/initdb" -D "$PG_TMP_DIR/data" -U postgres -A trust -E UTF8 --no-sync >"$PG_TMP_DIR/initdb.log" 2>&1; then
    echo "postgres.sh: initdb failed:" >&2; cat "$PG_TMP_DIR/initdb.log" >&2; return 1
  fi
  # The cluster is thrown away after the run and the tests check the store's logic (commits, fencing, lease), not the
  # server's durability across power loss: by default it runs without fsync, so a commit costs a round trip instead of
  # a WAL flush on this VM's disk. FIXENGINE_PG_DURABLE=1 keeps PostgreSQL's durable defaults (for measurements).
  local durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [ "${FIXENGINE_PG_DURABLE:-0}" = "1" ] && durability="-c fsync=on -c synchronous_commit=on"
  # PostgreSQL cannot listen on port 0 (it needs the number for its socket file and lock), so a free port is probed and
  # handed to pg_ctl: should another program take it in between, the server fails to start (pg_ctl -w says so) and the
  # next attempt probes another port. A taken port is never used: the tests connect only after pg_ctl reported success.
  local attempt
  for attempt in 1 2 3 4 5; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    if "${as_pg[@]}" "$bin/pg_ctl" -D "$PG_TMP_DIR/data" -l "$PG_TMP_DIR/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$PG_TMP_DIR -c max_connections=300 $durability" \
        start >/dev/null 2>&1; then
      PG_BIN_DIR=$bin
      export FIXENGINE_TEST_POSTGRES="Host=127.0.0.1;Port=$port;Username=postgres;Database=postgres"
      echo "== PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data $PG_TMP_DIR/data)"
      return 0
    fi
  done
  echo "postgres.sh: pg_ctl start failed 5 times; server log:" >&2; cat "$PG_TMP_DIR/server.log" >&2 2>/dev/null
  return 1
}

pg_stop() {
  [ -n "${PG_TMP_DIR:-}" ] && [ -d "$PG_TMP_DIR" ] || return 0
  local bin=${PG_BIN_DIR:-$(pg_bin_dir)}
  if [ -f "$PG_TMP_DIR/data/postmaster.pid" ]; then
    local as_pg=(runuser -u postgres --)
    [ "$(id -u)" -ne 0 ] && as_pg=(sudo -n -u postgres)
    "${as_pg[@]}" "$bin/pg_ctl" -D "$PG_TMP_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$PG_TMP_DIR"
  unset PG_TMP_DIR FIXENGINE_TEST_POSTGRES
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    start)
      pg_start || exit 1
      echo "export FIXENGINE_TEST_POSTGRES='$FIXENGINE_TEST_POSTGRES'"
      echo "# stop with: PG_TMP_DIR=$PG_TMP_DIR bash .ci/postgres.sh stop"
      ;;
    stop) pg_stop ;;
    *) echo "usage: bash .ci/postgres.sh start|stop (or source it and call pg_start / pg_stop)" >&2; exit 2 ;;
  esac
fi
