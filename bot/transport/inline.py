"""Messages the bot posted through inline mode, kept current by editing them in place.

An inline message (an invitation a user chose from the bot's inline results) lives in a
chat the bot is not told of, and may not even be in: the bot knows it by its
``inline_message_id`` alone and can only edit it. Each is a *face*: callers say what it
should show; one worker per face edits it to the latest wanted content, never to one
already shown, each edit paced as a group's (:func:`bot.transport.pacing.inline_budget`:
the chat it is in spends its budget on it, and that chat may be a group). A network
failure is tried again with the newest content; a 429 waits in the pacer; a message that
is gone (deleted, or its chat deleted: Telegram answers MESSAGE_ID_INVALID) is given up:
nothing more is drawn there, and the game it shows goes on in its players' chats.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass, field

from telegram import Bot
from telegram.error import BadRequest, RetryAfter, TelegramError

from bot.render import Screen, plain_clocks, reply_markup
from bot.transport import tgerrors
from bot.transport.pacing import Priority, paced
from bot.transport.request import call
from bot.transport.tasks import cancel_all, settle

__all__ = ["InlineFaces"]

log = logging.getLogger(__name__)

_RETRY_BASE = 0.5
_RETRY_MAX = 8.0


@dataclass(slots=True)
class _Face:
    inline_message_id: str
    wanted: Screen | None = None
    shown: tuple[str, object] | None = None
    worker: asyncio.Task[None] | None = None
    gone: bool = False
    failures: int = 0
    done: list[asyncio.Future[None]] = field(default_factory=list)


class InlineFaces:
    """The inline messages the bot keeps current."""

    def __init__(self, bot: Bot) -> None:
        self._bot = bot
        self._faces: dict[str, _Face] = {}
        self.plain_clocks = False
        """Draw clocks as plain text (a Bot API server that refuses ``<tg-time>``)."""

    def show(self, inline_message_id: str, screen: Screen) -> None:
        """Make the inline message show ``screen`` (as soon as its budget allows)."""
        face = self._faces.get(inline_message_id)
        if face is None:
            face = self._faces[inline_message_id] = _Face(inline_message_id)
        if face.gone:
            return
        face.wanted = screen
        if face.worker is None or face.worker.done():
            face.worker = asyncio.get_running_loop().create_task(
                self._run(face), name=f"inline {inline_message_id[:12]}"
            )

    def gone(self, inline_message_id: str) -> bool:
        """Whether the message was found gone (nothing is drawn there any more)."""
        face = self._faces.get(inline_message_id)
        return face is not None and face.gone

    def forget(self, inline_message_id: str) -> None:
        """Stop tracking the message once it shows what it was last asked to."""
        face = self._faces.get(inline_message_id)
        if face is not None and (face.worker is None or face.worker.done()):
            del self._faces[inline_message_id]

    async def flush(self, timeout: float = 30.0) -> None:
        """Wait until every face shows its latest content (shutdown, tests)."""
        await settle(
            lambda: [f.worker for f in self._faces.values() if f.worker is not None], timeout
        )

    async def close(self) -> None:
        """Stop every worker (after :meth:`flush`, for a clean stop)."""
        await cancel_all([f.worker for f in self._faces.values() if f.worker is not None])

    async def _run(self, face: _Face) -> None:
        while face.wanted is not None and not face.gone:
            screen = face.wanted
            text = plain_clocks(screen.text) if self.plain_clocks else screen.text
            markup = reply_markup(screen.keyboard) if screen.keyboard is not None else None
            if face.shown == (text, markup):
                face.wanted = None
                break
            params = {
                "inline_message_id": face.inline_message_id,
                "text": text,
                "parse_mode": "HTML",
                "reply_markup": markup,
                "link_preview_options": {"is_disabled": True},
            }
            try:
                with paced(Priority.TABLE):
                    await call(self._bot, "editMessageText", params, result=False)
            except RetryAfter:
                continue  # the pacer waited it out already; the newest content goes
            except BadRequest as exc:
                if tgerrors.is_not_modified(exc):
                    face.shown = (text, markup)
                elif tgerrors.is_inline_gone(exc):
                    log.info("inline message %s is gone: %s", face.inline_message_id, exc)
                    face.gone = True
                    return
                else:
                    log.warning("inline message %s: edit refused: %s", face.inline_message_id, exc)
                    face.shown = (text, markup)  # the same content would be refused again
            except TelegramError as exc:
                face.failures += 1
                delay = min(_RETRY_MAX, _RETRY_BASE * 2 ** (face.failures - 1))
                log.info(
                    "inline message %s: %s; again in %.1f s", face.inline_message_id, exc, delay
                )
                await asyncio.sleep(delay * random.uniform(0.8, 1.2))
                continue
            else:
                face.shown = (text, markup)
            face.failures = 0
            if face.wanted is screen:
                face.wanted = None
