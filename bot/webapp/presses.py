"""A page's presses: the chat's own button code (:mod:`bot.chat.presses`) run for the
user the page's init data names, answered with one ``ack`` or ``notice``.

A press carries the callback data the page was given and the version it showed. It is
refused, changing nothing, if it is not our signed data, names another table than the
page's, or was drawn for an older state than the table's (``outdated``, and the page gets
the current state). A choice or a selection a tap opens is the page's own: only that page
is shown it, and the chat's hand message stays as it was.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    User,
)
from telegram.error import TelegramError

from bot.base.i18n import LANGS, Lang, tr
from bot.chat.common import refusal_text, say
from bot.chat.presses import Outcome, Presser, run_press
from bot.chat.replays import send_replay
from bot.render import Choice
from bot.service import callbacks as cb
from bot.service.shards import NotHere
from bot.service.tables import Live, Refused
from engine import Card
from engine.actions import action_from_dict

from . import frames as f
from .auth import WebAppUser
from .hub import Hub, Page
from .state import Private

if TYPE_CHECKING:
    from bot.chat.presenter import Presenter
    from bot.chat.runtime import Runtime

__all__ = ["PAGE_PRESS", "PageDesk", "private_from", "private_json", "telegram_user"]

log = logging.getLogger(__name__)


PAGE_PRESS = "page"
"""A press of a page connected to another process than the table's holder."""

Shown = Callable[[Live, Private | None], None]
"""What a page is to show after a press: the table, and the page's own choice if any."""


def telegram_user(viewer: WebAppUser) -> User:
    """A page's user as PTB's ``User`` (the handlers' shared code takes one)."""
    found = viewer
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

        def shown(live: Live, private: Private | None) -> None:
            page.private = private
            self._hub.show(page, live)

        try:
            return await self.run(page.table_id, page.user, page.lang, frame.press, frame.v, shown)
        except NotHere as exc:
            return await self._elsewhere(page, frame, exc.shard)

    async def run(
        self,
        table_id: int,
        viewer: WebAppUser,
        lang: Lang,
        press: str,
        v: int,
        shown: Shown,
    ) -> dict[str, Any]:
        """Run the press ``press`` made on a page of ``table_id`` at version ``v`` by
        ``viewer``; ``shown`` is told what the page is to show now (a choice the press
        opened, or the current state of a refused one). The answer's frame.
        :class:`~bot.service.shards.NotHere` if another process holds the table."""
        rt = self._rt
        try:
            decoded = rt.codec.decode(press)
        except cb.BadCallback:
            return f.notice("malformed", say(lang, "malformed"))
        if getattr(decoded, "table", None) != table_id or isinstance(
            decoded, cb.SetLang | cb.ReplayStep
        ):
            return f.notice("wrong_table", tr(lang, "webapp.notice.wrong_table"))
        user = telegram_user(viewer)
        try:
            live = await rt.tables.get(table_id)
            if live is None:
                raise Refused("gone")
            if v != live.version:
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
                    shown(
                        live,
                        Private(live.version, outcome.choice, outcome.selection, outcome.purpose)
                        if shows
                        else None,
                    )
                answered.update(f.ack(live.version, outcome.text))

            presser = Presser(user, lang, self._bot)
            await run_press(rt, self._presenter, presser, decoded, answer)
            return answered
        except Refused as exc:
            if exc.reason in ("outdated", "rematch_old"):
                current = await rt.tables.get(table_id)
                if current is not None:
                    shown(current, None)
            return f.notice(exc.reason, refusal_text(lang, exc))

    async def share(self, page: Page) -> dict[str, Any]:
        """A prepared message (Bot API 8.0, ``savePreparedInlineMessage``) that invites to
        the page's table with its direct link, for the page to hand to Telegram's
        ``shareMessage``: the user picks the chat. A ``notice`` where the table has no
        direct link (no Mini App short name) or Telegram refuses."""
        lang = page.lang
        links = self._rt.webapp
        link = links.direct_link(self._rt.bot_username, page.table_id) if links else None
        if link is None:
            return f.notice("no_share", tr(lang, "webapp.no_share"))
        title = await self._presenter.title(await self._chat_of(page.table_id))
        text = tr(lang, "webapp.invite_text", group=title or tr(lang, "table.title"))
        result = InlineQueryResultArticle(
            id=f"t{page.table_id}",
            title=tr(lang, "webapp.invite_title"),
            input_message_content=InputTextMessageContent(text),
            reply_markup=InlineKeyboardMarkup(
                [[InlineKeyboardButton(tr(lang, "table.btn.open_app"), url=link)]]
            ),
        )
        try:
            prepared = await self._bot.save_prepared_inline_message(
                page.user.id, result, allow_user_chats=True, allow_group_chats=True
            )
        except TelegramError as exc:
            log.info("table %s: no invitation prepared: %s", page.table_id, exc)
            return f.notice("no_share", tr(lang, "webapp.no_share"))
        return {"t": "share", "id": prepared.id}

    async def _chat_of(self, table_id: int) -> int:
        assert self._rt.store is not None
        row = await self._rt.store.get_table(table_id)
        return row.chat_id if row is not None else 0

    async def _elsewhere(self, page: Page, frame: f.Press, shard: int) -> dict[str, Any]:
        """A press of a page of a table another process holds: run there, and answered and
        shown here."""
        member = self._rt.cluster
        if member is None:
            return f.notice("try_again", say(page.lang, "try_again"))
        user = page.user
        answer = await member.ask(
            PAGE_PRESS,
            page.table_id,
            shard,
            user={
                "id": user.id,
                "first_name": user.first_name,
                "last_name": user.last_name,
                "username": user.username,
                "language_code": user.language_code,
            },
            lang=page.lang,
            press=frame.press,
            v=frame.v,
        )
        reply = answer.get("reply") if answer is not None else None
        if answer is None or not isinstance(reply, dict):
            return f.notice("try_again", say(page.lang, "try_again"))
        if answer.get("show"):
            live = await self._rt.tables.peek(page.table_id)
            if live is not None:
                page.private = private_from(answer.get("private"))
                self._hub.show(page, live)
        return reply

    async def run_relayed(self, table_id: int, data: Mapping[str, Any]) -> dict[str, Any]:
        """A press of a page connected to another process (:meth:`_elsewhere`), run here,
        where the table is held: what to answer it."""
        told: dict[str, Any] = {"show": False, "private": None}

        def shown(live: Live, private: Private | None) -> None:
            told.update(show=True, private=private_json(private))

        person = data.get("user")
        lang = data.get("lang")
        if not isinstance(person, dict) or lang not in LANGS:
            return {"reply": f.notice("malformed", say("en", "malformed"))}
        viewer = WebAppUser(
            int(person["id"]),
            str(person.get("first_name") or ""),
            str(person.get("last_name") or ""),
            person.get("username"),
            person.get("language_code"),
        )
        reply = await self.run(
            table_id, viewer, lang, str(data.get("press")), int(data.get("v", -1)), shown
        )
        return {"reply": reply, **told}


def private_json(private: Private | None) -> dict[str, Any] | None:
    """A page's pending choice or selection, to send to another process."""
    if private is None:
        return None
    choice = private.choice
    return {
        "version": private.version,
        "purpose": private.purpose,
        "selection": sorted(c.code for c in private.selection)
        if private.selection is not None
        else None,
        "choice": None
        if choice is None
        else {
            "card": choice.card.code,
            "select": choice.select,
            "actions": [a.to_dict() for a in choice.actions],
        },
    }


def private_from(data: object) -> Private | None:
    """The pending choice or selection another process sent (:func:`private_json`)."""
    if not isinstance(data, dict):
        return None
    try:
        choice = data.get("choice")
        selection = data.get("selection")
        return Private(
            int(data["version"]),
            Choice(
                Card.parse(choice["card"]),
                tuple(action_from_dict(a) for a in choice["actions"]),
                bool(choice["select"]),
            )
            if isinstance(choice, dict)
            else None,
            frozenset(Card.parse(c) for c in selection) if isinstance(selection, list) else None,
            str(data.get("purpose", "lead")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        log.warning("a page's choice from another process unreadable: %s", exc)
        return None
