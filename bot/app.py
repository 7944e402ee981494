"""Builds the PTB Application: settings, pacing, the runtime the handlers share, handlers."""

from __future__ import annotations

import hashlib
import logging

from telegram.ext import Application, ApplicationBuilder, TypeHandler

from bot.base.config import Settings
from bot.chat import handlers
from bot.chat.runtime import Runtime
from bot.cluster.relayed import on_relayed
from bot.lifecycle import post_init, post_shutdown, post_stop
from bot.service import callbacks as cb
from bot.service.inbox import Relayed
from bot.service.links import StartTokens, WebAppLinks, start_key
from bot.transport.extbot import DurakBot
from bot.transport.ordering import TableOrder
from bot.transport.pacing import Pacer, Pacing, pacing_of, use_timedelta_periods
from bot.transport.request import AiohttpRequest, UpdatesRequest
from bot.transport.sent import SentLog

__all__ = ["build_application"]

log = logging.getLogger(__name__)


def _codec_key(settings: Settings) -> bytes:
    """A signing key for callback data, derived from the token (never shown anywhere)."""
    secret = settings.bot_token.get_secret_value().encode()
    return hashlib.sha256(b"durak callback data\0" + secret).digest()


def build_application(settings: Settings, pacing: Pacing | None = None) -> Application:
    """The bot's Application; call ``run_polling`` on it or drive it in tests.

    It talks to ``settings.base_url`` (tests point it at a test server); ``pacing``
    replaces the settings' figures (a test server's scaled ones).
    """
    use_timedelta_periods()
    order = TableOrder()
    updates = UpdatesRequest(connection_pool_size=1)
    rt = Runtime(
        settings=settings,
        codec=cb.CallbackCodec(_codec_key(settings)),
        order=order,
        updates_request=updates,
    )
    if settings.webapp_url is not None:
        tokens = StartTokens(start_key(settings.bot_token.get_secret_value()))
        rt.webapp = WebAppLinks(settings.webapp_url, settings.webapp_short_name, tokens)
    bot = DurakBot(
        settings.bot_token.get_secret_value(),
        base_url=settings.base_url,
        base_file_url=settings.base_file_url,
        request=AiohttpRequest(connection_pool_size=256),
        get_updates_request=updates,
        rate_limiter=Pacer(pacing or pacing_of(settings), sent=SentLog()),
        gather=settings.poll_gather,
    )
    app = (
        ApplicationBuilder()
        .bot(bot)
        .concurrent_updates(order)
        .post_init(post_init)
        .post_stop(post_stop)
        .post_shutdown(post_shutdown)
        .build()
    )
    app.bot_data["runtime"] = rt
    handlers.install(app, rt)
    # what another process asks of a table held here (several processes on one database)
    app.add_handler(TypeHandler(Relayed, on_relayed))
    return app
