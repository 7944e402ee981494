"""Builds the PTB Application: settings, store, table service, publisher, handlers, clocks."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from dataclasses import dataclass, field

from telegram.ext import Application, ApplicationBuilder, ContextTypes

from bot import callbacks as cb
from bot.config import Settings
from bot.ordering import TableOrder
from bot.pacing import Pacer, Pacing
from bot.request import AiohttpRequest
from bot.sender import Publisher
from bot.store import Store
from bot.tables import TableService

__all__ = ["Runtime", "build_application", "runtime"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Runtime:
    """Everything the handlers share, built at start-up (never at import time)."""

    settings: Settings
    codec: cb.CallbackCodec
    order: TableOrder
    store: Store | None = None
    service: TableService | None = None
    publisher: Publisher | None = None
    bot_username: str = ""
    extras: dict[str, object] = field(default_factory=dict)
    user_locks: tuple[asyncio.Lock, ...] = field(
        default_factory=lambda: tuple(asyncio.Lock() for _ in range(64))
    )
    """Striped locks serializing each user's read-modify-write of his stored row."""

    def user_lock(self, user_id: int) -> asyncio.Lock:
        """The lock guarding one user's stored row (shared with a few other users)."""
        return self.user_locks[user_id % len(self.user_locks)]

    @property
    def tables(self) -> TableService:
        """The table service (after start-up)."""
        assert self.service is not None, "the bot has not started"
        return self.service

    @property
    def out(self) -> Publisher:
        """The publisher (after start-up)."""
        assert self.publisher is not None, "the bot has not started"
        return self.publisher


def runtime(context: ContextTypes.DEFAULT_TYPE) -> Runtime:
    """The runtime stored in the application's bot_data."""
    found = context.application.bot_data["runtime"]
    assert isinstance(found, Runtime)
    return found


def _codec_key(settings: Settings) -> bytes:
    """A signing key for callback data, derived from the token (never shown anywhere)."""
    secret = settings.bot_token.get_secret_value().encode()
    return hashlib.sha256(b"durak callback data\0" + secret).digest()


def build_application(
    settings: Settings,
    builder: ApplicationBuilder | None = None,
    pacing: Pacing | None = None,
) -> Application:
    """The bot's Application; call ``run_polling`` on it or drive it in tests.

    ``builder`` lets tests start from a builder already pointed at a test server, and
    ``pacing`` replace the settings' figures (a test server's scaled ones).
    """
    from bot import handlers

    order = TableOrder()
    rt = Runtime(settings=settings, codec=cb.CallbackCodec(_codec_key(settings)), order=order)
    if builder is None:
        builder = (
            ApplicationBuilder()
            .token(settings.bot_token.get_secret_value())
            .base_url(settings.base_url)
            .base_file_url(settings.base_file_url)
        )
    app = (
        builder.request(AiohttpRequest(connection_pool_size=256))
        .get_updates_request(AiohttpRequest(connection_pool_size=1))
        .rate_limiter(Pacer(pacing or settings.pacing()))
        .concurrent_updates(order)
        .post_init(handlers.post_init)
        .post_stop(handlers.post_stop)
        .post_shutdown(handlers.post_shutdown)
        .build()
    )
    app.bot_data["runtime"] = rt
    handlers.install(app, rt)
    return app
