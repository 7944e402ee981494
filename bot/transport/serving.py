"""Running the application until SIGINT or SIGTERM, started and stopped as PTB's
``run_polling`` does (with the post_* hooks), for the modes that drive it themselves: a
webhook (:mod:`bot.transport.webhook`) and one of several processes (:mod:`bot.cluster.run`)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from telegram.ext import Application

__all__ = ["run_until_signalled", "started"]

AnyApp = Application[Any, Any, Any, Any, Any, Any]


@contextlib.asynccontextmanager
async def started(
    app: AnyApp, before_start: Callable[[], None] | None = None
) -> AsyncIterator[None]:
    """The application initialised (post_init run; then ``before_start``) and started for
    the body; afterwards this process's part of several goes back to the others (once the
    updates in hand are done), and the application stops and shuts down."""
    await app.initialize()
    try:
        if app.post_init is not None:
            await app.post_init(app)
        if before_start is not None:
            before_start()
        await app.start()
        try:
            yield
        finally:
            cluster = getattr(app.bot_data.get("runtime"), "cluster", None)
            if cluster is not None:
                await cluster.leave()
            if app.running:
                await app.stop()
            if app.post_stop is not None:
                await app.post_stop(app)
    finally:
        await app.shutdown()
        if app.post_shutdown is not None:
            await app.post_shutdown(app)


def run_until_signalled(
    serve: Callable[[asyncio.Event], Awaitable[None]],
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None,
) -> None:
    """Run ``serve(stop)`` on a loop from ``loop_factory``; SIGINT and SIGTERM set ``stop``."""

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await serve(stop)

    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(main())
