#!/usr/bin/env bash
# Runs the bot. Reads BOT_TOKEN (and the other settings) from the environment or .env.
# Installs what it needs into .venv on first use.
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh" ''
exec python -m bot "$@"
