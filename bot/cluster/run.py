"""Polling mode on PostgreSQL: the application runs, and polls only while this process holds
polling's lease (:class:`~bot.cluster.member.Member`), until SIGINT or SIGTERM."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from telegram.ext import Application

from bot.cluster.member import Member
from bot.transport.serving import run_until_signalled, started

__all__ = ["run_cluster", "serve_cluster"]

log = logging.getLogger(__name__)

AnyApp = Application[Any, Any, Any, Any, Any, Any]


async def serve_cluster(app: AnyApp, stop: asyncio.Event) -> None:
    """Start the application, let the member poll when it holds the lease, and run until
    ``stop`` is set; then leave (the updates in hand finish, the leases go back at once)
    and stop."""
    async with started(app):
        member = app.bot_data["runtime"].cluster
        assert isinstance(member, Member)
        member.take_polling()
        await stop.wait()
        log.info("stopping")


def run_cluster(
    app: AnyApp, loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None
) -> None:
    """Run until SIGINT or SIGTERM (on a loop from ``loop_factory``)."""
    run_until_signalled(lambda stop: serve_cluster(app, stop), loop_factory)
