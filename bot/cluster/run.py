"""Polling mode on PostgreSQL: the application runs, and polls only while this process holds
polling's lease (:class:`~bot.cluster.member.Member`), until SIGINT or SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable
from typing import Any

from telegram.ext import Application

from bot.cluster.member import Member

__all__ = ["run_cluster", "serve_cluster"]

log = logging.getLogger(__name__)

AnyApp = Application[Any, Any, Any, Any, Any, Any]


async def serve_cluster(app: AnyApp, stop: asyncio.Event) -> None:
    """Start the application (with its post_* hooks, as ``run_polling`` does), let the
    member poll when it holds the lease, and run until ``stop`` is set; then leave (the
    updates in hand finish, the leases go back at once) and stop."""
    await app.initialize()
    try:
        if app.post_init is not None:
            await app.post_init(app)
        await app.start()
        try:
            member = app.bot_data["runtime"].cluster
            assert isinstance(member, Member)
            member.take_polling()
            await stop.wait()
            log.info("stopping")
        finally:
            member = app.bot_data["runtime"].cluster
            if isinstance(member, Member):
                await member.leave()
            if app.running:
                await app.stop()
            if app.post_stop is not None:
                await app.post_stop(app)
    finally:
        await app.shutdown()
        if app.post_shutdown is not None:
            await app.post_shutdown(app)


def run_cluster(
    app: AnyApp, loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None
) -> None:
    """Run until SIGINT or SIGTERM (on a loop from ``loop_factory``)."""

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await serve_cluster(app, stop)

    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(main())
