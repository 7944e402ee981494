"""The group's table before and between games: /newgame, /tournament, /leave, /cancel. The
lobby's buttons (Join, Leave, Settings and their pages, computer players, a tournament's
number of games, Start, Rematch) are decided in :mod:`bot.chat.presses`.
"""

from __future__ import annotations

import logging

from telegram import (
    Update,
)
from telegram.ext import (
    ContextTypes,
)

from bot.chat.common import (
    anonymous_admin,
    chat_lang,
    default_rules,
    display_name,
    group_table,
    may_manage,
    presenter_of,
    reachable,
    remember,
    reply,
    say,
)
from bot.chat.runtime import runtime
from bot.service.tables import Refused
from bot.service.tourneys import DEFAULT_GAMES
from bot.store import ChatRow, Seat, TableStatus

log = logging.getLogger(__name__)


async def cmd_newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Open a lobby in this group or topic (or point to the one that is open)."""
    await open_lobby(update, context)


async def cmd_tournament(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Open a tournament's sign-up in this group or topic: a lobby with the number of games
    to choose (or point to the table that is open)."""
    await open_lobby(update, context, tourney=DEFAULT_GAMES)


async def open_lobby(
    update: Update, context: ContextTypes.DEFAULT_TYPE, *, tourney: int | None = None
) -> None:
    """Open a lobby (``tourney``: a tournament's sign-up of that many games), or show the
    table open here again."""
    rt = runtime(context)
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    thread = message.message_thread_id if message.is_topic_message else None
    lang = await chat_lang(rt, chat.id, user)
    presenter = presenter_of(context)
    async with rt.tables.lock(-chat.id):
        live = await rt.tables.open_table(chat.id, thread)
        if live is not None:
            presenter.repost(live)
            return
        rules = await default_rules(rt, chat.id)
        chat_row = await rt.store.get_chat(chat.id) if rt.store else None
        if chat_row is None and rt.store is not None:
            await rt.store.save_chat(ChatRow(chat.id, lang, None, thread))
        # posted as the group (an anonymous admin): nobody to seat; the admins run it
        known = None if anonymous_admin(message, chat.id) else await remember(rt, user)
        if known is not None:
            known = await reachable(rt, user, known)
        creator = Seat.human(user.id, known.name) if known is not None else None
        live = await rt.tables.create(chat.id, thread, creator, rules)
        if tourney is not None:
            await rt.tables.open_tourney(live, tourney)
        if known is not None:
            # one who never started the bot plays in the group, his hand shown to him alone
            presenter.note_private(user.id, known.can_message)
    await presenter.redraw(live, [])


async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Leave the lobby; during a game, surrender (he is durak)."""
    rt = runtime(context)
    found = await group_table(update, context)
    if found is None:
        return
    message, user, lang, live = found
    between = False
    async with live.lock:
        try:
            if live.row.status == TableStatus.PLAYING:
                events = await rt.tables.resign(live, user.id)
                # at a tournament he scores no more: the others go on without him
                await rt.tables.tourney_leave(live, user.id)
                await presenter_of(context).after_action(live, events, surrendered_by=user.id)
                return
            between = live.row.status == TableStatus.FINISHED
            if between and live.seat_of(user.id) is not None:
                await rt.tables.tourney_leave(live, user.id)
            await rt.tables.leave_lobby(live, user.id)
        except Refused as exc:
            reply(rt, message, say(lang, exc.reason, **exc.params))
            return
    if between:
        # a tournament between two games: its next one is dealt without him
        reply(rt, message, say(lang, "left"))
        return
    await presenter_of(context).redraw(live, [])


async def cmd_cancel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Abort the lobby or game with no tally (the creator or an admin)."""
    rt = runtime(context)
    found = await group_table(update, context)
    if found is None:
        return
    message, user, lang, live = found
    anonymous = anonymous_admin(message, live.row.chat_id)
    if not await may_manage(context, live, user.id, message):
        reply(rt, message, say(lang, "not_allowed"))
        return
    presenter = presenter_of(context)
    async with live.lock:
        lobby = live.row.status == TableStatus.LOBBY
        if live.row.status == TableStatus.FINISHED:
            # a tournament between two games: it stops here, its games played stay
            if not await presenter.tourneys.stopped(live):
                reply(rt, message, say(lang, "no_game"))
            return
        try:
            await rt.tables.cancel(live)
        except Refused as exc:
            reply(rt, message, say(lang, exc.reason, **exc.params))
            return
    by = None if anonymous else display_name(user)
    await presenter.cancelled(live, by, lobby=lobby)
    async with live.lock:
        await presenter.tourneys.stopped(live)
