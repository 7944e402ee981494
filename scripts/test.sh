#!/usr/bin/env bash
# The whole test suite: lint, format check, strict typing of the engine, then pytest.
# Installs what it needs into .venv on first use, and a Chromium for the Mini App's browser
# tests (scripts/_browser.sh). Extra arguments go to pytest.
# The store tests also run on PostgreSQL: a throwaway server (scripts/_postgres.sh) runs
# for the length of the run and is stopped at the end, however it ends.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh" dev
source "$root/scripts/_browser.sh"
echo "== ruff check"; ruff check .
echo "== ruff format --check"; ruff format --check .
echo "== mypy --strict engine"; mypy --strict engine
echo "== PostgreSQL for the tests"
pg_errors="$(mktemp)"
if pg_url="$(bash scripts/_postgres.sh start 2>"$pg_errors")"; then
    export DURAK_TEST_DATABASE_URL="$pg_url"
    trap 'bash scripts/_postgres.sh stop "$DURAK_TEST_DATABASE_URL"' EXIT
    echo "$pg_url"
else
    # the tests that need it fail with this line; the others run
    export DURAK_TEST_DATABASE_ERROR="$(tail -n 1 "$pg_errors")"
fi
cat "$pg_errors" >&2
rm -f "$pg_errors"
# worksteal: a worker that runs out of tests takes some of the other's, so the slow
# end-to-end tests at the end of one queue do not leave the other core idle
echo "== pytest"; pytest -n auto --dist worksteal "$@"
