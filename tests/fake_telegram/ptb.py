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
    """initialize, start and poll; on exit stop polling, stop and shut down."""
    await app.initialize()
    try:
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
    finally:
        await app.shutdown()
