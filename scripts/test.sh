#!/usr/bin/env bash
# The whole test suite: lint, format check, strict typing of the engine, then pytest.
# Installs what it needs into .venv on first use, and a Chromium for the Mini App's browser
# tests (scripts/_browser.sh). Extra arguments go to pytest.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh" dev
source "$root/scripts/_browser.sh"
echo "== ruff check"; ruff check .
echo "== ruff format --check"; ruff format --check .
echo "== mypy --strict engine"; mypy --strict engine
echo "== pytest"; pytest -n auto "$@"
