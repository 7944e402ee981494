"""A page's presses: the chat's own button code (:mod:`bot.handlers.presses`) run for the
user the page's init data names, answered with one ``ack`` or ``notice``.

A press carries the callback data the page was given and the version it showed. It is
refused, changing nothing, if it is not our signed data, names another table than the
page's, or was drawn for an older state than the table's (``outdated``, and the page gets
the current state). A choice or a selection a tap opens is the page's own: only that page
is shown it, and the chat's hand message stays as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from telegram import Bot, User

from bot import callbacks as cb
from bot.handlers.common import refusal_text, say
from bot.handlers.presses import Outcome, Presser, run_press
from bot.handlers.replay import send_replay
from bot.i18n import tr
from bot.tables import Live, Refused

from . import frames as f
from .hub import Hub, Page
from .state import Private

if TYPE_CHECKING:
    from bot.presenter import Presenter
    from bot.runtime import Runtime

__all__ = ["PageDesk", "telegram_user"]


def telegram_user(page: Page) -> User:
    """The page's user as PTB's ``User`` (the handlers' shared code takes one)."""
    found = page.user
    return User(
        id=found.id,
        first_name=found.first_name,
        is_bot=False,
        last_name=found.last_name or None,
        username=found.username,
        language_code=found.language_code,
    )


class PageDesk:
    """Runs the presses of the pages (see the module's doc)."""

    def __init__(self, rt: Runtime, presenter: Presenter, hub: Hub, bot: Bot) -> None:
        self._rt = rt
        self._presenter = presenter
        self._hub = hub
        self._bot = bot

    async def press(self, page: Page, frame: f.Press) -> dict[str, Any]:
        """Run one press; the ``ack`` or ``notice`` that answers it."""
        lang = page.lang
        rt = self._rt
        try:
            decoded = rt.codec.decode(frame.press)
        except cb.BadCallback:
            return f.notice("malformed", say(lang, "malformed"))
        if getattr(decoded, "table", None) != page.table_id or isinstance(
            decoded, cb.SetLang | cb.ReplayStep
        ):
            return f.notice("wrong_table", tr(lang, "webapp.notice.wrong_table"))
        user = telegram_user(page)
        try:
            live = await rt.tables.get(page.table_id)
            if live is None:
                raise Refused("gone")
            if frame.v != live.version:
                raise Refused("outdated")
            if isinstance(decoded, cb.ReplayOpen):
                if not await send_replay(rt, user, decoded.table, decoded.game, lang):
                    raise Refused("open_private")
                return f.ack(live.version, say(lang, "replay_sent"))
            answered: dict[str, Any] = {}

            async def answer(live: Live, outcome: Outcome) -> None:
                if outcome.url is not None:
                    raise Refused("open_private")
                if outcome.show:
                    shows = outcome.choice is not None or outcome.selection is not None
                    page.private = (
                        Private(live.version, outcome.choice, outcome.selection, outcome.purpose)
                        if shows
                        else None
                    )
                    self._hub.show(page, live)
                answered.update(f.ack(live.version, outcome.text))

            presser = Presser(user, lang, self._bot)
            await run_press(rt, self._presenter, presser, decoded, answer)
            return answered
        except Refused as exc:
            if exc.reason in ("outdated", "rematch_old"):
                current = await rt.tables.get(page.table_id)
                if current is not None:
                    self._hub.show(page, current)
            return f.notice(exc.reason, refusal_text(lang, exc))
