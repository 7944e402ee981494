"""Webhook delivery: pending updates are POSTed to the URL setWebhook stored."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import aiohttp

from .world import World

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


async def post_update(
    url: str,
    update: dict[str, Any],
    secret_token: str | None = None,
    *,
    session: aiohttp.ClientSession | None = None,
    timeout: float = 10.0,
) -> int:
    """POST one update as Telegram does (JSON body, secret header); return the HTTP status."""
    headers = {SECRET_HEADER: secret_token} if secret_token else {}
    own = session is None
    client = session or aiohttp.ClientSession()
    try:
        async with client.post(
            url, json=update, headers=headers, timeout=aiohttp.ClientTimeout(total=timeout)
        ) as response:
            await response.read()
            return response.status
    finally:
        if own:
            await client.close()


class WebhookDeliverer:
    """Pushes pending updates to the webhook one at a time, in order, retrying on failure."""

    def __init__(self, world: World, retry_delay: float = 0.1) -> None:
        self.world = world
        self.retry_delay = retry_delay
        self._task: asyncio.Task[None] | None = None

    def refresh(self) -> None:
        """Start delivering if a webhook is set (called when the webhook changes)."""
        if self.world.webhook is not None and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._run())
        self.world.notifier.notify()

    async def stop(self) -> None:
        """Stop delivering."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        world = self.world
        async with aiohttp.ClientSession() as session:
            while True:
                event = world.notifier.current()
                hook = world.webhook
                if hook is None:
                    return
                batch = world.queue.take(1)
                if not batch:
                    await event.wait()
                    continue
                update = batch[0]
                error: str | None = None
                try:
                    status = await post_update(hook.url, update, hook.secret_token, session=session)
                    if not 200 <= status < 300:
                        error = f"Wrong response from the webhook: {status}"
                except (aiohttp.ClientError, TimeoutError, OSError) as exc:
                    error = f"Connection failed: {exc.__class__.__name__}"
                if error is None:
                    world.queue.remove(update["update_id"])
                    hook.delivered += 1
                    world.notifier.notify()
                else:
                    hook.last_error_date = world.now()
                    hook.last_error_message = error
                    world.notifier.notify()
                    await asyncio.sleep(self.retry_delay)
