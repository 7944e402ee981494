#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests, from the machine's PostgreSQL binaries.
#
#   scripts/_postgres.sh start [-c NAME=VALUE...]   start one in a new temporary folder;
#                                                   print its URL (the options go to the
#                                                   server, after ours: a benchmark turns
#                                                   fsync back on)
#   scripts/_postgres.sh stop URL     stop the server of that URL and remove its folder
#
# The binaries are Debian's (/usr/lib/postgresql/*/bin, the newest) or those on PATH; when
# there are none and we are root with apt-get, Debian's `postgresql` is installed first.
# The server listens on a unix socket in its own folder only (no port to clash with), with
# fsync off: a test database needs no durability against power loss. initdb refuses to
# run as root, so as root the server runs as the `postgres` user the package creates.
# On failure: one line on standard error saying why, and exit status 1.
set -euo pipefail

fail() {
    echo "PostgreSQL for the tests: $*" >&2
    exit 1
}

find_bin() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
        echo "$dir"
    elif command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
        dirname "$(command -v initdb)"
    fi
}

install_debian() {
    [ "$(id -u)" = 0 ] || return 1
    command -v apt-get >/dev/null || return 1
    echo "PostgreSQL for the tests: installing Debian's postgresql (apt-get)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends postgresql >&2
}

# Run a PostgreSQL program as the server's owner.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

start() {
    local bin dir
    bin="$(find_bin)"
    if [ -z "$bin" ]; then
        install_debian || fail "no server binaries (/usr/lib/postgresql/*/bin, or initdb on" \
            "PATH), and they cannot be installed here: install Debian's postgresql"
        bin="$(find_bin)"
        [ -n "$bin" ] || fail "installed postgresql, but found no initdb in /usr/lib/postgresql"
    fi
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        fail "running as root, but there is no postgres user to run the server as"
    fi
    # as root, in /tmp: the postgres user may not reach into root's own TMPDIR
    local tmp="${TMPDIR:-/tmp}"
    [ "$(id -u)" = 0 ] && tmp=/tmp
    dir="$(mktemp -d "$tmp/durak-pg.XXXXXX")"
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    if ! as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale \
        --no-sync >"$dir/initdb.log" 2>&1; then
        fail "initdb failed: $(tail -n 1 "$dir/initdb.log")"
    fi
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off \
            -c full_page_writes=off -c max_connections=300 $*" start >/dev/null; then
        fail "the server did not start: $(tail -n 1 "$dir/server.log" 2>/dev/null)"
    fi
    echo "postgresql://postgres@/postgres?host=$dir"
}

stop() {
    local url="$1" dir bin
    dir="${url##*host=}"
    dir="${dir%%&*}"
    case "$dir" in
        */durak-pg.*) ;;
        *) fail "not a URL this script made: $url" ;;
    esac
    bin="$(find_bin)"
    if [ -n "$bin" ] && [ -d "$dir/data" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) stop "${2:?the URL that start printed}" ;;
    *) fail "usage: $0 start | stop URL" ;;
esac
