"""Entry point of the bot: ``python -m bot`` (``./scripts/run.sh``).

Reads the settings (environment and ``.env``); a missing or invalid setting stops start-up
with one line on standard error naming it, and exit status 2. Then it opens the database
(running pending migrations), logs one line per event to standard error with the token and
the webhook secret redacted, and runs in polling mode (default) or webhook mode until
SIGINT or SIGTERM, which stop it cleanly (exit status 0).

``python -m bot --check`` checks the settings, that the database can be opened and, in
webhook mode, that the running bot answers on its health endpoint: exit 0 if all is well
(the container's HEALTHCHECK uses it).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import sqlite3
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence

from pydantic import ValidationError
from pydantic_settings import SettingsError

from bot.base.collector import make_full_passes_rare
from bot.base.config import PROGRAM, Settings, explain

__all__ = ["LogFormatter", "configure_logging", "load_settings", "main"]

log = logging.getLogger("bot")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2


def _say(line: str, secrets: Sequence[str] = ()) -> None:
    for secret in secrets:
        line = line.replace(secret, "***")
    print(f"{PROGRAM}: {line}", file=sys.stderr, flush=True)


def load_settings() -> Settings | None:
    """The settings, or None after printing the one line that says what is wrong."""
    try:
        return Settings()
    except ValidationError as exc:
        _say(explain(exc))
    except (SettingsError, OSError, UnicodeDecodeError) as exc:
        _say(f"cannot read the settings: {' '.join(str(exc).split())}")
    return None


# -------------------------------------------------------------------- logging


class LogFormatter(logging.Formatter):
    """``<time> <LEVEL> <logger>: <message>`` on one line: secrets replaced by ``***``, and
    the lines of a traceback joined with `` | `` so that one event stays one line."""

    def __init__(self, secrets: Sequence[str] = ()) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.secrets = [s for s in secrets if s]

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for secret in self.secrets:
            text = text.replace(secret, "***")
        if "\n" in text or "\r" in text:
            text = " | ".join(line for line in text.splitlines() if line.strip())
        return text


class _RefusedTokenFilter(logging.Filter):
    """Drops PTB's traceback for a refused token: the bot says so in one line and exits."""

    def filter(self, record: logging.LogRecord) -> bool:
        from telegram.error import InvalidToken

        error = record.exc_info[1] if record.exc_info else None
        return not (record.name.startswith("telegram") and isinstance(error, InvalidToken))


class _BriefDatabaseFilter(logging.Filter):
    """asyncpg's warnings about a passing failure (its pool connecting again while the
    database restarts) say the exception in a few words, not with its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("asyncpg") and record.exc_info and record.levelno < logging.ERROR:
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()}: {type(error).__name__}: {error}"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


def configure_logging(settings: Settings) -> None:
    """Send every log record (and every warning) to standard error through
    :class:`LogFormatter`; quieten chatty libraries below DEBUG."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LogFormatter(settings.secrets()))
    handler.addFilter(_RefusedTokenFilter())
    handler.addFilter(_BriefDatabaseFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(settings.log_level)
    debug = settings.log_level == "DEBUG"
    # httpx logs each request's URL, which holds the token: redacted, and only when debugging.
    logging.getLogger("httpx").setLevel(logging.INFO if debug else logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.INFO)
    logging.getLogger("apscheduler").setLevel(logging.INFO if debug else logging.WARNING)
    logging.captureWarnings(True)


# -------------------------------------------------------------------- checks


class OtherBot(Exception):
    """The database is another bot's: its tables, tallies and updates are for that token."""


BOT_KEY = "bot_id"
"""The bot state key naming the bot (the id in its token) that the database belongs to."""


async def _open_database(settings: Settings) -> None:
    from bot.store import open_store

    store = await open_store(settings.db_path, url=settings.postgres_url)
    try:
        # A token starts with its bot's id: the first bot to open a database owns it, and
        # another token on it would answer the first bot's buttons with the wrong bot and
        # take its updates' ids for its own.
        mine = settings.bot_token.get_secret_value().split(":", 1)[0]
        owner = await store.get_state(BOT_KEY)
        if owner is None:
            await store.set_state(BOT_KEY, mine)
        elif owner != mine:
            raise OtherBot(f"it belongs to the bot {owner}, and BOT_TOKEN is the bot {mine}'s")
    finally:
        await store.close()


def _database_problem(settings: Settings) -> str | None:
    """Open (create, migrate) the database once before starting; the problem, if any."""
    from bot.store import StoreError

    if settings.postgres_url:
        from bot.store.postgres import CONNECT_ERRORS

        refusals: tuple[type[BaseException], ...] = (StoreError, OtherBot, *CONNECT_ERRORS)
        try:
            asyncio.run(_open_database(settings))
        except refusals as exc:
            reason = " ".join(str(exc).split())
            return f"DURAK_DATABASE_URL: cannot open the database {settings.database}: {reason}"
        return None
    try:
        asyncio.run(_open_database(settings))
    except (StoreError, OtherBot, sqlite3.Error, OSError) as exc:
        return f"DURAK_DB_PATH: cannot open the database {settings.db_path}: {exc}"
    return None


def _check(settings: Settings) -> int:
    """``--check``: the database is readable and of a known schema; in webhook mode the
    running bot answers on its health endpoint."""
    from bot.store import LATEST_VERSION
    from bot.transport.webhook import HEALTH_PATH

    path = settings.db_path
    if settings.postgres_url:
        from bot.store.pg_migrations import PG_LATEST_VERSION
        from bot.store.postgres import CONNECT_ERRORS, probe

        where = settings.database
        try:
            version = asyncio.run(probe(settings.postgres_url))
        except CONNECT_ERRORS as exc:
            _say(f"unhealthy: cannot reach the database {where}: {exc}", settings.secrets())
            return EXIT_FAILED
        if version > PG_LATEST_VERSION:
            _say(f"unhealthy: the database {where} is from a newer bot (schema {version})")
            return EXIT_FAILED
        state = f"database {where} (schema {version} of {PG_LATEST_VERSION})"
    elif path.exists():
        try:
            con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
            try:
                version = int(con.execute("PRAGMA user_version").fetchone()[0])
            finally:
                con.close()
        except sqlite3.Error as exc:
            _say(f"unhealthy: cannot read the database {path}: {exc}")
            return EXIT_FAILED
        if version > LATEST_VERSION:
            _say(f"unhealthy: the database {path} is from a newer bot (schema {version})")
            return EXIT_FAILED
        state = f"database {path} (schema {version} of {LATEST_VERSION})"
    else:
        folder = path.resolve().parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not os.access(folder, os.W_OK):
            _say(f"unhealthy: cannot create the database {path}: {folder} is not writable")
            return EXIT_FAILED
        state = f"database {path} (not created yet)"
    if settings.mode == "webhook":
        host = settings.webhook_listen
        if host in ("0.0.0.0", "::", ""):
            host = "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        url = f"http://{host}:{settings.webhook_port}{HEALTH_PATH}"
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                status = int(response.status)
        except urllib.error.HTTPError as exc:
            status = exc.code
        except (urllib.error.URLError, OSError) as exc:
            _say(f"unhealthy: no answer from {url}: {exc}")
            return EXIT_FAILED
        if status != 200:
            _say(f"unhealthy: {url} answered {status}")
            return EXIT_FAILED
        state += f"; webhook server answers on {url}"
    _say(f"ok: settings valid; {state}")
    return EXIT_OK


# -------------------------------------------------------------------- running


def _quiet_exit() -> None:
    """Start-up failed before PTB could close its HTTP sessions: the process exits now, so
    aiohttp's notes about unclosed sessions at exit are noise after the one-line reason."""
    logging.getLogger("asyncio").addFilter(
        lambda record: not record.getMessage().startswith("Unclosed")
    )


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where it is installed (not on Windows): the same work for
    markedly less CPU per move; else asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def _run(settings: Settings) -> int:
    from telegram.error import InvalidToken, NetworkError, TelegramError

    from bot.app import build_application
    from bot.transport.webhook import ALLOWED_UPDATES, ListenError, run_webhook

    app = build_application(settings)
    log.info("starting: %s", settings.summary())
    # Everything imported so far lives as long as the process: the collector's full passes
    # need not walk it again and again (they would pause every table for tens of ms).
    gc.collect()
    gc.freeze()
    # and so does most of what comes later: the collector's full passes, which would walk
    # it all every few seconds, are made once every ten minutes (bot.base.collector)
    make_full_passes_rare()
    loop_factory = _loop_factory()
    try:
        if settings.mode == "webhook":
            run_webhook(app, settings, loop_factory)
        elif settings.postgres_url:
            from bot.cluster.run import run_cluster

            # one of any number of processes on the database: it polls while it holds
            # polling's lease
            run_cluster(app, loop_factory)
        else:
            if loop_factory is not None:
                asyncio.set_event_loop(loop_factory())  # run_polling runs on the current loop
            app.run_polling(allowed_updates=ALLOWED_UPDATES)
    except InvalidToken:
        _quiet_exit()
        _say(f"BOT_TOKEN is invalid: the Bot API at {settings.base_url} refused it")
        return EXIT_CONFIG
    except ListenError as exc:
        _quiet_exit()
        _say(f"{exc.setting}: {exc}")
        return EXIT_CONFIG
    except NetworkError as exc:
        _quiet_exit()
        _say(f"cannot reach the Bot API at {settings.base_url}: {exc}", settings.secrets())
        return EXIT_FAILED
    except TelegramError as exc:
        _quiet_exit()
        _say(f"the Bot API refused to start the bot: {exc}", settings.secrets())
        return EXIT_FAILED
    except Exception:  # a bug: logged (one line, secrets redacted), not dumped raw
        log.critical("the bot stopped on an unexpected error", exc_info=True)
        return EXIT_FAILED
    log.info("stopped")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bot (or check it with ``--check``); the process's exit status."""
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Durak for Telegram groups. Settings come from the environment and "
        ".env (see README.md).",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="check the settings and the database (and, in webhook mode, that the running "
        "bot answers), then exit: 0 if healthy",
    )
    args = parser.parse_args(argv)
    settings = load_settings()
    if settings is None:
        return EXIT_CONFIG
    if args.check:
        return _check(settings)
    configure_logging(settings)
    problem = _database_problem(settings)
    if problem is not None:
        _say(problem, settings.secrets())
        return EXIT_CONFIG
    return _run(settings)


if __name__ == "__main__":
    raise SystemExit(main())
