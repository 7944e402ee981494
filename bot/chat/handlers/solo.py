"""A game against the computer in the private chat: /play, and /leave and /cancel there (its
setup buttons, Play and Play again are decided in :mod:`bot.chat.presses`).

It is a table like a group's, kept and resumed the same way, whose chat is the player's
private chat: one message shows the table and his hand, and its series is his own.
"""

from __future__ import annotations

import logging

from telegram import Update, User
from telegram.ext import ContextTypes

from bot.base.i18n import Lang, tr
from bot.chat.common import (
    computers,
    default_rules,
    presenter_of,
    private_table_of,
    remember,
    reply,
    say,
    user_lang,
)
from bot.chat.presenter import AI_LEVELS, Presenter, solo_opponents
from bot.chat.runtime import Runtime, runtime
from bot.service.tables import SOLO_OPPONENTS, Live, Refused
from bot.store import Seat, TableStatus
from engine import Rules

log = logging.getLogger(__name__)

DEFAULT_OPPONENTS = (1, AI_LEVELS.index("normal"))
"""A first game against the computer: one computer player of the middle level."""


async def solo_rules(rt: Runtime, user_id: int) -> Rules:
    """The rules of his last game against the computer; else the operator's default rules
    without a turn clock (nobody waits on him but the computer)."""
    unhurried = rt.settings.default_rules.model_copy(update={"turn_timeout": 0})
    return await default_rules(rt, user_id, fallback=unhurried)


async def cmd_play(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /play: the setup of a game against the computer (the one going on, if any,
    is shown again at the bottom)."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    await remember(rt, user, started=True)
    lang = await user_lang(rt, user)
    await open_solo(rt, presenter_of(context), user, lang)


async def open_solo(rt: Runtime, presenter: Presenter, user: User, lang: Lang) -> None:
    """The setup of a game against the computer in his private chat, as his last one was
    (or the one going on, shown again at the bottom)."""
    known = await remember(rt, user, started=True)
    async with rt.tables.lock(-user.id):
        live = await rt.tables.open_table(user.id, None)
        if live is not None:
            if live.row.status == TableStatus.PLAYING:
                presenter.back(live, user.id)
            else:
                presenter.repost(live)
            return
        count, level = DEFAULT_OPPONENTS
        latest = await rt.tables.latest(user.id, None)
        before = await rt.tables.get(latest) if latest is not None else None
        if before is not None and solo_opponents(before)[0] in SOLO_OPPONENTS:
            count, level = solo_opponents(before)
        rules = await solo_rules(rt, user.id)
        player = Seat.human(user.id, known.name)
        live = await rt.tables.create(user.id, None, player, rules, computers(lang, count, level))
        log.info("table %s: a game against the computer for %s", live.table_id, user.id)
    await presenter.redraw(live, [])


async def solo_table(update: Update, context: ContextTypes.DEFAULT_TYPE) -> Live | None:
    """The private chat's game against the computer (None, after saying so, if none)."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return None
    live = await rt.tables.open_table(user.id, None)
    if live is None:
        reply(rt, message, say(await user_lang(rt, user), "no_solo"))
    return live


async def cmd_solo_stop(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /leave or /cancel: /leave gives the game against the computer up (he is
    durak, as at any table); /cancel stops it with no result. Before it starts, either
    closes the setup. At a private table (a quick game) /leave gives the game up and
    /cancel says so: a game with other people cannot be called off by one of them."""
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    command = (message.text or "").split()[0].split("@")[0].lstrip("/")
    if await rt.tables.open_table(user.id, None) is None:
        private = await private_table_of(rt, user.id)
        if private is not None:
            await _leave_private(update, context, private, command)
            return
    live = await solo_table(update, context)
    if live is None:
        return
    presenter = presenter_of(context)
    async with live.lock:
        playing = live.row.status == TableStatus.PLAYING
        try:
            if playing and command == "leave":
                events = await rt.tables.resign(live, user.id)
            else:
                await rt.tables.cancel(live)
                events = None
        except Refused as exc:
            reply(rt, message, say(await user_lang(rt, user), exc.reason, **exc.params))
            return
    if events is not None:
        await presenter.after_action(live, events, surrendered_by=user.id)
    else:
        await presenter.cancelled(live, None, lobby=not playing)


async def _leave_private(
    update: Update, context: ContextTypes.DEFAULT_TYPE, live: Live, command: str
) -> None:
    rt = runtime(context)
    message, user = update.effective_message, update.effective_user
    assert message is not None and user is not None
    lang = await user_lang(rt, user)
    if command != "leave":
        reply(rt, message, tr(lang, "quick.no_cancel"))
        return
    async with live.lock:
        try:
            events = await rt.tables.resign(live, user.id)
        except Refused as exc:
            reply(rt, message, say(lang, exc.reason, **exc.params))
            return
    await presenter_of(context).after_action(live, events, surrendered_by=user.id)
