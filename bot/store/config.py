"""Where the database lives, and how hard it syncs: settings the bot's config passes in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

DEFAULT_FILENAME = "durak.sqlite3"
"""The database file used when nothing else is configured, under the working directory."""

PATH_ENV = "DURAK_DB_PATH"
"""Environment variable naming the database file."""

SYNC_ENV = "DURAK_DB_SYNCHRONOUS"
"""Environment variable choosing ``NORMAL`` (default) or ``FULL`` syncing."""

Synchronous = Literal["NORMAL", "FULL"]


def resolve_path(
    configured: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """The database path: ``configured`` if given, else ``$DURAK_DB_PATH``, else
    ``./durak.sqlite3`` under the working directory. ``~`` is expanded."""
    env = os.environ if environ is None else environ
    raw: str | os.PathLike[str]
    if configured is not None and os.fspath(configured) != "":
        raw = configured
    else:
        raw = env.get(PATH_ENV) or DEFAULT_FILENAME
    path = Path(raw).expanduser()
    return path if path.is_absolute() else Path.cwd() / path


def resolve_synchronous(
    configured: str | None = None, environ: Mapping[str, str] | None = None
) -> Synchronous:
    """``NORMAL`` or ``FULL``: ``configured`` if given, else ``$DURAK_DB_SYNCHRONOUS``."""
    env = os.environ if environ is None else environ
    raw = (configured or env.get(SYNC_ENV) or "NORMAL").strip().upper()
    if raw == "NORMAL":
        return "NORMAL"
    if raw == "FULL":
        return "FULL"
    raise ValueError(f"synchronous must be NORMAL or FULL, not {raw!r}")
