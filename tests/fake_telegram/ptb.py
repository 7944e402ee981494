"""Running a real PTB Application against the fake server."""

from __future__ import annotations

import datetime as dtm
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from telegram.ext import Application


@asynccontextmanager
async def running(
    app: Application[Any, Any, Any, Any, Any, Any],
    *,
    poll_timeout: float = 1.0,
    allowed_updates: list[str] | None = None,
) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    """initialize, start and poll; on exit stop polling, stop and shut down — with the
    ``post_init``, ``post_stop`` and ``post_shutdown`` hooks, as ``run_polling`` runs them."""
    await app.initialize()
    try:
        if app.post_init is not None:
            await app.post_init(app)
        await app.start()
        updater = app.updater
        if updater is None:
            raise RuntimeError("the application has no updater")
        await updater.start_polling(
            poll_interval=0.0,
            timeout=dtm.timedelta(seconds=poll_timeout),
            allowed_updates=allowed_updates,
        )
        try:
            yield app
        finally:
            if updater.running:
                await updater.stop()
            if app.running:
                await app.stop()
            if app.post_stop is not None:
                await app.post_stop(app)
    finally:
        await app.shutdown()
        if app.post_shutdown is not None:
            await app.post_shutdown(app)
