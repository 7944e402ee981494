"""Where the database lives (a SQLite file, or a PostgreSQL server), and how hard SQLite
syncs: settings the bot's config passes in."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final, Literal
from urllib.parse import parse_qs, unquote, urlsplit

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


URL_ENV = "DURAK_DATABASE_URL"
"""Environment variable that selects PostgreSQL (``postgresql://user:pass@host:5432/db``);
empty keeps the SQLite file."""

POSTGRES_SCHEMES: Final = ("postgresql", "postgres")


def check_database_url(url: str) -> str:
    """``url`` stripped, if it names a PostgreSQL database; else a ValueError that says what
    is wrong (never quoting the password)."""
    text = url.strip()
    parts = urlsplit(text)
    if parts.scheme not in POSTGRES_SCHEMES:
        raise ValueError(
            "it must be a postgresql:// address, e.g. postgresql://durak:secret@db:5432/durak"
        )
    try:
        parts.port  # noqa: B018 - raises for a port that is not a number in range
    except ValueError:
        raise ValueError("its port is not a number from 1 to 65535") from None
    if parts.fragment:
        raise ValueError("it cannot have a #fragment")
    return text


def url_secrets(url: str) -> list[str]:
    """The password in ``url`` as written and decoded: what logs must never show."""
    parts = urlsplit(url)
    found = [parts.password or "", *parse_qs(parts.query).get("password", [])]
    return sorted({v for p in found for v in (p, unquote(p)) if v}, key=len, reverse=True)


def mask_url(url: str) -> str:
    """``url`` with its password shown as ``***``: fit for logs and messages."""
    parts = urlsplit(url)
    if parts.password is not None:
        user, _, host = parts.netloc.rpartition("@")
        url = url.replace(f"//{parts.netloc}", f"//{user.partition(':')[0]}:***@{host}", 1)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", url)


def resolve_url(configured: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The PostgreSQL URL to use, or ``""`` for SQLite: ``configured`` if given (``""``
    included), else ``$DURAK_DATABASE_URL``."""
    env = os.environ if environ is None else environ
    raw = env.get(URL_ENV, "") if configured is None else configured
    return check_database_url(raw) if raw.strip() else ""
